/*
 * sim/prelude/cuda_fp16.h — __half and __half2 (<cuda_fp16.h>): 16 bits of
 * storage, arithmetic in float, conversions rounding as CUDA's do.
 */
#pragma once
#include "cuda_runtime.h"

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
PCC_H2(__hadd_sat, __saturatef(x + y)) PCC_H2(__hmul_sat, __saturatef(x * y))
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
__PCC_AT __half atomicAdd(__half *a, __half v)
{
    __PCC_CHK_ATOMIC(a);
    unsigned short old = __pcc_atomic_update(&a->__x, [v](unsigned short o) { return __hadd(__ushort_as_half(o), v).__x; });
    return __ushort_as_half(old);
}
#pragma GCC visibility pop
}
