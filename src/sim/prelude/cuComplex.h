/*
 * sim/prelude/cuComplex.h — <cuComplex.h>: single and double precision complex
 * numbers as CUDA's header has them (cuFloatComplex is float2, cuDoubleComplex
 * is double2; cuCdiv scales the divisor and cuCabs the hypotenuse to avoid
 * overflow, as the toolkit's do).
 */
#pragma once
#include "cuda_runtime.h"

#pragma GCC visibility push(hidden)
typedef float2 cuFloatComplex;
typedef double2 cuDoubleComplex;
typedef cuFloatComplex cuComplex;

#define PCC_CUCOMPLEX(T, C, S, MAKE, ABS, SQRT, MAXV)                                          \
    static inline T cuCreal##S(C x) { return x.x; }                                            \
    static inline T cuCimag##S(C x) { return x.y; }                                            \
    static inline C MAKE(T r, T i) { C c; c.x = r; c.y = i; return c; }                        \
    static inline C cuConj##S(C x) { return MAKE(x.x, -x.y); }                                 \
    static inline C cuCadd##S(C x, C y) { return MAKE(x.x + y.x, x.y + y.y); }                 \
    static inline C cuCsub##S(C x, C y) { return MAKE(x.x - y.x, x.y - y.y); }                 \
    static inline C cuCmul##S(C x, C y)                                                        \
    {                                                                                          \
        return MAKE(x.x * y.x - x.y * y.y, x.x * y.y + x.y * y.x);                             \
    }                                                                                          \
    static inline C cuCdiv##S(C x, C y)                                                        \
    { /* the divisor scaled by |re| + |im| first */                                            \
        T s = ABS(y.x) + ABS(y.y), k = (T)1 / s;                                               \
        T ar = x.x * k, ai = x.y * k, br = y.x * k, bi = y.y * k;                              \
        k = (T)1 / (br * br + bi * bi);                                                        \
        return MAKE((ar * br + ai * bi) * k, (ai * br - ar * bi) * k);                         \
    }                                                                                          \
    static inline T cuCabs##S(C x)                                                             \
    { /* the larger part times sqrt(1 + (smaller / larger)^2) */                               \
        T a = ABS(x.x), b = ABS(x.y), hi = a > b ? a : b, lo = a > b ? b : a;                  \
        if (hi == (T)0 || hi > MAXV || lo > MAXV)                                              \
            return hi + lo;                                                                    \
        T q = lo / hi;                                                                         \
        return hi * SQRT((T)1 + q * q);                                                        \
    }                                                                                          \
    static inline C cuCfma##S(C x, C y, C d)                                                   \
    {                                                                                          \
        T re = x.x * y.x + d.x, im = x.x * y.y + d.y;                                          \
        return MAKE(-(x.y * y.y) + re, x.y * y.x + im);                                        \
    }
PCC_CUCOMPLEX(float, cuFloatComplex, f, make_cuFloatComplex, fabsf, sqrtf, 3.40282346638528859812e+38F)
PCC_CUCOMPLEX(double, cuDoubleComplex, , make_cuDoubleComplex, fabs, sqrt, 1.79769313486231570815e+308)
#undef PCC_CUCOMPLEX
static inline cuComplex make_cuComplex(float r, float i) { return make_cuFloatComplex(r, i); }
static inline cuDoubleComplex cuComplexFloatToDouble(cuFloatComplex c)
{
    return make_cuDoubleComplex((double)c.x, (double)c.y);
}
static inline cuFloatComplex cuComplexDoubleToFloat(cuDoubleComplex c)
{
    return make_cuFloatComplex((float)c.x, (float)c.y);
}
#pragma GCC visibility pop
