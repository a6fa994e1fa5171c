// Technique of the index-fill kernels of many tutorials (each thread writes its
// global index, e.g. to build a permutation or a sequence), named index as a user
// writes it (legal CUDA; <strings.h> has an index() on the host only).

__global__ void index(int *out, int n, int start)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = start + i;
}
