// Technique of the NVIDIA blog "CUDA Pro Tip: Increase Performance with Vectorized
// Memory Access" (device_copy_vector4_kernel: reinterpret_cast<int4 *> loads and
// stores, the remainder handled by one thread), of the float4 / make_float4
// arithmetic used across cuda-samples (particles, nbody), of float2 as a
// complex number (cuComplex-style multiply, as in the FFT-convolution samples),
// and of uchar4 pixels (rgba_to_greyscale, the colour-to-grey conversion of
// Udacity CS344 problem set 1 with the NTSC weights).

__global__ void device_copy_vector4_kernel(int *d_out, const int *d_in, int N)
{
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    for (int i = idx; i < N / 4; i += blockDim.x * gridDim.x)
        reinterpret_cast<int4 *>(d_out)[i] = reinterpret_cast<const int4 *>(d_in)[i];
    // the last N % 4 elements, by one thread
    int remainder = N % 4;
    if (idx == N / 4 && remainder != 0) {
        while (remainder) {
            int i = N - remainder--;
            d_out[i] = d_in[i];
        }
    }
}

__device__ __forceinline__ float4 operator*(float4 a, float s)
{
    return make_float4(a.x * s, a.y * s, a.z * s, a.w * s);
}

__device__ __forceinline__ float4 operator+(float4 a, float4 b)
{
    return make_float4(a.x + b.x, a.y + b.y, a.z + b.z, a.w + b.w);
}

// pos += vel * dt, with w kept from pos
__global__ void integrate_float4(float4 *pos, const float4 *vel, float dt, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float4 p = pos[i];
        float4 v = vel[i];
        float w = p.w;
        p = p + v * dt;
        p.w = w;
        pos[i] = p;
    }
}

__device__ __forceinline__ float2 cmul(float2 a, float2 b)
{
    return make_float2(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x);
}

// c[i] = a[i] * b[i] * scale, complex
__global__ void complex_pointwise_mul(const float2 *a, const float2 *b, float2 *c, float scale,
                                      int n)
{
    const int numThreads = blockDim.x * gridDim.x;
    const int threadID = blockIdx.x * blockDim.x + threadIdx.x;
    for (int i = threadID; i < n; i += numThreads) {
        float2 p = cmul(a[i], b[i]);
        c[i] = make_float2(p.x * scale, p.y * scale);
    }
}

__global__ void rgba_to_greyscale(const uchar4 *const rgbaImage, unsigned char *const greyImage,
                                  int numRows, int numCols)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (col < numCols && row < numRows) {
        uchar4 rgba = rgbaImage[row * numCols + col];
        float channelSum = .299f * rgba.x + .587f * rgba.y + .114f * rgba.z;
        greyImage[row * numCols + col] = (unsigned char)channelSum;
    }
}
