// Technique of the CUDA Programming Guide's intrinsic functions section and the
// CUDA Math API's integer, type-casting and single-precision intrinsics, as
// kernels use them: bit counts and scans (__popc, __clz, __ffs and their 64-bit
// forms: "the highest set bit is 31 - __clz(x)"), the FFT bit-reversal
// permutation with __brev, byte shuffles with __byte_perm (the 0x0123 byte swap),
// rotates with __funnelshift_l(x, x, r) as hash functions write them, the high
// halves of products (__umulhi, __umul64hi), the 24-bit multiplies, __sad and
// the halving adds of image kernels; cuda-samples' interval arithmetic
// (2_Concepts_and_Techniques/interval: a lower bound rounded down with __fadd_rd /
// __fmul_rd, an upper bound rounded up with __fadd_ru / __fmul_ru); the IEEE
// intrinsics (__fmul_rz, __fmaf_rn, __frcp_rn, __fsqrt_rn, __saturatef); the
// float <-> int conversions with a rounding mode and the bit casts
// (__float_as_int, __double2hiint ...); the fast approximate __fdividef, rsqrtf
// and sincospif with the accuracy the Guide states; and the sm_80 warp reduce
// and match functions (__reduce_min/and/or/xor_sync, __match_all_sync) under a
// full and a partial mask.

// out[6 * i ...]: __popc, __clz, __ffs of x[i]; __popcll, __clzll, __ffsll of y[i]
__global__ void bit_scan(const unsigned int *x, const unsigned long long *y, int *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        int *o = out + 6 * i;
        o[0] = __popc(x[i]);
        o[1] = __clz((int)x[i]);
        o[2] = __ffs((int)x[i]);
        o[3] = __popcll(y[i]);
        o[4] = __clzll((long long)y[i]);
        o[5] = __ffsll((long long)y[i]);
    }
}

// rx, ry: the words bit-reversed; perm: data reordered as an in-place radix-2 FFT
// wants it (element i goes to the bit-reversed index of i, over log2n bits)
__global__ void bit_reverse(const unsigned int *x, const unsigned long long *y, unsigned int *rx,
                            unsigned long long *ry, const float *data, float *perm, int log2n)
{
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < (1u << log2n)) {
        rx[i] = __brev(x[i]);
        ry[i] = __brevll(y[i]);
        perm[__brev(i) >> (32 - log2n)] = data[i];
    }
}

__device__ __forceinline__ unsigned int rotl32(unsigned int x, unsigned int r)
{
    return __funnelshift_l(x, x, r);
}

// out[8 * i ...]: byte permutes (selector s, the byte swap), the four funnel shifts of
// (hi = b, lo = a) by s, and a rotate-left by s
__global__ void byte_funnel(const unsigned int *a, const unsigned int *b, const unsigned int *s,
                            unsigned int *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        unsigned int *o = out + 8 * i;
        o[0] = __byte_perm(a[i], b[i], s[i] & 0xffff7777u); // no sign-replicate selectors
        o[1] = __byte_perm(a[i], 0, 0x0123);
        o[2] = __funnelshift_l(a[i], b[i], s[i]);
        o[3] = __funnelshift_r(a[i], b[i], s[i]);
        o[4] = __funnelshift_lc(a[i], b[i], s[i]);
        o[5] = __funnelshift_rc(a[i], b[i], s[i]);
        o[6] = rotl32(a[i], s[i]);
        o[7] = __byte_perm(a[i], b[i], 0x5140); // interleave the low halves' bytes
    }
}

// out[10 * i ...] (as 32-bit words): high halves, 24-bit products, sums of absolute
// differences and halving adds of a[i], b[i]; out64[2 * i ...]: 64-bit high halves
__global__ void mul_hi_sad(const int *a, const int *b, const unsigned int *z,
                           const unsigned long long *c, const unsigned long long *d,
                           unsigned int *out, unsigned long long *out64, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        unsigned int *o = out + 10 * i;
        unsigned int ua = (unsigned int)a[i], ub = (unsigned int)b[i];
        o[0] = (unsigned int)__mulhi(a[i], b[i]);
        o[1] = __umulhi(ua, ub);
        o[2] = (unsigned int)__mul24(a[i], b[i]);
        o[3] = __umul24(ua, ub);
        o[4] = __sad(a[i], b[i], z[i]);
        o[5] = __usad(ua, ub, z[i]);
        o[6] = (unsigned int)__hadd(a[i], b[i]);
        o[7] = (unsigned int)__rhadd(a[i], b[i]);
        o[8] = __uhadd(ua, ub);
        o[9] = __urhadd(ua, ub);
        out64[2 * i + 0] = __umul64hi(c[i], d[i]);
        out64[2 * i + 1] = (unsigned long long)__mul64hi((long long)c[i], (long long)d[i]);
    }
}

// interval arithmetic: [alo, ahi] + [blo, bhi] and [alo, ahi] * [blo, bhi], each
// bound rounded outwards; out[4 * i ...] = sum lo, sum hi, product lo, product hi
__device__ float2 interval_add(float2 a, float2 b)
{
    return make_float2(__fadd_rd(a.x, b.x), __fadd_ru(a.y, b.y));
}

__device__ float2 interval_mul(float2 a, float2 b)
{
    float lo = fminf(fminf(__fmul_rd(a.x, b.x), __fmul_rd(a.x, b.y)),
                     fminf(__fmul_rd(a.y, b.x), __fmul_rd(a.y, b.y)));
    float hi = fmaxf(fmaxf(__fmul_ru(a.x, b.x), __fmul_ru(a.x, b.y)),
                     fmaxf(__fmul_ru(a.y, b.x), __fmul_ru(a.y, b.y)));
    return make_float2(lo, hi);
}

__global__ void interval_ops(const float2 *a, const float2 *b, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float2 s = interval_add(a[i], b[i]);
        float2 p = interval_mul(a[i], b[i]);
        out[4 * i + 0] = s.x;
        out[4 * i + 1] = s.y;
        out[4 * i + 2] = p.x;
        out[4 * i + 3] = p.y;
    }
}

// out[8 * i ...]: correctly rounded IEEE operations in a stated rounding mode
__global__ void ieee_rounding(const float *a, const float *b, const float *c, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float *o = out + 8 * i;
        o[0] = __fadd_rd(a[i], b[i]);
        o[1] = __fadd_ru(a[i], b[i]);
        o[2] = __fmul_rz(a[i], b[i]);
        o[3] = __fmaf_rn(a[i], b[i], c[i]);
        o[4] = __frcp_rn(a[i]);
        o[5] = __fsqrt_rn(a[i]);
        o[6] = __saturatef(a[i]);
        o[7] = __fsub_rz(a[i], c[i]);
    }
}

// conversions with a rounding mode (out of range: saturated; NaN: 0) and bit casts:
// the biased exponent field, a sign flip through the bits, |d| rebuilt from its halves
__global__ void float_bits(const float *x, const double *d, int *ri, int *zi, unsigned int *uu,
                           int *expo, float *neg, int *hi, int *lo, double *dabs, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        ri[i] = __float2int_rn(x[i]);
        zi[i] = __float2int_rz(x[i]);
        uu[i] = __float2uint_ru(x[i]);
        expo[i] = (__float_as_int(x[i]) >> 23) & 0xff;
        neg[i] = __int_as_float(__float_as_int(x[i]) ^ 0x80000000);
        hi[i] = __double2hiint(d[i]);
        lo[i] = __double2loint(d[i]);
        dabs[i] = __hiloint2double(__double2hiint(d[i]) & 0x7fffffff, __double2loint(d[i]));
    }
}

// the approximate intrinsics: q = x / y fast, rs = 1 / sqrt(y), (s, c) = sin, cos of pi * t,
// and the same in double (sd, cd)
__global__ void fast_math(const float *x, const float *y, const float *t, float *q, float *rs,
                          float *s, float *c, double *sd, double *cd, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        q[i] = __fdividef(x[i], y[i]);
        rs[i] = rsqrtf(y[i]);
        sincospif(t[i], &s[i], &c[i]);
        sincospi((double)t[i], &sd[i], &cd[i]);
    }
}

// per lane, over its warp: min (signed and unsigned), and/or/xor of bits, whether
// every lane holds the same key (and the mask __match_all_sync returns); then the
// same over the even lanes only, inside the branch they take
__global__ void warp_reduce_match(const int *v, const unsigned int *bits, const int *key,
                                  int *mn, unsigned int *umn, unsigned int *andr,
                                  unsigned int *orr, unsigned int *xorr, int *pred,
                                  unsigned int *allmask, int *evenmin, unsigned int *evenall)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x & 31;
    mn[i] = __reduce_min_sync(0xffffffffu, v[i]);
    umn[i] = __reduce_min_sync(0xffffffffu, (unsigned int)v[i]);
    andr[i] = __reduce_and_sync(0xffffffffu, bits[i]);
    orr[i] = __reduce_or_sync(0xffffffffu, bits[i]);
    xorr[i] = __reduce_xor_sync(0xffffffffu, bits[i]);
    int p;
    allmask[i] = __match_all_sync(0xffffffffu, key[i], &p);
    pred[i] = p;
    evenmin[i] = 0x7fffffff;
    evenall[i] = 0xdeadbeefu;
    if ((lane & 1) == 0) {
        const unsigned int even = 0x55555555u;
        evenmin[i] = __reduce_min_sync(even, v[i]);
        int q;
        unsigned int m = __match_all_sync(even, key[i] & ~1, &q);
        evenall[i] = q ? m : 0xffffffffu;
    }
}
