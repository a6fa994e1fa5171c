/*
 * sim/prelude/cooperative_groups_memcpy_async.h — <cooperative_groups/memcpy_async.h>
 * for the CPU simulator: cg::memcpy_async (bytes, an integral count or a
 * cuda::aligned_size_t; or elements, the smaller of two counts), cg::wait
 * and cg::wait_prior<N>, for the groups CUDA's header takes (a thread block,
 * a tile, a coalesced group).
 *
 * Every member of the group makes the call and copies a contiguous share of
 * the bytes; wait and wait_prior are the group's barrier. A GPU finishes the
 * copy at some point before the wait, the simulator before the call
 * returns: a read of the destination before the wait is a race on both
 * (check mode's racecheck names it).
 */
#pragma once
#include "cooperative_groups.h"
#include "cuda_pipeline.h"

extern "C++" {
#pragma GCC visibility push(hidden)
namespace cooperative_groups {

namespace details {
/* A count as a number of bytes or elements: an integer, or a type with an
 * explicit size_t conversion (cuda::aligned_size_t<N>). */
template <class N> static inline size_t async_count(const N &n) { return (size_t)n; }

/* The groups CUDA's header copies with. */
template <class G> struct async_group { static constexpr bool ok = false; };
template <> struct async_group<thread_block> { static constexpr bool ok = true; };
template <> struct async_group<coalesced_group> { static constexpr bool ok = true; };
template <unsigned int Size, class P> struct async_group<thread_block_tile<Size, P>> {
    static constexpr bool ok = true;
};

template <class G>
static inline void async_copy_share(const G &g, void *dst, const void *src, size_t bytes)
{
    static_assert(async_group<G>::ok, "memcpy_async takes a thread_block, a thread_block_tile "
                                      "or a coalesced_group");
    unsigned long long rank = g.thread_rank(), size = g.num_threads();
    size_t begin = (size_t)(bytes * rank / size), end = (size_t)(bytes * (rank + 1) / size);
    if (end > begin)
        memcpy((char *)dst + begin, (const char *)src + begin, end - begin);
}
} // namespace details

template <class G, class T, class N>
static inline void memcpy_async(const G &group, T *__restrict__ dst, const T *__restrict__ src,
                                const N &count)
{
    details::async_copy_share(group, (void *)dst, (const void *)src, details::async_count(count));
}

template <class G, class T, class DstCount, class SrcCount>
static inline void memcpy_async(const G &group, T *__restrict__ dst, const DstCount &dst_count,
                                const T *__restrict__ src, const SrcCount &src_count)
{
    size_t d = details::async_count(dst_count), s = details::async_count(src_count);
    details::async_copy_share(group, (void *)dst, (const void *)src, (d < s ? d : s) * sizeof(T));
}

template <unsigned int Stage, class G> static inline void wait_prior(const G &group)
{
    group.sync();
}

template <class G> static inline void wait(const G &group) { group.sync(); }

} // namespace cooperative_groups
#pragma GCC visibility pop
}
