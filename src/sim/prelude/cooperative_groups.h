/*
 * sim/prelude/cooperative_groups.h — cooperative groups for the CPU
 * simulator (<cooperative_groups.h>), written from the CUDA Programming Guide's
 * chapter with CUDA 12/13's names, types and order of operations (so that
 * a floating-point reduce or scan adds in the GPU's order):
 *
 *   thread_group       the type-erased group the others convert to
 *   thread_block       this_thread_block() (also from block_tile_memory)
 *   thread_block_tile<N[, Parent]>   tiled_partition<N>(block or tile): up
 *                      to 32 threads on the warp operations; 64..1024 on the
 *                      runtime's tile barrier (tile_shfl, sim_abi.h)
 *   coalesced_group    coalesced_threads() — the lanes converged at the call
 *                      (__activemask(), sim/warp.c) — and labeled_partition,
 *                      binary_partition, tiled_partition(group, n)
 *   grid_group         this_grid(): its indices in any launch; sync() and
 *                      is_valid() need a cooperative launch
 *   cluster_group      this_cluster(): the launch's thread-block cluster
 *                      (cluster=, __cluster_dims__; one block outside a
 *                      cluster launch), sync() and map_shared_rank (the
 *                      runtime's cluster_* calls); query_shared_rank is not
 *                      here: a kernel that calls it does not compile
 *   invoke_one(_broadcast); reduce and the scans are
 *   cooperative_groups_reduce.h and cooperative_groups_scan.h, as CUDA's
 *   <cooperative_groups/reduce.h> and <cooperative_groups/scan.h>.
 *
 * Misuse that CUDA's header stops at compile time (reduce over a
 * thread_block, a tile size that is no power of two) is a static_assert
 * here too; what it stops at run time (tiled_partition(block, 3)) traps.
 */
#pragma once
#include "cuda_runtime.h"

extern "C++" {
#pragma GCC visibility push(hidden)
/* The few type traits the groups need: the prelude includes no C++ library
 * (NVRTC has none), so neither may this header. */
namespace __pcc {
template <class T, T V> struct integral_constant { static constexpr T value = V; };
typedef integral_constant<bool, true> true_type;
typedef integral_constant<bool, false> false_type;
template <class A, class B> struct is_same : false_type {};
template <class A> struct is_same<A, A> : true_type {};
template <class T> struct remove_reference { typedef T type; };
template <class T> struct remove_reference<T &> { typedef T type; };
template <class T> struct remove_reference<T &&> { typedef T type; };
template <class T> struct remove_cv { typedef T type; };
template <class T> struct remove_cv<const T> { typedef T type; };
template <class T> struct remove_cv<volatile T> { typedef T type; };
template <class T> struct remove_cv<const volatile T> { typedef T type; };
template <bool C, class A, class B> struct conditional { typedef A type; };
template <class A, class B> struct conditional<false, A, B> { typedef B type; };
template <class T> struct is_pointer : false_type {};
template <class T> struct is_pointer<T *> : true_type {};
template <class T> struct is_pointer<T *const> : true_type {};
template <class T> struct is_integral_ : false_type {};
#define PCC_INTEGRAL(T) template <> struct is_integral_<T> : true_type {};
PCC_INTEGRAL(bool) PCC_INTEGRAL(char) PCC_INTEGRAL(signed char) PCC_INTEGRAL(unsigned char)
PCC_INTEGRAL(short) PCC_INTEGRAL(unsigned short) PCC_INTEGRAL(int) PCC_INTEGRAL(unsigned int)
PCC_INTEGRAL(long) PCC_INTEGRAL(unsigned long) PCC_INTEGRAL(long long)
PCC_INTEGRAL(unsigned long long)
#undef PCC_INTEGRAL
template <class T> struct is_integral : is_integral_<typename remove_cv<T>::type> {};
template <class T> constexpr T &&forward(typename remove_reference<T>::type &t) noexcept
{
    return static_cast<T &&>(t);
}
template <class T> constexpr T &&forward(typename remove_reference<T>::type &&t) noexcept
{
    return static_cast<T &&>(t);
}
} // namespace __pcc
namespace cooperative_groups {

#define PCC_CG_INLINE static inline __attribute__((always_inline))

class thread_group;
class thread_block;
class grid_group;
class coalesced_group;
template <unsigned int Size, class ParentT = void> class thread_block_tile;

namespace details {
enum : unsigned int {
    coalesced_group_id = 1,
    grid_group_id = 3,
    thread_block_id = 4,
    multi_tile_group_id = 5
};

PCC_CG_INLINE unsigned int laneid() { return __pcc_cur->lane; }
PCC_CG_INLINE unsigned int cta_rank() { return __pcc_cur->linear; }
PCC_CG_INLINE unsigned int cta_size() { return blockDim.x * blockDim.y * blockDim.z; }
PCC_CG_INLINE unsigned int lanemask_lt() { return (1u << laneid()) - 1u; }

/* The lane of the member of rank r of a warp's mask (32: none). */
PCC_CG_INLINE unsigned int nth_lane(unsigned int mask, unsigned int r)
{
    for (; mask; mask &= mask - 1, r--)
        if (r == 0)
            return (unsigned int)__builtin_ctz(mask);
    return 32;
}

/* Lane bits of `mask`'s members as rank bits: bit i for the member of rank i. */
PCC_CG_INLINE unsigned int pack_lanes(unsigned int mask, unsigned int lanes)
{
    unsigned int out = 0, rank = 0;
    for (; mask; mask &= mask - 1, rank++)
        if (lanes & (mask & -mask))
            out |= 1u << rank;
    return out;
}

[[noreturn]] PCC_CG_INLINE void abort(const char *why)
{
    __pcc_api->trap(__pcc_cur, 719, why);
    __builtin_unreachable();
}

template <class T> struct remove_qual {
    typedef typename __pcc::remove_cv<typename __pcc::remove_reference<T>::type>::type type;
};

/* Any trivially copyable value, 8 bytes at a time: from lane `lane`
 * (a warp shuffle among `mask`), or from rank `src` of a tile of `count`
 * threads wider than a warp. */
template <class T, class Move> static inline T by_words(const T &v, Move move)
{
    static_assert(__is_trivially_copyable(T),
                  "cooperative groups: a shuffled value must be trivially copyable");
    unsigned long long w[(sizeof(T) + 7) / 8] = {};
    __builtin_memcpy(w, &v, sizeof(T));
    for (size_t i = 0; i < (sizeof(T) + 7) / 8; i++)
        w[i] = move(w[i]);
    alignas(T) unsigned char out[sizeof(T)];
    __builtin_memcpy(out, w, sizeof(T));
    return *reinterpret_cast<T *>(out);
}
template <class T> static inline T shfl_lane(unsigned int mask, const T &v, unsigned int lane)
{
    return by_words(v, [&](unsigned long long x) { return __pcc_shfl(mask, x, (int)lane); });
}
template <class T> static inline T shfl_tile(unsigned int count, const T &v, int src)
{
    return by_words(v, [&](unsigned long long x) {
        PCC_SAVE;
        unsigned long long r = __pcc_api->tile_shfl(__pcc_self, count, x, src);
        PCC_RESTORE;
        return r;
    });
}

struct access;
} // namespace details

/* ---- thread_group ----------------------------------------------------------------------- */

class thread_group {
  protected:
    unsigned int _type;
    unsigned int _mask; /* coalesced kind: the group's lanes of the warp */
    unsigned int _meta_rank, _meta_size;
    bool _tiled;
    friend struct details::access;
    thread_group(unsigned int type, unsigned int mask = 0, unsigned int meta_rank = 0,
                 unsigned int meta_size = 1, bool tiled = false)
        : _type(type), _mask(mask), _meta_rank(meta_rank), _meta_size(meta_size), _tiled(tiled)
    {
    }

  public:
    /* num_threads(): CUDA's header declares it and never defines it */
    unsigned long long size() const;
    unsigned long long thread_rank() const;
    void sync(int __line = __builtin_LINE()) const; /* the line: for a grid's */
    unsigned int get_type() const { return _type; }
};

/* ---- thread_block --------------------------------------------------------------------- */

/* Scratch for tiles wider than a warp. Since sm_80 the GPU keeps it in
 * reserved shared memory; the simulator needs none either. */
template <unsigned int MaxBlockSize = 1024> struct alignas(8) block_tile_memory {
};

class thread_block : public thread_group {
    friend thread_block this_thread_block();
    template <unsigned int M> friend thread_block this_thread_block(block_tile_memory<M> &);
    thread_block() : thread_group(details::thread_block_id) {}

  public:
    static constexpr unsigned int _group_id = details::thread_block_id;
    static void sync() { __syncthreads(); }
    static unsigned int size() { return details::cta_size(); }
    static unsigned int num_threads() { return details::cta_size(); }
    static unsigned int thread_rank() { return details::cta_rank(); }
    static dim3 group_index() { return dim3(blockIdx); }
    static dim3 thread_index() { return dim3(threadIdx); }
    static dim3 group_dim() { return dim3(blockDim); }
    static dim3 dim_threads() { return dim3(blockDim); }
    struct arrival_token {};
    arrival_token barrier_arrive() const { return arrival_token(); }
    void barrier_wait(arrival_token &&) const { __syncthreads(); }
};

/* inline, not static: they are friends (extern) of the class */
inline thread_block this_thread_block() { return thread_block(); }
template <unsigned int M> inline thread_block this_thread_block(block_tile_memory<M> &)
{
    return thread_block();
}

/* ---- grid_group ------------------------------------------------------------------------- */

class grid_group : public thread_group {
    friend grid_group this_grid();
    grid_group() : thread_group(details::grid_group_id) {}

  public:
    static constexpr unsigned int _group_id = details::grid_group_id;
    /* Whether grid.sync() may be called: in a cooperative launch (a GPU's
     * answer elsewhere is left-over state: sim/fiber.c). */
    bool is_valid() const
    {
        PCC_SAVE;
        int v = __pcc_api->grid_valid(__pcc_self);
        PCC_RESTORE;
        return v != 0;
    }
    /* The line is the caller's, for the error outside a cooperative launch. */
    void sync(int __line = __builtin_LINE()) const
    {
        PCC_SAVE;
        __pcc_api->grid_sync(__pcc_self, __line);
        PCC_RESTORE;
    }
    /* Arrival is taken at the wait (a stricter barrier, as thread_block's). */
    using arrival_token = unsigned int;
    arrival_token barrier_arrive(int __line = __builtin_LINE()) const
    {
        if (!is_valid())
            sync(__line);
        return 0;
    }
    void barrier_wait(arrival_token &&, int __line = __builtin_LINE()) const { sync(__line); }
    static unsigned long long num_blocks()
    {
        return (unsigned long long)gridDim.x * (gridDim.y * gridDim.z);
    }
    static unsigned long long num_threads() { return num_blocks() * details::cta_size(); }
    static unsigned long long size() { return num_threads(); }
    static unsigned long long block_rank()
    {
        return blockIdx.x + (unsigned long long)gridDim.x *
                                (blockIdx.y + (unsigned long long)gridDim.y * blockIdx.z);
    }
    static unsigned long long thread_rank() { return block_rank() * details::cta_size() + details::cta_rank(); }
    static dim3 dim_blocks() { return dim3(gridDim); }
    static dim3 group_dim() { return dim3(gridDim); }
    static dim3 block_index() { return dim3(blockIdx); }
    static dim3 dim_threads()
    {
        return dim3(gridDim.x * blockDim.x, gridDim.y * blockDim.y, gridDim.z * blockDim.z);
    }
    static dim3 thread_index()
    {
        return dim3(blockIdx.x * blockDim.x + threadIdx.x, blockIdx.y * blockDim.y + threadIdx.y,
                    blockIdx.z * blockDim.z + threadIdx.z);
    }
};

inline grid_group this_grid() { return grid_group(); }

/* ---- cluster_group ---------------------------------------------------------------------- */

class cluster_group {
    friend cluster_group this_cluster();
    cluster_group() {}
    static dim3 dims()
    {
        unsigned int d[3];
        PCC_SAVE;
        __pcc_api->cluster_dims(__pcc_self, d);
        PCC_RESTORE;
        return dim3(d[0], d[1], d[2]);
    }

  public:
    /* Every thread of the cluster's blocks; the line for the runtime's errors. */
    static void sync(int __line = __builtin_LINE())
    {
        PCC_SAVE;
        __pcc_api->cluster_sync(__pcc_self, __line);
        PCC_RESTORE;
    }
    using arrival_token = struct {};
    /* Arrival is taken at the wait (a stricter barrier, as thread_block's). */
    static arrival_token barrier_arrive() { return arrival_token(); }
    static void barrier_wait(int __line = __builtin_LINE()) { sync(__line); }
    static void barrier_wait(arrival_token &&, int __line = __builtin_LINE()) { sync(__line); }
    static dim3 dim_blocks() { return dims(); }
    static unsigned int num_blocks()
    {
        dim3 d = dims();
        return d.x * d.y * d.z;
    }
    static dim3 block_index()
    {
        dim3 d = dims();
        return dim3(blockIdx.x % d.x, blockIdx.y % d.y, blockIdx.z % d.z);
    }
    static unsigned int block_rank()
    {
        dim3 d = dims(), i = block_index();
        return i.x + d.x * (i.y + d.y * i.z);
    }
    static unsigned int num_threads() { return num_blocks() * details::cta_size(); }
    static unsigned int size() { return num_threads(); }
    static unsigned int thread_rank() { return block_rank() * details::cta_size() + details::cta_rank(); }
    static dim3 dim_threads()
    {
        dim3 d = dims();
        return dim3(d.x * blockDim.x, d.y * blockDim.y, d.z * blockDim.z);
    }
    static dim3 thread_index()
    {
        dim3 i = block_index();
        return dim3(i.x * blockDim.x + threadIdx.x, i.y * blockDim.y + threadIdx.y,
                    i.z * blockDim.z + threadIdx.z);
    }
    /* `addr` in the shared memory of the cluster's block `rank` */
    template <class T> static T *map_shared_rank(T *addr, int rank)
    {
        PCC_SAVE;
        void *p = __pcc_api->cluster_map(__pcc_self, (const void *)addr, (unsigned int)rank,
                                         &__pcc_tls_anchor);
        PCC_RESTORE;
        return (T *)p;
    }
};

inline cluster_group this_cluster() { return cluster_group(); }

/* ---- coalesced_group -------------------------------------------------------------------- */

class coalesced_group : public thread_group {
    friend struct details::access;

  protected:
    explicit coalesced_group(unsigned int mask, unsigned int meta_rank = 0,
                             unsigned int meta_size = 1, bool tiled = false)
        : thread_group(details::coalesced_group_id, mask, meta_rank, meta_size, tiled)
    {
    }
    unsigned int get_mask() const { return _mask; }
    unsigned int rank_lane(unsigned int rank) const
    {
        return _mask == 0xffffffffu ? rank : details::nth_lane(_mask, rank);
    }

  public:
    static constexpr unsigned int _group_id = details::coalesced_group_id;
    unsigned int num_threads() const { return (unsigned int)__popc(_mask); }
    unsigned int size() const { return num_threads(); }
    unsigned int thread_rank() const { return (unsigned int)__popc(_mask & details::lanemask_lt()); }
    unsigned int meta_group_rank() const { return _meta_rank; }
    unsigned int meta_group_size() const { return _meta_size; }
    void sync() const { __syncwarp(_mask); }
    template <class T> T shfl(T v, int src_rank) const
    {
        return details::shfl_lane(_mask, v, rank_lane((unsigned int)src_rank % size()));
    }
    template <class T> T shfl_down(T v, unsigned int delta) const
    {
        unsigned int lane = rank_lane(thread_rank() + delta);
        return details::shfl_lane(_mask, v, lane < 32 ? lane : details::laneid());
    }
    template <class T> T shfl_up(T v, unsigned int delta) const
    {
        unsigned int r = thread_rank();
        return details::shfl_lane(_mask, v, r >= delta ? rank_lane(r - delta) : details::laneid());
    }
    int any(int p) const { return __ballot_sync(_mask, p) != 0; }
    int all(int p) const { return __ballot_sync(_mask, p) == _mask; }
    unsigned int ballot(int p) const { return details::pack_lanes(_mask, __ballot_sync(_mask, p)); }
    template <class T> unsigned int match_any(T v) const
    {
        return details::pack_lanes(_mask, __match_any_sync(_mask, v));
    }
    template <class T> unsigned int match_all(T v, int &pred) const
    {
        return details::pack_lanes(_mask, __match_all_sync(_mask, v, &pred));
    }
};

/* The lanes converged here; inlined with the caller's line so that each
 * call in the source is its own call site (sim/warp.c). */
PCC_CG_INLINE coalesced_group coalesced_threads(const char *__file = __builtin_FILE(),
                                                int __line = __builtin_LINE());

/* ---- thread_block_tile ------------------------------------------------------------------ */

namespace details {
/* A tile of at most 32 threads: a thread_group of the coalesced kind, on
 * the warp operations. */
template <unsigned int Size> class warp_tile : public thread_group {
    static_assert(Size >= 1 && Size <= 32 && (Size & (Size - 1)) == 0,
                  "Size must be one of 1/2/4/8/16/32");

  protected:
    warp_tile(unsigned int meta_rank, unsigned int meta_size)
        : thread_group(coalesced_group_id, build_mask(), meta_rank, meta_size, true)
    {
    }
    static unsigned int base() { return laneid() & ~(Size - 1); }

  public:
    static constexpr unsigned int _group_id = coalesced_group_id;
    static unsigned int build_mask()
    {
        if constexpr (Size == 32)
            return 0xffffffffu;
        else
            return ((1u << Size) - 1u) << base();
    }
    static unsigned int thread_rank() { return cta_rank() & (Size - 1); }
    static constexpr unsigned int num_threads() { return Size; }
    static constexpr unsigned int size() { return Size; }
    static void sync() { __syncwarp(build_mask()); }
    unsigned int meta_group_rank() const { return _meta_rank; }
    unsigned int meta_group_size() const { return _meta_size; }
    template <class T> T shfl(T v, int src_rank) const
    {
        return shfl_lane(build_mask(), v, base() + ((unsigned int)src_rank & (Size - 1)));
    }
    template <class T> T shfl_down(T v, unsigned int delta) const
    {
        unsigned int r = thread_rank();
        return shfl_lane(build_mask(), v, r + delta < Size ? laneid() + delta : laneid());
    }
    template <class T> T shfl_up(T v, unsigned int delta) const
    {
        return shfl_lane(build_mask(), v, thread_rank() >= delta ? laneid() - delta : laneid());
    }
    template <class T> T shfl_xor(T v, unsigned int lane_mask) const
    {
        unsigned int src = laneid() ^ lane_mask;
        return shfl_lane(build_mask(), v, src >= base() && src < base() + Size ? src : laneid());
    }
    int any(int p) const { return __ballot_sync(build_mask(), p) != 0; }
    int all(int p) const { return __ballot_sync(build_mask(), p) == build_mask(); }
    unsigned int ballot(int p) const { return __ballot_sync(build_mask(), p) >> base(); }
    template <class T> unsigned int match_any(T v) const
    {
        return __match_any_sync(build_mask(), v) >> base();
    }
    template <class T> unsigned int match_all(T v, int &pred) const
    {
        return __match_all_sync(build_mask(), v, &pred) >> base();
    }
};

/* A tile of 64 to 1024 threads (whole warps), on the runtime's tile barrier. */
template <unsigned int Size> class wide_tile {
    static_assert(Size > 32 && Size <= 1024 && (Size & (Size - 1)) == 0,
                  "Size must be one of 64/128/256/512/1024");

  protected:
    unsigned int _meta_rank, _meta_size;
    wide_tile(unsigned int meta_rank, unsigned int meta_size)
        : _meta_rank(meta_rank), _meta_size(meta_size)
    {
    }

  public:
    static constexpr unsigned int _group_id = multi_tile_group_id;
    static unsigned int thread_rank() { return cta_rank() & (Size - 1); }
    static constexpr unsigned int num_threads() { return Size; }
    static constexpr unsigned int size() { return Size; }
    unsigned int meta_group_rank() const { return _meta_rank; }
    unsigned int meta_group_size() const { return _meta_size; }
    void sync() const { (void)shfl_tile(Size, 0u, -1); }
    template <class T> T shfl(T v, unsigned int src_rank) const
    {
        static_assert(sizeof(T) <= 8, "Collectives with tiles larger than 32 threads are limited "
                                      "to types smaller then 8 bytes");
        return shfl_tile(Size, v, (int)src_rank);
    }
    int any(int p) const { return across_warps(__any_sync(0xffffffffu, p), 1); }
    int all(int p) const { return across_warps(__all_sync(0xffffffffu, p), 0); }

  private:
    /* or (any) / and (all) of each warp's vote over the tile's warps */
    static int across_warps(int w, int any)
    {
        for (unsigned int o = Size / 64; o > 0; o /= 2) {
            int other = shfl_tile(Size, w, (int)(thread_rank() ^ (o * 32)));
            w = any ? (w || other) : (w && other);
        }
        return w;
    }
};

template <unsigned int Size>
using tile_base = typename __pcc::conditional<(Size <= 32), warp_tile<Size>, wide_tile<Size>>::type;

struct access {
    template <unsigned int Size, class ParentT>
    static thread_block_tile<Size, ParentT> tile(unsigned int meta_rank, unsigned int meta_size)
    {
        return thread_block_tile<Size, ParentT>(meta_rank, meta_size);
    }
    static coalesced_group coalesced(unsigned int mask, unsigned int meta_rank = 0,
                                     unsigned int meta_size = 1, bool tiled = false)
    {
        return coalesced_group(mask, meta_rank, meta_size, tiled);
    }
    static thread_group group(unsigned int type, unsigned int mask, unsigned int meta_rank,
                              unsigned int meta_size, bool tiled)
    {
        return thread_group(type, mask, meta_rank, meta_size, tiled);
    }
    static unsigned int mask(const coalesced_group &g) { return g._mask; }
    template <unsigned int Size, class P> static unsigned int mask(const thread_block_tile<Size, P> &)
    {
        return warp_tile<Size>::build_mask();
    }
    static bool tiled(const thread_group &g) { return g._tiled; }
};
} // namespace details

template <unsigned int Size, class ParentT>
class thread_block_tile : public details::tile_base<Size> {
    friend struct details::access;

  protected:
    thread_block_tile(unsigned int meta_rank, unsigned int meta_size)
        : details::tile_base<Size>(meta_rank, meta_size)
    {
    }

  public:
    operator thread_block_tile<Size, void>() const
    {
        return details::access::tile<Size, void>(this->meta_group_rank(), this->meta_group_size());
    }
};

template <unsigned int Size> class thread_block_tile<Size, void> : public details::tile_base<Size> {
    friend struct details::access;
    template <unsigned int, class> friend class thread_block_tile;

  protected:
    thread_block_tile(unsigned int meta_rank, unsigned int meta_size)
        : details::tile_base<Size>(meta_rank, meta_size)
    {
    }

  public:
    template <class ParentT>
    thread_block_tile(const thread_block_tile<Size, ParentT> &g)
        : details::tile_base<Size>(g.meta_group_rank(), g.meta_group_size())
    {
    }
};

namespace details {
template <class P> struct tile_parent : __pcc::false_type {};
template <> struct tile_parent<thread_block> : __pcc::true_type {};
template <unsigned int S, class G> struct tile_parent<thread_block_tile<S, G>> : __pcc::true_type {};
template <class P> struct parent_size { static constexpr unsigned int value = 0xffffffffu; };
template <unsigned int S, class G> struct parent_size<thread_block_tile<S, G>> {
    static constexpr unsigned int value = S;
};
} // namespace details

/* Tiles of Size threads of a thread_block or of a larger tile, in rank order. */
template <unsigned int Size, class ParentT>
static inline thread_block_tile<Size, ParentT> tiled_partition(const ParentT &g)
{
    static_assert(details::tile_parent<ParentT>::value,
                  "tiled_partition<Size>: the parent must be a thread_block or a thread_block_tile");
    static_assert(Size < details::parent_size<ParentT>::value,
                  "Tile size bigger or equal to the parent group size");
    return details::access::tile<Size, ParentT>((unsigned int)(g.thread_rank() / Size),
                                                (unsigned int)((g.size() + Size - 1) / Size));
}

static inline thread_block_tile<1, void> this_thread()
{
    return details::access::tile<1, void>(0, 1);
}

/* ---- dynamic partitions ------------------------------------------------------------------ */

namespace details {
PCC_CG_INLINE void check_tile_size(unsigned int n)
{
    if (n == 0 || n > 32 || (n & (n - 1)) != 0)
        abort("tiled_partition(parent, tilesz): tilesz must be a power of two up to 32");
}

/* Tiles of n lanes of the block, by rank. */
static inline thread_group block_tiles(unsigned int n)
{
    check_tile_size(n);
    unsigned int rank = cta_rank(), first = rank & ~(n - 1);
    unsigned int len = cta_size() - first < n ? cta_size() - first : n;
    unsigned int mask = (0xffffffffu >> (32 - len)) << (laneid() & ~(n - 1));
    return access::group(coalesced_group_id, mask, rank / n, (cta_size() + n - 1) / n, true);
}

/* Tiles of n members of a coalesced group, by rank. */
static inline coalesced_group coalesced_tiles(const coalesced_group &g, unsigned int n)
{
    check_tile_size(n);
    if (g.size() <= n)
        return g;
    unsigned int rank = g.thread_rank(), mask = 0;
    if (access::tiled(g)) { /* contiguous lanes: a mask shifted into place */
        unsigned int first = rank & ~(n - 1);
        unsigned int len = g.size() - first < n ? g.size() - first : n;
        mask = (0xffffffffu >> (32 - len)) << (laneid() & ~(n - 1));
        return access::coalesced(mask, rank / n, g.size() / n, true);
    }
    unsigned int first = rank / n * n, k = 0;
    for (unsigned int m = access::mask(g); m; m &= m - 1, k++)
        if (k >= first && k < first + n)
            mask |= m & -m;
    return access::coalesced(mask, rank / n, (g.size() + n - 1) / n, false);
}

/* The members of a warp-sized group on the same side of pred. */
static inline coalesced_group binary_split(unsigned int mask, bool pred)
{
    unsigned int set = __ballot_sync(mask, pred);
    if (set == mask || set == 0)
        return access::coalesced(mask, 0, 1);
    return access::coalesced(mask & (pred ? set : ~set), pred ? 1 : 0, 2);
}

/* The members of a warp-sized group with the same label; ranked by their
 * lowest lane among the groups made. */
template <class T> static inline coalesced_group label_split(unsigned int mask, T label)
{
    unsigned int sub = __match_any_sync(mask, label);
    unsigned int leader = (unsigned int)__builtin_ctz(sub);
    unsigned int leaders = __ballot_sync(mask, laneid() == leader);
    return access::coalesced(sub, (unsigned int)__popc(leaders & ((1u << leader) - 1u)),
                             (unsigned int)__popc(leaders));
}

template <class T> static inline coalesced_group labeled(unsigned int mask, T label)
{
    typedef typename remove_qual<T>::type L;
    static_assert(__pcc::is_integral<L>::value || __pcc::is_pointer<L>::value,
                  "labeled_partition predicate must be an integral or pointer type");
    if constexpr (__pcc::is_same<L, bool>::value)
        return binary_split(mask, label);
    else if constexpr (__pcc::is_pointer<L>::value)
        return label_split(mask, (unsigned long long)(__UINTPTR_TYPE__)label);
    else
        return label_split(mask, label);
}
} // namespace details

static inline thread_group tiled_partition(const thread_group &parent, unsigned int tilesz)
{
    if (parent.get_type() == details::coalesced_group_id)
        return details::coalesced_tiles(static_cast<const coalesced_group &>(parent), tilesz);
    return details::block_tiles(tilesz);
}
static inline thread_group tiled_partition(const thread_block &, unsigned int tilesz)
{
    return details::block_tiles(tilesz);
}
static inline coalesced_group tiled_partition(const coalesced_group &parent, unsigned int tilesz)
{
    return details::coalesced_tiles(parent, tilesz);
}

static inline coalesced_group binary_partition(const coalesced_group &g, bool pred)
{
    return details::binary_split(details::access::mask(g), pred);
}
template <unsigned int Size, class P>
static inline coalesced_group binary_partition(const thread_block_tile<Size, P> &g, bool pred)
{
    static_assert(Size <= 32, "Binary partition is available only for tiles of size smaller or "
                              "equal to 32");
    return details::binary_split(details::access::mask(g), pred);
}
template <class T> static inline coalesced_group labeled_partition(const coalesced_group &g, T label)
{
    return details::labeled(details::access::mask(g), label);
}
template <class T, unsigned int Size, class P>
static inline coalesced_group labeled_partition(const thread_block_tile<Size, P> &g, T label)
{
    static_assert(Size <= 32, "Labeled partition is available only for tiles of size smaller or "
                              "equal to 32");
    return details::labeled(details::access::mask(g), label);
}

PCC_CG_INLINE coalesced_group coalesced_threads(const char *__file, int __line)
{
    return details::access::coalesced(__activemask(__file, __line));
}

/* ---- thread_group's dispatch, free functions ---------------------------------------------- */

inline unsigned long long thread_group::size() const
{
    switch (_type) {
    case details::coalesced_group_id: return (unsigned long long)__popc(_mask);
    case details::thread_block_id: return thread_block::size();
    case details::grid_group_id: return grid_group::size();
    default: return 0;
    }
}

inline unsigned long long thread_group::thread_rank() const
{
    switch (_type) {
    case details::coalesced_group_id: return (unsigned long long)__popc(_mask & details::lanemask_lt());
    case details::thread_block_id: return thread_block::thread_rank();
    case details::grid_group_id: return grid_group::thread_rank();
    default: return 0;
    }
}

inline void thread_group::sync(int __line) const
{
    switch (_type) {
    case details::coalesced_group_id: __syncwarp(_mask); break;
    case details::thread_block_id: __syncthreads(); break;
    case details::grid_group_id: static_cast<const grid_group *>(this)->sync(__line); break;
    default: break;
    }
}

template <class G> static inline void sync(const G &g) { g.sync(); }
static inline void sync(const grid_group &g, int __line = __builtin_LINE()) { g.sync(__line); }
template <class G> static inline auto thread_rank(const G &g) -> decltype(g.thread_rank())
{
    return g.thread_rank();
}
template <class G> static inline auto group_size(const G &g) -> decltype(g.num_threads())
{
    return g.num_threads();
}

namespace details {
template <class G> struct tile_group : __pcc::false_type {};
template <unsigned int S, class P> struct tile_group<thread_block_tile<S, P>> : __pcc::true_type {};
template <> struct tile_group<coalesced_group> : __pcc::true_type {};
} // namespace details

/* One member (rank 0) calls fn; with _broadcast every member gets its result. */
template <class G, class Fn, class... Args>
static inline void invoke_one(const G &g, Fn &&fn, Args &&...args)
{
    if (g.thread_rank() == 0)
        __pcc::forward<Fn>(fn)(__pcc::forward<Args>(args)...);
}
template <class G, class Fn, class... Args>
static inline auto invoke_one_broadcast(const G &g, Fn &&fn, Args &&...args) ->
    typename __pcc::remove_reference<decltype(__pcc::forward<Fn>(fn)(__pcc::forward<Args>(args)...))>::type
{
    typedef typename __pcc::remove_reference<decltype(__pcc::forward<Fn>(fn)(
        __pcc::forward<Args>(args)...))>::type R;
    static_assert(!__pcc::is_same<R, void>::value,
                  "For invocables returning void invoke_one should be used instead");
    static_assert(details::tile_group<G>::value, "invoke_one_broadcast: a tile or a coalesced_group");
    typename details::remove_qual<R>::type r{};
    if (g.thread_rank() == 0)
        r = __pcc::forward<Fn>(fn)(__pcc::forward<Args>(args)...);
    return g.shfl(r, 0);
}

#undef PCC_CG_INLINE
} // namespace cooperative_groups
#pragma GCC visibility pop
}
