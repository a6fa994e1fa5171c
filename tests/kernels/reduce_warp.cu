// Warp-shuffle reduction: each warp sums with __shfl_down_sync, lane 0 adds
// the warp's sum to *out atomically. Also a per-warp __shfl_xor_sync
// butterfly that leaves the sum in every lane.
__device__ __forceinline__ float warp_sum(float v)
{
    for (int offset = warpSize / 2; offset > 0; offset /= 2)
        v += __shfl_down_sync(0xffffffffu, v, offset);
    return v;
}

__global__ void reduce_warp(const float *in, float *out, int n)
{
    float v = 0.0f;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        v += in[i];
    v = warp_sum(v);
    if ((threadIdx.x & (warpSize - 1)) == 0)
        atomicAdd(out, v);
}

__global__ void butterfly(const int *in, int *out)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int v = in[i];
    for (int mask = 16; mask > 0; mask >>= 1)
        v += __shfl_xor_sync(0xffffffffu, v, mask);
    out[i] = v;
}

// __shfl_up_sync inclusive scan inside width-16 segments, __shfl_sync broadcast,
// ballot / any / all votes.
__global__ void warp_ops(const int *in, int *scan16, int *bcast, unsigned int *votes)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x & 31;
    int v = in[i];
    for (int d = 1; d < 16; d <<= 1) {
        int up = __shfl_up_sync(0xffffffffu, v, d, 16);
        if ((lane & 15) >= d) v += up;
    }
    scan16[i] = v;
    bcast[i] = __shfl_sync(0xffffffffu, in[i], 3);
    unsigned int b = __ballot_sync(0xffffffffu, in[i] > 0);
    int any = __any_sync(0xffffffffu, in[i] > 100);
    int all = __all_sync(0xffffffffu, in[i] >= 0);
    if (lane == 0) {
        votes[3 * (i / 32)] = b;
        votes[3 * (i / 32) + 1] = any;
        votes[3 * (i / 32) + 2] = all;
    }
}
