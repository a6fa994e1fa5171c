// Technique of cuda-samples 2_Concepts_and_Techniques/threadFenceReduction
// (reduceSinglePass): each block writes its partial sum, __threadfence() makes it
// visible device-wide, and the block that takes the last ticket from an
// atomicInc counter (seen by the block through a __shared__ bool) sums the
// partials and resets the counter for the next launch.

__device__ unsigned int retirementCount = 0;

__device__ float blockSum(float mySum, float *sdata)
{
    unsigned int tid = threadIdx.x;
    sdata[tid] = mySum;
    __syncthreads();
    for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s)
            sdata[tid] = mySum = mySum + sdata[tid + s];
        __syncthreads();
    }
    return sdata[0];
}

__global__ void reduceSinglePass(const float *g_idata, float *g_odata, unsigned int n)
{
    extern __shared__ float smem[];
    __shared__ bool amLast;

    float mySum = 0.0f;
    for (unsigned int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += blockDim.x * gridDim.x)
        mySum += g_idata[i];
    float blockTotal = blockSum(mySum, smem);

    if (threadIdx.x == 0) {
        g_odata[blockIdx.x] = blockTotal;
        // the partial sum must be visible to the last block before it counts
        __threadfence();
        unsigned int ticket = atomicInc(&retirementCount, gridDim.x);
        amLast = (ticket == gridDim.x - 1);
    }
    __syncthreads();

    if (amLast) {
        float total = 0.0f;
        for (unsigned int i = threadIdx.x; i < gridDim.x; i += blockDim.x)
            total += g_odata[i];
        __syncthreads();
        total = blockSum(total, smem);
        if (threadIdx.x == 0) {
            g_odata[gridDim.x] = total;
            retirementCount = 0;
        }
    }
}
