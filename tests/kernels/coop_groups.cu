// Cooperative groups within a block: thread_block sync, 8-wide warp tiles
// with reduce / inclusive_scan / ballot. Compiled with no_extern_c=True.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cooperative_groups/scan.h>
namespace cg = cooperative_groups;

extern "C" __global__ void tiles(const int *in, int *sum, int *scan, unsigned int *odd)
{
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<8> tile = cg::tiled_partition<8>(block);
    int i = (int)block.thread_rank();
    int v = in[i];
    sum[i] = cg::reduce(tile, v, cg::plus<int>());
    scan[i] = cg::inclusive_scan(tile, v, cg::plus<int>());
    unsigned int b = tile.ballot(v & 1);
    block.sync();
    if (tile.thread_rank() == 0)
        odd[tile.meta_group_rank()] = b;
}
