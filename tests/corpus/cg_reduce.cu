// Technique of cuda-samples 2_Concepts_and_Techniques/reductionMultiBlockCG and
// the CUDA Programming Guide's cg::reduce section (<cooperative_groups/reduce.h>):
// cg::reduce over a thread_block_tile<32> with cg::plus<int> for a sum and
// cg::greater<float> for a maximum, the per-warp results combined in shared
// memory by the first warp.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
namespace cg = cooperative_groups;

// out[blockIdx.x] = the sum of the block's inputs (blockDim.x a multiple of 32)
__global__ void cg_block_sum(const int *in, int *out, int n)
{
    __shared__ int warpSums[32];
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int v = (i < n) ? in[i] : 0;
    int s = cg::reduce(tile, v, cg::plus<int>());
    if (tile.thread_rank() == 0)
        warpSums[tile.meta_group_rank()] = s;
    block.sync();
    if (tile.meta_group_rank() == 0) {
        int w = (tile.thread_rank() < tile.meta_group_size()) ? warpSums[tile.thread_rank()] : 0;
        w = cg::reduce(tile, w, cg::plus<int>());
        if (tile.thread_rank() == 0)
            out[blockIdx.x] = w;
    }
}

// out[warp] = the largest input of each warp
__global__ void cg_warp_max(const float *in, float *out)
{
    cg::thread_block_tile<32> tile = cg::tiled_partition<32>(cg::this_thread_block());
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float m = cg::reduce(tile, in[i], cg::greater<float>());
    if (tile.thread_rank() == 0)
        out[i / 32] = m;
}
