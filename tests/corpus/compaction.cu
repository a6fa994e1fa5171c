// Technique of prefix-sum stream compaction as in GPU Gems 3 chapter 39.3.1
// (flag each element, exclusive-scan the flags, scatter to the scanned address)
// in three kernels: a block-local scan of the flags that also counts the block
// with __syncthreads_count, a one-block scan of the block totals, and the
// scatter; and of the NVIDIA blog "CUDA Pro Tip: Optimized Filtering with
// Warp-Aggregated Atomics" (filter_k: __ballot_sync + __popc + __ffs elect a
// leader that reserves the whole warp's slots with one atomicAdd; order is not
// kept).

#define CBLOCK 256

__global__ void compact_scan_flags(const int *in, int *offsets, int *blockCounts, int n)
{
    __shared__ int s[CBLOCK];
    int tid = threadIdx.x;
    int i = blockIdx.x * CBLOCK + tid;
    int flag = (i < n) && (in[i] > 0);

    int count = __syncthreads_count(flag);
    s[tid] = flag;
    __syncthreads();
    for (int off = 1; off < CBLOCK; off <<= 1) { // Hillis-Steele, in place
        int t = (tid >= off) ? s[tid - off] : 0;
        __syncthreads();
        s[tid] += t;
        __syncthreads();
    }
    if (i < n)
        offsets[i] = s[tid] - flag; // exclusive
    if (tid == 0)
        blockCounts[blockIdx.x] = count;
}

// one block: exclusive scan of at most 1024 block counts, in place
__global__ void compact_scan_blocks(int *blockCounts, int *total, int nblocks)
{
    __shared__ int s[1024];
    int tid = threadIdx.x;
    int v = (tid < nblocks) ? blockCounts[tid] : 0;
    s[tid] = v;
    __syncthreads();
    for (int off = 1; off < (int)blockDim.x; off <<= 1) {
        int t = (tid >= off) ? s[tid - off] : 0;
        __syncthreads();
        s[tid] += t;
        __syncthreads();
    }
    if (tid < nblocks)
        blockCounts[tid] = s[tid] - v;
    if (tid == blockDim.x - 1)
        *total = s[tid];
}

__global__ void compact_scatter(const int *in, const int *offsets, const int *blockOffsets,
                                int *out, int n)
{
    int i = blockIdx.x * CBLOCK + threadIdx.x;
    if (i < n && in[i] > 0)
        out[blockOffsets[blockIdx.x] + offsets[i]] = in[i];
}

__device__ __forceinline__ int lane_id(void) { return threadIdx.x & 31; }

__device__ int atomicAggInc(int *ctr)
{
    unsigned int active = __activemask();
    int leader = __ffs(active) - 1;
    int change = __popc(active);
    unsigned int rank = __popc(active & ((1u << lane_id()) - 1u));
    int warp_res = 0;
    if (lane_id() == leader)
        warp_res = atomicAdd(ctr, change);
    warp_res = __shfl_sync(active, warp_res, leader);
    return warp_res + rank;
}

__global__ void filter_k(int *dst, int *nres, const int *src, int n)
{
    int i = threadIdx.x + blockIdx.x * blockDim.x;
    if (i < n && src[i] > 0)
        dst[atomicAggInc(nres)] = src[i];
}
