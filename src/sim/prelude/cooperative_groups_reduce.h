/*
 * sim/prelude/cooperative_groups_reduce.h — <cooperative_groups/reduce.h>
 * for the CPU simulator: cg::reduce over tiles and coalesced groups, every
 * member getting the result, in the GPU's order (a butterfly of shfl_xor in a
 * tile or a full warp, then across the warps of a wide tile; a partial
 * coalesced group: the inclusive scan's last member, broadcast).
 */
#pragma once
#include "cooperative_groups_scan.h"

extern "C++" {
#pragma GCC visibility push(hidden)
namespace cooperative_groups {

namespace details {
template <unsigned int Size, class P, class T, class Op>
static inline T reduce(const thread_block_tile<Size, P> &, T v, Op &op)
{
    v = warp_butterfly(Size < 32 ? Size : 32, v, op);
    if constexpr (Size > 32) {
        static_assert(sizeof(T) <= 8, "Collectives with tiles larger than 32 threads are limited "
                                      "to types smaller then 8 bytes");
        unsigned int rank = cta_rank() & (Size - 1);
        for (unsigned int o = Size / 64; o > 0; o /= 2)
            v = op(v, shfl_tile(Size, v, (int)(rank ^ (o * 32))));
    }
    return v;
}

template <class T, class Op> static inline T reduce(const coalesced_group &g, T v, Op &op)
{
    unsigned int mask = access::mask(g);
    if (mask == 0xffffffffu)
        return warp_butterfly(32, v, op);
    T incl = warp_inclusive(mask, g.size(), g.thread_rank(), v, op,
                            [&](unsigned int r) { return nth_lane(mask, r); });
    return shfl_lane(mask, incl, 31u - (unsigned int)__builtin_clz(mask));
}

} // namespace details

template <class G, class T, class Op>
static inline auto reduce(const G &g, T &&v, Op &&op) -> decltype(op(v, v))
{
    details::check_collective<G, T, Op>();
    typedef typename details::remove_qual<decltype(op(v, v))>::type R;
    return details::reduce(g, (R)v, op);
}

} // namespace cooperative_groups
#pragma GCC visibility pop
}
