// Technique of cuda-samples 2_Concepts_and_Techniques/reduction, kernels reduce5
// and reduce6: the block size is a template parameter so the tree is unrolled at
// compile time; reduce6 also takes many elements per thread over a grid-stride
// loop and a nIsPow2 flag that drops the bounds check. Dynamic shared memory is
// reached through a SharedMemory-style wrapper struct (one extern array of int
// reinterpreted as T, so several instantiations can share it). Compiled with
// no_extern_c=True and launched through name expressions.

template <class T> struct DynamicShared {
    __device__ inline operator T *()
    {
        extern __shared__ int dyn_smem_words[];
        return reinterpret_cast<T *>(dyn_smem_words);
    }
    __device__ inline operator const T *() const
    {
        extern __shared__ int dyn_smem_words[];
        return reinterpret_cast<const T *>(dyn_smem_words);
    }
};

template <class T, unsigned int blockSize>
__device__ __forceinline__ void warpReduceUnrolled(volatile T *sdata, unsigned int tid)
{
    T v = sdata[tid];
    if (blockSize >= 64) { v += sdata[tid + 32]; __syncwarp(); sdata[tid] = v; __syncwarp(); }
    if (blockSize >= 32) { v += sdata[tid + 16]; __syncwarp(); sdata[tid] = v; __syncwarp(); }
    if (blockSize >= 16) { v += sdata[tid + 8];  __syncwarp(); sdata[tid] = v; __syncwarp(); }
    if (blockSize >= 8)  { v += sdata[tid + 4];  __syncwarp(); sdata[tid] = v; __syncwarp(); }
    if (blockSize >= 4)  { v += sdata[tid + 2];  __syncwarp(); sdata[tid] = v; __syncwarp(); }
    if (blockSize >= 2)  { v += sdata[tid + 1];  __syncwarp(); sdata[tid] = v; }
}

template <class T, unsigned int blockSize>
__device__ __forceinline__ void blockTree(T *sdata, T mySum, unsigned int tid)
{
    if (blockSize >= 512) {
        if (tid < 256)
            sdata[tid] = mySum = mySum + sdata[tid + 256];
        __syncthreads();
    }
    if (blockSize >= 256) {
        if (tid < 128)
            sdata[tid] = mySum = mySum + sdata[tid + 128];
        __syncthreads();
    }
    if (blockSize >= 128) {
        if (tid < 64)
            sdata[tid] = mySum = mySum + sdata[tid + 64];
        __syncthreads();
    }
    if (tid < 32)
        warpReduceUnrolled<T, blockSize>(sdata, tid);
}

template <class T, unsigned int blockSize>
__global__ void reduce5(const T *g_idata, T *g_odata, unsigned int n)
{
    T *sdata = DynamicShared<T>();

    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * (blockSize * 2) + threadIdx.x;

    T mySum = (i < n) ? g_idata[i] : T(0);
    if (i + blockSize < n)
        mySum += g_idata[i + blockSize];
    sdata[tid] = mySum;
    __syncthreads();

    blockTree<T, blockSize>(sdata, mySum, tid);
    if (tid == 0)
        g_odata[blockIdx.x] = sdata[0];
}

template <class T, unsigned int blockSize, bool nIsPow2>
__global__ void reduce6(const T *g_idata, T *g_odata, unsigned int n)
{
    T *sdata = DynamicShared<T>();

    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * blockSize * 2 + threadIdx.x;
    unsigned int gridSize = blockSize * 2 * gridDim.x;

    T mySum = 0;
    while (i < n) {
        mySum += g_idata[i];
        if (nIsPow2 || i + blockSize < n)
            mySum += g_idata[i + blockSize];
        i += gridSize;
    }
    sdata[tid] = mySum;
    __syncthreads();

    blockTree<T, blockSize>(sdata, mySum, tid);
    if (tid == 0)
        g_odata[blockIdx.x] = sdata[0];
}
