// Planted defects for check mode (tests/test_sim_check.py) and for
// compute-sanitizer on a GPU (tests/sancheck/gpu_compare.py): one kernel per
// defect, each next to the fixed kernel it was made from, so that the
// checks must report the first and stay silent on the second. The line of
// each defect carries the marker "DEFECT" and the check that must name it.

// ---- racecheck: a shared-memory reduction with a __syncthreads missing --------
// (the reduction of the CUDA samples' reduction kernels, reduce0)
__global__ void reduce_missing_sync(const float *in, float *out)
{
    __shared__ float s[256];
    unsigned int t = threadIdx.x;
    s[t] = in[blockIdx.x * blockDim.x + t];
    __syncthreads();
    for (unsigned int stride = blockDim.x / 2; stride > 0; stride >>= 1) {
        if (t < stride)
            s[t] += s[t + stride];   // DEFECT racecheck: no barrier after the add
    }
    if (t == 0)
        out[blockIdx.x] = s[0];
}

__global__ void reduce_ok(const float *in, float *out)
{
    __shared__ float s[256];
    unsigned int t = threadIdx.x;
    s[t] = in[blockIdx.x * blockDim.x + t];
    __syncthreads();
    for (unsigned int stride = blockDim.x / 2; stride > 0; stride >>= 1) {
        if (t < stride)
            s[t] += s[t + stride];
        __syncthreads();
    }
    if (t == 0)
        out[blockIdx.x] = s[0];
}

// ---- racecheck: the classic warp-synchronous tail without __syncwarp --------
// (Harris, "Optimizing Parallel Reduction in CUDA", reduce5's warpReduce)
__device__ void warp_reduce_volatile(volatile float *s, unsigned int t)
{
    s[t] += s[t + 32];
    s[t] += s[t + 16];               // DEFECT racecheck: lanes read what others write, no __syncwarp
    s[t] += s[t + 8];
    s[t] += s[t + 4];
    s[t] += s[t + 2];
    s[t] += s[t + 1];
}

__global__ void reduce_warp_volatile(const float *in, float *out)
{
    __shared__ float s[64];
    unsigned int t = threadIdx.x;
    s[t] = in[blockIdx.x * blockDim.x + t];
    __syncthreads();
    if (t < 32)
        warp_reduce_volatile(s, t);
    if (t == 0)
        out[blockIdx.x] = s[0];
}

__device__ void warp_reduce_syncwarp(float *s, unsigned int t)
{
    float v = s[t];
    for (int off = 32; off > 0; off >>= 1) {
        v += s[t + off];
        __syncwarp();
        s[t] = v;
        __syncwarp();
    }
}

__global__ void reduce_warp_ok(const float *in, float *out)
{
    __shared__ float s[96];
    unsigned int t = threadIdx.x;
    s[t] = in[blockIdx.x * blockDim.x + t];
    if (t < 32)
        s[t + 64] = 0.0f;
    __syncthreads();
    if (t < 32)
        warp_reduce_syncwarp(s, t);
    if (t == 0)
        out[blockIdx.x] = s[0];
}

// ---- initcheck: a read of device memory nothing wrote ------------------------
__global__ void read_uninitialized(const float *in, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = in[i] * 2.0f;       // DEFECT initcheck: `in` was allocated, never written
}

// ---- memcheck: off by one at both ends ---------------------------------------
__global__ void stencil_off_by_one(const float *in, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = in[i - 1] + in[i + 1];  // DEFECT memcheck: in[-1] at i = 0, in[n] at i = n-1
}

__global__ void stencil_ok(const float *in, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i > 0 && i < n - 1)
        out[i] = in[i - 1] + in[i + 1];
}

// ---- memcheck: a far write, 4 MiB past a 256-byte allocation -----------------
__global__ void far_write(float *out, long long offset)
{
    if (threadIdx.x == 0)
        out[offset / (long long)sizeof(float)] = 1.0f;  // DEFECT memcheck: far out of bounds
}

// ---- memcheck: a misaligned float4 load --------------------------------------
__global__ void misaligned_float4(const float *in, float *out)
{
    const float4 *v = reinterpret_cast<const float4 *>(in + 1);
    float4 a = v[threadIdx.x];       // DEFECT memcheck: 4 bytes past a 16-byte boundary
    out[threadIdx.x] = a.x + a.y + a.z + a.w;
}

// ---- memcheck: use after free ------------------------------------------------
__global__ void use_after_free(float *stale)
{
    stale[threadIdx.x] = 1.0f;       // DEFECT memcheck: its allocation was freed
}

// ---- memcheck: a 64 KiB local array in a thread ------------------------------
__global__ void big_local_array(float *out, int n)
{
    float local[16384];              // 64 KiB of local memory per thread
    for (int i = 0; i < n; i++)
        local[i] = (float)(i * threadIdx.x);  // DEFECT memcheck: beyond the thread's stack
    __syncthreads();
    out[threadIdx.x] = local[n - 1 - threadIdx.x];
}

// ---- synccheck: a barrier in a branch not every thread takes -----------------
__global__ void divergent_barrier(float *out)
{
    if (threadIdx.x < 16) {
        out[threadIdx.x] = 1.0f;
        __syncthreads();             // DEFECT synccheck: threads 16.. never get here
    }
}

// ---- schedule: a missing barrier that only a schedule can show ---------------
__global__ void shift_missing_sync(const int *in, int *out)
{
    __shared__ int s[128];
    unsigned int t = threadIdx.x;
    s[t] = in[t];
    out[t] = s[(t + 1) % blockDim.x];  // DEFECT racecheck: reads a neighbour's write, no barrier
}

// ---- profile: a strided shared-memory access that conflicts 32 ways -----------
__global__ void bank_conflict_32(float *out)
{
    __shared__ float s[32 * 32];
    unsigned int t = threadIdx.x;
    for (int i = 0; i < 32; i++)
        s[i * 32 + t] = (float)i;
    __syncthreads();
    out[t] = s[t * 32];              // DEFECT profile: lane t reads bank 0 (stride 32 words)
}
