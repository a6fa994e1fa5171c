// Every atomic on every type CUDA gives it.
__global__ void atomics_int(int *i, unsigned int *u, unsigned long long *ull, long long *ll)
{
    int t = threadIdx.x + blockIdx.x * blockDim.x; // 0..255
    atomicAdd(&i[0], 1);
    atomicSub(&i[1], 2);
    atomicMin(&i[2], -t);
    atomicMax(&i[3], t);
    atomicAnd(&i[4], ~(1 << (t % 31)));
    atomicOr(&i[5], 1 << (t % 31));
    atomicXor(&i[6], 1 << (t % 8));
    atomicCAS(&i[7], 0, 77);
    atomicExch(&i[8], 42);
    atomicAdd(&u[0], 3u);
    atomicSub(&u[1], 1u);
    atomicMin(&u[2], (unsigned int)t + 5u);
    atomicMax(&u[3], (unsigned int)t);
    atomicInc(&u[4], 9u);  // wraps to 0 after 9
    atomicDec(&u[5], 9u);  // 0 or > 9 wraps to 9
    atomicAnd(&u[6], 0xffu);
    atomicOr(&u[7], 1u << (t % 32));
    atomicXor(&u[8], 1u);
    atomicExch(&u[9], 7u);
    atomicCAS(&u[10], 0u, 99u);
    atomicAdd(&ull[0], 1000000000000ull);
    atomicMin(&ull[1], (unsigned long long)t + 10);
    atomicMax(&ull[2], (unsigned long long)t);
    atomicAnd(&ull[3], ~0ull << 4);
    atomicOr(&ull[4], 1ull << 40);
    atomicXor(&ull[5], 3ull);
    atomicExch(&ull[6], 5ull);
    atomicCAS(&ull[7], 0ull, 1ull << 50);
    atomicMin(&ll[0], -(long long)t);
    atomicMax(&ll[1], (long long)t * 1000000000ll);
}

__global__ void atomics_float(float *f, double *d)
{
    atomicAdd(&f[0], 0.5f);
    atomicExch(&f[1], 2.5f);
    atomicAdd(&d[0], 0.25);
    atomicAdd(&d[1], -1.0);
}
