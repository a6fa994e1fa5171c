// Deliberately invalid: a __global__ function must return void (NVRTC: "a
// __global__ function must have a void return type").

__global__ int square_count(const int *in, int *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = in[i] * in[i];
    return n;
}
