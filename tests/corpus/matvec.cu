// Technique of the matrix-vector product as written in Kirk & Hwu's exercises
// (one thread per row, y = A x) and of the warp-per-row form used in NVIDIA's
// sparse and dense gemv examples (each warp strides over a row, partial dot
// products combined with __shfl_down_sync; lane 0 writes), with __ldg reads of
// the read-only vector.

__global__ void matvec_row_per_thread(const float *A, const float *x, float *y, int rows,
                                      int cols)
{
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < rows) {
        float sum = 0.0f;
        for (int j = 0; j < cols; j++)
            sum += A[row * cols + j] * x[j];
        y[row] = sum;
    }
}

__global__ void matvec_warp_per_row(const float *__restrict__ A, const float *__restrict__ x,
                                    float *__restrict__ y, int rows, int cols)
{
    int warpId = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
    int lane = threadIdx.x & 31;
    if (warpId >= rows)
        return; // the whole warp leaves together
    float sum = 0.0f;
    for (int j = lane; j < cols; j += 32)
        sum += __ldg(&A[warpId * cols + j]) * __ldg(&x[j]);
    for (int off = 16; off > 0; off >>= 1)
        sum += __shfl_down_sync(0xffffffffu, sum, off);
    if (lane == 0)
        y[warpId] = sum;
}
