/*
 * sim/prelude/cuda_bf16.h — __nv_bfloat16 and __nv_bfloat162 (<cuda_bf16.h>):
 * 16 bits of storage, arithmetic in float.
 */
#pragma once
#include "cuda_runtime.h"

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
