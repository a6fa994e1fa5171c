// Technique of the bfloat16 kernels of NVIDIA's mixed-precision training
// examples (<cuda_bf16.h>: __nv_bfloat16 storage, arithmetic widened to float with
// __bfloat162float, the result rounded back with __float2bfloat16 — round to
// nearest even), here a scaled residual add y = bf16(alpha * x + y).
#include <cuda_bf16.h>

__global__ void bf16_axpy(float alpha, const __nv_bfloat16 *x, __nv_bfloat16 *y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float xv = __bfloat162float(x[i]);
        float yv = __bfloat162float(y[i]);
        y[i] = __float2bfloat16(alpha * xv + yv);
    }
}
