// Technique of the NVIDIA blog "Using Shared Memory in CUDA C/C++" (staticReverse
// with a fixed-size __shared__ array, dynamicReverse with extern __shared__ and
// the size given at launch) and of the CUDA Programming Guide's note on placing
// several arrays in one dynamic allocation (offsets into one extern buffer,
// with the wider type first for alignment).

__global__ void staticReverse(int *d, int n)
{
    __shared__ int s[64];
    int t = threadIdx.x;
    int tr = n - t - 1;
    s[t] = d[t];
    __syncthreads();
    d[t] = s[tr];
}

__global__ void dynamicReverse(int *d, int n)
{
    extern __shared__ int s[];
    int t = threadIdx.x;
    int tr = n - t - 1;
    s[t] = d[t];
    __syncthreads();
    d[t] = s[tr];
}

// dynamic shared: nd doubles, then nf floats, then ni chars (one thread each)
__global__ void threeArrays(const double *dd, const float *ff, const char *cc, double *out,
                            int nd, int nf, int ni)
{
    extern __shared__ double array[];
    double *d = array;
    float *f = (float *)&d[nd];
    char *c = (char *)&f[nf];
    int t = threadIdx.x;
    if (t < nd) d[t] = dd[t];
    if (t < nf) f[t] = ff[t];
    if (t < ni) c[t] = cc[t];
    __syncthreads();
    // each thread reads another thread's slots
    out[t] = d[(t + 1) % nd] + f[(t + 2) % nf] + c[(t + 3) % ni];
}
