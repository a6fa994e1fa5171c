// Technique of "CUDA by Example" (Sanders & Kandrot), chapter 9.4 (histo_kernel:
// a 256-bin histogram in __shared__ memory built with shared atomicAdd, a
// grid-stride loop over the bytes, then one global atomicAdd per bin per block),
// and of cuda-samples 3_CUDA_Features/histogram (histogram64: per-warp
// sub-histograms in shared memory to spread the atomics, merged at the end).

__global__ void histo_kernel(const unsigned char *buffer, long size, unsigned int *histo)
{
    __shared__ unsigned int temp[256];
    temp[threadIdx.x] = 0;
    __syncthreads();

    int i = threadIdx.x + blockIdx.x * blockDim.x;
    int offset = blockDim.x * gridDim.x;
    while (i < size) {
        atomicAdd(&temp[buffer[i]], 1);
        i += offset;
    }
    __syncthreads();
    atomicAdd(&histo[threadIdx.x], temp[threadIdx.x]);
}

#define HIST_BINS 64
#define WARPS_PER_BLOCK 4

// values are 6-bit bin numbers packed one per byte; blockDim.x == 32 * WARPS_PER_BLOCK
__global__ void histogram64_warps(const unsigned char *data, int n, unsigned int *histo)
{
    __shared__ unsigned int sub[WARPS_PER_BLOCK][HIST_BINS];
    int warp = threadIdx.x / 32;

    for (int b = threadIdx.x; b < WARPS_PER_BLOCK * HIST_BINS; b += blockDim.x)
        (&sub[0][0])[b] = 0;
    __syncthreads();

    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        atomicAdd(&sub[warp][data[i] & (HIST_BINS - 1)], 1u);
    __syncthreads();

    for (int bin = threadIdx.x; bin < HIST_BINS; bin += blockDim.x) {
        unsigned int sum = 0;
        for (int w = 0; w < WARPS_PER_BLOCK; w++)
            sum += sub[w][bin];
        atomicAdd(&histo[bin], sum);
    }
}
