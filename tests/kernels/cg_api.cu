// The rest of the cooperative groups API the simulator offers, so that NVRTC
// compiles each construct too: invoke_one(_broadcast), this_thread(), the
// free functions, the block's split barrier, labels of bool and pointer type,
// shuffles of a 16-byte value, reduce with a lambda, the default-op scans, a
// dynamic tile of a coalesced group. Compiled with no_extern_c=True.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cooperative_groups/scan.h>
namespace cg = cooperative_groups;

// one block of 64; out: 16 ints per thread
extern "C" __global__ void api_tour(const int *in, int *out)
{
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    cg::thread_block_tile<8> t8 = cg::tiled_partition<8>(warp);
    int i = block.thread_rank();
    int x = in[i];
    int *o = out + 16 * i;
    __shared__ int calls[2], tally[8];
    if (i < 8)
        calls[i % 2] = tally[i] = 0;
    block.sync();
    cg::invoke_one(warp, [&] { atomicAdd(&calls[warp.meta_group_rank()], 1); });
    block.barrier_wait(block.barrier_arrive());
    o[0] = calls[warp.meta_group_rank()]; // one member called
    o[1] = cg::invoke_one_broadcast(t8, [&] { return 7 + atomicAdd(&tally[i / 8], 1); });
    o[2] = (int)(cg::thread_rank(t8) + 10 * cg::group_size(t8) + 1000 * cg::this_thread().size());
    cg::sync(block);
    double2 d = make_double2(x, -x);
    double2 e = warp.shfl(d, 3);
    o[3] = (int)(e.x - e.y);
    o[4] = cg::reduce(warp, x, [](int a, int b) { return a > b ? a : b; });
    o[5] = cg::inclusive_scan(t8, x);
    o[6] = cg::exclusive_scan(t8, x);
    cg::coalesced_group halves = cg::labeled_partition(warp, (x & 1) == 0);
    o[7] = halves.size() + 100 * halves.meta_group_rank();
    cg::coalesced_group byptr = cg::labeled_partition(warp, (const int *)(in + (x & 3)));
    o[8] = byptr.size();
    cg::coalesced_group quads = cg::tiled_partition(byptr, 4);
    o[9] = quads.size() + 100 * quads.thread_rank();
    int pred = 0;
    o[10] = (int)t8.match_all(x / 1000, pred) + 1000 * pred;
    double2 f = byptr.shfl(d, 0);
    o[11] = (int)f.x;
    cg::thread_group any = warp;
    o[12] = (int)(any.size() + 100 * (any.get_type() == cg::coalesced_threads().get_type()));
    o[13] = cg::reduce(t8, (unsigned int)x, cg::bit_or<unsigned int>());
    o[14] = block.group_dim().x + block.dim_threads().y;
    o[15] = cg::this_grid().num_threads();
}
