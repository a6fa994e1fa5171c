// Technique of the CUDA Programming Guide's "Warp Matrix Functions" example (one warp
// multiplies one 16x16x16 tile of __half with a float accumulator: fill_fragment,
// load_matrix_sync, mma_sync, store_matrix_sync) and of cuda-samples'
// cudaTensorCoreGemm: simple_wmma_gemm (a warp per 16x16 tile of C, walking K
// in steps of 16, alpha and beta applied element by element to the fragments) and
// compute_gemm (a block of 8 warps; tiles of A and B staged in shared memory with
// skewed rows, C staged through shared memory, each warp owning a 16x32 strip of the
// block's 64x64 tile of C). Every matrix is row-major unless its name says otherwise.
#include <mma.h>

using namespace nvcuda;

#define WMMA_M 16
#define WMMA_N 16
#define WMMA_K 16

// C (16x16) = A (16x16, column-major) * B (16x16, row-major), one warp
__global__ void wmma_ker(const half *a, const half *b, float *c)
{
    wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::col_major> a_frag;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::row_major> b_frag;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> c_frag;

    wmma::fill_fragment(c_frag, 0.0f);
    wmma::load_matrix_sync(a_frag, a, 16);
    wmma::load_matrix_sync(b_frag, b, 16);
    wmma::mma_sync(c_frag, a_frag, b_frag, c_frag);
    wmma::store_matrix_sync(c, c_frag, 16, wmma::mem_row_major);
}

// D = alpha * A * B + beta * C: A is M x K row-major, B is K x N column-major, C and D
// are M x N row-major; M, N, K multiples of 16. Warps along x take tile rows, y columns.
__global__ void simple_wmma_gemm(const half *a, const half *b, const float *c, float *d,
                                 int m_ld, int n_ld, int k_ld, float alpha, float beta)
{
    int lda = k_ld, ldb = k_ld, ldc = n_ld;
    int warpM = (blockIdx.x * blockDim.x + threadIdx.x) / warpSize;
    int warpN = blockIdx.y * blockDim.y + threadIdx.y;

    wmma::fragment<wmma::matrix_a, WMMA_M, WMMA_N, WMMA_K, half, wmma::row_major> a_frag;
    wmma::fragment<wmma::matrix_b, WMMA_M, WMMA_N, WMMA_K, half, wmma::col_major> b_frag;
    wmma::fragment<wmma::accumulator, WMMA_M, WMMA_N, WMMA_K, float> acc_frag;
    wmma::fragment<wmma::accumulator, WMMA_M, WMMA_N, WMMA_K, float> c_frag;
    wmma::fill_fragment(acc_frag, 0.0f);

    int aRow = warpM * WMMA_M;
    int bCol = warpN * WMMA_N;
    if (aRow >= m_ld || bCol >= n_ld)
        return;                                  // the whole warp: warpM and warpN are uniform
    for (int i = 0; i < k_ld; i += WMMA_K) {
        wmma::load_matrix_sync(a_frag, a + aRow * lda + i, lda);
        wmma::load_matrix_sync(b_frag, b + bCol * ldb + i, ldb);
        wmma::mma_sync(acc_frag, a_frag, b_frag, acc_frag);
    }

    wmma::load_matrix_sync(c_frag, c + aRow * ldc + bCol, ldc, wmma::mem_row_major);
    for (int i = 0; i < c_frag.num_elements; i++)
        c_frag.x[i] = alpha * acc_frag.x[i] + beta * c_frag.x[i];
    wmma::store_matrix_sync(d + aRow * ldc + bCol, c_frag, ldc, wmma::mem_row_major);
}

// compute_gemm's structure at a size the sample's comments describe: a block of 8 warps
// computes a 64x64 tile of D = alpha * A * B + beta * C (A: M x K, B: K x N, C and D:
// M x N; M and N multiples of 64, K of 32). Warps 0..7 own 16-row, 32-column strips.
// Shared memory is the launch's, carved as the sample carves it: the chunk of A, the
// chunk of B, the tile of C (rows skewed; every tile 32-byte aligned).
#define BLOCK_TILE 64
#define CHUNK_K 32
#define SKEW_HALF 16                 // keeps rows 32-byte aligned, shifts their banks
#define SKEW_FLOAT 4
#define LDA_SH (CHUNK_K + SKEW_HALF)
#define LDB_SH (BLOCK_TILE + SKEW_HALF)
#define LDC_SH (BLOCK_TILE + SKEW_FLOAT)
#define WARPS_PER_BLOCK 8
#define THREADS_PER_BLOCK (WARPS_PER_BLOCK * 32)
// bytes of shared memory a launch gives: (64 * 48 + 32 * 80) * 2 + 64 * 68 * 4 = 28672

__global__ void compute_gemm(const half *A, const half *B, const float *C, float *D,
                             int M, int N, int K, float alpha, float beta)
{
    extern __shared__ half shmem[];
    half *shmem_a = shmem;                                  // BLOCK_TILE x LDA_SH
    half *shmem_b = shmem_a + BLOCK_TILE * LDA_SH;          // CHUNK_K x LDB_SH
    float *shmem_c = (float *)(shmem_b + CHUNK_K * LDB_SH); // BLOCK_TILE x LDC_SH

    const unsigned int warpId = threadIdx.x / 32;
    const unsigned int tileRow = warpId / 2 * WMMA_M;     // 0, 16, 32, 48
    const unsigned int tileCol = warpId % 2 * 32;         // 0, 32
    const int blockRow = blockIdx.y * BLOCK_TILE;
    const int blockCol = blockIdx.x * BLOCK_TILE;

    // the block's tile of C into shared memory, every thread a share of its rows
    for (int i = threadIdx.x; i < BLOCK_TILE * BLOCK_TILE; i += THREADS_PER_BLOCK) {
        int r = i / BLOCK_TILE, col = i % BLOCK_TILE;
        shmem_c[r * LDC_SH + col] = C[(size_t)(blockRow + r) * N + blockCol + col];
    }
    __syncthreads();

    wmma::fragment<wmma::accumulator, WMMA_M, WMMA_N, WMMA_K, float> c[2], acc[2];
    for (int j = 0; j < 2; j++) {
        wmma::load_matrix_sync(c[j], shmem_c + tileRow * LDC_SH + tileCol + j * WMMA_N, LDC_SH,
                               wmma::mem_row_major);
        wmma::fill_fragment(acc[j], 0.0f);
    }

    for (int k0 = 0; k0 < K; k0 += CHUNK_K) {
        __syncthreads();                                 // the last chunk has been read
        for (int i = threadIdx.x; i < BLOCK_TILE * CHUNK_K; i += THREADS_PER_BLOCK) {
            int r = i / CHUNK_K, col = i % CHUNK_K;
            shmem_a[r * LDA_SH + col] = A[(size_t)(blockRow + r) * K + k0 + col];
        }
        for (int i = threadIdx.x; i < CHUNK_K * BLOCK_TILE; i += THREADS_PER_BLOCK) {
            int r = i / BLOCK_TILE, col = i % BLOCK_TILE;
            shmem_b[r * LDB_SH + col] = B[(size_t)(k0 + r) * N + blockCol + col];
        }
        __syncthreads();

#pragma unroll
        for (int kk = 0; kk < CHUNK_K / WMMA_K; kk++) {
            wmma::fragment<wmma::matrix_a, WMMA_M, WMMA_N, WMMA_K, half, wmma::row_major> a;
            wmma::load_matrix_sync(a, shmem_a + tileRow * LDA_SH + kk * WMMA_K, LDA_SH);
#pragma unroll
            for (int j = 0; j < 2; j++) {
                wmma::fragment<wmma::matrix_b, WMMA_M, WMMA_N, WMMA_K, half, wmma::row_major> b;
                wmma::load_matrix_sync(b, shmem_b + kk * WMMA_K * LDB_SH + tileCol + j * WMMA_N,
                                       LDB_SH);
                wmma::mma_sync(acc[j], a, b, acc[j]);
            }
        }
    }

    // alpha and beta element by element: acc and c hold their elements alike
    for (int j = 0; j < 2; j++) {
        for (int t = 0; t < c[j].num_elements; t++)
            c[j].x[t] = alpha * acc[j].x[t] + beta * c[j].x[t];
        wmma::store_matrix_sync(shmem_c + tileRow * LDC_SH + tileCol + j * WMMA_N, c[j], LDC_SH,
                                wmma::mem_row_major);
    }
    __syncthreads();
    for (int i = threadIdx.x; i < BLOCK_TILE * BLOCK_TILE; i += THREADS_PER_BLOCK) {
        int r = i / BLOCK_TILE, col = i % BLOCK_TILE;
        D[(size_t)(blockRow + r) * N + blockCol + col] = shmem_c[r * LDC_SH + col];
    }
}
