// Technique of cuda-samples' bf16TensorCoreGemm, tf32TensorCoreGemm, dmmaTensorCoreGemm
// and immaTensorCoreGemm in their simple_wmma_* form (a warp per tile of C, K walked in
// steps of the shape's k, alpha and beta applied element by element), and of the
// Programming Guide's "Alternate Floating Point" section: tf32 fragments loaded from
// float and converted element by element with __float_to_tf32 before mma_sync.
// A is M x K row-major, B is K x N column-major, C and D are M x N row-major; warps
// along x take tile rows, warps along y tile columns; the sizes are multiples of the tile.
#include <mma.h>

using namespace nvcuda;

// __nv_bfloat16, m16n16k16, float accumulator
__global__ void simple_wmma_bf16gemm(const __nv_bfloat16 *a, const __nv_bfloat16 *b,
                                     const float *c, float *d, int m_ld, int n_ld, int k_ld,
                                     float alpha, float beta)
{
    int warpM = (blockIdx.x * blockDim.x + threadIdx.x) / warpSize;
    int warpN = blockIdx.y * blockDim.y + threadIdx.y;
    int aRow = warpM * 16, bCol = warpN * 16;
    if (aRow >= m_ld || bCol >= n_ld)
        return;

    wmma::fragment<wmma::matrix_a, 16, 16, 16, __nv_bfloat16, wmma::row_major> a_frag;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, __nv_bfloat16, wmma::col_major> b_frag;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc_frag, c_frag;
    wmma::fill_fragment(acc_frag, 0.0f);
    for (int i = 0; i < k_ld; i += 16) {
        wmma::load_matrix_sync(a_frag, a + aRow * k_ld + i, k_ld);
        wmma::load_matrix_sync(b_frag, b + bCol * k_ld + i, k_ld);
        wmma::mma_sync(acc_frag, a_frag, b_frag, acc_frag);
    }
    wmma::load_matrix_sync(c_frag, c + aRow * n_ld + bCol, n_ld, wmma::mem_row_major);
    for (int i = 0; i < c_frag.num_elements; i++)
        c_frag.x[i] = alpha * acc_frag.x[i] + beta * c_frag.x[i];
    wmma::store_matrix_sync(d + aRow * n_ld + bCol, c_frag, n_ld, wmma::mem_row_major);
}

// precision::tf32, m16n16k8, float accumulator: the fragments hold floats, rounded to
// tf32 after each load
__global__ void simple_wmma_tf32gemm(const float *a, const float *b, const float *c, float *d,
                                     int m_ld, int n_ld, int k_ld, float alpha, float beta)
{
    int warpM = (blockIdx.x * blockDim.x + threadIdx.x) / warpSize;
    int warpN = blockIdx.y * blockDim.y + threadIdx.y;
    int aRow = warpM * 16, bCol = warpN * 16;
    if (aRow >= m_ld || bCol >= n_ld)
        return;

    wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, wmma::row_major> a_frag;
    wmma::fragment<wmma::matrix_b, 16, 16, 8, wmma::precision::tf32, wmma::col_major> b_frag;
    wmma::fragment<wmma::accumulator, 16, 16, 8, float> acc_frag, c_frag;
    wmma::fill_fragment(acc_frag, 0.0f);
    for (int i = 0; i < k_ld; i += 8) {
        wmma::load_matrix_sync(a_frag, a + aRow * k_ld + i, k_ld);
        wmma::load_matrix_sync(b_frag, b + bCol * k_ld + i, k_ld);
#pragma unroll
        for (int t = 0; t < a_frag.num_elements; t++)
            a_frag.x[t] = wmma::__float_to_tf32(a_frag.x[t]);
#pragma unroll
        for (int t = 0; t < b_frag.num_elements; t++)
            b_frag.x[t] = wmma::__float_to_tf32(b_frag.x[t]);
        wmma::mma_sync(acc_frag, a_frag, b_frag, acc_frag);
    }
    wmma::load_matrix_sync(c_frag, c + aRow * n_ld + bCol, n_ld, wmma::mem_row_major);
    for (int i = 0; i < c_frag.num_elements; i++)
        c_frag.x[i] = alpha * acc_frag.x[i] + beta * c_frag.x[i];
    wmma::store_matrix_sync(d + aRow * n_ld + bCol, c_frag, n_ld, wmma::mem_row_major);
}

// double, m8n8k4: C is read into the accumulator and A * B added to it, then scaled
__global__ void simple_wmma_dgemm(const double *a, const double *b, const double *c,
                                  double *d, int m_ld, int n_ld, int k_ld, double alpha,
                                  double beta)
{
    int warpM = (blockIdx.x * blockDim.x + threadIdx.x) / warpSize;
    int warpN = blockIdx.y * blockDim.y + threadIdx.y;
    int aRow = warpM * 8, bCol = warpN * 8;
    if (aRow >= m_ld || bCol >= n_ld)
        return;

    wmma::fragment<wmma::matrix_a, 8, 8, 4, double, wmma::row_major> a_frag;
    wmma::fragment<wmma::matrix_b, 8, 8, 4, double, wmma::col_major> b_frag;
    wmma::fragment<wmma::accumulator, 8, 8, 4, double> acc_frag, c_frag;
    wmma::fill_fragment(acc_frag, 0.0);
    for (int i = 0; i < k_ld; i += 4) {
        wmma::load_matrix_sync(a_frag, a + aRow * k_ld + i, k_ld);
        wmma::load_matrix_sync(b_frag, b + bCol * k_ld + i, k_ld);
        wmma::mma_sync(acc_frag, a_frag, b_frag, acc_frag);
    }
    wmma::load_matrix_sync(c_frag, c + aRow * n_ld + bCol, n_ld, wmma::mem_row_major);
    for (int i = 0; i < c_frag.num_elements; i++)
        c_frag.x[i] = alpha * acc_frag.x[i] + beta * c_frag.x[i];
    wmma::store_matrix_sync(d + aRow * n_ld + bCol, c_frag, n_ld, wmma::mem_row_major);
}

// unsigned char, m16n16k16, int accumulator (exact), integer alpha and beta
__global__ void simple_wmma_imma(const unsigned char *a, const unsigned char *b, const int *c,
                                 int *d, int m_ld, int n_ld, int k_ld, int alpha, int beta)
{
    int warpM = (blockIdx.x * blockDim.x + threadIdx.x) / warpSize;
    int warpN = blockIdx.y * blockDim.y + threadIdx.y;
    int aRow = warpM * 16, bCol = warpN * 16;
    if (aRow >= m_ld || bCol >= n_ld)
        return;

    wmma::fragment<wmma::matrix_a, 16, 16, 16, unsigned char, wmma::row_major> a_frag;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, unsigned char, wmma::col_major> b_frag;
    wmma::fragment<wmma::accumulator, 16, 16, 16, int> acc_frag, c_frag;
    wmma::fill_fragment(acc_frag, 0);
    for (int i = 0; i < k_ld; i += 16) {
        wmma::load_matrix_sync(a_frag, a + aRow * k_ld + i, k_ld);
        wmma::load_matrix_sync(b_frag, b + bCol * k_ld + i, k_ld);
        wmma::mma_sync(acc_frag, a_frag, b_frag, acc_frag);
    }
    wmma::load_matrix_sync(c_frag, c + aRow * n_ld + bCol, n_ld, wmma::mem_row_major);
    for (int i = 0; i < c_frag.num_elements; i++)
        c_frag.x[i] = alpha * acc_frag.x[i] + beta * c_frag.x[i];
    wmma::store_matrix_sync(d + aRow * n_ld + bCol, c_frag, n_ld, wmma::mem_row_major);
}

// signed char with satf: sums past int32's range saturate instead of wrapping
__global__ void wmma_imma_satf(const signed char *a, const signed char *b, int *d, int ld)
{
    wmma::fragment<wmma::matrix_a, 16, 16, 16, signed char, wmma::row_major> a_frag;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, signed char, wmma::row_major> b_frag;
    wmma::fragment<wmma::accumulator, 16, 16, 16, int> acc_frag;
    wmma::load_matrix_sync(acc_frag, d, ld, wmma::mem_row_major);
    wmma::load_matrix_sync(a_frag, a, 16);
    wmma::load_matrix_sync(b_frag, b, 16);
    wmma::mma_sync(acc_frag, a_frag, b_frag, acc_frag, true);
    wmma::store_matrix_sync(d, acc_frag, ld, wmma::mem_row_major);
}
