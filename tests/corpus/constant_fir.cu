// Technique of the CUDA Programming Guide's __constant__ memory section and of
// the FIR / polynomial examples in Kirk & Hwu chapter 7 (convolution with the
// mask M in constant memory, every thread of a warp reading the same tap):
// fir_filter applies NTAPS taps from __constant__ memory set by the host;
// gaussian_weights fills a normalised Gaussian window using CUDART_PI_F and
// CUDART_SQRT_HALF_F from <math_constants.h> and a __device__ __forceinline__ helper.
#include <math_constants.h>

#define NTAPS 16

__constant__ float d_taps[NTAPS];
__constant__ int d_ntaps_used;

// y[i] = sum_k taps[k] * x[i - k], zero before the start
__global__ void fir_filter(const float *x, float *y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float acc = 0.0f;
    for (int k = 0; k < d_ntaps_used; k++)
        if (i - k >= 0)
            acc += d_taps[k] * x[i - k];
    y[i] = acc;
}

__device__ __forceinline__ float gauss(float x, float sigma)
{
    // 1 / (sigma * sqrt(2 pi)) * exp(-x^2 / (2 sigma^2)); sqrt(2) = 1 / CUDART_SQRT_HALF_F
    float norm = 1.0f / (sigma * sqrtf(2.0f * CUDART_PI_F));
    float z = x * CUDART_SQRT_HALF_F / sigma;
    return norm * expf(-z * z);
}

__global__ void gaussian_weights(float *w, int n, float sigma)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        w[i] = gauss((float)(i - n / 2), sigma);
}
