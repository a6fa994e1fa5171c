/*
 * sim/prelude/device_atomic_functions.h — atomics with exactly CUDA's overload
 * sets (sm_90, as NVRTC has them: no atomicMax(float *), no atomicAdd(long
 * long *), atomicSub on int and unsigned only ...), so that a user's own
 * overload is one more candidate and a missing one is the same compile
 * error as on the GPU. Sequentially consistent host atomics; CAS loops for
 * floating point; the _block and _system scoped names forward to them.
 * Part of cuda_runtime.h, which includes it where it stands.
 */
#pragma once

/* Check mode (pcc_check.h): each atomic is checked once, as an atomic
 * (__PCC_CHK_ATOMIC), and its own accesses are left uninstrumented. */
#define __PCC_AT static inline __PCC_NOSAN
template <class T, class F> __PCC_AT T __pcc_atomic_update(T *a, F f)
{
    T old, val;
    __atomic_load(a, &old, __ATOMIC_RELAXED);
    do {
        val = f(old);
    } while (!__atomic_compare_exchange(a, &old, &val, true, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED));
    return old;
}
#define PCC_AT_ADD(T) __PCC_AT T atomicAdd(T *a, T v) { __PCC_CHK_ATOMIC(a); return __atomic_fetch_add(a, v, __ATOMIC_SEQ_CST); }
#define PCC_AT_SUB(T) __PCC_AT T atomicSub(T *a, T v) { __PCC_CHK_ATOMIC(a); return __atomic_fetch_sub(a, v, __ATOMIC_SEQ_CST); }
#define PCC_AT_EXCH(T) __PCC_AT T atomicExch(T *a, T v) { __PCC_CHK_ATOMIC(a); T r; __atomic_exchange(a, &v, &r, __ATOMIC_SEQ_CST); return r; }
#define PCC_AT_CAS(T)                                                                          \
    __PCC_AT T atomicCAS(T *a, T cmp, T v)                                                     \
    {                                                                                          \
        __PCC_CHK_ATOMIC(a);                                                                   \
        __atomic_compare_exchange_n(a, &cmp, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);    \
        return cmp;                                                                            \
    }
#define PCC_AT_MINMAX(T)                                                                       \
    __PCC_AT T atomicMin(T *a, T v) { __PCC_CHK_ATOMIC(a); return __pcc_atomic_update(a, [v](T o) { return v < o ? v : o; }); } \
    __PCC_AT T atomicMax(T *a, T v) { __PCC_CHK_ATOMIC(a); return __pcc_atomic_update(a, [v](T o) { return v > o ? v : o; }); }
#define PCC_AT_BITS(T)                                                                         \
    __PCC_AT T atomicAnd(T *a, T v) { __PCC_CHK_ATOMIC(a); return __atomic_fetch_and(a, v, __ATOMIC_SEQ_CST); } \
    __PCC_AT T atomicOr(T *a, T v) { __PCC_CHK_ATOMIC(a); return __atomic_fetch_or(a, v, __ATOMIC_SEQ_CST); }   \
    __PCC_AT T atomicXor(T *a, T v) { __PCC_CHK_ATOMIC(a); return __atomic_fetch_xor(a, v, __ATOMIC_SEQ_CST); }
PCC_AT_ADD(int) PCC_AT_ADD(unsigned int) PCC_AT_ADD(unsigned long long)
PCC_AT_SUB(int) PCC_AT_SUB(unsigned int)
PCC_AT_EXCH(int) PCC_AT_EXCH(unsigned int) PCC_AT_EXCH(unsigned long long) PCC_AT_EXCH(float)
PCC_AT_CAS(int) PCC_AT_CAS(unsigned int) PCC_AT_CAS(unsigned long long) PCC_AT_CAS(unsigned short)
PCC_AT_MINMAX(int) PCC_AT_MINMAX(unsigned int) PCC_AT_MINMAX(unsigned long long) PCC_AT_MINMAX(long long)
PCC_AT_BITS(int) PCC_AT_BITS(unsigned int) PCC_AT_BITS(unsigned long long) PCC_AT_BITS(long long)
#undef PCC_AT_ADD
#undef PCC_AT_SUB
#undef PCC_AT_EXCH
#undef PCC_AT_CAS
#undef PCC_AT_MINMAX
#undef PCC_AT_BITS
__PCC_AT float atomicAdd(float *a, float v) { __PCC_CHK_ATOMIC(a); return __pcc_atomic_update(a, [v](float o) { return o + v; }); }
__PCC_AT double atomicAdd(double *a, double v) { __PCC_CHK_ATOMIC(a); return __pcc_atomic_update(a, [v](double o) { return o + v; }); }
/* sm_90's vector atomics: each element is atomic, not the vector */
static inline float2 atomicAdd(float2 *a, float2 v) { return make_float2(atomicAdd(&a->x, v.x), atomicAdd(&a->y, v.y)); }
static inline float4 atomicAdd(float4 *a, float4 v)
{
    return make_float4(atomicAdd(&a->x, v.x), atomicAdd(&a->y, v.y), atomicAdd(&a->z, v.z), atomicAdd(&a->w, v.w));
}
__PCC_AT unsigned int atomicInc(unsigned int *a, unsigned int v)
{
    __PCC_CHK_ATOMIC(a);
    return __pcc_atomic_update(a, [v](unsigned int o) { return o >= v ? 0u : o + 1u; });
}
__PCC_AT unsigned int atomicDec(unsigned int *a, unsigned int v)
{
    __PCC_CHK_ATOMIC(a);
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
