// Technique of NVIDIA's "CUDA C/C++ Basics" tutorial (stencil_1d: RADIUS halo
// cells on each side of a BLOCK_SIZE tile in __shared__ memory, loaded by the
// first RADIUS threads; BLOCK_SIZE comes from -DBLOCK_SIZE=...), of "CUDA by
// Example" chapter 7 heat transfer (one Jacobi step of a 2D heat equation,
// clamped neighbours, 2D grid of 2D blocks; textures left out), and of the
// classic 7-point 3D Laplacian stencil with a 3D grid of 3D blocks (and a 3D
// index fill taking its extents as an int3 by value).

#ifndef BLOCK_SIZE
#define BLOCK_SIZE 128
#endif
#define RADIUS 3

// out[i] = sum of in[i-RADIUS .. i+RADIUS]; in is padded by RADIUS on both ends
__global__ void stencil_1d(const int *in, int *out, int n)
{
    __shared__ int temp[BLOCK_SIZE + 2 * RADIUS];
    int gindex = threadIdx.x + blockIdx.x * blockDim.x;
    int lindex = threadIdx.x + RADIUS;

    if (gindex < n + RADIUS) // (padded input has n + 2 * RADIUS elements)
        temp[lindex] = in[gindex + RADIUS];
    if (threadIdx.x < RADIUS) {
        temp[lindex - RADIUS] = in[gindex];
        temp[lindex + BLOCK_SIZE] = (gindex + BLOCK_SIZE + RADIUS < n + 2 * RADIUS)
                                        ? in[gindex + BLOCK_SIZE + RADIUS] : 0;
    }
    __syncthreads();

    if (gindex < n) {
        int result = 0;
        for (int offset = -RADIUS; offset <= RADIUS; offset++)
            result += temp[lindex + offset];
        out[gindex] = result;
    }
}

// one explicit step: out = in + k * (sum of 4 neighbours - 4 in), edges clamped
__global__ void heat_step(float *outSrc, const float *inSrc, int DIM, float SPEED)
{
    int x = threadIdx.x + blockIdx.x * blockDim.x;
    int y = threadIdx.y + blockIdx.y * blockDim.y;
    if (x >= DIM || y >= DIM)
        return;
    int offset = x + y * DIM;

    int left = offset - 1, right = offset + 1;
    if (x == 0) left++;
    if (x == DIM - 1) right--;
    int top = offset - DIM, bottom = offset + DIM;
    if (y == 0) top += DIM;
    if (y == DIM - 1) bottom -= DIM;

    outSrc[offset] = inSrc[offset] + SPEED * (inSrc[top] + inSrc[bottom] + inSrc[left] +
                                              inSrc[right] - inSrc[offset] * 4);
}

// 7-point Laplacian of the interior of an nx * ny * nz grid (x fastest); the
// boundary is copied through
__global__ void laplace3d(const float *u, float *out, int nx, int ny, int nz)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int j = blockIdx.y * blockDim.y + threadIdx.y;
    int k = blockIdx.z * blockDim.z + threadIdx.z;
    if (i >= nx || j >= ny || k >= nz)
        return;
    size_t idx = (size_t)k * nx * ny + (size_t)j * nx + i;
    if (i == 0 || j == 0 || k == 0 || i == nx - 1 || j == ny - 1 || k == nz - 1) {
        out[idx] = u[idx];
        return;
    }
    out[idx] = u[idx - 1] + u[idx + 1] + u[idx - nx] + u[idx + nx] + u[idx - nx * ny] +
               u[idx + nx * ny] - 6.0f * u[idx];
}

// out[z][y][x] = x + 100 * y + 10000 * z over dims (an int3 passed by value)
__global__ void index3d(float *out, int3 dims)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    int z = blockIdx.z * blockDim.z + threadIdx.z;
    if (x < dims.x && y < dims.y && z < dims.z)
        out[((size_t)z * dims.y + y) * dims.x + x] = (float)(x + 100 * y + 10000 * z);
}
