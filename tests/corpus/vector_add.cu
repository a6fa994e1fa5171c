// Technique of cuda-samples 0_Introduction/vectorAdd (vectorAdd: one thread per
// element behind a bounds check), of the NVIDIA developer blog "An Easy
// Introduction to CUDA C and C++" (saxpy with the scalar first), and of the blog
// "CUDA Pro Tip: Write Flexible Kernels with Grid-Stride Loops" (saxpy over a
// grid-stride loop, correct for any grid size).
#include <cuda_runtime.h>

__global__ void vectorAdd(const float *A, const float *B, float *C, int numElements)
{
    int i = blockDim.x * blockIdx.x + threadIdx.x;

    if (i < numElements) {
        C[i] = A[i] + B[i];
    }
}

__global__ void saxpy(int n, float a, float *x, float *y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = a * x[i] + y[i];
}

__global__ void saxpy_grid_stride(int n, float a, const float *__restrict__ x,
                                  float *__restrict__ y)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        y[i] = a * x[i] + y[i];
}
