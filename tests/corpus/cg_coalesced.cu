// Technique of the NVIDIA blog "Cooperative Groups: Flexible CUDA Thread
// Programming" (atomicAggInc with coalesced_threads(): the active threads of a
// divergent branch form a coalesced_group, its rank 0 does one atomicAdd for
// the group, the base is broadcast with g.shfl, each thread adds its rank).
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

__device__ int atomicAggInc(int *p)
{
    cg::coalesced_group g = cg::coalesced_threads();
    int prev;
    if (g.thread_rank() == 0)
        prev = atomicAdd(p, g.size());
    prev = g.thread_rank() + g.shfl(prev, 0);
    return prev;
}

// dst gets the positive elements of src (in no particular order); *nres counts them
__global__ void filter_coalesced(int *dst, int *nres, const int *src, int n)
{
    int i = threadIdx.x + blockIdx.x * blockDim.x;
    if (i < n && src[i] > 0)
        dst[atomicAggInc(nres)] = src[i];
}
