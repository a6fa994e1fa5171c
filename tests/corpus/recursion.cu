// Technique of the CUDA Programming Guide's note that device functions may recurse
// (sm_20 and newer, stack in local memory): a recursive factorial and Fibonacci
// per thread, and a recursive quicksort of each thread's own small segment
// (Lomuto partition, recursing into both halves), in the spirit of the
// sequential fallback of cuda-samples' cdpSimpleQuicksort (selection sort at
// the bottom) but without dynamic parallelism.

__device__ unsigned long long factorial(int n)
{
    return n <= 1 ? 1ull : (unsigned long long)n * factorial(n - 1);
}

__device__ int fib(int n)
{
    if (n < 2)
        return n;
    return fib(n - 1) + fib(n - 2);
}

__global__ void recursive_math(const int *n, unsigned long long *fact, int *fibs, int count)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < count) {
        fact[i] = factorial(n[i]);
        fibs[i] = fib(n[i]);
    }
}

__device__ int partition(int *a, int lo, int hi)
{
    int pivot = a[hi];
    int i = lo;
    for (int j = lo; j < hi; j++) {
        if (a[j] < pivot) {
            int t = a[i]; a[i] = a[j]; a[j] = t;
            i++;
        }
    }
    int t = a[i]; a[i] = a[hi]; a[hi] = t;
    return i;
}

__device__ void quicksort(int *a, int lo, int hi, int depth)
{
    if (lo >= hi)
        return;
    if (depth > 24) { // too deep: selection sort what is left
        for (int x = lo; x < hi; x++)
            for (int y = x + 1; y <= hi; y++)
                if (a[y] < a[x]) { int t = a[x]; a[x] = a[y]; a[y] = t; }
        return;
    }
    int p = partition(a, lo, hi);
    quicksort(a, lo, p - 1, depth + 1);
    quicksort(a, p + 1, hi, depth + 1);
}

// each thread sorts its own segment of `seg` ints in place
__global__ void segment_quicksort(int *data, int seg, int nseg)
{
    int s = blockIdx.x * blockDim.x + threadIdx.x;
    if (s < nseg)
        quicksort(data + s * seg, 0, seg - 1, 0);
}
