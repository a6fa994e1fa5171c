// Technique of the CUDA Programming Guide's atomic functions section: atomicAdd on
// double built from atomicCAS on the 64-bit pattern (__double_as_longlong /
// __longlong_as_double, retried until no other thread intervened; the Guide's
// version is guarded by __CUDA_ARCH__ < 600, kept here as written and also
// reached under its own name), and atomicInc (wrapping ring index), atomicExch,
// atomicMin, atomicMax and a CAS loop (an atomic "max of absolute values") on
// ints, as in the ring buffers and extrema of cuda-samples; and a __device__
// counter set and read by the host as with cudaMemcpyToSymbol /
// cudaMemcpyFromSymbol (here: the module's global and memcpy_htod / memcpy_dtoh).

#if __CUDA_ARCH__ < 600
__device__ double atomicAdd(double *address, double val)
{
    unsigned long long int *address_as_ull = (unsigned long long int *)address;
    unsigned long long int old = *address_as_ull, assumed;
    do {
        assumed = old;
        old = atomicCAS(address_as_ull, assumed,
                        __double_as_longlong(val + __longlong_as_double(assumed)));
    } while (assumed != old);
    return __longlong_as_double(old);
}
#endif

__device__ double atomicAddDouble(double *address, double val)
{
    unsigned long long int *address_as_ull = (unsigned long long int *)address;
    unsigned long long int old = *address_as_ull, assumed;
    do {
        assumed = old;
        old = atomicCAS(address_as_ull, assumed,
                        __double_as_longlong(val + __longlong_as_double(assumed)));
        // integer comparison: a NaN in memory cannot loop forever
    } while (assumed != old);
    return __longlong_as_double(old);
}

// sums[0] += x over all (CAS), sums[1] += x over all (native double atomicAdd)
__global__ void sum_double_cas(const double *x, double *sums, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        atomicAddDouble(&sums[0], x[i]);
        atomicAdd(&sums[1], x[i]);
    }
}

__device__ int atomicMaxAbs(int *address, int val)
{
    int a = val < 0 ? -val : val;
    int old = *address, assumed;
    do {
        assumed = old;
        if (assumed >= a)
            break;
        old = atomicCAS(address, assumed, a);
    } while (assumed != old);
    return old;
}

// stats: [0] min, [1] max, [2] max |v|, [3] last value exchanged in (any), [4] count
// of exchanges that saw a previous value; ring: every thread stores its index in
// slot atomicInc(&head, ringSize - 1)
__global__ void int_atomics(const int *v, int n, int *stats, unsigned int *head,
                            int *ring, unsigned int ringSize)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    atomicMin(&stats[0], v[i]);
    atomicMax(&stats[1], v[i]);
    atomicMaxAbs(&stats[2], v[i]);
    int prev = atomicExch(&stats[3], v[i]);
    if (prev != 0x7fffffff)
        atomicAdd(&stats[4], 1);
    unsigned int slot = atomicInc(head, ringSize - 1);
    atomicAdd(&ring[slot], 1);
}

__device__ unsigned int d_matches;

__global__ void count_matches(const int *v, int n, int target)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && v[i] == target)
        atomicAdd(&d_matches, 1u);
}
