/*
 * sim/prelude/math_functions.h — CUDA's math API as NVRTC declares it before
 * any #include: the C functions (float and double, from the host's libm, so
 * declared here with C linkage exactly as the C library declares them), the
 * C++ float overloads of math_functions.hpp (sin(float) ...: sin(int) is
 * ambiguous as on the GPU), the CUDA-only functions (rsqrtf, sinpif,
 * normcdff, erfinvf ...), min/max with exactly CUDA's overload set, and the
 * intrinsics (__expf, __popc, __byte_perm, the directed-rounding arithmetic).
 * No host header: only what CUDA names is declared (a kernel may be called
 * rand or index, as on the GPU). When the program includes libcu++, the
 * prelude includes the host's <math.h> first (__PCC_SIM_HOST_LIBC) and the
 * C++ overloads come from there.
 * Part of cuda_runtime.h, which includes it where it stands.
 */
#pragma once

/* ---- the C functions (libm) ------------------------------------------------ */
#define PCC_M1(N) double N(double) noexcept; float N##f(float) noexcept;
#define PCC_M2(N) double N(double, double) noexcept; float N##f(float, float) noexcept;
#pragma GCC visibility push(default) /* the C library's own symbols */
extern "C" {
PCC_M1(acos) PCC_M1(acosh) PCC_M1(asin) PCC_M1(asinh) PCC_M1(atan) PCC_M1(atanh) PCC_M1(cbrt)
PCC_M1(ceil) PCC_M1(cos) PCC_M1(cosh) PCC_M1(erf) PCC_M1(erfc) PCC_M1(exp) PCC_M1(exp10)
PCC_M1(exp2) PCC_M1(expm1) PCC_M1(fabs) PCC_M1(floor) PCC_M1(j0) PCC_M1(j1) PCC_M1(lgamma)
PCC_M1(log) PCC_M1(log10) PCC_M1(log1p) PCC_M1(log2) PCC_M1(logb) PCC_M1(nearbyint) PCC_M1(rint)
PCC_M1(round) PCC_M1(sin) PCC_M1(sinh) PCC_M1(sqrt) PCC_M1(tan) PCC_M1(tanh) PCC_M1(tgamma)
PCC_M1(trunc) PCC_M1(y0) PCC_M1(y1)
PCC_M2(atan2) PCC_M2(copysign) PCC_M2(fdim) PCC_M2(fmax) PCC_M2(fmin) PCC_M2(fmod) PCC_M2(hypot)
PCC_M2(nextafter) PCC_M2(pow) PCC_M2(remainder)
double fma(double, double, double) noexcept; float fmaf(float, float, float) noexcept;
double frexp(double, int *) noexcept; float frexpf(float, int *) noexcept;
double ldexp(double, int) noexcept; float ldexpf(float, int) noexcept;
double modf(double, double *) noexcept; float modff(float, float *) noexcept;
double remquo(double, double, int *) noexcept; float remquof(float, float, int *) noexcept;
double scalbn(double, int) noexcept; float scalbnf(float, int) noexcept;
double scalbln(double, long) noexcept; float scalblnf(float, long) noexcept;
double jn(int, double) noexcept; float jnf(int, float) noexcept;
double yn(int, double) noexcept; float ynf(int, float) noexcept;
int ilogb(double) noexcept; int ilogbf(float) noexcept;
long lrint(double) noexcept; long lrintf(float) noexcept;
long long llrint(double) noexcept; long long llrintf(float) noexcept;
long lround(double) noexcept; long lroundf(float) noexcept;
long long llround(double) noexcept; long long llroundf(float) noexcept;
double nan(const char *) noexcept; float nanf(const char *) noexcept;
void sincos(double, double *, double *) noexcept; void sincosf(float, float *, float *) noexcept;
int abs(int) noexcept; long labs(long) noexcept; long long llabs(long long) noexcept;
}
#pragma GCC visibility pop
#undef PCC_M1
#undef PCC_M2

#ifndef __PCC_SIM_HOST_LIBC
/* ---- math_functions.hpp's C++ overloads (what NVRTC has; no integer templates) */
#define PCC_F1(N) static inline float N(float a) { return N##f(a); }
#define PCC_F2(N) static inline float N(float a, float b) { return N##f(a, b); }
PCC_F1(acos) PCC_F1(acosh) PCC_F1(asin) PCC_F1(asinh) PCC_F1(atan) PCC_F1(atanh) PCC_F1(cbrt)
PCC_F1(ceil) PCC_F1(cos) PCC_F1(cosh) PCC_F1(erf) PCC_F1(erfc) PCC_F1(exp) PCC_F1(exp10)
PCC_F1(exp2) PCC_F1(expm1) PCC_F1(fabs) PCC_F1(floor) PCC_F1(j0) PCC_F1(j1) PCC_F1(lgamma)
PCC_F1(log) PCC_F1(log10) PCC_F1(log1p) PCC_F1(log2) PCC_F1(logb) PCC_F1(nearbyint) PCC_F1(rint)
PCC_F1(round) PCC_F1(sin) PCC_F1(sinh) PCC_F1(sqrt) PCC_F1(tan) PCC_F1(tanh) PCC_F1(tgamma)
PCC_F1(trunc) PCC_F1(y0) PCC_F1(y1)
PCC_F2(atan2) PCC_F2(copysign) PCC_F2(fdim) PCC_F2(fmax) PCC_F2(fmin) PCC_F2(fmod) PCC_F2(hypot)
PCC_F2(nextafter) PCC_F2(pow) PCC_F2(remainder)
#undef PCC_F1
#undef PCC_F2
static inline float fma(float a, float b, float c) { return fmaf(a, b, c); }
static inline float frexp(float a, int *e) { return frexpf(a, e); }
static inline float ldexp(float a, int e) { return ldexpf(a, e); }
static inline float modf(float a, float *i) { return modff(a, i); }
static inline float remquo(float a, float b, int *q) { return remquof(a, b, q); }
static inline float scalbn(float a, int e) { return scalbnf(a, e); }
static inline float scalbln(float a, long e) { return scalblnf(a, e); }
static inline float jn(int n, float a) { return jnf(n, a); }
static inline float yn(int n, float a) { return ynf(n, a); }
static inline int ilogb(float a) { return ilogbf(a); }
static inline long lrint(float a) { return lrintf(a); }
static inline long long llrint(float a) { return llrintf(a); }
static inline long lround(float a) { return lroundf(a); }
static inline long long llround(float a) { return llroundf(a); }
static inline void sincos(float a, float *s, float *c) { sincosf(a, s, c); }
static inline float pow(float a, int b) { return powf(a, (float)b); }
static inline double pow(double a, int b) { return pow(a, (double)b); }
static inline double copysign(double a, float b) { return copysign(a, (double)b); }
static inline double copysign(float a, double b) { return copysign((double)a, b); }
static inline long long abs(long long a) { return llabs(a); }
static inline long abs(long a) { return labs(a); }
static inline float abs(float a) { return fabsf(a); }
static inline double abs(double a) { return fabs(a); }
#define PCC_CLASS(N, E)                                                                        \
    static inline bool N(float x) { return E; }                                                \
    static inline bool N(double x) { return E; }                                               \
    static inline bool N(long double x) { return E; }
PCC_CLASS(isnan, __builtin_isnan(x)) PCC_CLASS(isinf, __builtin_isinf(x))
PCC_CLASS(isfinite, __builtin_isfinite(x))
#undef PCC_CLASS
static inline int signbit(float x) { return __builtin_signbit(x) != 0; }
static inline int signbit(double x) { return __builtin_signbit(x) != 0; }
static inline int signbit(long double x) { return __builtin_signbit(x) != 0; }
#endif /* __PCC_SIM_HOST_LIBC */

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

/* ---- CUDA's math beyond the C library ---------------------------------------- */
#define PCC_PI 3.14159265358979323846
#define PCC_SQRT1_2 0.70710678118654752440
#define PCC_SQRT2 1.41421356237309504880
static inline float rsqrtf(float x) { return 1.0f / sqrtf(x); }
static inline double rsqrt(double x) { return 1.0 / sqrt(x); }
static inline float rcbrtf(float x) { return 1.0f / cbrtf(x); }
static inline double rcbrt(double x) { return 1.0 / cbrt(x); }
/* sin(pi x), cos(pi x): x less its nearest multiple of 1/2 is exact, so only an angle
 * in [-pi/4, pi/4] reaches sin and cos, integers and half-integers give exact zeros and
 * ones, and the error stays within the Guide's (1 ulp in float, 2 in double) at any x */
static inline void __pcc_sincospi(double x, double *s, double *c)
{
    if (x == 0.0 || !__builtin_isfinite(x)) {
        *s = x == 0.0 ? x : x - x; /* +-0 stays, inf and NaN give NaN */
        *c = x == 0.0 ? 1.0 : x - x;
        return;
    }
    double r = fmod(x, 2.0);  /* exact */
    double k = rint(2.0 * r); /* -4 .. 4 quarter turns */
    double f = r - 0.5 * k;   /* exact */
    double sf = sin(PCC_PI * f), cf = cos(PCC_PI * f);
    switch ((int)k & 3) {
    case 0: *s = sf; *c = cf; break;
    case 1: *s = cf; *c = -sf; break;
    case 2: *s = -sf; *c = -cf; break;
    default: *s = -cf; *c = sf; break;
    }
}
static inline double sinpi(double x) { double s, c; __pcc_sincospi(x, &s, &c); return s; }
static inline double cospi(double x) { double s, c; __pcc_sincospi(x, &s, &c); return c; }
static inline float sinpif(float x) { return (float)sinpi(x); }
static inline float cospif(float x) { return (float)cospi(x); }
static inline void sincospif(float x, float *s, float *c)
{
    double ds, dc;
    __pcc_sincospi(x, &ds, &dc);
    *s = (float)ds;
    *c = (float)dc;
}
static inline void sincospi(double x, double *s, double *c) { __pcc_sincospi(x, s, c); }
/* 0.5 erfc(-x / sqrt(2)) with the quotient in long double: in the lower tail erfc
 * magnifies the argument's rounding error by 2 x^2, past the Guide's 5 ulp in double */
static inline double normcdf(double x)
{
    return (double)(0.5L * __builtin_erfcl(-(long double)x * 0.70710678118654752440084436210485L));
}
static inline float normcdff(float x) { return (float)normcdf((double)x); }
/* erfc^-1(y) for 0 < y <= 0.5, where erfinv(1 - y) would lose y's digits (and all of a
 * y below 2^-53): Newton's method on log erfc in long double, whose range holds erfc(x)
 * and exp(-x^2) for every double y, from erfc(x) ~ exp(-x^2) / (x sqrt(pi)) */
static inline double __pcc_erfcinv_tail(double y)
{
    long double t = -__builtin_logl(y), ly = -t;
    long double x = t > 1.0L ? __builtin_sqrtl(t - 0.5L * __builtin_logl(PCC_PI * t)) : 0.5L;
    for (int i = 0; i < 12; i++) {
        long double e = __builtin_erfcl(x);
        long double step = (__builtin_logl(e) - ly) * e / (1.12837916709551257390L * __builtin_expl(-x * x));
        x += step;
        if (__builtin_fabsl(step) <= x * 1e-19L)
            break;
    }
    return (double)x;
}
static inline double erfinv(double y)
{
    if (y <= -1.0) return y == -1.0 ? -__builtin_huge_val() : __builtin_nan("");
    if (y >= 1.0) return y == 1.0 ? __builtin_huge_val() : __builtin_nan("");
    if (__builtin_fabs(y) > 0.5) /* 1 - |y| is exact */
        return __builtin_copysign(__pcc_erfcinv_tail(1.0 - __builtin_fabs(y)), y);
    /* Giles' approximation (|y| <= 0.5: its central branch), then two Newton steps on erf. */
    double w = -log((1.0 - y) * (1.0 + y)) - 2.5, x;
    x = 2.81022636e-08; x = 3.43273939e-07 + x * w; x = -3.5233877e-06 + x * w;
    x = -4.39150654e-06 + x * w; x = 0.00021858087 + x * w; x = -0.00125372503 + x * w;
    x = -0.00417768164 + x * w; x = 0.246640727 + x * w; x = 1.50140941 + x * w;
    x *= y;
    for (int i = 0; i < 2; i++)
        x -= (erf(x) - y) / (2.0 / sqrt(PCC_PI) * exp(-x * x));
    return x;
}
static inline float erfinvf(float y) { return (float)erfinv((double)y); }
static inline double erfcinv(double y)
{
    if (!(y > 0.0 && y < 2.0))
        return y == 0.0 ? __builtin_huge_val() : y == 2.0 ? -__builtin_huge_val() : __builtin_nan("");
    if (y <= 0.5)
        return __pcc_erfcinv_tail(y);
    return y < 1.5 ? erfinv(1.0 - y) : -__pcc_erfcinv_tail(2.0 - y); /* both exact */
}
static inline float erfcinvf(float y) { return (float)erfcinv((double)y); }
/* + 0.0: the hardware gives +0 at p = 0.5, not -sqrt(2) * +0 */
static inline double normcdfinv(double p) { return -PCC_SQRT2 * erfcinv(2.0 * p) + 0.0; }
static inline float normcdfinvf(float p) { return (float)normcdfinv((double)p); }
/* exp(x^2) erfc(x) in long double, whose range holds both factors below x = 100; past it
 * the continued fraction 1 / sqrt(pi) / (x + 1/2 / (x + 1 / (x + 3/2 / (x + 2 / x)))) */
static inline double erfcx(double x)
{
    long double z = x;
    if (x < 100.0)
        return (double)(__builtin_expl(z * z) * __builtin_erfcl(z));
    return (double)(0.56418958354775628695L / (z + 0.5L / (z + 1.0L / (z + 1.5L / (z + 2.0L / z)))));
}
static inline float erfcxf(float x) { return (float)erfcx((double)x); }
/* sqrt(a0^2 + ... ) without undue overflow or underflow: scaled by a power of two near the
 * largest |a_i| (exact), summed in long double; an infinite coordinate gives +inf even
 * beside a NaN (the Math API's hypot, norm3d, norm4d, norm and their reciprocals) */
template <class T> static inline long double __pcc_norm(int n, const T *a)
{
    long double m = 0.0L, s = 0.0L;
    bool nan = false;
    for (int i = 0; i < n; i++) {
        long double v = __builtin_fabsl((long double)a[i]);
        if (__builtin_isinf(v)) return __builtin_huge_vall();
        nan |= v != v;
        m = v > m ? v : m;
    }
    if (nan || m == 0.0L) return nan ? __builtin_nanl("") : 0.0L;
    int e = __builtin_ilogbl(m);
    for (int i = 0; i < n; i++) {
        long double v = __builtin_scalbnl((long double)a[i], -e);
        s += v * v;
    }
    return __builtin_scalbnl(__builtin_sqrtl(s), e);
}
#define PCC_NORM(R, T, ...) const T v[] = {__VA_ARGS__}; return (R)__pcc_norm(sizeof v / sizeof *v, v)
#define PCC_RNORM(R, T, ...) const T v[] = {__VA_ARGS__}; return (R)(1.0L / __pcc_norm(sizeof v / sizeof *v, v))
static inline float rhypotf(float x, float y) { PCC_RNORM(float, float, x, y); }
static inline double rhypot(double x, double y) { PCC_RNORM(double, double, x, y); }
static inline float norm3df(float a, float b, float c) { PCC_NORM(float, float, a, b, c); }
static inline float rnorm3df(float a, float b, float c) { PCC_RNORM(float, float, a, b, c); }
static inline float norm4df(float a, float b, float c, float d) { PCC_NORM(float, float, a, b, c, d); }
static inline float rnorm4df(float a, float b, float c, float d) { PCC_RNORM(float, float, a, b, c, d); }
static inline double norm3d(double a, double b, double c) { PCC_NORM(double, double, a, b, c); }
static inline double rnorm3d(double a, double b, double c) { PCC_RNORM(double, double, a, b, c); }
static inline double norm4d(double a, double b, double c, double d) { PCC_NORM(double, double, a, b, c, d); }
static inline double rnorm4d(double a, double b, double c, double d) { PCC_RNORM(double, double, a, b, c, d); }
#undef PCC_NORM
#undef PCC_RNORM
static inline float normf(int n, const float *a) { return (float)__pcc_norm(n, a); }
static inline double norm(int n, const double *a) { return (double)__pcc_norm(n, a); }
static inline float rnormf(int n, const float *a) { return (float)(1.0L / __pcc_norm(n, a)); }
static inline double rnorm(int n, const double *a) { return (double)(1.0L / __pcc_norm(n, a)); }
static inline double cyl_bessel_i0(double x) { double s = 1, t = 1, q = x * x / 4; for (int k = 1; k < 500 && t > s * 1e-17; k++) { t *= q / ((double)k * k); s += t; } return s; }
static inline double cyl_bessel_i1(double x) { double t = x / 2, s = t, q = x * x / 4; for (int k = 1; k < 500 && (t < 0 ? -t : t) > (s < 0 ? -s : s) * 1e-17; k++) { t *= q / ((double)k * (k + 1)); s += t; } return s; }
static inline float cyl_bessel_i0f(float x) { return (float)cyl_bessel_i0(x); }
static inline float cyl_bessel_i1f(float x) { return (float)cyl_bessel_i1(x); }
static inline float fdividef(float a, float b) { return a / b; }
static inline float __saturatef(float x) { return x != x ? 0.0f : x < 0.0f ? 0.0f : x > 1.0f ? 1.0f : x; }
static inline float rsqrt(float a) { return rsqrtf(a); }
static inline float rcbrt(float a) { return rcbrtf(a); }
static inline float sinpi(float a) { return sinpif(a); }
static inline float cospi(float a) { return cospif(a); }
static inline void sincospi(float a, float *s, float *c) { sincospif(a, s, c); }
static inline float erfinv(float a) { return erfinvf(a); }
static inline float erfcinv(float a) { return erfcinvf(a); }
static inline float normcdfinv(float a) { return normcdfinvf(a); }
static inline float normcdf(float a) { return normcdff(a); }
static inline float erfcx(float a) { return erfcxf(a); }

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
/* x times an approximate 1/y: for 2^126 < |y| < 2^128 that reciprocal is below the
 * normal range and flushed to zero, so the quotient is 0, or NaN for an infinite x
 * (the Programming Guide's intrinsic functions section) */
static inline float __fdividef(float a, float b)
{
    if (__builtin_isfinite(b) && __builtin_fabsf(b) > 8.507059173023462e37f) /* 2^126 */
        return a * __builtin_copysignf(0.0f, b);
    return a / b;
}
static inline float __frsqrt_rn(float x) { return (float)(1.0 / sqrt((double)x)); }
/* Directed rounding: the runtime computes each in the host's rounding mode
 * (sim/rounding.c), so __fadd_rd is rounded down as on the GPU; _rn is the
 * host's own arithmetic. */
#define PCC_FRND(S, M)                                                                         \
    static inline float __fadd##S(float a, float b) { return __pcc_api->fround(PCC_SIM_FOP_ADD, M, a, b, 0); } \
    static inline float __fsub##S(float a, float b) { return __pcc_api->fround(PCC_SIM_FOP_SUB, M, a, b, 0); } \
    static inline float __fmul##S(float a, float b) { return __pcc_api->fround(PCC_SIM_FOP_MUL, M, a, b, 0); } \
    static inline float __fdiv##S(float a, float b) { return __pcc_api->fround(PCC_SIM_FOP_DIV, M, a, b, 0); } \
    static inline float __fmaf##S(float a, float b, float c) { return __pcc_api->fround(PCC_SIM_FOP_FMA, M, a, b, c); } \
    static inline float __fmaf_ieee##S(float a, float b, float c) { return __pcc_api->fround(PCC_SIM_FOP_FMA, M, a, b, c); } \
    static inline float __fsqrt##S(float a) { return __pcc_api->fround(PCC_SIM_FOP_SQRT, M, a, 0, 0); } \
    static inline float __frcp##S(float a) { return __pcc_api->fround(PCC_SIM_FOP_RCP, M, a, 0, 0); } \
    static inline double __dadd##S(double a, double b) { return __pcc_api->dround(PCC_SIM_FOP_ADD, M, a, b, 0); } \
    static inline double __dsub##S(double a, double b) { return __pcc_api->dround(PCC_SIM_FOP_SUB, M, a, b, 0); } \
    static inline double __dmul##S(double a, double b) { return __pcc_api->dround(PCC_SIM_FOP_MUL, M, a, b, 0); } \
    static inline double __ddiv##S(double a, double b) { return __pcc_api->dround(PCC_SIM_FOP_DIV, M, a, b, 0); } \
    static inline double __fma##S(double a, double b, double c) { return __pcc_api->dround(PCC_SIM_FOP_FMA, M, a, b, c); } \
    static inline double __dsqrt##S(double a) { return __pcc_api->dround(PCC_SIM_FOP_SQRT, M, a, 0, 0); } \
    static inline double __drcp##S(double a) { return __pcc_api->dround(PCC_SIM_FOP_RCP, M, a, 0, 0); } \
    static inline float __double2float##S(double a) { return (float)__pcc_api->dround(PCC_SIM_FOP_D2F, M, a, 0, 0); } \
    static inline float __int2float##S(int a) { return (float)__pcc_api->iround(PCC_SIM_LL2F, M, a, 0); } \
    static inline float __uint2float##S(unsigned int a) { return (float)__pcc_api->iround(PCC_SIM_ULL2F, M, 0, a); } \
    static inline float __ll2float##S(long long a) { return (float)__pcc_api->iround(PCC_SIM_LL2F, M, a, 0); } \
    static inline float __ull2float##S(unsigned long long a) { return (float)__pcc_api->iround(PCC_SIM_ULL2F, M, 0, a); } \
    static inline double __ll2double##S(long long a) { return __pcc_api->iround(PCC_SIM_LL2D, M, a, 0); } \
    static inline double __ull2double##S(unsigned long long a) { return __pcc_api->iround(PCC_SIM_ULL2D, M, 0, a); }
PCC_FRND(_rz, PCC_SIM_RZ) PCC_FRND(_ru, PCC_SIM_RU) PCC_FRND(_rd, PCC_SIM_RD)
#undef PCC_FRND
static inline float __fadd_rn(float a, float b) { return a + b; }
static inline float __fsub_rn(float a, float b) { return a - b; }
static inline float __fmul_rn(float a, float b) { return a * b; }
static inline float __fdiv_rn(float a, float b) { return a / b; }
static inline float __fmaf_rn(float a, float b, float c) { return fmaf(a, b, c); }
static inline float __fmaf_ieee_rn(float a, float b, float c) { return fmaf(a, b, c); }
static inline float __fsqrt_rn(float a) { return sqrtf(a); }
static inline float __frcp_rn(float a) { return 1.0f / a; }
static inline double __dadd_rn(double a, double b) { return a + b; }
static inline double __dsub_rn(double a, double b) { return a - b; }
static inline double __dmul_rn(double a, double b) { return a * b; }
static inline double __ddiv_rn(double a, double b) { return a / b; }
static inline double __fma_rn(double a, double b, double c) { return fma(a, b, c); }
static inline double __dsqrt_rn(double a) { return sqrt(a); }
static inline double __drcp_rn(double a) { return 1.0 / a; }
static inline float __double2float_rn(double a) { return (float)a; }
static inline float __int2float_rn(int a) { return (float)a; }
static inline float __uint2float_rn(unsigned int a) { return (float)a; }
static inline float __ll2float_rn(long long a) { return (float)a; }
static inline float __ull2float_rn(unsigned long long a) { return (float)a; }
static inline double __ll2double_rn(long long a) { return (double)a; }
static inline double __ull2double_rn(unsigned long long a) { return (double)a; }

/* conversions: CUDA saturates out-of-range values and maps NaN to 0 */
template <class I, class F> static inline I __pcc_f2i(F x)
{
    if (x != x) return 0;
    if (x <= (F)__pcc::limits<I>::min()) return __pcc::limits<I>::min();
    if (x >= (F)__pcc::limits<I>::max()) return __pcc::limits<I>::max();
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

