// Technique of libcu++ use in device code as NVIDIA's CCCL documentation shows it
// (#include <cuda/std/...>: cuda::std::numeric_limits for sentinels,
// cuda::std::is_floating_point in an if constexpr branch of a template,
// cuda::std::pair, cuda::std::swap and a cuda::std::array in registers).
// Compiled with no_extern_c=True.
#include <cuda/std/array>
#include <cuda/std/limits>
#include <cuda/std/type_traits>
#include <cuda/std/utility>

template <class T>
__device__ T clamp_to(T v, T lo, T hi)
{
    if constexpr (cuda::std::is_floating_point<T>::value) {
        if (v != v)
            return lo; // NaN
    }
    return v < lo ? lo : (hi < v ? hi : v);
}

// out[b] = the minimum of block b's inputs (starting from numeric_limits<int>::max());
// clamped[i] = clamp_to(in[i], -100, 100)
extern "C" __global__ void block_min_clamp(const int *in, int *out, int *clamped, int n)
{
    __shared__ int m;
    if (threadIdx.x == 0)
        m = cuda::std::numeric_limits<int>::max();
    __syncthreads();
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        atomicMin(&m, in[i]);
        clamped[i] = clamp_to(in[i], -100, 100);
    }
    __syncthreads();
    if (threadIdx.x == 0)
        out[blockIdx.x] = m;
}

// x[i] clamped to [-1, 1] (NaN to -1); each group of 4 sorted ascending in registers
extern "C" __global__ void clamp_sort4(float *x, int n4)
{
    int g = blockIdx.x * blockDim.x + threadIdx.x;
    if (g >= n4)
        return;
    cuda::std::pair<float, float> range{-1.0f, 1.0f};
    cuda::std::array<float, 4> v;
    for (int k = 0; k < 4; k++)
        v[k] = clamp_to(x[4 * g + k], range.first, range.second);
    for (int a = 0; a < 4; a++)
        for (int b = a + 1; b < 4; b++)
            if (v[b] < v[a])
                cuda::std::swap(v[a], v[b]);
    for (int k = 0; k < 4; k++)
        x[4 * g + k] = v[k];
}
