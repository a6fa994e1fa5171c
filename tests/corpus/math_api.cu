// Technique of the CUDA Math API reference (each function's special values:
// +-0, +-inf, NaN, subnormals) and the CUDA C++ Programming Guide's
// "Mathematical Functions" appendix (the maximum ulp error tables for single
// and double precision), with the Math API's functions called as scientific
// kernels call them: inverse-CDF sampling of normal variates (normcdfinv, erfcinv, as
// quasi-Monte Carlo option pricers write it, deep into the tails), the
// Gaussian tail probability with normcdf, erfcx for the Faddeeva/Voigt line
// profile, log-likelihoods with lgamma/tgamma, von Mises densities with
// cyl_bessel_i0f/i1f, the reciprocal lengths of molecular dynamics (rnorm3d,
// rhypot, rcbrt) on coordinates at the ends of the exponent range, and the
// exactly specified functions (frexp/ldexp/scalbn/ilogb/logb, fmod, remainder,
// remquo, nextafter, copysign, fdim, fmax/fmin with a NaN operand, the
// roundings, modf, pow's special cases) that a careful kernel relies on.

// o[k * n + i] = f_k(x[k * n + i]): the single-precision special functions
__global__ void special_f(const float *x, float *o, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    const float *a = x + i;
    float *r = o + i;
    r[0 * n] = erfinvf(a[0 * n]);
    r[1 * n] = erfcinvf(a[1 * n]);
    r[2 * n] = normcdff(a[2 * n]);
    r[3 * n] = normcdfinvf(a[3 * n]);
    r[4 * n] = erfcxf(a[4 * n]);
    r[5 * n] = lgammaf(a[5 * n]);
    r[6 * n] = tgammaf(a[6 * n]);
    r[7 * n] = cyl_bessel_i0f(a[7 * n]);
    r[8 * n] = cyl_bessel_i1f(a[8 * n]);
    r[9 * n] = rcbrtf(a[9 * n]);
    r[10 * n] = exp10f(a[10 * n]);
    r[11 * n] = expm1f(a[11 * n]);
    r[12 * n] = log1pf(a[12 * n]);
}

// the same in double for the inverse error functions and the normal distribution
__global__ void special_d(const double *x, double *o, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    const double *a = x + i;
    double *r = o + i;
    r[0 * n] = erfinv(a[0 * n]);
    r[1 * n] = erfcinv(a[1 * n]);
    r[2 * n] = normcdf(a[2 * n]);
    r[3 * n] = normcdfinv(a[3 * n]);
    r[4 * n] = erfcx(a[4 * n]);
}

// Euclidean lengths and their reciprocals of p[i] = (x, y, z, w), float and double
__global__ void norms(const float4 *p, const double4 *q, float *of, double *od, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float4 a = p[i];
    double4 b = q[i];
    of[5 * i + 0] = norm3df(a.x, a.y, a.z);
    of[5 * i + 1] = rnorm3df(a.x, a.y, a.z);
    of[5 * i + 2] = norm4df(a.x, a.y, a.z, a.w);
    of[5 * i + 3] = rnorm4df(a.x, a.y, a.z, a.w);
    of[5 * i + 4] = rhypotf(a.x, a.y);
    od[5 * i + 0] = norm3d(b.x, b.y, b.z);
    od[5 * i + 1] = rnorm3d(b.x, b.y, b.z);
    od[5 * i + 2] = norm4d(b.x, b.y, b.z, b.w);
    od[5 * i + 3] = rnorm4d(b.x, b.y, b.z, b.w);
    od[5 * i + 4] = rhypot(b.x, b.y);
}

// the exactly specified functions of (a[i], b[i]) in double; e: the integer results
__global__ void exact_d(const double *a, const double *b, double *o, long long *e, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    double x = a[i], y = b[i];
    double *r = o + 18 * i;
    long long *k = e + 6 * i;
    int ex, q;
    r[0] = frexp(x, &ex);
    k[0] = ex;
    r[1] = ldexp(x, (int)fmin(fmax(y, -2000.0), 2000.0));
    r[2] = scalbn(x, -3);
    k[1] = ilogb(x);
    r[3] = logb(x);
    r[4] = fmod(x, y);
    r[5] = remainder(x, y);
    r[6] = remquo(x, y, &q);
    k[2] = q & 7;               // the low three bits of the quotient are specified
    r[7] = nextafter(x, y);
    r[8] = copysign(x, y);
    r[9] = fdim(x, y);
    r[10] = fmax(x, y);
    r[11] = fmin(x, y);
    r[12] = modf(x, &r[13]);
    r[14] = trunc(x);
    r[15] = round(x);
    r[16] = rint(x);
    r[17] = nearbyint(x);
    bool small = fabs(x) < 1e15;  // out of range, the conversions are unspecified
    k[3] = small ? llround(x) : 0;
    k[4] = small ? lrint(x) : 0;
    k[5] = small ? (long long)roundf((float)x) : 0;
}

// pow and powf on the special cases C99 Annex F and the Math API list
__global__ void pow_special(const double *a, const double *b, double *o, float *of, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    o[i] = pow(a[i], b[i]);
    of[i] = powf((float)a[i], (float)b[i]);
}
