// Technique of Kirk & Hwu, "Programming Massively Parallel Processors"
// (MatrixMulKernel: one thread per output element, row and column from 2D block
// and thread indices; MatrixMulTiled: TILE_WIDTH x TILE_WIDTH tiles of M and N
// staged in __shared__ memory, phases separated by __syncthreads, boundary
// checks for sizes that are not multiples of the tile), and of cuda-samples
// 0_Introduction/matrixMul (matrixMulCUDA templated on BLOCK_SIZE, reached here
// through a name expression). Compiled with no_extern_c=True; the plain kernels
// are extern "C".

#define TILE_WIDTH 16

extern "C" __global__ void MatrixMulKernel(const float *M, const float *N, float *P, int Width)
{
    int Row = blockIdx.y * blockDim.y + threadIdx.y;
    int Col = blockIdx.x * blockDim.x + threadIdx.x;
    if (Row < Width && Col < Width) {
        float Pvalue = 0;
        for (int k = 0; k < Width; ++k)
            Pvalue += M[Row * Width + k] * N[k * Width + Col];
        P[Row * Width + Col] = Pvalue;
    }
}

// P (m x n) = M (m x k) * N (k x n)
extern "C" __global__ void MatrixMulTiled(const float *M, const float *N, float *P, int m, int n,
                                          int k)
{
    __shared__ float Mds[TILE_WIDTH][TILE_WIDTH];
    __shared__ float Nds[TILE_WIDTH][TILE_WIDTH];

    int bx = blockIdx.x, by = blockIdx.y;
    int tx = threadIdx.x, ty = threadIdx.y;
    int Row = by * TILE_WIDTH + ty;
    int Col = bx * TILE_WIDTH + tx;

    float Pvalue = 0;
    for (int ph = 0; ph < (k + TILE_WIDTH - 1) / TILE_WIDTH; ++ph) {
        Mds[ty][tx] = (Row < m && ph * TILE_WIDTH + tx < k) ? M[Row * k + ph * TILE_WIDTH + tx] : 0.0f;
        Nds[ty][tx] = (ph * TILE_WIDTH + ty < k && Col < n) ? N[(ph * TILE_WIDTH + ty) * n + Col] : 0.0f;
        __syncthreads();
        for (int kk = 0; kk < TILE_WIDTH; ++kk)
            Pvalue += Mds[ty][kk] * Nds[kk][tx];
        __syncthreads();
    }
    if (Row < m && Col < n)
        P[Row * n + Col] = Pvalue;
}

// C = A * B with wA, wB multiples of BLOCK_SIZE (as the sample requires)
template <int BLOCK_SIZE>
__global__ void matrixMulCUDA(float *C, const float *A, const float *B, int wA, int wB)
{
    int bx = blockIdx.x, by = blockIdx.y;
    int tx = threadIdx.x, ty = threadIdx.y;

    int aBegin = wA * BLOCK_SIZE * by;
    int aEnd = aBegin + wA - 1;
    int aStep = BLOCK_SIZE;
    int bBegin = BLOCK_SIZE * bx;
    int bStep = BLOCK_SIZE * wB;

    float Csub = 0;
    for (int a = aBegin, b = bBegin; a <= aEnd; a += aStep, b += bStep) {
        __shared__ float As[BLOCK_SIZE][BLOCK_SIZE];
        __shared__ float Bs[BLOCK_SIZE][BLOCK_SIZE];
        As[ty][tx] = A[a + wA * ty + tx];
        Bs[ty][tx] = B[b + wB * ty + tx];
        __syncthreads();
#pragma unroll
        for (int k = 0; k < BLOCK_SIZE; ++k)
            Csub += As[ty][k] * Bs[k][tx];
        __syncthreads();
    }
    int c = wB * BLOCK_SIZE * by + BLOCK_SIZE * bx;
    C[c + wB * ty + tx] = Csub;
}
