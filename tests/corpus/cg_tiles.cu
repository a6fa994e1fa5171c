// Technique of the NVIDIA blog "Cooperative Groups: Flexible CUDA Thread
// Programming" and the CUDA Programming Guide's cooperative groups chapter:
// this_thread_block() with thread_rank()/size()/sync(), static tiles from
// tiled_partition<32> and tiled_partition<4>, and thread_block_tile's shfl,
// shfl_down, any, all and ballot. <cooperative_groups.h>, namespace cg.
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

template <int TILE>
__device__ int tile_sum(cg::thread_block_tile<TILE> g, int val)
{
    for (int i = g.size() / 2; i > 0; i /= 2)
        val += g.shfl_down(val, i);
    return val; // lane 0 has the tile's sum
}

// out[t] = the sum of t's 32-thread tile, broadcast with shfl from rank 0
extern "C" __global__ void tile32_sum(const int *in, int *out)
{
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> tile32 = cg::tiled_partition<32>(block);
    int gi = blockIdx.x * block.size() + block.thread_rank();
    int s = tile_sum<32>(tile32, in[gi]);
    out[gi] = tile32.shfl(s, 0);
}

// per 4-thread tile: any/all/ballot of in > 0, written by the tile's rank 0
extern "C" __global__ void tile4_votes(const int *in, unsigned int *votes)
{
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<4> tile4 = cg::tiled_partition<4>(block);
    unsigned int gi = blockIdx.x * block.size() + block.thread_rank();
    int p = in[gi] > 0;
    unsigned int any = tile4.any(p);
    unsigned int all = tile4.all(p);
    unsigned int bal = tile4.ballot(p);
    block.sync();
    if (tile4.thread_rank() == 0) {
        unsigned int t = gi / 4;
        votes[3 * t + 0] = any;
        votes[3 * t + 1] = all;
        votes[3 * t + 2] = bal;
    }
}
