// Barriers reached only through helpers: a macro, a device function calling
// another, a template and an out-of-class method, next to kernels with no
// barrier at all (which the simulator runs as a plain loop). C++ (templates):
// compiled with no_extern_c=True.
#define BARRIER() __syncthreads()

__device__ void block_barrier() { BARRIER(); }
__device__ void sum_step(float *s, unsigned int t, unsigned int k)
{
    if (t < k) s[t] += s[t + k];
    block_barrier();
}
template <int N> __device__ float block_sum(float *s, unsigned int t)
{
    for (unsigned int k = N / 2; k > 0; k >>= 1)
        sum_step(s, t, k);
    return s[0];
}
struct Rotator {
    __device__ int rotate(int *s, int t) const;
};
__device__ int Rotator::rotate(int *s, int t) const
{
    int v = s[t];
    __syncthreads();
    s[(t + 1) % blockDim.x] = v;
    __syncthreads();
    return s[t];
}
__device__ float square(float x) { return x * x; }

extern "C" __global__ void sums(const float *in, float *out)
{
    __shared__ float s[128];
    unsigned int t = threadIdx.x;
    s[t] = in[blockIdx.x * 128 + t];
    BARRIER();
    float total = block_sum<128>(s, t);
    if (t == 0) out[blockIdx.x] = total;
}

extern "C" __global__ void rotate(int *data)
{
    __shared__ int s[64];
    s[threadIdx.x] = data[threadIdx.x];
    __syncthreads();
    data[threadIdx.x] = Rotator().rotate(s, threadIdx.x);
}

extern "C" __global__ void squares(float *x, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = square(x[i]);
}
