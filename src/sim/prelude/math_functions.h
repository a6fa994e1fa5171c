/*
 * sim/prelude/math_functions.h — min/max with exactly CUDA's overload set, and
 * the math and bit intrinsics beyond <math.h> (rsqrtf, sinpif, __popc, __byte_perm ...).
 * Part of cuda_runtime.h, which includes it where it stands.
 */
#pragma once
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

