/*
 * sim/prelude/cooperative_groups.h — cooperative groups (<cooperative_groups.h>,
 * <cooperative_groups/reduce.h>, <cooperative_groups/scan.h>): thread
 * blocks, warp tiles, reduce and scan.
 */
#pragma once
#include "cuda_runtime.h"

extern "C++" {
#pragma GCC visibility push(hidden)
namespace cooperative_groups {
class thread_block {
  public:
    void sync() const { __syncthreads(); }
    unsigned long long thread_rank() const { return __pcc_cur->linear; }
    unsigned long long size() const { return num_threads(); }
    unsigned long long num_threads() const
    {
        return (unsigned long long)blockDim.x * blockDim.y * blockDim.z;
    }
    dim3 group_index() const { return blockIdx; }
    dim3 thread_index() const { return threadIdx; }
    dim3 group_dim() const { return blockDim; }
    dim3 dim_threads() const { return blockDim; }
};
static inline thread_block this_thread_block() { return thread_block(); }
static inline void sync(const thread_block &g) { g.sync(); }
template <unsigned int N> class thread_block_tile {
    static_assert(N >= 1 && N <= 32 && (N & (N - 1)) == 0, "tile sizes are powers of two up to 32");
    static unsigned int base() { return __pcc_cur->lane & ~(N - 1); }

  public:
    static unsigned int mask() { return N == 32 ? 0xffffffffu : ((1u << N) - 1u) << base(); }
    void sync() const { __syncwarp(mask()); }
    unsigned long long thread_rank() const { return __pcc_cur->lane & (N - 1); }
    unsigned long long size() const { return N; }
    unsigned long long num_threads() const { return N; }
    unsigned long long meta_group_rank() const { return __pcc_cur->linear / N; }
    unsigned long long meta_group_size() const { return (thread_block().num_threads() + N - 1) / N; }
    template <class T> T shfl(T v, int src) const { return __shfl_sync(mask(), v, src, N); }
    template <class T> T shfl_down(T v, unsigned int d) const { return __shfl_down_sync(mask(), v, d, N); }
    template <class T> T shfl_up(T v, unsigned int d) const { return __shfl_up_sync(mask(), v, d, N); }
    template <class T> T shfl_xor(T v, int m) const { return __shfl_xor_sync(mask(), v, m, N); }
    unsigned int ballot(int p) const { return (__ballot_sync(mask(), p) & mask()) >> base(); }
    int any(int p) const { return ballot(p) != 0; }
    int all(int p) const { return ballot(p) == (N == 32 ? 0xffffffffu : (1u << N) - 1u); }
};
template <unsigned int N, class P> static inline thread_block_tile<N> tiled_partition(const P &) { return thread_block_tile<N>(); }
template <unsigned int N> static inline void sync(const thread_block_tile<N> &g) { g.sync(); }
template <class T> struct plus { T operator()(T a, T b) const { return a + b; } };
template <class T> struct less { T operator()(T a, T b) const { return a < b ? a : b; } };
template <class T> struct greater { T operator()(T a, T b) const { return a > b ? a : b; } };
template <class T> struct bit_and { T operator()(T a, T b) const { return a & b; } };
template <class T> struct bit_or { T operator()(T a, T b) const { return a | b; } };
template <class T> struct bit_xor { T operator()(T a, T b) const { return a ^ b; } };
template <class G, class T, class Op> static inline T reduce(const G &g, T v, Op op)
{
    for (unsigned int o = (unsigned int)g.size() / 2; o > 0; o /= 2)
        v = op(v, g.shfl_xor(v, (int)o));
    return v;
}
template <class G, class T, class Op> static inline T inclusive_scan(const G &g, T v, Op op)
{
    for (unsigned int d = 1; d < g.size(); d *= 2) {
        T up = g.shfl_up(v, d);
        if (g.thread_rank() >= d)
            v = op(v, up);
    }
    return v;
}
} // namespace cooperative_groups
#pragma GCC visibility pop
}
