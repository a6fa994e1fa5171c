// Technique of GPU Gems 3, chapter 39 "Parallel Prefix Sum (Scan) with CUDA"
// (Harris, Sengupta, Owens): scan_naive is the Hillis-Steele scan over a double
// buffer in shared memory (O(n log n) adds), prescan the work-efficient Blelloch
// scan (up-sweep to a tree, clear the root, down-sweep) with the
// CONFLICT_FREE_OFFSET padding against shared-memory bank conflicts; and of
// cuda-samples 2_Concepts_and_Techniques/shfl_scan (shfl_scan_test: an inclusive
// scan inside each warp with __shfl_up_sync, then the warp totals scanned by the
// first warp). One block per segment; all three are exclusive/inclusive as named.

#define NUM_BANKS 32
#define LOG_NUM_BANKS 5
#define CONFLICT_FREE_OFFSET(n) ((n) >> LOG_NUM_BANKS)

// exclusive scan of blockDim.x elements per block; shared: 2 * blockDim.x floats
__global__ void scan_naive(float *g_odata, const float *g_idata, int n)
{
    extern __shared__ float temp[];
    int thid = threadIdx.x;
    int base = blockIdx.x * blockDim.x;
    int pout = 0, pin = 1;

    // shift right by one: an exclusive scan
    temp[pout * blockDim.x + thid] =
        (thid > 0 && base + thid - 1 < n) ? g_idata[base + thid - 1] : 0.0f;
    __syncthreads();

    for (int offset = 1; offset < (int)blockDim.x; offset *= 2) {
        pout = 1 - pout;
        pin = 1 - pout;
        if (thid >= offset)
            temp[pout * blockDim.x + thid] =
                temp[pin * blockDim.x + thid] + temp[pin * blockDim.x + thid - offset];
        else
            temp[pout * blockDim.x + thid] = temp[pin * blockDim.x + thid];
        __syncthreads();
    }
    if (base + thid < n)
        g_odata[base + thid] = temp[pout * blockDim.x + thid];
}

// exclusive scan of 2 * blockDim.x elements per block (each thread loads two);
// shared: (2 * blockDim.x + 2 * blockDim.x / NUM_BANKS) ints
__global__ void prescan(int *g_odata, const int *g_idata, int n)
{
    extern __shared__ int itemp[]; // (another name: extern arrays of one name share a type)
    int thid = threadIdx.x;
    int m = 2 * blockDim.x;
    int base = blockIdx.x * m;

    int ai = thid;
    int bi = thid + blockDim.x;
    int bankOffsetA = CONFLICT_FREE_OFFSET(ai);
    int bankOffsetB = CONFLICT_FREE_OFFSET(bi);
    itemp[ai + bankOffsetA] = (base + ai < n) ? g_idata[base + ai] : 0;
    itemp[bi + bankOffsetB] = (base + bi < n) ? g_idata[base + bi] : 0;

    int offset = 1;
    for (int d = m >> 1; d > 0; d >>= 1) { // up-sweep
        __syncthreads();
        if (thid < d) {
            int a = offset * (2 * thid + 1) - 1;
            int b = offset * (2 * thid + 2) - 1;
            a += CONFLICT_FREE_OFFSET(a);
            b += CONFLICT_FREE_OFFSET(b);
            itemp[b] += itemp[a];
        }
        offset *= 2;
    }
    if (thid == 0)
        itemp[m - 1 + CONFLICT_FREE_OFFSET(m - 1)] = 0;

    for (int d = 1; d < m; d *= 2) { // down-sweep
        offset >>= 1;
        __syncthreads();
        if (thid < d) {
            int a = offset * (2 * thid + 1) - 1;
            int b = offset * (2 * thid + 2) - 1;
            a += CONFLICT_FREE_OFFSET(a);
            b += CONFLICT_FREE_OFFSET(b);
            int t = itemp[a];
            itemp[a] = itemp[b];
            itemp[b] += t;
        }
    }
    __syncthreads();
    if (base + ai < n)
        g_odata[base + ai] = itemp[ai + bankOffsetA];
    if (base + bi < n)
        g_odata[base + bi] = itemp[bi + bankOffsetB];
}

// inclusive scan of blockDim.x (a multiple of 32, at most 1024) elements per block
__global__ void shfl_scan(const int *data, int *out, int *partial_sums, int n)
{
    __shared__ int warpSums[32];
    int id = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x % warpSize;
    int warp_id = threadIdx.x / warpSize;

    int value = (id < n) ? data[id] : 0;
    for (int i = 1; i <= warpSize; i *= 2) {
        int n_val = __shfl_up_sync(0xffffffff, value, i, warpSize);
        if (lane >= i)
            value += n_val;
    }
    if (lane == warpSize - 1)
        warpSums[warp_id] = value;
    __syncthreads();

    if (warp_id == 0) {
        int nwarps = blockDim.x / warpSize;
        int ws = (lane < nwarps) ? warpSums[lane] : 0;
        for (int i = 1; i <= warpSize; i *= 2) {
            int n_val = __shfl_up_sync(0xffffffff, ws, i, warpSize);
            if (lane >= i)
                ws += n_val;
        }
        warpSums[lane] = ws;
    }
    __syncthreads();

    if (warp_id > 0)
        value += warpSums[warp_id - 1];
    if (id < n)
        out[id] = value;
    if (threadIdx.x == blockDim.x - 1)
        partial_sums[blockIdx.x] = value;
}
