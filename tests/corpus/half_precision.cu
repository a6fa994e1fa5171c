// Technique of the NVIDIA blog "Mixed-Precision Programming with CUDA 8" (haxpy:
// half2 arithmetic with __hfma2 on pairs through a reinterpret_cast to half2,
// __halves2half2 to splat the scalar, the odd tail with __hfma) and of half-precision
// dot products that widen to float for accumulation (__half22float2, __low2float,
// __high2float, a warp shuffle sum and one atomicAdd per warp). Uses <cuda_fp16.h>.
#include <cuda_fp16.h>

__global__ void haxpy(int n, half a, const half *x, half *y)
{
    int start = threadIdx.x + blockDim.x * blockIdx.x;
    int stride = blockDim.x * gridDim.x;

    int n2 = n / 2;
    const half2 *x2 = reinterpret_cast<const half2 *>(x);
    half2 *y2 = reinterpret_cast<half2 *>(y);
    half2 a2 = __halves2half2(a, a);
    for (int i = start; i < n2; i += stride)
        y2[i] = __hfma2(a2, x2[i], y2[i]);

    if (start == 0 && (n % 2))
        y[n - 1] = __hfma(a, x[n - 1], y[n - 1]);
}

// *result += sum_i x[i] * y[i] over n2 = n / 2 half2 pairs (products exact in float)
__global__ void hdot(int n2, const __half2 *x, const __half2 *y, float *result)
{
    float sum = 0.0f;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n2; i += blockDim.x * gridDim.x) {
        float2 xf = __half22float2(x[i]);
        float lo = __low2float(y[i]);
        float hi = __high2float(y[i]);
        sum += xf.x * lo + xf.y * hi;
    }
    for (int off = 16; off > 0; off /= 2)
        sum += __shfl_down_sync(0xffffffff, sum, off);
    if ((threadIdx.x & 31) == 0)
        atomicAdd(result, sum);
}

// round trip float -> half -> float, and a half comparison
__global__ void half_clamp(const float *in, __half *out, float lo, float hi, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        __half v = __float2half(in[i]);
        __half l = __float2half(lo), h = __float2half(hi);
        if (__hlt(v, l))
            v = l;
        if (__hgt(v, h))
            v = h;
        out[i] = v;
    }
}
