/*
 * sim/prelude/cooperative_groups_scan.h — <cooperative_groups/scan.h> for
 * the CPU simulator: cg::inclusive_scan and cg::exclusive_scan over tiles
 * and coalesced groups, and the functors (plus, less, greater, bit_and,
 * bit_or, bit_xor) with the helpers reduce shares (as CUDA's reduce.h builds
 * on its scan). The GPU's order of operations, so that a floating-point scan
 * rounds as there: Hillis-Steele within a warp, op(own, lower); across the
 * warps of a wide tile, the warps' totals scanned the same way.
 */
#pragma once
#include "cooperative_groups.h"

extern "C++" {
#pragma GCC visibility push(hidden)
namespace cooperative_groups {

template <class T> struct plus { T operator()(T a, T b) const { return a + b; } };
template <class T> struct less { T operator()(T a, T b) const { return (b < a) ? b : a; } };
template <class T> struct greater { T operator()(T a, T b) const { return (a < b) ? b : a; } };
template <class T> struct bit_and { T operator()(T a, T b) const { return a & b; } };
template <class T> struct bit_or { T operator()(T a, T b) const { return a | b; } };
template <class T> struct bit_xor { T operator()(T a, T b) const { return a ^ b; } };

namespace details {

template <class G, class T, class Op> static inline void check_collective()
{
    static_assert(tile_group<typename remove_qual<G>::type>::value,
                  "This group does not exclusively represent a tile");
}

/* Hillis-Steele within a warp-sized group: each step combines with the
 * member d ranks below (rank_src gives a rank's lane). */
template <class T, class Op, class Src>
static inline T warp_inclusive(unsigned int mask, unsigned int size, unsigned int rank, T v,
                               Op &op, Src rank_src)
{
    for (unsigned int d = 1; d < size; d <<= 1) {
        T up = shfl_lane(mask, v, rank >= d ? rank_src(rank - d) : laneid());
        if (d <= rank)
            v = op(v, up);
    }
    return v;
}

template <class T, class Op> static inline T warp_butterfly(unsigned int size, T v, Op &op)
{
    unsigned int mask = size == 32 ? 0xffffffffu : ((1u << size) - 1u) << (laneid() & ~(size - 1));
    for (unsigned int o = size / 2; o > 0; o /= 2)
        v = op(v, shfl_lane(mask, v, laneid() ^ o));
    return v;
}

template <class Op, class T> struct integral_plus
    : __pcc::integral_constant<bool, __pcc::is_same<Op, plus<T>>::value && __pcc::is_integral<T>::value> {
};

template <bool Exclusive, unsigned int Size, class P, class T, class Op>
static inline T scan(const thread_block_tile<Size, P> &, T v, Op &op)
{
    constexpr unsigned int W = Size < 32 ? Size : 32;
    unsigned int mask = W == 32 ? 0xffffffffu : ((1u << W) - 1u) << (laneid() & ~(W - 1));
    unsigned int lane = laneid() & (W - 1), first = laneid() - lane;
    T incl = warp_inclusive(mask, W, lane, v, op, [&](unsigned int r) { return first + r; });
    T ws = incl;
    if constexpr (Exclusive) {
        if constexpr (integral_plus<Op, T>::value) {
            ws = incl - v;
        } else {
            T up = shfl_lane(mask, incl, lane >= 1 ? laneid() - 1 : laneid());
            ws = lane == 0 ? T() : up;
        }
    }
    if constexpr (Size <= 32) {
        return ws;
    } else {
        /* the warps' totals, scanned across the tile's warps */
        unsigned int rank = cta_rank() & (Size - 1), warp = rank / 32;
        T tot = shfl_lane(mask, incl, 31u), x = tot;
        for (unsigned int d = 1; d < Size / 32; d <<= 1) {
            T up = shfl_tile(Size, x, (int)(warp >= d ? rank - d * 32 : rank));
            if (d <= warp)
                x = op(x, up);
        }
        T before;
        if constexpr (integral_plus<Op, T>::value) {
            before = x - tot;
        } else {
            T up = shfl_tile(Size, x, (int)(warp >= 1 ? rank - 32 : rank));
            before = warp == 0 ? T() : up;
        }
        if (Exclusive && lane == 0)
            return before;
        return warp == 0 ? ws : op(ws, before);
    }
}

template <bool Exclusive, class T, class Op>
static inline T scan(const coalesced_group &g, T v, Op &op)
{
    unsigned int mask = access::mask(g), rank = g.thread_rank();
    T incl = warp_inclusive(mask, g.size(), rank, v, op, [&](unsigned int r) {
        return mask == 0xffffffffu ? r : nth_lane(mask, r);
    });
    if constexpr (!Exclusive) {
        return incl;
    } else if constexpr (integral_plus<Op, T>::value) {
        return incl - v;
    } else {
        T up = g.shfl_up(incl, 1);
        return rank == 0 ? T() : up;
    }
}
} // namespace details

template <class G, class T, class Op>
static inline auto inclusive_scan(const G &g, T &&v, Op &&op) -> decltype(op(v, v))
{
    details::check_collective<G, T, Op>();
    typedef typename details::remove_qual<decltype(op(v, v))>::type R;
    return details::scan<false>(g, (R)v, op);
}
template <class G, class T>
static inline typename details::remove_qual<T>::type inclusive_scan(const G &g, T &&v)
{
    return inclusive_scan(g, v, plus<typename details::remove_qual<T>::type>());
}
template <class G, class T, class Op>
static inline auto exclusive_scan(const G &g, T &&v, Op &&op) -> decltype(op(v, v))
{
    details::check_collective<G, T, Op>();
    typedef typename details::remove_qual<decltype(op(v, v))>::type R;
    return details::scan<true>(g, (R)v, op);
}
template <class G, class T>
static inline typename details::remove_qual<T>::type exclusive_scan(const G &g, T &&v)
{
    return exclusive_scan(g, v, plus<typename details::remove_qual<T>::type>());
}

} // namespace cooperative_groups
#pragma GCC visibility pop
}
