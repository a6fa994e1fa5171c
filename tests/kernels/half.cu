// __half arithmetic: storage is 16 bits, math through the fp16 intrinsics.
// cuda_fp16.h has C++ overloads, so this file is compiled with no_extern_c=True.
#include <cuda_fp16.h>

extern "C" __global__ void half_ops(const __half *a, const __half *b, __half *sum, __half *prod, float *f, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        sum[i] = __hadd(a[i], b[i]);
        prod[i] = __hmul(a[i], b[i]);
        __half m = __hfma(a[i], b[i], __float2half(1.0f));
        f[i] = __half2float(m) + (__hlt(a[i], b[i]) ? 1000.0f : 0.0f);
    }
}

extern "C" __global__ void half_convert(const float *in, __half *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = __float2half(in[i]);
}
