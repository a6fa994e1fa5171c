// Technique of the CUDA Programming Guide's grid_group (cg::this_grid()) used
// in an ordinary, non-cooperative launch for its indices only: thread_rank()
// and size() replace the blockIdx/blockDim arithmetic of a grid-stride loop (no
// grid.sync(), so no cooperative launch is needed).
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

__global__ void grid_scale(float *data, float s, int n)
{
    cg::grid_group grid = cg::this_grid();
    for (unsigned long long i = grid.thread_rank(); i < (unsigned long long)n; i += grid.size())
        data[i] *= s;
}
