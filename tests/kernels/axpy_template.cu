// A templated kernel, reached through name expressions (no_extern_c=True).
template <typename T, int UNROLL>
__global__ void axpy(T a, const T *x, T *y, int n)
{
    int i = (blockIdx.x * blockDim.x + threadIdx.x) * UNROLL;
#pragma unroll
    for (int u = 0; u < UNROLL; u++)
        if (i + u < n)
            y[i + u] = a * x[i + u] + y[i + u];
}

namespace scale {
template <typename T>
__global__ void twice(T *y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = y[i] + y[i];
}
}

// a non-template kernel in the same C++ program
extern "C" __global__ void fill(int *y, int v, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = v;
}
