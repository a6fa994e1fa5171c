// Technique of the CUDA Programming Guide's cooperative groups section on
// partitioning (labeled_partition: the threads of a tile with the same label form
// a coalesced_group; binary_partition: the same with a predicate), used as in
// NVIDIA's examples to count and rank equal keys within a warp.
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

// for each thread: how many lanes of its warp share its key, and its rank among them
__global__ void label_groups(const int *keys, int *count, int *rank)
{
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    cg::coalesced_group same = cg::labeled_partition(warp, keys[i]);
    count[i] = same.size();
    rank[i] = same.thread_rank();
}

// for each thread: the number of lanes of its warp on its side of v >= 0, and the
// sum of their values
__global__ void split_sign(const int *v, int *count, int *sum)
{
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(cg::this_thread_block());
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    cg::coalesced_group side = cg::binary_partition(warp, v[i] >= 0);
    int total = 0;
    for (int r = 0; r < (int)side.size(); r++)
        total += side.shfl(v[i], r);
    count[i] = side.size();
    sum[i] = total;
}
