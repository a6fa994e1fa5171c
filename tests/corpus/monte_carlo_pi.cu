// Technique of the Monte Carlo pi estimators in CUDA tutorials and the cuda-samples
// MonteCarlo family, with a hand-written generator instead of cuRAND: each thread
// runs its own linear congruential generator (Numerical Recipes' constants) or
// Marsaglia xorshift32, seeded from its global index, throws darts at the unit
// quarter circle on a 4096 x 4096 integer lattice (so the count is exact on any
// device), reduces its hits in shared memory, and one thread per block adds the
// block's total with a 64-bit atomicAdd.

__device__ __forceinline__ unsigned int lcg_next(unsigned int &s)
{
    s = 1664525u * s + 1013904223u;
    return s;
}

__device__ __forceinline__ unsigned int xorshift32(unsigned int &s)
{
    s ^= s << 13;
    s ^= s >> 17;
    s ^= s << 5;
    return s;
}

__device__ void add_block_hits(unsigned int hits, unsigned long long *total)
{
    __shared__ unsigned int cache[256];
    cache[threadIdx.x] = hits;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s)
            cache[threadIdx.x] += cache[threadIdx.x + s];
        __syncthreads();
    }
    if (threadIdx.x == 0)
        atomicAdd(total, (unsigned long long)cache[0]);
}

__global__ void pi_lcg(unsigned long long *total, int trials, unsigned int seed)
{
    unsigned int tid = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned int s = seed ^ (tid * 2654435761u);
    unsigned int hits = 0;
    for (int t = 0; t < trials; t++) {
        unsigned int x = lcg_next(s) >> 20; // the high bits are the good ones
        unsigned int y = lcg_next(s) >> 20;
        hits += (x * x + y * y < 4096u * 4096u);
    }
    add_block_hits(hits, total);
}

__global__ void pi_xorshift(unsigned long long *total, int trials, unsigned int seed)
{
    unsigned int tid = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned int s = seed + tid * 747796405u + 1u; // never zero for these seeds
    unsigned int hits = 0;
    for (int t = 0; t < trials; t++) {
        unsigned int x = xorshift32(s) >> 20;
        unsigned int y = xorshift32(s) >> 20;
        hits += (x * x + y * y < 4096u * 4096u);
    }
    add_block_hits(hits, total);
}
