// Technique of hand-written random number kernels (a per-thread hash of the
// index: Wang's integer hash, as in the cuda-samples particle and smoke demos),
// named random as a user writes it (legal CUDA; random() is a host C library
// function only).

__device__ unsigned int wang_hash(unsigned int seed)
{
    seed = (seed ^ 61u) ^ (seed >> 16);
    seed *= 9u;
    seed = seed ^ (seed >> 4);
    seed *= 0x27d4eb2du;
    seed = seed ^ (seed >> 15);
    return seed;
}

__global__ void random(unsigned int *out, int n, unsigned int seed)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = wang_hash(seed + (unsigned int)i);
}
