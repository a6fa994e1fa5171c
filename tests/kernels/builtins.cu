// min/max overloads, math functions and intrinsics: results into out[].
__global__ void builtins(float *out, int *iout)
{
    int i = -3;
    unsigned int u = 5;
    long long ll = -7;
    unsigned long long ull = 9;
    float f = 2.5f;
    double d = -1.25;
    iout[0] = min(i, 4);
    iout[1] = (int)min(i, u);          // unsigned compare: 5
    iout[2] = (int)max(u, 2u);
    iout[3] = (int)min(ll, (long long)i);
    iout[4] = (int)max(ull, (unsigned long long)3);
    iout[5] = __popc(0xf0f0u);
    iout[6] = __clz(1);
    iout[7] = __ffs(0x100);
    iout[8] = (int)__brev(1u) == (int)0x80000000u;
    iout[9] = __float2int_rn(2.5f) + 10 * __float2int_rz(-2.7f);
    iout[10] = __mul24(1000, 1000);
    iout[11] = (int)__umulhi(0x80000000u, 4u);
    iout[12] = (int)__byte_perm(0x33221100u, 0x77665544u, 0x5140u);
    iout[13] = __float_as_int(1.0f);
    iout[14] = __popcll(0xffffffffffull);
    iout[15] = __clzll(1ll);
    long long c0 = clock64();
    __threadfence();
    long long c1 = clock64();
    iout[16] = c1 >= c0;
    iout[17] = (int)__sad(3, 10, 100u) + (int)__umul24(3u, 5u);
    out[0] = min(f, 3.0f);
    out[1] = (float)max(d, (double)f);
    out[2] = (float)min(f, d);
    out[3] = sqrtf(16.0f) + rsqrtf(4.0f);
    out[4] = expf(1.0f);
    out[5] = __expf(0.0f) + __logf(1.0f);
    out[6] = powf(2.0f, 10.0f);
    out[7] = fmaf(2.0f, 3.0f, 1.0f);
    out[8] = __fdividef(1.0f, 4.0f);
    out[9] = __saturatef(1.5f) + __saturatef(-1.0f);
    out[10] = fminf(1.0f, -1.0f) + fmaxf(1.0f, -1.0f);
    out[11] = floorf(-1.5f) + ceilf(1.2f) + truncf(-1.7f) + roundf(2.5f) + rintf(2.5f);
    float s, c;
    sincosf(0.5f, &s, &c);
    out[12] = s * s + c * c;
    out[13] = tanhf(0.5f);
    out[14] = erff(0.5f);
    out[15] = log2f(8.0f) + exp10f(2.0f);
    out[16] = (float)sqrt(2.0) + (float)exp(1.0);
    out[17] = __int_as_float(0x40490fdb);
    out[18] = fabsf(-3.0f) + fabs(-2.0f);
    out[19] = (float)__longlong_as_double(__double_as_longlong(1.5));
}
