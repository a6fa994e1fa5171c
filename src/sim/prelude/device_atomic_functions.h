/*
 * sim/prelude/device_atomic_functions.h — atomics: sequentially consistent host
 * atomics, CAS loops for floating point, CUDA's overload set and its
 * _block/_system scoped names.
 * Part of cuda_runtime.h, which includes it where it stands.
 */
#pragma once
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

