/*
 * sim/prelude/prelude.h — CUDA C's device built-ins as host C++17, for the CPU
 * simulator. The sim compiler (src/sim/cc/compile.c) includes this
 * before the user's source and compiles both into one shared object that
 * the sim runtime (src/sim/) loads; sim_abi.h is the contract.
 *
 * Kept light on purpose: every kernel compile parses it, so no <iostream>,
 * no <atomic>, nothing heavier than the C library's math.
 *
 * Threads of a block are fibers on one OS thread, so `__shared__` is a
 * static thread_local and the current simulated thread is a thread_local
 * pointer. Every runtime call that may switch fibers saves that pointer in
 * a local and puts it back afterwards.
 *
 * Sections at the end (fp16, math constants, assert) are pulled in by the
 * stub headers the compiler writes (cuda_fp16.h, math_constants.h,
 * assert.h ...): they are included from inside the user's extern "C" block,
 * hence extern "C++".
 */
#ifndef PCC_SIM_PRELUDE_MAIN
#define PCC_SIM_PRELUDE_MAIN

#include <math.h> /* C++ wrapper: the float overloads in the global namespace, like CUDA */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <limits.h>
#include <float.h>
#include <limits>
#include <type_traits>
#include <utility>

#include "sim_abi.h"

#define __CUDACC__ 1
#define __CUDACC_RTC__ 1
#define __CUDA_ARCH__ 900
#define __CUDACC_VER_MAJOR__ 12
#define __CUDACC_VER_MINOR__ 0
#define __PYCUDAC_SIM__ 1

#pragma GCC visibility push(hidden)

/* ---- execution-space and storage qualifiers ------------------------------ */
#define __global__
#define __device__
#define __host__
#define __constant__
#define __managed__
#define __grid_constant__
#define __shared__ static thread_local
#define __forceinline__ inline __attribute__((always_inline))
#define __noinline__ __attribute__((noinline))
#define __align__(n) __attribute__((aligned(n)))
#define __launch_bounds__(...)
#define __maxnreg__(n)
#define __cluster_dims__(...)
#ifndef __restrict__
#define __restrict__ __restrict
#endif
#define __builtin_align__(n) __align__(n)
#define __device_builtin__
#define __cudart_builtin__

/* ---- the current simulated thread --------------------------------------- */
static thread_local pcc_sim_thread *__pcc_cur;
static const pcc_sim_api *__pcc_api;

typedef pcc_sim_dim3 uint3;
struct dim3 {
    unsigned int x, y, z;
    constexpr dim3(unsigned int vx = 1, unsigned int vy = 1, unsigned int vz = 1) : x(vx), y(vy), z(vz) {}
    constexpr dim3(uint3 v) : x(v.x), y(v.y), z(v.z) {}
    constexpr operator uint3() const { return uint3{x, y, z}; }
};

static constexpr int warpSize = 32;

/* ---- vector types (CUDA's sizes and alignments) ------------------------- */
#define PCC_VEC(T, N, A1, A2, A3, A4)                                                          \
    struct __attribute__((aligned(A1))) N##1 { T x; };                                         \
    struct __attribute__((aligned(A2))) N##2 { T x, y; };                                      \
    struct __attribute__((aligned(A3))) N##3 { T x, y, z; };                                   \
    struct __attribute__((aligned(A4))) N##4 { T x, y, z, w; };                                \
    static inline N##1 make_##N##1(T x) { return N##1{x}; }                                    \
    static inline N##2 make_##N##2(T x, T y) { return N##2{x, y}; }                            \
    static inline N##3 make_##N##3(T x, T y, T z) { return N##3{x, y, z}; }                    \
    static inline N##4 make_##N##4(T x, T y, T z, T w) { return N##4{x, y, z, w}; }
PCC_VEC(signed char, char, 1, 2, 1, 4)
PCC_VEC(unsigned char, uchar, 1, 2, 1, 4)
PCC_VEC(short, short, 2, 4, 2, 8)
PCC_VEC(unsigned short, ushort, 2, 4, 2, 8)
PCC_VEC(int, int, 4, 8, 4, 16)
PCC_VEC(float, float, 4, 8, 4, 16)
PCC_VEC(long, long, 8, 16, 8, 16)
PCC_VEC(unsigned long, ulong, 8, 16, 8, 16)
PCC_VEC(long long, longlong, 8, 16, 8, 16)
PCC_VEC(unsigned long long, ulonglong, 8, 16, 8, 16)
PCC_VEC(double, double, 8, 16, 8, 16)
#undef PCC_VEC
/* CUDA 13's explicitly aligned 4-vectors of 8-byte elements */
#define PCC_VEC4A(T, N)                                                                        \
    typedef N##4 N##4_16a;                                                                     \
    struct __attribute__((aligned(32))) N##4_32a { T x, y, z, w; };                            \
    static inline N##4_16a make_##N##4_16a(T x, T y, T z, T w) { return N##4_16a{x, y, z, w}; } \
    static inline N##4_32a make_##N##4_32a(T x, T y, T z, T w) { return N##4_32a{x, y, z, w}; }
PCC_VEC4A(long, long) PCC_VEC4A(unsigned long, ulong) PCC_VEC4A(long long, longlong)
PCC_VEC4A(unsigned long long, ulonglong) PCC_VEC4A(double, double)
#undef PCC_VEC4A
/* uint1..4 keep uint3 == the runtime's dim3 struct */
struct __attribute__((aligned(4))) uint1 { unsigned int x; };
struct __attribute__((aligned(8))) uint2 { unsigned int x, y; };
struct __attribute__((aligned(16))) uint4 { unsigned int x, y, z, w; };
static inline uint1 make_uint1(unsigned int x) { return uint1{x}; }
static inline uint2 make_uint2(unsigned int x, unsigned int y) { return uint2{x, y}; }
static inline uint3 make_uint3(unsigned int x, unsigned int y, unsigned int z) { return uint3{x, y, z}; }
static inline uint4 make_uint4(unsigned int x, unsigned int y, unsigned int z, unsigned int w) { return uint4{x, y, z, w}; }

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
static inline unsigned int __activemask(void) { PCC_SAVE; unsigned int r = __pcc_api->activemask(__pcc_self); PCC_RESTORE; return r; }
static inline unsigned int __lanemask_lt(void) { return (1u << __pcc_cur->lane) - 1u; }
static inline unsigned int __lanemask_le(void) { return (unsigned int)((2ull << __pcc_cur->lane) - 1u); }
static inline unsigned int __lanemask_eq(void) { return 1u << __pcc_cur->lane; }
static inline unsigned int __lanemask_gt(void) { return ~__lanemask_le(); }
static inline unsigned int __lanemask_ge(void) { return ~__lanemask_lt(); }

/* Shuffles: any T of at most 8 bytes travels as its bits. */
template <class T> static inline T __pcc_shfl(unsigned int mask, T var, int src)
{
    static_assert(sizeof(T) <= 8 && std::is_trivially_copyable<T>::value,
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
        if ((mask >> j & 1u) && memcmp(&v, &value, sizeof(T)) == 0)
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
[[noreturn]] static inline void __brkpt(void)
{
    __pcc_api->trap(__pcc_cur, 719, "__brkpt() was called");
    __builtin_unreachable();
}
[[noreturn]] static inline void __pcc_assert_fail(const char *expr, const char *file, int line, const char *func)
{
    char msg[512];
    pcc_sim_thread *t = __pcc_cur;
    snprintf(msg, sizeof msg, "%s:%d: %s: block: [%u,%u,%u], thread: [%u,%u,%u] Assertion `%s` failed.",
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
static inline long __pcc_clock(void) { return (long)__pcc_api->clock64(); }
#define clock() __pcc_clock()
static inline unsigned long long __globaltimer(void) { return (unsigned long long)__pcc_api->clock64(); }
static inline void __nanosleep(unsigned int ns) { (void)ns; }
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

/* ---- atomics (sequentially consistent host atomics; CAS loops for floats) */
#define PCC_ATOMIC_INT(T)                                                                      \
    static inline T atomicAdd(T *a, T v) { return __atomic_fetch_add(a, v, __ATOMIC_SEQ_CST); } \
    static inline T atomicSub(T *a, T v) { return __atomic_fetch_sub(a, v, __ATOMIC_SEQ_CST); } \
    static inline T atomicExch(T *a, T v) { return __atomic_exchange_n(a, v, __ATOMIC_SEQ_CST); } \
    static inline T atomicAnd(T *a, T v) { return __atomic_fetch_and(a, v, __ATOMIC_SEQ_CST); } \
    static inline T atomicOr(T *a, T v) { return __atomic_fetch_or(a, v, __ATOMIC_SEQ_CST); }   \
    static inline T atomicXor(T *a, T v) { return __atomic_fetch_xor(a, v, __ATOMIC_SEQ_CST); } \
    static inline T atomicCAS(T *a, T cmp, T v)                                                \
    {                                                                                          \
        __atomic_compare_exchange_n(a, &cmp, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);    \
        return cmp;                                                                            \
    }                                                                                          \
    static inline T atomicMin(T *a, T v)                                                       \
    {                                                                                          \
        T old = __atomic_load_n(a, __ATOMIC_RELAXED);                                          \
        while (v < old && !__atomic_compare_exchange_n(a, &old, v, true, __ATOMIC_SEQ_CST,     \
                                                       __ATOMIC_RELAXED)) {                    \
        }                                                                                      \
        return old;                                                                            \
    }                                                                                          \
    static inline T atomicMax(T *a, T v)                                                       \
    {                                                                                          \
        T old = __atomic_load_n(a, __ATOMIC_RELAXED);                                          \
        while (v > old && !__atomic_compare_exchange_n(a, &old, v, true, __ATOMIC_SEQ_CST,     \
                                                       __ATOMIC_RELAXED)) {                    \
        }                                                                                      \
        return old;                                                                            \
    }
PCC_ATOMIC_INT(int)
PCC_ATOMIC_INT(unsigned int)
PCC_ATOMIC_INT(unsigned long long)
PCC_ATOMIC_INT(long long)
#undef PCC_ATOMIC_INT
static inline unsigned short atomicCAS(unsigned short *a, unsigned short cmp, unsigned short v)
{
    __atomic_compare_exchange_n(a, &cmp, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
    return cmp;
}
template <class T, class F> static inline T __pcc_atomic_update(T *a, F f)
{
    T old, val;
    __atomic_load(a, &old, __ATOMIC_RELAXED);
    do {
        val = f(old);
    } while (!__atomic_compare_exchange(a, &old, &val, true, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED));
    return old;
}
static inline float atomicAdd(float *a, float v) { return __pcc_atomic_update(a, [v](float o) { return o + v; }); }
static inline double atomicAdd(double *a, double v) { return __pcc_atomic_update(a, [v](double o) { return o + v; }); }
static inline float atomicSub(float *a, float v) { return __pcc_atomic_update(a, [v](float o) { return o - v; }); }
static inline double atomicSub(double *a, double v) { return __pcc_atomic_update(a, [v](double o) { return o - v; }); }
static inline float atomicExch(float *a, float v) { float r; __atomic_exchange(a, &v, &r, __ATOMIC_SEQ_CST); return r; }
static inline double atomicExch(double *a, double v) { double r; __atomic_exchange(a, &v, &r, __ATOMIC_SEQ_CST); return r; }
static inline float atomicMin(float *a, float v) { return __pcc_atomic_update(a, [v](float o) { return fminf(o, v); }); }
static inline float atomicMax(float *a, float v) { return __pcc_atomic_update(a, [v](float o) { return fmaxf(o, v); }); }
static inline double atomicMin(double *a, double v) { return __pcc_atomic_update(a, [v](double o) { return fmin(o, v); }); }
static inline double atomicMax(double *a, double v) { return __pcc_atomic_update(a, [v](double o) { return fmax(o, v); }); }
static inline unsigned int atomicInc(unsigned int *a, unsigned int v)
{
    return __pcc_atomic_update(a, [v](unsigned int o) { return o >= v ? 0u : o + 1u; });
}
static inline unsigned int atomicDec(unsigned int *a, unsigned int v)
{
    return __pcc_atomic_update(a, [v](unsigned int o) { return (o == 0u || o > v) ? v : o - 1u; });
}
/* The _block and _system scopes are the same on one host. */
#define PCC_SCOPED(F)                                                                          \
    template <class... A> static inline auto F##_block(A... a) -> decltype(F(a...)) { return F(a...); } \
    template <class... A> static inline auto F##_system(A... a) -> decltype(F(a...)) { return F(a...); }
PCC_SCOPED(atomicAdd) PCC_SCOPED(atomicSub) PCC_SCOPED(atomicExch) PCC_SCOPED(atomicMin)
PCC_SCOPED(atomicMax) PCC_SCOPED(atomicInc) PCC_SCOPED(atomicDec) PCC_SCOPED(atomicCAS)
PCC_SCOPED(atomicAnd) PCC_SCOPED(atomicOr) PCC_SCOPED(atomicXor)
#undef PCC_SCOPED

/* ---- min/max: exactly CUDA's overload set -------------------------------- */
#define PCC_MINMAX(R, A, B)                                                                    \
    static inline R min(const A a, const B b) { return (R)a < (R)b ? (R)a : (R)b; }            \
    static inline R max(const A a, const B b) { return (R)a > (R)b ? (R)a : (R)b; }
PCC_MINMAX(int, int, int)
PCC_MINMAX(unsigned int, unsigned int, unsigned int)
PCC_MINMAX(unsigned int, int, unsigned int)
PCC_MINMAX(unsigned int, unsigned int, int)
PCC_MINMAX(long, long, long)
PCC_MINMAX(unsigned long, unsigned long, unsigned long)
PCC_MINMAX(unsigned long, long, unsigned long)
PCC_MINMAX(unsigned long, unsigned long, long)
PCC_MINMAX(long long, long long, long long)
PCC_MINMAX(unsigned long long, unsigned long long, unsigned long long)
PCC_MINMAX(unsigned long long, long long, unsigned long long)
PCC_MINMAX(unsigned long long, unsigned long long, long long)
#undef PCC_MINMAX
static inline float min(const float a, const float b) { return fminf(a, b); }
static inline float max(const float a, const float b) { return fmaxf(a, b); }
static inline double min(const double a, const double b) { return fmin(a, b); }
static inline double max(const double a, const double b) { return fmax(a, b); }
static inline double min(const float a, const double b) { return fmin((double)a, b); }
static inline double max(const float a, const double b) { return fmax((double)a, b); }
static inline double min(const double a, const float b) { return fmin(a, (double)b); }
static inline double max(const double a, const float b) { return fmax(a, (double)b); }
static inline unsigned int umin(unsigned int a, unsigned int b) { return a < b ? a : b; }
static inline unsigned int umax(unsigned int a, unsigned int b) { return a > b ? a : b; }
static inline long long llmin(long long a, long long b) { return a < b ? a : b; }
static inline long long llmax(long long a, long long b) { return a > b ? a : b; }
static inline unsigned long long ullmin(unsigned long long a, unsigned long long b) { return a < b ? a : b; }
static inline unsigned long long ullmax(unsigned long long a, unsigned long long b) { return a > b ? a : b; }

/* ---- math beyond <math.h> ------------------------------------------------ */
static inline float rsqrtf(float x) { return 1.0f / sqrtf(x); }
static inline double rsqrt(double x) { return 1.0 / sqrt(x); }
static inline float rcbrtf(float x) { return 1.0f / cbrtf(x); }
static inline double rcbrt(double x) { return 1.0 / cbrt(x); }
static inline float sinpif(float x) { return sinf((float)M_PI * x); }
static inline float cospif(float x) { return cosf((float)M_PI * x); }
static inline double sinpi(double x) { return sin(M_PI * x); }
static inline double cospi(double x) { return cos(M_PI * x); }
static inline void sincospif(float x, float *s, float *c) { *s = sinpif(x); *c = cospif(x); }
static inline void sincospi(double x, double *s, double *c) { *s = sinpi(x); *c = cospi(x); }
#ifndef __USE_GNU
static inline float exp10f(float x) { return powf(10.0f, x); }
static inline double exp10(double x) { return pow(10.0, x); }
static inline void sincosf(float x, float *s, float *c) { *s = sinf(x); *c = cosf(x); }
static inline void sincos(double x, double *s, double *c) { *s = sin(x); *c = cos(x); }
#endif
static inline float normcdff(float x) { return 0.5f * erfcf(-x * (float)M_SQRT1_2); }
static inline double normcdf(double x) { return 0.5 * erfc(-x * M_SQRT1_2); }
static inline double erfinv(double y)
{
    if (y <= -1.0) return y == -1.0 ? -HUGE_VAL : NAN;
    if (y >= 1.0) return y == 1.0 ? HUGE_VAL : NAN;
    /* Giles' approximation, then two Newton steps on erf. */
    double w = -log((1.0 - y) * (1.0 + y)), x;
    if (w < 5.0) {
        w -= 2.5;
        x = 2.81022636e-08; x = 3.43273939e-07 + x * w; x = -3.5233877e-06 + x * w;
        x = -4.39150654e-06 + x * w; x = 0.00021858087 + x * w; x = -0.00125372503 + x * w;
        x = -0.00417768164 + x * w; x = 0.246640727 + x * w; x = 1.50140941 + x * w;
    } else {
        w = sqrt(w) - 3.0;
        x = -0.000200214257; x = 0.000100950558 + x * w; x = 0.00134934322 + x * w;
        x = -0.00367342844 + x * w; x = 0.00573950773 + x * w; x = -0.0076224613 + x * w;
        x = 0.00943887047 + x * w; x = 1.00167406 + x * w; x = 2.83297682 + x * w;
    }
    x *= y;
    for (int i = 0; i < 2; i++)
        x -= (erf(x) - y) / (2.0 / sqrt(M_PI) * exp(-x * x));
    return x;
}
static inline float erfinvf(float y) { return (float)erfinv((double)y); }
static inline double erfcinv(double y) { return erfinv(1.0 - y); }
static inline float erfcinvf(float y) { return (float)erfinv(1.0 - (double)y); }
static inline double normcdfinv(double p) { return -M_SQRT2 * erfcinv(2.0 * p); }
static inline float normcdfinvf(float p) { return (float)normcdfinv((double)p); }
static inline double erfcx(double x) { return exp(x * x) * erfc(x); }
static inline float erfcxf(float x) { return (float)erfcx((double)x); }
static inline float rhypotf(float x, float y) { return 1.0f / hypotf(x, y); }
static inline double rhypot(double x, double y) { return 1.0 / hypot(x, y); }
static inline float norm3df(float a, float b, float c) { return sqrtf(a * a + b * b + c * c); }
static inline float rnorm3df(float a, float b, float c) { return 1.0f / norm3df(a, b, c); }
static inline float norm4df(float a, float b, float c, float d) { return sqrtf(a * a + b * b + c * c + d * d); }
static inline float rnorm4df(float a, float b, float c, float d) { return 1.0f / norm4df(a, b, c, d); }
static inline double norm3d(double a, double b, double c) { return sqrt(a * a + b * b + c * c); }
static inline double rnorm3d(double a, double b, double c) { return 1.0 / norm3d(a, b, c); }
static inline float fdividef(float a, float b) { return a / b; }
static inline float saturatef(float x) { return x != x ? 0.0f : x < 0.0f ? 0.0f : x > 1.0f ? 1.0f : x; }
static inline float __saturatef(float x) { return saturatef(x); }

/* intrinsics: the host has only one precision, so the fast ones are the exact ones */
/* glibc declares __expf & co. itself (as extern functions), so these are macros */
#define __expf(x) expf(x)
#define __exp10f(x) powf(10.0f, (x))
#define __logf(x) logf(x)
#define __log2f(x) log2f(x)
#define __log10f(x) log10f(x)
#define __sinf(x) sinf(x)
#define __cosf(x) cosf(x)
#define __tanf(x) tanf(x)
#define __sincosf(x, s, c) __pcc_sincosf((x), (s), (c))
static inline void __pcc_sincosf(float x, float *s, float *c) { *s = sinf(x); *c = cosf(x); }
#define __powf(x, y) powf((x), (y))
static inline float __fdividef(float a, float b) { return a / b; }
static inline float __frcp_rn(float x) { return 1.0f / x; }
static inline float __fsqrt_rn(float x) { return sqrtf(x); }
static inline float __frsqrt_rn(float x) { return 1.0f / sqrtf(x); }
static inline double __drcp_rn(double x) { return 1.0 / x; }
static inline double __dsqrt_rn(double x) { return sqrt(x); }
#define PCC_ROUNDED(S, T)                                                                      \
    static inline T __fadd##S(T a, T b) { return a + b; }                                      \
    static inline T __fsub##S(T a, T b) { return a - b; }                                      \
    static inline T __fmul##S(T a, T b) { return a * b; }                                      \
    static inline T __fdiv##S(T a, T b) { return a / b; }                                      \
    static inline T __fmaf##S(T a, T b, T c) { return fmaf(a, b, c); }
PCC_ROUNDED(_rn, float) PCC_ROUNDED(_rz, float) PCC_ROUNDED(_ru, float) PCC_ROUNDED(_rd, float)
#undef PCC_ROUNDED
#define PCC_DROUNDED(S)                                                                        \
    static inline double __dadd##S(double a, double b) { return a + b; }                       \
    static inline double __dsub##S(double a, double b) { return a - b; }                       \
    static inline double __dmul##S(double a, double b) { return a * b; }                       \
    static inline double __ddiv##S(double a, double b) { return a / b; }                       \
    static inline double __fma##S(double a, double b, double c) { return fma(a, b, c); }
PCC_DROUNDED(_rn) PCC_DROUNDED(_rz) PCC_DROUNDED(_ru) PCC_DROUNDED(_rd)
#undef PCC_DROUNDED

/* conversions: CUDA saturates out-of-range values and maps NaN to 0 */
template <class I, class F> static inline I __pcc_f2i(F x)
{
    if (x != x) return 0;
    if (x <= (F)std::numeric_limits<I>::min()) return std::numeric_limits<I>::min();
    if (x >= (F)std::numeric_limits<I>::max()) return std::numeric_limits<I>::max();
    return (I)x;
}
#define PCC_F2I(NAME, F, I)                                                                    \
    static inline I NAME##_rn(F x) { return __pcc_f2i<I>(nearbyint(x)); }                     \
    static inline I NAME##_rz(F x) { return __pcc_f2i<I>(trunc(x)); }                         \
    static inline I NAME##_rd(F x) { return __pcc_f2i<I>(floor(x)); }                         \
    static inline I NAME##_ru(F x) { return __pcc_f2i<I>(ceil(x)); }
PCC_F2I(__float2int, float, int) PCC_F2I(__float2uint, float, unsigned int)
PCC_F2I(__float2ll, float, long long) PCC_F2I(__float2ull, float, unsigned long long)
PCC_F2I(__double2int, double, int) PCC_F2I(__double2uint, double, unsigned int)
PCC_F2I(__double2ll, double, long long) PCC_F2I(__double2ull, double, unsigned long long)
#undef PCC_F2I
#define PCC_I2F(NAME, I, F)                                                                    \
    static inline F NAME##_rn(I x) { return (F)x; }                                            \
    static inline F NAME##_rz(I x) { return (F)x; }                                            \
    static inline F NAME##_rd(I x) { return (F)x; }                                            \
    static inline F NAME##_ru(I x) { return (F)x; }
PCC_I2F(__int2float, int, float) PCC_I2F(__uint2float, unsigned int, float)
PCC_I2F(__ll2float, long long, float) PCC_I2F(__ull2float, unsigned long long, float)
PCC_I2F(__ll2double, long long, double) PCC_I2F(__ull2double, unsigned long long, double)
PCC_I2F(__double2float, double, float)
#undef PCC_I2F
static inline double __int2double_rn(int x) { return x; }
static inline double __uint2double_rn(unsigned int x) { return x; }
template <class To, class From> static inline To __pcc_bits(From v)
{
    static_assert(sizeof(To) == sizeof(From), "size mismatch");
    To r;
    memcpy(&r, &v, sizeof r);
    return r;
}
static inline int __float_as_int(float x) { return __pcc_bits<int>(x); }
static inline unsigned int __float_as_uint(float x) { return __pcc_bits<unsigned int>(x); }
static inline float __int_as_float(int x) { return __pcc_bits<float>(x); }
static inline float __uint_as_float(unsigned int x) { return __pcc_bits<float>(x); }
static inline long long __double_as_longlong(double x) { return __pcc_bits<long long>(x); }
static inline double __longlong_as_double(long long x) { return __pcc_bits<double>(x); }
static inline int __double2hiint(double x) { return (int)(__double_as_longlong(x) >> 32); }
static inline int __double2loint(double x) { return (int)__double_as_longlong(x); }
static inline double __hiloint2double(int hi, int lo)
{
    return __longlong_as_double((long long)(((unsigned long long)(unsigned int)hi << 32) | (unsigned int)lo));
}

/* integer intrinsics */
static inline int __popc(unsigned int x) { return __builtin_popcount(x); }
static inline int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
static inline int __clz(int x) { return x == 0 ? 32 : __builtin_clz((unsigned int)x); }
static inline int __clzll(long long x) { return x == 0 ? 64 : __builtin_clzll((unsigned long long)x); }
static inline int __ffs(int x) { return __builtin_ffs(x); }
static inline int __ffsll(long long x) { return __builtin_ffsll(x); }
static inline unsigned int __brev(unsigned int x)
{
    x = ((x >> 1) & 0x55555555u) | ((x & 0x55555555u) << 1);
    x = ((x >> 2) & 0x33333333u) | ((x & 0x33333333u) << 2);
    x = ((x >> 4) & 0x0f0f0f0fu) | ((x & 0x0f0f0f0fu) << 4);
    return __builtin_bswap32(x);
}
static inline unsigned long long __brevll(unsigned long long x)
{
    return ((unsigned long long)__brev((unsigned int)x) << 32) | __brev((unsigned int)(x >> 32));
}
static inline int __mul24(int x, int y) { return (int)((long long)((x << 8) >> 8) * ((y << 8) >> 8)); }
static inline unsigned int __umul24(unsigned int x, unsigned int y) { return (x & 0xffffffu) * (y & 0xffffffu); }
static inline int __mulhi(int x, int y) { return (int)(((long long)x * y) >> 32); }
static inline unsigned int __umulhi(unsigned int x, unsigned int y) { return (unsigned int)(((unsigned long long)x * y) >> 32); }
static inline long long __mul64hi(long long x, long long y) { return (long long)(((__int128)x * y) >> 64); }
static inline unsigned long long __umul64hi(unsigned long long x, unsigned long long y) { return (unsigned long long)(((unsigned __int128)x * y) >> 64); }
static inline unsigned int __sad(int x, int y, unsigned int z) { return z + (unsigned int)(x > y ? (long long)x - y : (long long)y - x); }
static inline unsigned int __usad(unsigned int x, unsigned int y, unsigned int z) { return z + (x > y ? x - y : y - x); }
static inline int __hadd(int x, int y) { return (int)(((long long)x + y) >> 1); }
static inline int __rhadd(int x, int y) { return (int)(((long long)x + y + 1) >> 1); }
static inline unsigned int __uhadd(unsigned int x, unsigned int y) { return (unsigned int)(((unsigned long long)x + y) >> 1); }
static inline unsigned int __urhadd(unsigned int x, unsigned int y) { return (unsigned int)(((unsigned long long)x + y + 1) >> 1); }
static inline unsigned int __byte_perm(unsigned int x, unsigned int y, unsigned int s)
{
    unsigned long long v = ((unsigned long long)y << 32) | x;
    unsigned int r = 0;
    for (int i = 0; i < 4; i++)
        r |= (unsigned int)((v >> (8 * ((s >> (4 * i)) & 7))) & 0xff) << (8 * i);
    return r;
}
static inline unsigned int __funnelshift_l(unsigned int lo, unsigned int hi, unsigned int s)
{
    unsigned long long v = ((unsigned long long)hi << 32) | lo;
    return (unsigned int)((v << (s & 31)) >> 32);
}
static inline unsigned int __funnelshift_r(unsigned int lo, unsigned int hi, unsigned int s)
{
    unsigned long long v = ((unsigned long long)hi << 32) | lo;
    return (unsigned int)(v >> (s & 31));
}
static inline unsigned int __funnelshift_lc(unsigned int lo, unsigned int hi, unsigned int s)
{
    unsigned long long v = ((unsigned long long)hi << 32) | lo;
    return (unsigned int)((v << (s > 32 ? 32 : s)) >> 32);
}
static inline unsigned int __funnelshift_rc(unsigned int lo, unsigned int hi, unsigned int s)
{
    unsigned long long v = ((unsigned long long)hi << 32) | lo;
    return (unsigned int)(v >> (s > 32 ? 32 : s));
}

/* ---- what the generated registration code uses --------------------------- */
template <class A> static inline A __pcc_arg(void *p)
{
    typedef typename std::remove_cv<typename std::remove_reference<A>::type>::type T;
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
    static inline void call(void *const *args, std::index_sequence<I...>)
    {
        F(__pcc_arg<A>(args[I])...);
    }
    template <void (*F)(A...)> static void entry(pcc_sim_thread *t, void *const *args)
    {
        __pcc_cur = t;
        __pcc_set_dyn_shared(t->dynamic_shared);
        call<F>(args, std::index_sequence_for<A...>{});
    }
};
template <auto F> static constexpr pcc_sim_kernel __pcc_kernel(const char *name, int uses_sync)
{
    typedef __pcc_fn<decltype(F)> fn;
    if constexpr (fn::is_kernel)
        return pcc_sim_kernel{name, &fn::template entry<F>, fn::n, fn::offsets.v, fn::sizes.v, uses_sync};
    else
        return pcc_sim_kernel{name, nullptr, 0, nullptr, nullptr, uses_sync};
}
static inline void *__pcc_dyn_smem(void) { return __pcc_cur->dynamic_shared; }

/* last: the prelude's own code reads these fields through pointers */
#define threadIdx (__pcc_cur->threadIdx)
#define blockIdx (__pcc_cur->blockIdx)
#define blockDim (__pcc_cur->blockDim)
#define gridDim (__pcc_cur->gridDim)

#pragma GCC visibility pop
#endif /* PCC_SIM_PRELUDE_MAIN */

/* ---- assert (re-definable, like <assert.h>) ------------------------------ */
#undef assert
#ifdef NDEBUG
#define assert(e) ((void)0)
#else
#define assert(e) ((e) ? (void)0 : __pcc_assert_fail(#e, __FILE__, __LINE__, __PRETTY_FUNCTION__))
#endif

/* ---- <math_constants.h> -------------------------------------------------- */
#if defined(PCC_SECTION_MATH_CONSTANTS) && !defined(PCC_MATH_CONSTANTS_DONE)
#define PCC_MATH_CONSTANTS_DONE
#define CUDART_INF_F __int_as_float(0x7f800000)
#define CUDART_NAN_F __int_as_float(0x7fffffff)
#define CUDART_MIN_DENORM_F __int_as_float(0x00000001)
#define CUDART_MAX_NORMAL_F __int_as_float(0x7f7fffff)
#define CUDART_NEG_ZERO_F __int_as_float(0x80000000)
#define CUDART_ZERO_F 0.0f
#define CUDART_ONE_F 1.0f
#define CUDART_SQRT_HALF_F 0.707106781f
#define CUDART_SQRT_TWO_F 1.414213562f
#define CUDART_PI_F 3.141592654f
#define CUDART_PIO2_F 1.570796327f
#define CUDART_2_OVER_PI_F 0.636619772f
#define CUDART_LN2_F 0.693147181f
#define CUDART_L2E_F 1.442695041f
#define CUDART_INF __longlong_as_double(0x7ff0000000000000ULL)
#define CUDART_NAN __longlong_as_double(0xfff8000000000000ULL)
#define CUDART_PI 3.1415926535897931e+0
#define CUDART_PIO2 1.5707963267948966e+0
#define CUDART_SQRT_2PI 2.5066282746310002e+0
#define CUDART_LN2 6.9314718055994529e-1
#define CUDART_L2E 1.4426950408889634e+0
#endif

/* ---- <cuda_fp16.h>: __half as 16 bits of storage, arithmetic in float ---- */
#if defined(PCC_SECTION_FP16) && !defined(PCC_FP16_DONE)
#define PCC_FP16_DONE
extern "C++" {
#pragma GCC visibility push(hidden)
static inline unsigned short __pcc_f2h_bits(float f)
{
    unsigned int x = __float_as_uint(f), sign = (x >> 16) & 0x8000u;
    unsigned int ax = x & 0x7fffffffu;
    if (ax >= 0x7f800000u) /* inf or nan */
        return (unsigned short)(sign | 0x7c00u | (ax > 0x7f800000u ? 0x200u : 0u));
    if (ax >= 0x477ff000u) /* rounds to >= 65520: overflow */
        return (unsigned short)(sign | 0x7c00u);
    if (ax < 0x38800000u) { /* subnormal half (or zero) */
        if (ax < 0x33000000u)
            return (unsigned short)sign;
        unsigned int e = ax >> 23, m = (ax & 0x7fffffu) | 0x800000u;
        unsigned int shift = 126 - e; /* 14..24 */
        unsigned int r = m >> shift, rem = m & ((1u << shift) - 1), half = 1u << (shift - 1);
        if (rem > half || (rem == half && (r & 1u)))
            r++;
        return (unsigned short)(sign | r);
    }
    unsigned int r = ((ax >> 13) - (112u << 10)), rem = ax & 0x1fffu;
    if (rem > 0x1000u || (rem == 0x1000u && (r & 1u)))
        r++;
    return (unsigned short)(sign | r);
}
static inline float __pcc_h2f_bits(unsigned short h)
{
    unsigned int sign = (unsigned int)(h & 0x8000u) << 16, e = (h >> 10) & 0x1fu, m = h & 0x3ffu;
    if (e == 0x1f)
        return __uint_as_float(sign | 0x7f800000u | (m << 13));
    if (e == 0) {
        if (m == 0)
            return __uint_as_float(sign);
        float v = (float)m * (1.0f / 16777216.0f);
        return sign ? -v : v;
    }
    return __uint_as_float(sign | ((e + 112u) << 23) | (m << 13));
}
struct __half_raw { unsigned short x; };
struct __attribute__((aligned(2))) __half {
    unsigned short __x;
    __half() = default;
    __half(__half_raw r) : __x(r.x) {}
    __half(float f) : __x(__pcc_f2h_bits(f)) {}
    __half(double f) : __x(__pcc_f2h_bits((float)f)) {}
    __half(int v) : __x(__pcc_f2h_bits((float)v)) {}
    __half(unsigned int v) : __x(__pcc_f2h_bits((float)v)) {}
    __half(long long v) : __x(__pcc_f2h_bits((float)v)) {}
    __half(unsigned long long v) : __x(__pcc_f2h_bits((float)v)) {}
    __half(short v) : __x(__pcc_f2h_bits((float)v)) {}
    __half(unsigned short v) : __x(__pcc_f2h_bits((float)v)) {}
    operator float() const { return __pcc_h2f_bits(__x); }
    operator __half_raw() const { return __half_raw{__x}; }
    __half &operator=(float f) { __x = __pcc_f2h_bits(f); return *this; }
};
struct __attribute__((aligned(4))) __half2 {
    __half x, y;
    __half2() = default;
    __half2(__half a, __half b) : x(a), y(b) {}
};
typedef __half half;
typedef __half2 half2;
static inline __half __pcc_mkh(float f) { return __half(f); }
static inline __half __float2half(float f) { return __half(f); }
static inline __half __float2half_rn(float f) { return __half(f); }
static inline __half __float2half_rz(float f) { return __half(f); }
static inline __half __double2half(double f) { return __half((float)f); }
static inline float __half2float(__half h) { return __pcc_h2f_bits(h.__x); }
static inline __half __int2half_rn(int v) { return __half((float)v); }
static inline int __half2int_rz(__half h) { return __float2int_rz(__half2float(h)); }
static inline int __half2int_rn(__half h) { return __float2int_rn(__half2float(h)); }
static inline unsigned short __half_as_ushort(__half h) { return h.__x; }
static inline short __half_as_short(__half h) { return (short)h.__x; }
static inline __half __ushort_as_half(unsigned short v) { return __half(__half_raw{v}); }
static inline __half __short_as_half(short v) { return __half(__half_raw{(unsigned short)v}); }
#define PCC_H2(OP, E) static inline __half OP(__half a, __half b) { float x = __half2float(a), y = __half2float(b); return __half(E); }
PCC_H2(__hadd, x + y) PCC_H2(__hsub, x - y) PCC_H2(__hmul, x * y) PCC_H2(__hdiv, x / y)
PCC_H2(__hmax, fmaxf(x, y)) PCC_H2(__hmin, fminf(x, y))
PCC_H2(__hadd_sat, saturatef(x + y)) PCC_H2(__hmul_sat, saturatef(x * y))
#undef PCC_H2
static inline __half __hfma(__half a, __half b, __half c) { return __half(fmaf(__half2float(a), __half2float(b), __half2float(c))); }
static inline __half __hneg(__half a) { return __ushort_as_half((unsigned short)(a.__x ^ 0x8000u)); }
static inline __half __habs(__half a) { return __ushort_as_half((unsigned short)(a.__x & 0x7fffu)); }
#define PCC_HCMP(OP, E) static inline bool OP(__half a, __half b) { float x = __half2float(a), y = __half2float(b); return E; }
PCC_HCMP(__heq, x == y) PCC_HCMP(__hne, x != y) PCC_HCMP(__hlt, x < y) PCC_HCMP(__hle, x <= y)
PCC_HCMP(__hgt, x > y) PCC_HCMP(__hge, x >= y)
#undef PCC_HCMP
static inline bool __hisnan(__half a) { return (a.__x & 0x7fffu) > 0x7c00u; }
static inline int __hisinf(__half a) { return (a.__x & 0x7fffu) == 0x7c00u ? ((a.__x & 0x8000u) ? -1 : 1) : 0; }
#define PCC_HFN(N, F) static inline __half N(__half a) { return __half(F(__half2float(a))); }
PCC_HFN(hsqrt, sqrtf) PCC_HFN(hrsqrt, rsqrtf) PCC_HFN(hexp, expf) PCC_HFN(hexp2, exp2f)
PCC_HFN(hlog, logf) PCC_HFN(hlog2, log2f) PCC_HFN(hlog10, log10f) PCC_HFN(hsin, sinf)
PCC_HFN(hcos, cosf) PCC_HFN(hfloor, floorf) PCC_HFN(hceil, ceilf) PCC_HFN(htrunc, truncf)
PCC_HFN(hrint, rintf) PCC_HFN(hrcp, 1.0f /)
#undef PCC_HFN
static inline __half operator+(const __half &a, const __half &b) { return __hadd(a, b); }
static inline __half operator-(const __half &a, const __half &b) { return __hsub(a, b); }
static inline __half operator*(const __half &a, const __half &b) { return __hmul(a, b); }
static inline __half operator/(const __half &a, const __half &b) { return __hdiv(a, b); }
static inline __half &operator+=(__half &a, const __half &b) { return a = __hadd(a, b); }
static inline __half &operator-=(__half &a, const __half &b) { return a = __hsub(a, b); }
static inline __half &operator*=(__half &a, const __half &b) { return a = __hmul(a, b); }
static inline __half &operator/=(__half &a, const __half &b) { return a = __hdiv(a, b); }
static inline __half operator-(const __half &a) { return __hneg(a); }
static inline __half operator+(const __half &a) { return a; }
static inline bool operator==(const __half &a, const __half &b) { return __heq(a, b); }
static inline bool operator!=(const __half &a, const __half &b) { return __hne(a, b); }
static inline bool operator<(const __half &a, const __half &b) { return __hlt(a, b); }
static inline bool operator<=(const __half &a, const __half &b) { return __hle(a, b); }
static inline bool operator>(const __half &a, const __half &b) { return __hgt(a, b); }
static inline bool operator>=(const __half &a, const __half &b) { return __hge(a, b); }
static inline __half2 make_half2(__half a, __half b) { return __half2(a, b); }
static inline __half2 __halves2half2(__half a, __half b) { return __half2(a, b); }
static inline __half2 __half2half2(__half a) { return __half2(a, a); }
static inline __half2 __float2half2_rn(float f) { return __half2(__half(f), __half(f)); }
static inline __half2 __floats2half2_rn(float a, float b) { return __half2(__half(a), __half(b)); }
static inline __half2 __float22half2_rn(float2 f) { return __half2(__half(f.x), __half(f.y)); }
static inline float2 __half22float2(__half2 h) { return make_float2(__half2float(h.x), __half2float(h.y)); }
static inline __half __low2half(__half2 h) { return h.x; }
static inline __half __high2half(__half2 h) { return h.y; }
static inline float __low2float(__half2 h) { return __half2float(h.x); }
static inline float __high2float(__half2 h) { return __half2float(h.y); }
static inline __half2 __lows2half2(__half2 a, __half2 b) { return __half2(a.x, b.x); }
static inline __half2 __highs2half2(__half2 a, __half2 b) { return __half2(a.y, b.y); }
#define PCC_H2V(OP, S) static inline __half2 OP(__half2 a, __half2 b) { return __half2(S(a.x, b.x), S(a.y, b.y)); }
PCC_H2V(__hadd2, __hadd) PCC_H2V(__hsub2, __hsub) PCC_H2V(__hmul2, __hmul) PCC_H2V(__h2div, __hdiv)
PCC_H2V(__hmax2, __hmax) PCC_H2V(__hmin2, __hmin)
#undef PCC_H2V
static inline __half2 __hfma2(__half2 a, __half2 b, __half2 c) { return __half2(__hfma(a.x, b.x, c.x), __hfma(a.y, b.y, c.y)); }
static inline __half2 __hneg2(__half2 a) { return __half2(__hneg(a.x), __hneg(a.y)); }
static inline __half2 operator+(const __half2 &a, const __half2 &b) { return __hadd2(a, b); }
static inline __half2 operator-(const __half2 &a, const __half2 &b) { return __hsub2(a, b); }
static inline __half2 operator*(const __half2 &a, const __half2 &b) { return __hmul2(a, b); }
static inline __half2 operator/(const __half2 &a, const __half2 &b) { return __h2div(a, b); }
static inline __half atomicAdd(__half *a, __half v)
{
    unsigned short old = __pcc_atomic_update(&a->__x, [v](unsigned short o) { return __hadd(__ushort_as_half(o), v).__x; });
    return __ushort_as_half(old);
}
#pragma GCC visibility pop
}
#endif

/* ---- <cuda_bf16.h>: __nv_bfloat16 as 16 bits, arithmetic in float ------- */
#if defined(PCC_SECTION_BF16) && !defined(PCC_BF16_DONE)
#define PCC_BF16_DONE
extern "C++" {
#pragma GCC visibility push(hidden)
static inline unsigned short __pcc_f2bf_bits(float f)
{
    unsigned int u = __float_as_uint(f);
    if ((u & 0x7fffffffu) > 0x7f800000u)
        return (unsigned short)((u >> 16) | 0x40u); /* quiet NaN */
    return (unsigned short)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}
struct __nv_bfloat16_raw { unsigned short x; };
struct __attribute__((aligned(2))) __nv_bfloat16 {
    unsigned short __x;
    __nv_bfloat16() = default;
    __nv_bfloat16(__nv_bfloat16_raw r) : __x(r.x) {}
    __nv_bfloat16(float f) : __x(__pcc_f2bf_bits(f)) {}
    __nv_bfloat16(double f) : __x(__pcc_f2bf_bits((float)f)) {}
    __nv_bfloat16(int v) : __x(__pcc_f2bf_bits((float)v)) {}
    operator float() const { return __uint_as_float((unsigned int)__x << 16); }
};
struct __attribute__((aligned(4))) __nv_bfloat162 {
    __nv_bfloat16 x, y;
    __nv_bfloat162() = default;
    __nv_bfloat162(__nv_bfloat16 a, __nv_bfloat16 b) : x(a), y(b) {}
};
typedef __nv_bfloat16 nv_bfloat16;
typedef __nv_bfloat162 nv_bfloat162;
static inline __nv_bfloat16 __float2bfloat16(float f) { return __nv_bfloat16(f); }
static inline __nv_bfloat16 __float2bfloat16_rn(float f) { return __nv_bfloat16(f); }
static inline float __bfloat162float(__nv_bfloat16 h) { return (float)h; }
static inline unsigned short __bfloat16_as_ushort(__nv_bfloat16 h) { return h.__x; }
static inline __nv_bfloat16 __ushort_as_bfloat16(unsigned short v) { return __nv_bfloat16(__nv_bfloat16_raw{v}); }
#define PCC_B2(OP, E) static inline __nv_bfloat16 OP(__nv_bfloat16 a, __nv_bfloat16 b) { float x = (float)a, y = (float)b; return __nv_bfloat16(E); }
PCC_B2(__hadd, x + y) PCC_B2(__hsub, x - y) PCC_B2(__hmul, x * y) PCC_B2(__hdiv, x / y)
PCC_B2(__hmax, fmaxf(x, y)) PCC_B2(__hmin, fminf(x, y))
#undef PCC_B2
static inline __nv_bfloat16 __hfma(__nv_bfloat16 a, __nv_bfloat16 b, __nv_bfloat16 c) { return __nv_bfloat16(fmaf((float)a, (float)b, (float)c)); }
static inline __nv_bfloat16 __hneg(__nv_bfloat16 a) { return __ushort_as_bfloat16((unsigned short)(a.__x ^ 0x8000u)); }
static inline __nv_bfloat16 operator+(const __nv_bfloat16 &a, const __nv_bfloat16 &b) { return __hadd(a, b); }
static inline __nv_bfloat16 operator-(const __nv_bfloat16 &a, const __nv_bfloat16 &b) { return __hsub(a, b); }
static inline __nv_bfloat16 operator*(const __nv_bfloat16 &a, const __nv_bfloat16 &b) { return __hmul(a, b); }
static inline __nv_bfloat16 operator/(const __nv_bfloat16 &a, const __nv_bfloat16 &b) { return __hdiv(a, b); }
static inline __nv_bfloat16 &operator+=(__nv_bfloat16 &a, const __nv_bfloat16 &b) { return a = __hadd(a, b); }
static inline __nv_bfloat16 &operator*=(__nv_bfloat16 &a, const __nv_bfloat16 &b) { return a = __hmul(a, b); }
static inline __nv_bfloat16 operator-(const __nv_bfloat16 &a) { return __hneg(a); }
static inline bool operator==(const __nv_bfloat16 &a, const __nv_bfloat16 &b) { return (float)a == (float)b; }
static inline bool operator!=(const __nv_bfloat16 &a, const __nv_bfloat16 &b) { return (float)a != (float)b; }
static inline bool operator<(const __nv_bfloat16 &a, const __nv_bfloat16 &b) { return (float)a < (float)b; }
static inline bool operator<=(const __nv_bfloat16 &a, const __nv_bfloat16 &b) { return (float)a <= (float)b; }
static inline bool operator>(const __nv_bfloat16 &a, const __nv_bfloat16 &b) { return (float)a > (float)b; }
static inline bool operator>=(const __nv_bfloat16 &a, const __nv_bfloat16 &b) { return (float)a >= (float)b; }
#pragma GCC visibility pop
}
#endif

/* ---- <cooperative_groups.h>: thread blocks and warp tiles ---------------- */
#if defined(PCC_SECTION_CG) && !defined(PCC_CG_DONE)
#define PCC_CG_DONE
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
#endif
