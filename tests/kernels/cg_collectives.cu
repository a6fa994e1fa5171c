// cg::reduce and cg::inclusive_scan / exclusive_scan with each functor over tiles of
// 16 and over a float tile of 32, and tiles wider than a warp (64, 128) made with
// block_tile_memory: their barrier, shfl, votes, reduce and scans.
// Compiled with no_extern_c=True (toolkit headers).
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cooperative_groups/scan.h>
namespace cg = cooperative_groups;

// per thread, over its tile of 16: sum, min, max, and, or, xor; inclusive sum,
// exclusive sum, inclusive max, exclusive min (rank 0: 0)
extern "C" __global__ void collectives(const int *in, int *out)
{
    cg::thread_block_tile<16> t = cg::tiled_partition<16>(cg::this_thread_block());
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int x = in[i];
    unsigned int u = (unsigned int)x;
    int *o = out + 10 * i;
    o[0] = cg::reduce(t, x, cg::plus<int>());
    o[1] = cg::reduce(t, x, cg::less<int>());
    o[2] = cg::reduce(t, x, cg::greater<int>());
    o[3] = (int)cg::reduce(t, u, cg::bit_and<unsigned int>());
    o[4] = (int)cg::reduce(t, u, cg::bit_or<unsigned int>());
    o[5] = (int)cg::reduce(t, u, cg::bit_xor<unsigned int>());
    o[6] = cg::inclusive_scan(t, x, cg::plus<int>());
    o[7] = cg::exclusive_scan(t, x, cg::plus<int>());
    o[8] = cg::inclusive_scan(t, x, cg::greater<int>());
    o[9] = cg::exclusive_scan(t, x, cg::less<int>());
}

// per warp of floats: the sum (every lane) and the prefix sums
extern "C" __global__ void float_warp(const float *in, float *sum, float *scan)
{
    cg::thread_block_tile<32> t = cg::tiled_partition<32>(cg::this_thread_block());
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    sum[i] = cg::reduce(t, in[i], cg::plus<float>());
    scan[i] = cg::inclusive_scan(t, in[i]);
}

// tiles of 64 and 128 threads (blocks of 256)
extern "C" __global__ void wide(const int *in, int *out)
{
    __shared__ cg::block_tile_memory<256> scratch;
    __shared__ int buf[256];
    cg::thread_block block = cg::this_thread_block(scratch);
    cg::thread_block_tile<64> t64 = cg::tiled_partition<64>(block);
    cg::thread_block_tile<128> t128 = cg::tiled_partition<128>(block);
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int x = in[i];
    int *o = out + 14 * i;
    buf[block.thread_rank()] = x;
    t64.sync();
    o[0] = buf[t64.meta_group_rank() * 64 + (t64.thread_rank() + 1) % 64];
    o[1] = t64.shfl(x, 63);
    o[2] = t128.shfl(x, 5);
    o[3] = t128.any(x == 7) + 2 * t128.all(x >= 0);
    o[4] = cg::reduce(t128, x, cg::plus<int>());
    o[5] = cg::reduce(t64, x, cg::greater<int>());
    o[6] = cg::inclusive_scan(t128, x);
    o[7] = cg::exclusive_scan(t64, x);
    o[8] = cg::inclusive_scan(t128, x, cg::greater<int>());
    o[9] = cg::exclusive_scan(t128, x, cg::less<int>());
    o[10] = t128.meta_group_rank() + 10 * t128.meta_group_size();
    o[11] = t64.thread_rank();
    cg::thread_block_tile<32> w = cg::tiled_partition<32>(t128);
    o[12] = w.meta_group_rank() + 10 * w.meta_group_size();
    o[13] = t128.num_threads();
}
