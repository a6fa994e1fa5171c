// Cooperative groups beyond the block: __activemask() and coalesced_threads() where
// the lanes of a warp diverge, labeled/binary/tiled partitions of coalesced groups,
// the type-erased thread_group, static tiles of 4..32 with every warp collective,
// and grid_group's indices. Compiled with no_extern_c=True (toolkit headers).
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cooperative_groups/scan.h>
namespace cg = cooperative_groups;

// out[4t]: the mask inside `if (lane < k)` (0 outside); +1: the mask after the if;
// +2: over a loop of (lane & 3) trips, the sum of popc(mask); +3: the mask after it
extern "C" __global__ void masks(unsigned int *out, int k)
{
    unsigned int lane = threadIdx.x & 31, in = 0, n = 0;
    if (lane < (unsigned int)k) {
        in = __activemask();
        __syncwarp(in);
    }
    unsigned int after = __activemask();
    for (unsigned int i = 0; i < (lane & 3); i++)
        n += __popc(__activemask());
    unsigned int end = __activemask();
    out[4 * threadIdx.x + 0] = in;
    out[4 * threadIdx.x + 1] = after;
    out[4 * threadIdx.x + 2] = n;
    out[4 * threadIdx.x + 3] = end;
}

// for the threads holding odd values: the coalesced group of their warp's odd lanes
// (size, rank, rank 0's value, ballot of v > 5 by rank, shfl_down by 1, inclusive
// sum, sum, exclusive max-scan, any/all); -1 elsewhere
extern "C" __global__ void odd_groups(const int *v, int *out)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int x = v[i];
    int *o = out + 10 * i;
    if (x & 1) {
        cg::coalesced_group g = cg::coalesced_threads();
        o[0] = g.size();
        o[1] = g.thread_rank();
        o[2] = g.shfl(x, 0);
        o[3] = g.ballot(x > 5);
        o[4] = g.shfl_down(x, 1);
        o[5] = cg::inclusive_scan(g, x);
        o[6] = cg::reduce(g, x, cg::plus<int>());
        o[7] = cg::exclusive_scan(g, x, cg::greater<int>());
        o[8] = g.any(x == 7) + 2 * g.all(x > 0);
        g.sync();
        o[9] = g.shfl_up(x, 2);
    } else {
        for (int k = 0; k < 10; k++)
            o[k] = -1;
    }
}

// each warp split by key, then the parts tiled in pairs and split by odd index
extern "C" __global__ void partitions(const int *key, int *out)
{
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(cg::this_thread_block());
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int *o = out + 12 * i;
    cg::coalesced_group part = cg::labeled_partition(warp, key[i]);
    cg::coalesced_group pair = cg::tiled_partition(part, 2);
    cg::coalesced_group side = cg::binary_partition(part, (i & 1) != 0);
    o[0] = part.size();
    o[1] = part.thread_rank();
    o[2] = part.meta_group_rank();
    o[3] = part.meta_group_size();
    o[4] = pair.size();
    o[5] = pair.thread_rank();
    o[6] = pair.meta_group_rank();
    o[7] = pair.meta_group_size();
    o[8] = side.size();
    o[9] = side.meta_group_rank();
    o[10] = side.meta_group_size();
    o[11] = part.match_any(i & 1);
}

__device__ void rank_size(cg::thread_group g, int *o, bool sync = true)
{
    o[0] = (int)g.thread_rank();
    o[1] = (int)g.size();
    if (sync) // a grid's needs a cooperative launch
        g.sync();
}

// the same questions through thread_group, of a 3-D block, its dynamic tiles of 16,
// their tiles of 4, a static tile of 8 and the grid; then the block's own indices
extern "C" __global__ void erased(int *out)
{
    cg::thread_block b = cg::this_thread_block();
    int *o = out + 16 * (blockIdx.x * b.size() + b.thread_rank());
    rank_size(b, o);
    cg::thread_group tile = cg::tiled_partition(b, 16);
    rank_size(tile, o + 2);
    rank_size(cg::tiled_partition(tile, 4), o + 4);
    rank_size(cg::tiled_partition<8>(b), o + 6);
    // the grid's directly: through thread_group an ordinary launch's grid reads
    // size 0 on the H100 (its workspace pointer shares the type field)
    o[8] = (int)cg::this_grid().thread_rank();
    o[9] = (int)cg::this_grid().size();
    o[10] = b.group_index().x;
    o[11] = b.thread_index().x + 10 * b.thread_index().y + 100 * b.thread_index().z;
    o[12] = b.dim_threads().x + 10 * b.dim_threads().y + 100 * b.dim_threads().z;
    o[13] = b.num_threads();
    o[14] = cg::this_thread().size() + cg::this_thread().thread_rank();
    o[15] = tile.get_type() == b.get_type();
}

template <unsigned int N> __device__ void tile_ops(int x, int *o)
{
    cg::thread_block_tile<N> t = cg::tiled_partition<N>(cg::this_thread_block());
    o[0] = t.shfl(x, N - 1);
    o[1] = t.shfl_up(x, 1);
    o[2] = t.shfl_down(x, 2);
    o[3] = t.shfl_xor(x, 1);
    o[4] = t.any(x > 90) + 2 * t.all(x > 5);
    o[5] = t.ballot(x & 1);
    o[6] = t.match_any(x & 3);
    int pred = 0;
    o[7] = t.match_all(x & 0, pred) + (pred << 16) * (N < 32);
    o[8] = t.meta_group_rank();
    o[9] = t.meta_group_size();
    o[10] = t.thread_rank();
    t.sync();
    o[11] = cg::reduce(t, x, cg::plus<int>());
}

// tile_ops for tiles of 4, 8, 16 and 32 (out: 12 ints per tile size per thread), and
// the meta group of a tile of 4 taken from a tile of 32
extern "C" __global__ void tiles(const int *in, int *out, int *meta)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int x = in[i];
    tile_ops<4>(x, out + 48 * i);
    tile_ops<8>(x, out + 48 * i + 12);
    tile_ops<16>(x, out + 48 * i + 24);
    tile_ops<32>(x, out + 48 * i + 36);
    cg::thread_block_tile<32> t32 = cg::tiled_partition<32>(cg::this_thread_block());
    cg::thread_block_tile<4> t4 = cg::tiled_partition<4>(t32);
    meta[2 * i] = t4.meta_group_rank();
    meta[2 * i + 1] = t4.meta_group_size();
}

// grid_group's indices; *valid: is_valid() (true in a cooperative launch only)
extern "C" __global__ void grid_info(unsigned long long *out, int *valid)
{
    cg::grid_group g = cg::this_grid();
    unsigned long long *o = out + 8 * g.thread_rank();
    o[0] = g.size();
    o[1] = g.num_blocks();
    o[2] = g.block_rank();
    o[3] = g.block_index().x + 1000 * g.block_index().y;
    o[4] = g.dim_blocks().x + 1000 * g.dim_blocks().y;
    o[5] = g.thread_index().x + 1000 * g.thread_index().y;
    o[6] = g.dim_threads().x + 1000 * g.dim_threads().y;
    o[7] = g.num_threads();
    if (g.thread_rank() == 0)
        *valid = g.is_valid();
}
