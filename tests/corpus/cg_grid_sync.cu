// Technique of cuda-samples 2_Concepts_and_Techniques/reductionMultiBlockCG
// (a whole reduction in one cooperative launch: every block writes its partial
// sum, grid.sync() waits for all of them, block 0 adds the partials) — needs
// cudaLaunchCooperativeKernel, i.e. a launch with cooperative=True.
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

__global__ void reduce_grid_sync(const float *in, float *partials, float *total, int n)
{
    cg::thread_block block = cg::this_thread_block();
    cg::grid_group grid = cg::this_grid();
    extern __shared__ float sdata[];

    float s = 0.0f;
    for (unsigned long long i = grid.thread_rank(); i < (unsigned long long)n; i += grid.size())
        s += in[i];
    sdata[block.thread_rank()] = s;
    block.sync();
    for (unsigned int k = block.size() / 2; k > 0; k >>= 1) {
        if (block.thread_rank() < k)
            sdata[block.thread_rank()] += sdata[block.thread_rank() + k];
        block.sync();
    }
    if (block.thread_rank() == 0)
        partials[blockIdx.x] = sdata[0];

    grid.sync();

    if (blockIdx.x == 0 && block.thread_rank() == 0) {
        float t = 0.0f;
        for (unsigned int b = 0; b < gridDim.x; b++)
            t += partials[b];
        *total = t;
    }
}
