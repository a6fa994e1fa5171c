// Deliberately invalid: a __shared__ variable cannot have an initializer (NVRTC:
// "initializer not allowed for __shared__ variable"); users write it expecting a
// zeroed counter.

__global__ void count_positive(const int *in, int *out, int n)
{
    __shared__ int count = 0;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && in[i] > 0)
        atomicAdd(&count, 1);
    __syncthreads();
    if (threadIdx.x == 0)
        out[blockIdx.x] = count;
}
