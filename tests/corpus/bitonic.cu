// Technique of cuda-samples 2_Concepts_and_Techniques/sortingNetworks
// (bitonicSortShared: each block sorts 2 * blockDim.x keys in __shared__ memory,
// each thread owning a pair, with a Comparator swapping key/value pairs and
// ddd flipping the direction of the merge stages) and of the widely copied
// global-memory bitonic_sort_step (one launch per (j, k) stage, partner found
// with i ^ j) driven from the host.

__device__ inline void Comparator(unsigned int &keyA, unsigned int &valA, unsigned int &keyB,
                                  unsigned int &valB, unsigned int dir)
{
    unsigned int t;
    if ((keyA > keyB) == dir) {
        t = keyA; keyA = keyB; keyB = t;
        t = valA; valA = valB; valB = t;
    }
}

// sorts each segment of arrayLength = 2 * blockDim.x keys (a power of two);
// dir = 1 ascending
__global__ void bitonicSortShared(unsigned int *d_DstKey, unsigned int *d_DstVal,
                                  const unsigned int *d_SrcKey, const unsigned int *d_SrcVal,
                                  unsigned int arrayLength, unsigned int dir)
{
    extern __shared__ unsigned int s_buf[];
    unsigned int *s_key = s_buf;
    unsigned int *s_val = s_buf + arrayLength;

    d_SrcKey += blockIdx.x * arrayLength + threadIdx.x;
    d_SrcVal += blockIdx.x * arrayLength + threadIdx.x;
    d_DstKey += blockIdx.x * arrayLength + threadIdx.x;
    d_DstVal += blockIdx.x * arrayLength + threadIdx.x;
    s_key[threadIdx.x + 0] = d_SrcKey[0];
    s_val[threadIdx.x + 0] = d_SrcVal[0];
    s_key[threadIdx.x + (arrayLength / 2)] = d_SrcKey[arrayLength / 2];
    s_val[threadIdx.x + (arrayLength / 2)] = d_SrcVal[arrayLength / 2];

    for (unsigned int size = 2; size < arrayLength; size <<= 1) {
        unsigned int ddd = dir ^ ((threadIdx.x & (size / 2)) != 0);
        for (unsigned int stride = size / 2; stride > 0; stride >>= 1) {
            __syncthreads();
            unsigned int pos = 2 * threadIdx.x - (threadIdx.x & (stride - 1));
            Comparator(s_key[pos + 0], s_val[pos + 0], s_key[pos + stride], s_val[pos + stride],
                       ddd);
        }
    }
    for (unsigned int stride = arrayLength / 2; stride > 0; stride >>= 1) { // final merge
        __syncthreads();
        unsigned int pos = 2 * threadIdx.x - (threadIdx.x & (stride - 1));
        Comparator(s_key[pos + 0], s_val[pos + 0], s_key[pos + stride], s_val[pos + stride],
                   dir);
    }
    __syncthreads();
    d_DstKey[0] = s_key[threadIdx.x + 0];
    d_DstVal[0] = s_val[threadIdx.x + 0];
    d_DstKey[arrayLength / 2] = s_key[threadIdx.x + (arrayLength / 2)];
    d_DstVal[arrayLength / 2] = s_val[threadIdx.x + (arrayLength / 2)];
}

__global__ void bitonic_sort_step(float *dev_values, int j, int k)
{
    unsigned int i = threadIdx.x + blockDim.x * blockIdx.x;
    unsigned int ixj = i ^ j;
    if (ixj > i) {
        if ((i & k) == 0) { // ascending half
            if (dev_values[i] > dev_values[ixj]) {
                float temp = dev_values[i];
                dev_values[i] = dev_values[ixj];
                dev_values[ixj] = temp;
            }
        } else if (dev_values[i] < dev_values[ixj]) {
            float temp = dev_values[i];
            dev_values[i] = dev_values[ixj];
            dev_values[ixj] = temp;
        }
    }
}
