// Tree reduction in shared memory: one partial sum per block (block = 256).
#define BLOCK 256

__global__ void reduce_sum(const float *in, float *partial, int n)
{
    __shared__ float s[BLOCK];
    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * (blockDim.x * 2) + threadIdx.x;
    float v = 0.0f;
    if (i < n) v = in[i];
    if (i + blockDim.x < n) v += in[i + blockDim.x];
    s[tid] = v;
    __syncthreads();
    for (unsigned int k = blockDim.x / 2; k > 0; k >>= 1) {
        if (tid < k) s[tid] += s[tid + k];
        __syncthreads();
    }
    if (tid == 0) partial[blockIdx.x] = s[0];
}
