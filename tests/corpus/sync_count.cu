// Technique of the CUDA Programming Guide's synchronization functions
// (__syncthreads_count, __syncthreads_and, __syncthreads_or: a barrier that also
// evaluates a predicate over the whole block), used as in block-level early
// exit and counting kernels.

// out[3 * b + k]: count of in > t, all(in > t), any(in > t) over block b
__global__ void block_predicates(const float *in, float t, int *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int p = (i < n) && (in[i] > t);
    int c = __syncthreads_count(p);
    int all = __syncthreads_and(p);
    int any = __syncthreads_or(p);
    if (threadIdx.x == 0) {
        out[3 * blockIdx.x + 0] = c;
        out[3 * blockIdx.x + 1] = all != 0;
        out[3 * blockIdx.x + 2] = any != 0;
    }
}
