// Inclusive prefix sum of each block's slice (Hillis-Steele, double-buffered),
// plus __syncthreads_count/_and/_or over the slice.
__global__ void scan_block(const int *in, int *out, int *counts, int n)
{
    extern __shared__ int buf[]; // 2 * blockDim.x ints
    int tid = threadIdx.x;
    int i = blockIdx.x * blockDim.x + tid;
    int pout = 0, pin = 1;
    buf[pout * blockDim.x + tid] = i < n ? in[i] : 0;
    __syncthreads();
    for (int offset = 1; offset < blockDim.x; offset <<= 1) {
        pout = 1 - pout;
        pin = 1 - pout;
        int v = buf[pin * blockDim.x + tid];
        if (tid >= offset)
            v += buf[pin * blockDim.x + tid - offset];
        buf[pout * blockDim.x + tid] = v;
        __syncthreads();
    }
    if (i < n)
        out[i] = buf[pout * blockDim.x + tid];
    int v = i < n ? in[i] : 0;
    int odd = __syncthreads_count(v & 1);
    int all_pos = __syncthreads_and(v > 0);
    int any_big = __syncthreads_or(v > 90);
    if (tid == 0) {
        counts[3 * blockIdx.x] = odd;
        counts[3 * blockIdx.x + 1] = all_pos;
        counts[3 * blockIdx.x + 2] = any_big;
    }
}
