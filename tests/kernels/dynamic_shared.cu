// Dynamic shared memory (size given at launch): reverse each block's slice.
extern __shared__ float file_scope_smem[];

__global__ void reverse_block(float *d, int n)
{
    extern __shared__ __align__(16) float s[];
    int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    s[t] = i < n ? d[i] : 0.0f;
    __syncthreads();
    int r = blockDim.x - 1 - t;
    int j = blockIdx.x * blockDim.x + r;
    if (j < n)
        d[j] = s[t];
}

// file-scope declaration, typed views at two offsets
__global__ void split_views(const int *in, float *out_f, int *out_i)
{
    int *ints = (int *)&file_scope_smem[blockDim.x];
    file_scope_smem[threadIdx.x] = (float)in[threadIdx.x] * 0.5f;
    ints[threadIdx.x] = in[threadIdx.x] * 3;
    __syncthreads();
    int o = blockDim.x - 1 - threadIdx.x;
    out_f[threadIdx.x] = file_scope_smem[o];
    out_i[threadIdx.x] = ints[o];
}
