/*
 * sim/prelude/cuda_runtime.h — CUDA C's device built-ins as host C++17, for
 * the CPU simulator: what nvcc and NVRTC give every kernel without an
 * #include. The sim compiler (src/sim/cc/build.c) includes it before the
 * user's source and compiles both into one shared object that the sim
 * runtime (src/sim/) loads; sim_abi.h is the contract.
 *
 * One header per CUDA header it stands for, as in HIP-CPU: this file (with
 * vector_types.h, device_atomic_functions.h, math_functions.h,
 * texture_indirect_functions.h and check mode's pcc_check.h, which it includes), assert.h, math_constants.h, cuda_fp16.h, cuda_bf16.h and
 * cooperative_groups.h (with cooperative_groups_reduce.h and _scan.h). The
 * compiler writes them into its private directory and maps CUDA's header
 * names onto them (src/sim/cc/cxx.c).
 *
 * Kept light on purpose: every kernel compile parses it, so no <iostream>,
 * no <atomic>, nothing heavier than the C library's math.
 *
 * Threads of a block are fibers on one OS thread, so `__shared__` is a
 * static thread_local and the current simulated thread is a thread_local
 * pointer. Every runtime call that may switch fibers saves that pointer in
 * a local and puts it back afterwards.
 */
#ifndef PCC_SIM_PRELUDE_MAIN
#define PCC_SIM_PRELUDE_MAIN


/* What NVRTC declares before any #include, and no more: none of the host's C
 * library headers, so that a kernel named div, index or rand is what it is on
 * the GPU and rand() is as undefined as with NVRTC. A program that includes
 * libcu++ (CCCL, which brings the host's C and C++ libraries with it) is
 * compiled with __PCC_SIM_HOST_LIBC: those headers come first then, and the
 * prelude fills in around them. */
#ifdef __PCC_SIM_HOST_LIBC
#include <math.h> /* C++ wrapper: the float overloads in the global namespace */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#define CUDART_VERSION 13000 /* what libcu++ reads from the toolkit's headers */
#endif
typedef __SIZE_TYPE__ size_t;
typedef __PTRDIFF_TYPE__ ptrdiff_t;
typedef long clock_t;
#ifndef NULL
#define NULL __null
#endif
#include <stdarg.h> /* va_list, va_start ...: the compiler's own header, no C library */
extern "C" {
void *memcpy(void *, const void *, size_t) noexcept;
void *memset(void *, int, size_t) noexcept;
}

#define PCC_SIM_MODULE 1 /* sim_abi.h: size_t is declared above */
#include "sim_abi.h"

/* The few type traits the prelude needs, without <type_traits>. */
namespace __pcc {
template <class T> struct remove_cvref { typedef T type; };
template <class T> struct remove_cvref<const T> : remove_cvref<T> {};
template <class T> struct remove_cvref<volatile T> : remove_cvref<T> {};
template <class T> struct remove_cvref<const volatile T> : remove_cvref<T> {};
template <class T> struct remove_cvref<T &> : remove_cvref<T> {};
template <class T> struct remove_cvref<T &&> : remove_cvref<T> {};
template <size_t... I> struct index_sequence {};
template <size_t N, size_t... I> struct make_seq : make_seq<N - 1, N - 1, I...> {};
template <size_t... I> struct make_seq<0, I...> { typedef index_sequence<I...> type; };
template <class I> struct limits;
template <> struct limits<int> { static constexpr int min() { return -__INT_MAX__ - 1; } static constexpr int max() { return __INT_MAX__; } };
template <> struct limits<unsigned int> { static constexpr unsigned int min() { return 0; } static constexpr unsigned int max() { return __INT_MAX__ * 2u + 1u; } };
template <> struct limits<long long> { static constexpr long long min() { return -__LONG_LONG_MAX__ - 1; } static constexpr long long max() { return __LONG_LONG_MAX__; } };
template <> struct limits<unsigned long long> { static constexpr unsigned long long min() { return 0; } static constexpr unsigned long long max() { return __LONG_LONG_MAX__ * 2ull + 1ull; } };
} // namespace __pcc

#define __CUDACC__ 1
#define __CUDACC_RTC__ 1
#define __CUDA_ARCH__ 900
#define __CUDACC_VER_MAJOR__ 12
#define __CUDACC_VER_MINOR__ 0
#define __PYCUDAC_SIM__ 1

#pragma GCC visibility push(hidden)

/* ---- execution-space and storage qualifiers ------------------------------ */
/* Markers: the sim compiler preprocesses the program, finds its kernels,
 * checks NVRTC's rules on them (execution spaces, __shared__ initializers,
 * __global__ return types) and then replaces each marker with its host C++
 * (sim/cc/scan.c, pcc_sim_marker_edits). */
#define __global__ __pcc_global__
#define __device__ __pcc_device__
#define __host__ __pcc_host__
#define __constant__ __pcc_constant__
#define __managed__ __pcc_managed__
#define __shared__ __pcc_shared__
#define __forceinline__ __pcc_forceinline__
#define __grid_constant__
#define __noinline__ __attribute__((noinline))
#define __align__(n) __attribute__((aligned(n)))
#define __launch_bounds__(...)
#define __maxnreg__(n)
#define __cluster_dims__(...) __pcc_cluster_dims__(__VA_ARGS__) /* read by sim/cc/scan.c */
#ifndef __restrict__
#define __restrict__ __restrict
#endif
#define __builtin_align__(n) __align__(n)
#define __device_builtin__
#define __cudart_builtin__

/* ---- the current simulated thread --------------------------------------- */
static thread_local pcc_sim_thread *__pcc_cur;
static const pcc_sim_api *__pcc_api;

#include "pcc_check.h" /* check mode's hooks (empty markers without it) */

typedef pcc_sim_dim3 uint3;
struct dim3 {
    unsigned int x, y, z;
    constexpr dim3(unsigned int vx = 1, unsigned int vy = 1, unsigned int vz = 1) : x(vx), y(vy), z(vz) {}
    constexpr dim3(uint3 v) : x(v.x), y(v.y), z(v.z) {}
    constexpr operator uint3() const { return uint3{x, y, z}; }
};

static constexpr int warpSize = 32;


#include "vector_types.h"

/* ---- runtime calls: save and restore the current thread around them ---- */
#define PCC_SAVE pcc_sim_thread *__pcc_self = __pcc_cur
#define PCC_RESTORE __pcc_cur = __pcc_self

static inline void __syncthreads(void) { PCC_SAVE; __pcc_api->syncthreads(__pcc_self, PCC_SIM_SYNC_PLAIN, 0); PCC_RESTORE; }
static inline int __syncthreads_count(int p) { PCC_SAVE; int r = __pcc_api->syncthreads(__pcc_self, PCC_SIM_SYNC_COUNT, p != 0); PCC_RESTORE; return r; }
static inline int __syncthreads_and(int p) { PCC_SAVE; int r = __pcc_api->syncthreads(__pcc_self, PCC_SIM_SYNC_AND, p != 0); PCC_RESTORE; return r; }
static inline int __syncthreads_or(int p) { PCC_SAVE; int r = __pcc_api->syncthreads(__pcc_self, PCC_SIM_SYNC_OR, p != 0); PCC_RESTORE; return r; }
static inline void __syncwarp(unsigned int mask = 0xffffffffu) { PCC_SAVE; __pcc_api->syncwarp(__pcc_self, mask); PCC_RESTORE; }
static inline unsigned int __ballot_sync(unsigned int mask, int p) { PCC_SAVE; unsigned int r = __pcc_api->ballot(__pcc_self, mask, p != 0); PCC_RESTORE; return r; }
static inline int __any_sync(unsigned int mask, int p) { return __ballot_sync(mask, p) != 0; }
static inline int __all_sync(unsigned int mask, int p) { return __ballot_sync(mask, !p) == 0; }
static inline int __uni_sync(unsigned int mask, int p) { unsigned int b = __ballot_sync(mask, p); return b == 0 || b == (mask & __ballot_sync(mask, 1)); }
/* Inlined, with the caller's line, so that each call in the source is a
 * call site of its own to the runtime (sim/warp.c: which lanes converge). */
static inline __attribute__((always_inline)) unsigned int
__activemask(const char *__file = __builtin_FILE(), int __line = __builtin_LINE())
{
    PCC_SAVE;
    unsigned int r = __pcc_api->activemask(__pcc_self, __file, __line);
    PCC_RESTORE;
    return r;
}
static inline unsigned int __lanemask_lt(void) { return (1u << __pcc_cur->lane) - 1u; }
static inline unsigned int __lanemask_le(void) { return (unsigned int)((2ull << __pcc_cur->lane) - 1u); }
static inline unsigned int __lanemask_eq(void) { return 1u << __pcc_cur->lane; }
static inline unsigned int __lanemask_gt(void) { return ~__lanemask_le(); }
static inline unsigned int __lanemask_ge(void) { return ~__lanemask_lt(); }

/* Shuffles: any T of at most 8 bytes travels as its bits. */
template <class T> static inline T __pcc_shfl(unsigned int mask, T var, int src)
{
    static_assert(sizeof(T) <= 8 && __is_trivially_copyable(T),
                  "__shfl_*_sync: the value must be a trivially copyable type of at most 8 bytes");
    unsigned long long bits = 0;
    memcpy(&bits, &var, sizeof(T));
    PCC_SAVE;
    bits = __pcc_api->shfl(__pcc_self, mask, bits, src);
    PCC_RESTORE;
    T out;
    memcpy(&out, &bits, sizeof(T));
    return out;
}
template <class T> static inline T __shfl_sync(unsigned int mask, T var, int srcLane, int width = 32)
{
    int lane = (int)__pcc_cur->lane;
    int seg = lane & ~(width - 1);
    return __pcc_shfl(mask, var, seg + (srcLane & (width - 1)));
}
template <class T> static inline T __shfl_up_sync(unsigned int mask, T var, unsigned int delta, int width = 32)
{
    int lane = (int)__pcc_cur->lane;
    int src = ((lane & (width - 1)) < (int)delta) ? lane : lane - (int)delta;
    return __pcc_shfl(mask, var, src);
}
template <class T> static inline T __shfl_down_sync(unsigned int mask, T var, unsigned int delta, int width = 32)
{
    int lane = (int)__pcc_cur->lane;
    int src = ((lane & (width - 1)) + (int)delta >= width) ? lane : lane + (int)delta;
    return __pcc_shfl(mask, var, src);
}
template <class T> static inline T __shfl_xor_sync(unsigned int mask, T var, int laneMask, int width = 32)
{
    int lane = (int)__pcc_cur->lane;
    int src = lane ^ laneMask;
    if (src >= (lane & ~(width - 1)) + width)
        src = lane;
    return __pcc_shfl(mask, var, src);
}
template <class T> static inline unsigned int __match_any_sync(unsigned int mask, T value)
{
    unsigned int r = 0;
    for (int j = 0; j < 32; j++) {
        T v = __pcc_shfl(mask, value, j);
        if ((mask >> j & 1u) && __builtin_memcmp(&v, &value, sizeof(T)) == 0)
            r |= 1u << j;
    }
    return r & __ballot_sync(mask, 1);
}
template <class T> static inline unsigned int __match_all_sync(unsigned int mask, T value, int *pred)
{
    unsigned int same = __match_any_sync(mask, value);
    unsigned int all = __ballot_sync(mask, 1);
    *pred = same == all;
    return same == all ? all : 0;
}
#define PCC_REDUCE(NAME, T, OP)                                                                \
    static inline T NAME(unsigned int mask, T value)                                           \
    {                                                                                          \
        T r = value;                                                                           \
        bool first = true;                                                                     \
        for (int j = 0; j < 32; j++) {                                                         \
            T v = __pcc_shfl(mask, value, j);                                                  \
            if (mask >> j & 1u) {                                                              \
                r = first ? v : (OP);                                                          \
                first = false;                                                                 \
            }                                                                                  \
        }                                                                                      \
        return r;                                                                              \
    }
PCC_REDUCE(__reduce_add_sync, int, r + v)
PCC_REDUCE(__reduce_add_sync, unsigned int, r + v)
PCC_REDUCE(__reduce_min_sync, int, v < r ? v : r)
PCC_REDUCE(__reduce_min_sync, unsigned int, v < r ? v : r)
PCC_REDUCE(__reduce_max_sync, int, v > r ? v : r)
PCC_REDUCE(__reduce_max_sync, unsigned int, v > r ? v : r)
PCC_REDUCE(__reduce_and_sync, unsigned int, r & v)
PCC_REDUCE(__reduce_or_sync, unsigned int, r | v)
PCC_REDUCE(__reduce_xor_sync, unsigned int, r ^ v)
#undef PCC_REDUCE

/* ---- traps, assert, printf, clocks -------------------------------------- */
[[noreturn]] static inline void __trap(void)
{
    __pcc_api->trap(__pcc_cur, 719, "__trap() was called");
    __builtin_unreachable();
}
/* A kernel that ends the process on the host — abort(), exit() and the
 * like, declared by the program itself or by a host library — ends its
 * launch here, as a trap would on a GPU: the module is linked with
 * --wrap for these names (sim/cc/cxx.c), so its calls to the C library's
 * come here, while a kernel of that name (extern "C" __global__ void
 * exit()) is still its own. */
#define __PCC_END_FN(NAME, ARGS, WHAT)                                                          \
    extern "C" __attribute__((noreturn, used)) void __wrap_##NAME ARGS noexcept                 \
    {                                                                                          \
        __pcc_api->trap(__pcc_cur, 719, WHAT " was called in device code: the simulator ends " \
                                            "the launch (a GPU has no such call)");            \
        __builtin_unreachable();                                                               \
    }
__PCC_END_FN(abort, (void), "abort()")
__PCC_END_FN(exit, (int), "exit()")
__PCC_END_FN(_exit, (int), "_exit()")
__PCC_END_FN(_Exit, (int), "_Exit()")
__PCC_END_FN(quick_exit, (int), "quick_exit()")
#undef __PCC_END_FN
/* A kernel thread that yields or sleeps is waiting for another: libcu++'s
 * atomic waits, a spin lock that backs off. The simulator runs a block's
 * threads one at a time between barriers, so a wait on a thread of the same
 * block never ended (the launch hung). After 2 s of such waiting with no
 * pause of 100 ms, the launch ends with an error that says why; a wait on
 * another block, which runs on another of the simulator's threads, is
 * over sooner. The module is linked with --wrap for both (sim/cc/cxx.c). */
static inline void __pcc_waiting(void)
{
    static __thread const void *who;
    static __thread long long first, last;
    long long now = __pcc_api->clock64(); /* the host's monotonic ns */
    if (who != (const void *)__pcc_cur || now - last > 100000000LL) {
        who = (const void *)__pcc_cur;
        first = now;
    }
    last = now;
    if (now - first > 2000000000LL)
        __pcc_api->trap(__pcc_cur, 719, "a thread waited 2 s for another (an atomic wait, a "
                                        "latch, a lock that yields or sleeps): the pycudac CPU "
                                        "simulator runs a block's threads one at a time between "
                                        "barriers, so waiting on a thread of the same block "
                                        "never ends");
}
struct timespec;
/* (the C library's, which --wrap names __real_: visible, as the prelude's
 * own declarations are hidden) */
extern "C" __attribute__((visibility("default"))) int __real_sched_yield(void);
extern "C" __attribute__((visibility("default"))) int __real_nanosleep(const struct timespec *,
                                                                      struct timespec *);
extern "C" __attribute__((used)) int __wrap_sched_yield(void) noexcept
{
    if (__pcc_cur != NULL)
        __pcc_waiting();
    return __real_sched_yield();
}
extern "C" __attribute__((used)) int __wrap_nanosleep(const struct timespec *req,
                                                     struct timespec *rem) noexcept
{
    if (__pcc_cur != NULL)
        __pcc_waiting();
    return __real_nanosleep(req, rem);
}
[[noreturn]] static inline void __brkpt(void)
{
    __pcc_api->trap(__pcc_cur, 719, "__brkpt() was called");
    __builtin_unreachable();
}
[[noreturn]] static inline void __pcc_assert_fail(const char *expr, const char *file, int line, const char *func)
{
    char msg[512];
    pcc_sim_thread *t = __pcc_cur;
    __builtin_snprintf(msg, sizeof msg, "%s:%d: %s: block: [%u,%u,%u], thread: [%u,%u,%u] Assertion `%s` failed.",
             file, line, func, t->blockIdx.x, t->blockIdx.y, t->blockIdx.z, t->threadIdx.x,
             t->threadIdx.y, t->threadIdx.z, expr);
    __pcc_api->trap(t, 710, msg);
    __builtin_unreachable();
}
static inline int __pcc_printf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    PCC_SAVE;
    int r = __pcc_api->vprintf(__pcc_self, fmt, ap);
    PCC_RESTORE;
    va_end(ap);
    return r;
}
#define printf(...) __pcc_printf(__VA_ARGS__)
static inline long long clock64(void) { return __pcc_api->clock64(); }
/* Device malloc/free: the context's heap (CU_LIMIT_MALLOC_HEAP_SIZE), as on
 * the GPU; C linkage as CUDA declares them. */
extern "C" inline void *malloc(size_t n) noexcept
{
    PCC_SAVE;
    void *p = __pcc_api->malloc(__pcc_self, n);
    PCC_RESTORE;
    return p;
}
extern "C" inline void free(void *p) noexcept
{
    PCC_SAVE;
    __pcc_api->free(__pcc_self, p);
    PCC_RESTORE;
}
static inline long __pcc_clock(void) { return (long)__pcc_api->clock64(); }
#define clock() __pcc_clock()
static inline unsigned long long __globaltimer(void) { return (unsigned long long)__pcc_api->clock64(); }
/* (a backoff in a spin-wait: counted as waiting, as a yield is) */
static inline void __nanosleep(unsigned int ns)
{
    (void)ns;
    if (__pcc_cur != NULL)
        __pcc_waiting();
}
static inline void __threadfence(void) { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
static inline void __threadfence_block(void) { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
static inline void __threadfence_system(void) { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
static inline unsigned int __isGlobal(const void *p) { (void)p; return 1; }
static inline unsigned int __isShared(const void *p) { (void)p; return 0; }
static inline unsigned int __isConstant(const void *p) { (void)p; return 0; }
static inline unsigned int __isLocal(const void *p) { (void)p; return 0; }
template <class T> static inline T __ldg(const T *p) { return *p; }
template <class T> static inline T __ldcg(const T *p) { return *p; }
template <class T> static inline T __ldca(const T *p) { return *p; }
template <class T> static inline T __ldcs(const T *p) { return *p; }
template <class T> static inline T __ldlu(const T *p) { return *p; }
template <class T> static inline T __ldcv(const T *p) { return *p; }
template <class T> static inline void __stwb(T *p, T v) { *p = v; }
template <class T> static inline void __stcg(T *p, T v) { *p = v; }
template <class T> static inline void __stcs(T *p, T v) { *p = v; }
template <class T> static inline void __stwt(T *p, T v) { *p = v; }


#include "device_atomic_functions.h"
#include "math_functions.h"
#include "texture_indirect_functions.h"

/* ---- what the generated registration code uses --------------------------- */
template <class A> static inline A __pcc_arg(void *p)
{
    typedef typename __pcc::remove_cvref<A>::type T;
    alignas(T) unsigned char buf[sizeof(T)];
    memcpy(buf, p, sizeof(T));
    return *reinterpret_cast<T *>(buf);
}
template <size_t N> struct __pcc_sizes { size_t v[N ? N : 1]; };
template <class... A> constexpr __pcc_sizes<sizeof...(A)> __pcc_param_offsets()
{
    __pcc_sizes<sizeof...(A)> r{};
    const size_t al[] = {alignof(A)..., 1}, sz[] = {sizeof(A)..., 0};
    size_t o = 0;
    for (size_t i = 0; i < sizeof...(A); i++) {
        o = (o + al[i] - 1) / al[i] * al[i];
        r.v[i] = o;
        o += sz[i];
    }
    return r;
}
static void __pcc_set_dyn_shared(void *p); /* defined by the generated code */
template <class F> struct __pcc_fn { static constexpr bool is_kernel = false; };
template <class... A> struct __pcc_fn<void (*)(A...)> {
    static constexpr bool is_kernel = true;
    static constexpr int n = (int)sizeof...(A);
    static constexpr __pcc_sizes<sizeof...(A)> offsets = __pcc_param_offsets<A...>();
    static constexpr __pcc_sizes<sizeof...(A)> sizes = {{sizeof(A)...}};
    template <void (*F)(A...), size_t... I>
    static inline void call(void *const *args, __pcc::index_sequence<I...>)
    {
        F(__pcc_arg<A>(args[I])...);
    }
    template <void (*F)(A...)> static void entry(pcc_sim_thread *t, void *const *args)
    {
        __pcc_cur = t;
        __pcc_set_dyn_shared(t->dynamic_shared);
        call<F>(args, typename __pcc::make_seq<sizeof...(A)>::type{});
    }
};
/* Where this OS thread's copies of the module's __shared__ variables are:
 * the runtime maps one block's shared address to another's by its offset
 * from this anchor (cluster.map_shared_rank). */
static thread_local char __pcc_tls_anchor;
static void *__pcc_tls_anchor_of_thread(void) { return &__pcc_tls_anchor; }
/* __cluster_dims__(...) of a kernel, as dim3 takes them (1 to 3 values) */
static constexpr pcc_sim_dim3 __pcc_cluster(dim3 d) { return pcc_sim_dim3{d.x, d.y, d.z}; }
template <auto F> static const void *__pcc_fn_address(void) { return (const void *)F; }
template <auto F>
static constexpr pcc_sim_kernel __pcc_kernel(const char *name, int from_expr, int uses_sync,
                                             pcc_sim_dim3 cluster = pcc_sim_dim3{0, 0, 0})
{
    typedef __pcc_fn<decltype(F)> fn;
    if constexpr (fn::is_kernel)
        return pcc_sim_kernel{name, &fn::template entry<F>, fn::n, fn::offsets.v, fn::sizes.v, uses_sync,
                              __PCC_SIM_CHECKED, {cluster.x, cluster.y, cluster.z},
                              __pcc_tls_anchor_of_thread, &__pcc_fn_address<F>, from_expr};
    else
        return pcc_sim_kernel{name, nullptr, 0, nullptr, nullptr, uses_sync, __PCC_SIM_CHECKED,
                              {0, 0, 0}, nullptr, nullptr, from_expr};
}
static inline void *__pcc_dyn_smem(void) { return __pcc_cur->dynamic_shared; }

/* last: the prelude's own code reads these fields through pointers */
#define threadIdx (__pcc_cur->threadIdx)
#define blockIdx (__pcc_cur->blockIdx)
#define blockDim (__pcc_cur->blockDim)
#define gridDim (__pcc_cur->gridDim)

#pragma GCC visibility pop
#endif /* PCC_SIM_PRELUDE_MAIN */

#include "assert.h"
