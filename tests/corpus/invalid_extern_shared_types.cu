// Deliberately invalid: two kernels of one source declare the dynamic shared
// array under the same name with different element types (NVRTC: "declaration is
// incompatible with previous"), as happens when GPU Gems 3's scan_naive (float)
// and prescan (int) are pasted into one file. Extern __shared__ arrays share one
// name across the translation unit.

__global__ void scale_f(float *x, float s)
{
    extern __shared__ float temp[];
    temp[threadIdx.x] = x[threadIdx.x] * s;
    __syncthreads();
    x[threadIdx.x] = temp[blockDim.x - 1 - threadIdx.x];
}

__global__ void scale_i(int *x, int s)
{
    extern __shared__ int temp[];
    temp[threadIdx.x] = x[threadIdx.x] * s;
    __syncthreads();
    x[threadIdx.x] = temp[blockDim.x - 1 - threadIdx.x];
}
