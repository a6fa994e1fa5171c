// Technique of the NVIDIA developer blog "Faster Parallel Reductions on Kepler"
// (warpReduceSum with __shfl_down_sync, blockReduceSum through a static
// __shared__ array of one value per warp, deviceReduceKernel over a grid-stride
// loop, deviceReduceWarpAtomicKernel finishing with one atomicAdd per warp) and
// of the butterfly all-reduce with __shfl_xor_sync from the CUDA Programming
// Guide's warp shuffle section.

__inline__ __device__ int warpReduceSum(int val)
{
    for (int offset = warpSize / 2; offset > 0; offset /= 2)
        val += __shfl_down_sync(0xffffffff, val, offset);
    return val;
}

__inline__ __device__ int blockReduceSum(int val)
{
    static __shared__ int perWarp[32];
    int lane = threadIdx.x % warpSize;
    int wid = threadIdx.x / warpSize;

    val = warpReduceSum(val);
    if (lane == 0)
        perWarp[wid] = val;
    __syncthreads();

    // the first warp reduces the per-warp sums
    val = (threadIdx.x < blockDim.x / warpSize) ? perWarp[lane] : 0;
    if (wid == 0)
        val = warpReduceSum(val);
    return val;
}

__global__ void deviceReduceKernel(const int *in, int *out, int N)
{
    int sum = 0;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < N; i += blockDim.x * gridDim.x)
        sum += in[i];
    sum = blockReduceSum(sum);
    if (threadIdx.x == 0)
        out[blockIdx.x] = sum;
}

__global__ void deviceReduceWarpAtomicKernel(const int *in, int *out, int N)
{
    int sum = 0;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < N; i += blockDim.x * gridDim.x)
        sum += in[i];
    sum = warpReduceSum(sum);
    if ((threadIdx.x & (warpSize - 1)) == 0)
        atomicAdd(out, sum);
}

// every lane ends with the warp's total
__global__ void warpAllReduceXor(const float *in, float *out)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = in[i];
    for (int mask = 16; mask >= 1; mask >>= 1)
        v += __shfl_xor_sync(0xffffffff, v, mask, 32);
    out[i] = v;
}
