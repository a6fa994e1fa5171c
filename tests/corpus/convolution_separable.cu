// Technique of cuda-samples 2_Concepts_and_Techniques/convolutionSeparable
// (convolutionRowsKernel / convolutionColumnsKernel): the filter taps live in
// __constant__ memory (c_Kernel, set from the host through the module's global
// and a host-to-device copy), each block stages its tile plus an apron of
// KERNEL_RADIUS pixels in __shared__ memory, zero outside the image. Simplified
// to one result per thread; image sides are multiples of the block size.

#define KERNEL_RADIUS 4
#define KERNEL_LENGTH (2 * KERNEL_RADIUS + 1)
#define ROWS_BLOCKDIM_X 32
#define ROWS_BLOCKDIM_Y 4
#define COLUMNS_BLOCKDIM_X 16
#define COLUMNS_BLOCKDIM_Y 16

__constant__ float c_Kernel[KERNEL_LENGTH];

__global__ void convolutionRowsKernel(float *d_Dst, const float *d_Src, int imageW, int imageH)
{
    __shared__ float s_Data[ROWS_BLOCKDIM_Y][ROWS_BLOCKDIM_X + 2 * KERNEL_RADIUS];

    int x = blockIdx.x * ROWS_BLOCKDIM_X + threadIdx.x;
    int y = blockIdx.y * ROWS_BLOCKDIM_Y + threadIdx.y;
    const float *row = d_Src + y * imageW;

    s_Data[threadIdx.y][threadIdx.x + KERNEL_RADIUS] = row[x];
    if (threadIdx.x < KERNEL_RADIUS) { // left and right aprons
        int xl = x - KERNEL_RADIUS, xr = x + ROWS_BLOCKDIM_X;
        s_Data[threadIdx.y][threadIdx.x] = (xl >= 0) ? row[xl] : 0.0f;
        s_Data[threadIdx.y][threadIdx.x + ROWS_BLOCKDIM_X + KERNEL_RADIUS] =
            (xr < imageW) ? row[xr] : 0.0f;
    }
    __syncthreads();

    float sum = 0;
#pragma unroll
    for (int j = -KERNEL_RADIUS; j <= KERNEL_RADIUS; j++)
        sum += c_Kernel[KERNEL_RADIUS - j] * s_Data[threadIdx.y][threadIdx.x + KERNEL_RADIUS + j];
    d_Dst[y * imageW + x] = sum;
}

__global__ void convolutionColumnsKernel(float *d_Dst, const float *d_Src, int imageW, int imageH)
{
    __shared__ float s_Data[COLUMNS_BLOCKDIM_Y + 2 * KERNEL_RADIUS][COLUMNS_BLOCKDIM_X];

    int x = blockIdx.x * COLUMNS_BLOCKDIM_X + threadIdx.x;
    int y = blockIdx.y * COLUMNS_BLOCKDIM_Y + threadIdx.y;

    s_Data[threadIdx.y + KERNEL_RADIUS][threadIdx.x] = d_Src[y * imageW + x];
    if (threadIdx.y < KERNEL_RADIUS) { // top and bottom aprons
        int yt = y - KERNEL_RADIUS, yb = y + COLUMNS_BLOCKDIM_Y;
        s_Data[threadIdx.y][threadIdx.x] = (yt >= 0) ? d_Src[yt * imageW + x] : 0.0f;
        s_Data[threadIdx.y + COLUMNS_BLOCKDIM_Y + KERNEL_RADIUS][threadIdx.x] =
            (yb < imageH) ? d_Src[yb * imageW + x] : 0.0f;
    }
    __syncthreads();

    float sum = 0;
#pragma unroll
    for (int j = -KERNEL_RADIUS; j <= KERNEL_RADIUS; j++)
        sum += c_Kernel[KERNEL_RADIUS - j] * s_Data[threadIdx.y + KERNEL_RADIUS + j][threadIdx.x];
    d_Dst[y * imageW + x] = sum;
}
