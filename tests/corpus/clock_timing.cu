// Technique of cuda-samples 0_Introduction/clock (timedReduction: thread 0 of
// each block records clock() at the start and end of a shared-memory min
// reduction; the times are written out but do not change the result), here
// with clock64().

__global__ void timedReduction(const float *input, float *output, long long *timer)
{
    extern __shared__ float shared[];
    const int tid = threadIdx.x;
    const int bid = blockIdx.x;

    if (tid == 0)
        timer[bid] = clock64();

    shared[tid] = input[tid];
    shared[tid + blockDim.x] = input[tid + blockDim.x];

    for (int d = blockDim.x; d > 0; d /= 2) {
        __syncthreads();
        if (tid < d) {
            float f0 = shared[tid];
            float f1 = shared[tid + d];
            if (f1 < f0)
                shared[tid] = f1;
        }
    }
    if (tid == 0)
        output[bid] = shared[0];
    __syncthreads();
    if (tid == 0)
        timer[bid + gridDim.x] = clock64();
}
