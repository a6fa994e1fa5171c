// Technique of the Programming Guide's "Asynchronous Data Copies" section and of
// cuda-samples' globalToShmemAsyncCopy: global memory staged into shared memory with
// cooperative_groups::memcpy_async and cg::wait / cg::wait_prior (whole-block and
// per-warp tiles, byte and element counts, two stages in flight), and with the
// primitives of <cuda_pipeline.h> (__pipeline_memcpy_async of 4/8/16 bytes, the
// zero-filled tail, commit and wait_prior), as tiled matrix products and stencils
// use them on Ampere and Hopper.
#include <cooperative_groups.h>
#include <cooperative_groups/memcpy_async.h>
#include <cuda_pipeline.h>

namespace cg = cooperative_groups;

#define TILE 16

// C = A * B (n x n, n a multiple of TILE): each k-step copies a tile of A and one of
// B into shared memory with the whole block, waits, multiplies.
__global__ void matmul_memcpy_async(const float *A, const float *B, float *C, int n)
{
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE];
    cg::thread_block block = cg::this_thread_block();
    int row = blockIdx.y * TILE + threadIdx.y, col = blockIdx.x * TILE + threadIdx.x;
    float acc = 0.0f;
    for (int k0 = 0; k0 < n; k0 += TILE) {
        // one row of each tile per call: rows are contiguous in global memory
        for (int r = 0; r < TILE; r++) {
            cg::memcpy_async(block, &As[r][0], A + (size_t)(blockIdx.y * TILE + r) * n + k0,
                             sizeof(float) * TILE);
            cg::memcpy_async(block, &Bs[r][0], B + (size_t)(k0 + r) * n + blockIdx.x * TILE,
                             sizeof(float) * TILE);
        }
        cg::wait(block);
        for (int k = 0; k < TILE; k++)
            acc += As[threadIdx.y][k] * Bs[k][threadIdx.x];
        block.sync(); // the tiles are overwritten by the next step's copies
    }
    C[(size_t)row * n + col] = acc;
}

// Two stages in flight: the block copies chunk i+1 while it sums chunk i; wait_prior<1>
// waits for all but the newest batch. out[b] = sum over the block's chunks of x^2.
__global__ void double_buffered_sum(const float *in, float *out, int chunks_per_block)
{
    extern __shared__ float buf[]; // 2 * blockDim.x floats
    cg::thread_block block = cg::this_thread_block();
    const int w = blockDim.x;
    const float *base = in + (size_t)blockIdx.x * chunks_per_block * w;
    cg::memcpy_async(block, buf, base, sizeof(float) * w);
    float acc = 0.0f;
    for (int c = 0; c < chunks_per_block; c++) {
        float *cur = buf + (c & 1) * w;
        if (c + 1 < chunks_per_block) {
            cg::memcpy_async(block, buf + ((c + 1) & 1) * w, base + (size_t)(c + 1) * w,
                             sizeof(float) * w);
            cg::wait_prior<1>(block);
        } else {
            cg::wait(block);
        }
        float v = cur[threadIdx.x];
        acc += v * v;
        block.sync(); // before the buffer is refilled
    }
    __shared__ float part[256];
    part[threadIdx.x] = acc;
    block.sync();
    for (int s = w / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s)
            part[threadIdx.x] += part[threadIdx.x + s];
        block.sync();
    }
    if (threadIdx.x == 0)
        out[blockIdx.x] = part[0];
}

// Each warp stages its own slice with the element-count form (the smaller of the two
// counts is copied: a short last slice) and waits on the tile alone.
__global__ void warp_slices(const int *in, int *out, int n)
{
    __shared__ int slice[4][40];
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    int wid = threadIdx.x / 32;
    size_t start = ((size_t)blockIdx.x * 4 + wid) * 40;
    size_t avail = start < (size_t)n ? (size_t)n - start : 0;
    for (int i = warp.thread_rank(); i < 40; i += 32)
        slice[wid][i] = -1; // what is not copied stays -1
    warp.sync();
    cg::memcpy_async(warp, &slice[wid][0], (size_t)40, in + start, avail);
    cg::wait(warp);
    for (int i = warp.thread_rank(); i < 40; i += 32)
        out[start + i] = slice[wid][i] * 3;
}

// <cuda_pipeline.h>'s primitives: each thread stages one float4 (16 bytes) of a
// row, the last thread's copy zero-filled past n, then a 3-point stencil.
__global__ void pipeline_stencil(const float4 *in, float *out, int n)
{
    __shared__ float4 s[129];
    int t = threadIdx.x;
    size_t g = (size_t)blockIdx.x * blockDim.x + t;
    size_t have = g * 4 < (size_t)n ? (size_t)n - g * 4 : 0; // floats of this float4 in range
    size_t zfill = have >= 4 ? 0 : (4 - have) * sizeof(float);
    if (have > 0)
        __pipeline_memcpy_async(&s[t], &in[g], sizeof(float4), zfill);
    else
        s[t] = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    __pipeline_commit();
    __pipeline_wait_prior(0);
    __syncthreads();
    const float *f = (const float *)s;
    for (int j = 0; j < 4; j++) {
        int i = 4 * t + j;
        size_t gi = (size_t)blockIdx.x * blockDim.x * 4 + i;
        if (gi >= (size_t)n)
            break;
        float left = i > 0 ? f[i - 1] : 0.0f, right = i + 1 < 4 * (int)blockDim.x ? f[i + 1] : 0.0f;
        out[gi] = left + 2.0f * f[i] + right;
    }
}

// 4- and 8-byte primitives into a shared buffer, one element per thread, then a
// reversal across the block.
__global__ void pipeline_small(const int *a, const double *b, int *ra, double *rb)
{
    __shared__ int sa[128];
    __shared__ double sb[128];
    int t = threadIdx.x;
    __pipeline_memcpy_async(&sa[t], &a[blockIdx.x * 128 + t], sizeof(int));
    __pipeline_memcpy_async(&sb[t], &b[blockIdx.x * 128 + t], sizeof(double));
    __pipeline_commit();
    __pipeline_wait_prior(0);
    __syncthreads();
    ra[blockIdx.x * 128 + t] = sa[127 - t];
    rb[blockIdx.x * 128 + t] = sb[127 - t] * 0.5;
}
