// Technique of the CUDA Programming Guide's "Dynamic Global Memory Allocation and
// Operations" examples: per-thread malloc/memset/free inside a kernel, and one
// allocation per block made by thread 0, shared through a __shared__ pointer,
// used by the whole block and freed by thread 0 after a barrier.
#include <stdio.h>

__global__ void mallocPerThread(int *out, int count)
{
    int tid = blockIdx.x * blockDim.x + threadIdx.x;
    int *ptr = (int *)malloc(count * sizeof(int));
    if (ptr == NULL) {
        out[tid] = -1;
        return;
    }
    memset(ptr, 0, count * sizeof(int));
    for (int i = 0; i < count; i++)
        ptr[i] = tid + i;
    int s = 0;
    for (int i = 0; i < count; i++)
        s += ptr[i];
    out[tid] = s;
    free(ptr);
}

__global__ void mallocPerBlock(int *out)
{
    __shared__ int *data;
    if (threadIdx.x == 0) {
        size_t size = blockDim.x * 64;
        data = (int *)malloc(size);
    }
    __syncthreads();
    if (data == NULL) {
        out[blockIdx.x * blockDim.x + threadIdx.x] = -1;
        return;
    }
    int *ptr = data;
    for (int i = 0; i < 16; ++i)
        ptr[i * blockDim.x + threadIdx.x] = threadIdx.x + i;
    __syncthreads();
    // read a neighbour's writes: the block shares the allocation
    int nb = (threadIdx.x + 1) % blockDim.x;
    int s = 0;
    for (int i = 0; i < 16; ++i)
        s += ptr[i * blockDim.x + nb];
    out[blockIdx.x * blockDim.x + threadIdx.x] = s;
    __syncthreads();
    if (threadIdx.x == 0)
        free(data);
}
