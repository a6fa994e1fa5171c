"""The CUDA C every stateful generator shares, and the templates its kernels
are made from (one place, so that every generator's kernels read alike).

A generator module (xorwow, mrg32k3a, sobol) supplies GENERATOR source that
defines, for its own module:

    struct pcc_rng_t;                             the state of one stream
    pcc_rng_load(r, S, aux, t, T) / pcc_rng_save(r, S, t, T)
                                                  stream t of T, from / to the
                                                  state words S[w * T + t]
    unsigned int pcc_rng_u32(r)                   the next 32 random bits
    float pcc_rng_uf(r), double pcc_rng_ud(r)     the next uniform in (0, 1]
                                                  (a quasi-random generator's
                                                  own; PSEUDO makes them from
                                                  pcc_rng_u32)
    pcc_rng_skip(r, aux, n) [, _seq, _subseq]     jump n draws [sequences ...]

and a family (PSEUDO or QUASI) that says how normals and Poisson numbers
are drawn: pseudo-random streams take Box-Muller pairs and PTRS, quasi-random
ones invert the distribution on a single point (two draws would break the
low-discrepancy structure). render() puts the pieces together.

Stream t of T is thread t of the launch, which is always block_count x
generators_per_block threads; thread t fills out[t], out[t + T], ... (pairs
from 2t on for Box-Muller), so element i of a quasi-random fill is
dimension i mod T.
"""

# ======================================================================
# Shared device code: conversions, normal and Poisson samplers
# ======================================================================

HELPERS = r"""
#define PCC_RNG_BEGIN                                                          \
    const long long T = (long long)gridDim.x * blockDim.x;                     \
    const long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;      \
    pcc_rng_t r;                                                               \
    pcc_rng_load(r, S, aux, t, T);
#define PCC_RNG_END pcc_rng_save(r, S, t, T);

/* SplitMix64 (Steele, Lea and Flood, 2014): seeds to well-mixed words. */
__device__ inline unsigned long long pcc_splitmix64(unsigned long long &s)
{
    unsigned long long z = (s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Random words to (0, 1]: floats on the 2^-24 grid, doubles on the 2^-53
   grid (0 is never drawn, so log() is always finite; 1 may be). */
__device__ inline float pcc_rand_f(unsigned int w)
{
    return (float)((w >> 8) + 1u) * (1.0f / 16777216.0f);
}
__device__ inline double pcc_rand_d(unsigned int hi, unsigned int lo)
{
    const unsigned long long b = (((unsigned long long)hi << 32) | lo) >> 11;
    return (double)(b + 1ull) * (1.0 / 9007199254740992.0);
}

/* A quasi-random point to (0, 1): the middle of its cell, which keeps the
   first 2^k points one to each interval [j 2^-k, (j + 1) 2^-k). */
__device__ inline double pcc_qrand_d32(unsigned int x)
{
    return ((double)x + 0.5) * (1.0 / 4294967296.0);
}
__device__ inline double pcc_qrand_d64(unsigned long long x)
{
    return ((double)(x >> 12) + 0.5) * (1.0 / 4503599627370496.0);
}

/* The standard normal's inverse CDF: Wichura's AS 241 (PPND16, Applied
   Statistics 37, 1988), relative error about 1e-16 on (0, 1). */
__device__ inline double pcc_normal_icdf(double p)
{
    const double q = p - 0.5;
    double r, num, den;
    if (fabs(q) <= 0.425) {
        r = 0.180625 - q * q;
        num = (((((((2509.0809287301226727 * r + 33430.575583588128105) * r
                    + 67265.770927008700853) * r + 45921.953931549871457) * r
                  + 13731.693765509461125) * r + 1971.5909503065514427) * r
                + 133.14166789178437745) * r + 3.387132872796366608);
        den = (((((((5226.495278852545925 * r + 28729.085735721942674) * r
                    + 39307.89580009271061) * r + 21213.794301586595867) * r
                  + 5394.1960214247511077) * r + 687.1870074920579083) * r
                + 42.313330701600911252) * r + 1.0);
        return q * num / den;
    }
    r = sqrt(-log(q < 0.0 ? p : 1.0 - p));
    if (r <= 5.0) {
        r -= 1.6;
        num = (((((((7.7454501427834140764e-4 * r + 0.0227238449892691845833) * r
                    + 0.24178072517745061177) * r + 1.27045825245236838258) * r
                  + 3.64784832476320460504) * r + 5.7694972214606914055) * r
                + 4.6303378461565452959) * r + 1.42343711074968357734);
        den = (((((((1.05075007164441684324e-9 * r + 5.475938084995344946e-4) * r
                    + 0.0151986665636164571966) * r + 0.14810397642748007459) * r
                  + 0.68976733498510000455) * r + 1.6763848301838038494) * r
                + 2.05319162663775882187) * r + 1.0);
    } else {
        r -= 5.0;
        num = (((((((2.01033439929228813265e-7 * r + 2.71155556874348757815e-5) * r
                    + 0.0012426609473880784386) * r + 0.026532189526576123093) * r
                  + 0.29656057182850489123) * r + 1.7848265399172913358) * r
                + 5.4637849111641143699) * r + 6.6579046435011037772);
        den = (((((((2.04426310338993978564e-15 * r + 1.4215117583164458887e-7) * r
                    + 1.8463183175100546818e-5) * r + 7.868691311456132591e-4) * r
                  + 0.0148753612908506148525) * r + 0.13692988092273580531) * r
                + 0.59983220655588793769) * r + 1.0);
    }
    const double x = num / den;
    return q < 0.0 ? -x : x;
}

/* Box-Muller: two uniforms in (0, 1] to two independent normals. */
__device__ inline void pcc_box_muller_f(float u1, float u2, float z[2])
{
    const float rad = sqrtf(-2.0f * logf(u1));
    float s, c;
    sincospif(2.0f * u2, &s, &c);
    z[0] = rad * c;
    z[1] = rad * s;
}
__device__ inline void pcc_box_muller_d(double u1, double u2, double z[2])
{
    const double rad = sqrt(-2.0 * log(u1));
    double s, c;
    sincospi(2.0 * u2, &s, &c);
    z[0] = rad * c;
    z[1] = rad * s;
}

/* log(k!) for an integral k >= 0: exact products up to 20!, then Stirling's
   series for lgamma(k + 1), whose next term is below 1e-13 there. The same
   arithmetic on every backend (no host lgamma and its global signgam). */
__device__ inline double pcc_log_factorial(double k)
{
    if (k < 21.0) {
        double f = 1.0;
        for (double j = 2.0; j <= k; j += 1.0) f *= j;
        return log(f);
    }
    const double x = k + 1.0, x2 = x * x;
    return (x - 0.5) * log(x) - x + 0.91893853320467274178
           + (1.0 / 12.0 - (1.0 / 360.0 - (1.0 / 1260.0) / x2) / x2) / x;
}

/* Poisson by inversion: the smallest k with F(k) >= u, for u in (0, 1]. */
#define PCC_POISSON_MODE_FROM 12.0
#define PCC_POISSON_APPROX_FROM 1.0e4
__device__ inline double pcc_poisson_inv(double u, double lam)
{
    if (!(lam > 0.0)) return lam == 0.0 ? 0.0 : __longlong_as_double(0x7ff8000000000000ll);
    if (lam < PCC_POISSON_MODE_FROM) {          /* sequential search from 0 */
        double p = exp(-lam), F = p, k = 0.0;
        while (u > F && p > 0.0) { k += 1.0; p *= lam / k; F += p; }
        return k;
    }
    if (lam >= PCC_POISSON_APPROX_FROM) {
        /* Cornish-Fisher: lam's Poisson quantile to O(lam^-3/2) (cumulants
           all lam), with the lattice's continuity and Sheppard corrections;
           its CDF is off by 5e-9 at lam 1e4, less above (the tests check
           3e-8 at the steps of the CDF). */
        const double z = pcc_normal_icdf(u < 1.0 ? u : 0.99999999999999989);
        const double s = sqrt(lam), z2 = z * z;
        const double x = lam + s * z + (z2 - 1.0) / 6.0 - z * (z2 + 2.0) / (72.0 * s)
                         + ((12.0 * z2 - 17.0) * z2 - 19.0) / (3240.0 * lam);
        const double k = ceil(x - 0.5);
        return k > 0.0 ? k : 0.0;
    }
    /* from the mode: F(m) by summing down while the terms count, then walk */
    const double m = floor(lam);
    const double pm = exp(m * log(lam) - lam - pcc_log_factorial(m));
    double F = pm, p = pm;
    for (double j = m; j > 0.0 && p > 1e-17 * F; j -= 1.0) { p *= j / lam; F += p; }
    double k = m;
    p = pm;
    if (u <= F) {
        while (k > 0.0 && F - p >= u) { F -= p; p *= k / lam; k -= 1.0; }
    } else {
        while (u > F && p > 0.0) { k += 1.0; p *= lam / k; F += p; }
    }
    return k;
}
"""

# Pseudo-random streams: Box-Muller pairs, Poisson by PTRS (Hormann, "The
# transformed rejection method for generating Poisson random variables",
# 1993) from lam = 12 on, inversion below.
PSEUDO = r"""
/* A pseudo-random stream's uniforms: 32 bits for a float, 64 for a double. */
__device__ inline float pcc_rng_uf(pcc_rng_t &r) { return pcc_rand_f(pcc_rng_u32(r)); }
__device__ inline double pcc_rng_ud(pcc_rng_t &r)
{
    const unsigned int hi = pcc_rng_u32(r);
    return pcc_rand_d(hi, pcc_rng_u32(r));
}

__device__ inline void pcc_rng_normal2_f(pcc_rng_t &r, float z[2])
{
    const float u1 = pcc_rng_uf(r);
    const float u2 = pcc_rng_uf(r);
    pcc_box_muller_f(u1, u2, z);
}
__device__ inline void pcc_rng_normal2_d(pcc_rng_t &r, double z[2])
{
    const double u1 = pcc_rng_ud(r);
    const double u2 = pcc_rng_ud(r);
    pcc_box_muller_d(u1, u2, z);
}

__device__ inline double pcc_rng_poisson(pcc_rng_t &r, double lam)
{
    if (!(lam >= PCC_POISSON_MODE_FROM)) return pcc_poisson_inv(pcc_rng_ud(r), lam);
    const double slam = sqrt(lam), loglam = log(lam);
    const double b = 0.931 + 2.53 * slam;
    const double a = -0.059 + 0.02483 * b;
    const double log_inv_alpha = log(1.1239 + 1.1328 / (b - 3.4));
    const double vr = 0.9277 - 3.6224 / (b - 2.0);
    for (;;) {
        const double U = pcc_rng_ud(r) - 0.5;
        const double V = pcc_rng_ud(r);
        const double us = 0.5 - fabs(U);
        const double k = floor((2.0 * a / us + b) * U + lam + 0.43);
        if (us >= 0.07 && V <= vr) return k;
        if (k < 0.0 || (us < 0.013 && V > us)) continue;
        if (log(V) + log_inv_alpha - log(a / (us * us) + b)
                <= -lam + k * loglam - pcc_log_factorial(k))
            return k;
    }
}
"""

QUASI = r"""
__device__ inline double pcc_rng_poisson(pcc_rng_t &r, double lam)
{
    return pcc_poisson_inv(pcc_rng_ud(r), lam);
}
"""

# ======================================================================
# Kernel templates
# ======================================================================

# Stream t: the generator's seeding from seeds[t], then subsequence t (the
# generator's pcc_rng_skip_stream), then `offset` draws.
_PSEUDO_INIT = r"""
extern "C" __global__ void {p}_init(unsigned int *S, const void *aux, const int *seeds,
                                    unsigned long long offset)
{
    const long long T = (long long)gridDim.x * blockDim.x;
    const long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    pcc_rng_t r;
    pcc_rng_seed(r, (unsigned int)seeds[t]);
    pcc_rng_skip_stream(r, aux, (unsigned long long)t);
    pcc_rng_skip(r, aux, offset);
    pcc_rng_save(r, S, t, T);
}
"""

# Stream t: dimension t's direction numbers (aux), scramble[t] (or none),
# at point `offset`.
_QUASI_INIT = r"""
extern "C" __global__ void {p}_init(unsigned int *S, const void *aux, const void *scramble,
                                    unsigned long long offset)
{
    const long long T = (long long)gridDim.x * blockDim.x;
    const long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    pcc_rng_t r;
    pcc_rng_start(r, aux, scramble, t, offset);
    pcc_rng_save(r, S, t, T);
}
"""

_ELEMENTS = r"""
extern "C" __global__ void {p}_{name}(unsigned int *S, const void *aux, {out} *out, long long n{params})
{
    PCC_RNG_BEGIN
    for (long long i = t; i < n; i += T)
        out[i] = {expr};
    PCC_RNG_END
}
"""

_PAIRS = r"""
extern "C" __global__ void {p}_{name}(unsigned int *S, const void *aux, {out} *out, long long n{params})
{
    PCC_RNG_BEGIN
    for (long long i = 2 * t; i < n; i += 2 * T) {
        {out} z[2];
        pcc_rng_normal2_{fd}(r, z);
        out[i] = {expr0};
        if (i + 1 < n) out[i + 1] = {expr1};
    }
    PCC_RNG_END
}
"""

_SKIP = r"""
extern "C" __global__ void {p}_skip{what}(unsigned int *S, const void *aux, unsigned long long k)
{
    PCC_RNG_BEGIN
    pcc_rng_skip{what}(r, aux, k);
    PCC_RNG_END
}

extern "C" __global__ void {p}_skip{what}_array(unsigned int *S, const void *aux,
                                               const unsigned long long *k)
{
    PCC_RNG_BEGIN
    pcc_rng_skip{what}(r, aux, k[t]);
    PCC_RNG_END
}
"""

# (name, output C type, extra parameters, expression of r)
_COMMON = [
    ("uniform_u32", "unsigned int", "", "pcc_rng_u32(r)"),
    ("uniform_f32", "float", "", "pcc_rng_uf(r)"),
    ("uniform_f64", "double", "", "pcc_rng_ud(r)"),
    ("poisson_u32", "unsigned int", ", double lam", "(unsigned int)pcc_rng_poisson(r, lam)"),
    ("poisson_ip_u32", "unsigned int", "", "(unsigned int)pcc_rng_poisson(r, (double)out[i])"),
    ("poisson_ip_f32", "float", "", "(float)pcc_rng_poisson(r, (double)out[i])"),
    ("poisson_ip_f64", "double", "", "pcc_rng_poisson(r, out[i])"),
]

_QUASI_ELEMENTS = [
    ("normal_f32", "float", "", "(float)pcc_normal_icdf(pcc_rng_ud(r))"),
    ("normal_f64", "double", "", "pcc_normal_icdf(pcc_rng_ud(r))"),
    ("lognormal_f32", "float", ", float mean, float sd",
     "expf(mean + sd * (float)pcc_normal_icdf(pcc_rng_ud(r)))"),
    ("lognormal_f64", "double", ", double mean, double sd",
     "exp(mean + sd * pcc_normal_icdf(pcc_rng_ud(r)))"),
]

# (name, output C type, f/d, extra parameters, expression of z[j] as {z})
_PSEUDO_PAIRS = [
    ("normal_f32", "float", "f", "", "{z}"),
    ("normal_f64", "double", "d", "", "{z}"),
    ("lognormal_f32", "float", "f", ", float mean, float sd", "expf(mean + sd * {z})"),
    ("lognormal_f64", "double", "d", ", double mean, double sd", "exp(mean + sd * {z})"),
]


def _fill(template, **subs):
    for key, value in subs.items():
        template = template.replace("{" + key + "}", value)
    return template


def render(prefix, generator, family, skips=("",), extra_elements=()):
    """The whole module source of one generator: the shared helpers, the
    generator's own code, its family's samplers and every kernel, each
    kernel named prefix_<name>. `skips` lists the jump kinds the generator
    defines (pcc_rng_skip<what>); `extra_elements` adds per-element kernels
    as (name, C type, parameters, expression)."""
    parts = [HELPERS, generator, PSEUDO if family == "pseudo" else QUASI]
    for name, out, params, expr in _COMMON + list(extra_elements):
        parts.append(_fill(_ELEMENTS, name=name, out=out, params=params, expr=expr))
    if family == "pseudo":
        for name, out, fd, params, expr in _PSEUDO_PAIRS:
            parts.append(_fill(_PAIRS, name=name, out=out, fd=fd, params=params,
                               expr0=expr.replace("{z}", "z[0]"),
                               expr1=expr.replace("{z}", "z[1]")))
    else:
        for name, out, params, expr in _QUASI_ELEMENTS:
            parts.append(_fill(_ELEMENTS, name=name, out=out, params=params, expr=expr))
    for what in skips:
        parts.append(_fill(_SKIP, what=what))
    parts.append(_PSEUDO_INIT if family == "pseudo" else _QUASI_INIT)
    return _fill("".join(parts), p=prefix)
