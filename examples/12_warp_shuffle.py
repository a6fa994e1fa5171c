"""12 · Warp-level programming: shuffles and votes.

The 32 threads of a warp can pass registers to each other without shared
memory or barriers. `__shfl_down_sync(mask, v, d)` returns v from the lane
d places higher: five steps (16, 8, 4, 2, 1) sum a warp's 32 values, and a
block sum needs only one shared slot per warp. Votes answer a question for
the whole warp at once: `__ballot_sync` gives a 32-bit mask of the lanes
where a condition holds, `__popc` counts its bits.
"""
import sys

import numpy as np

import pycudac.autoinit  # noqa: F401
import pycudac.driver as drv
from pycudac import gpuarray
from pycudac.compiler import SourceModule

mod = SourceModule(r"""
#define FULL 0xffffffffu

__device__ float warp_sum(float v)
{
    for (int d = 16; d > 0; d /= 2)
        v += __shfl_down_sync(FULL, v, d);   // lane i adds lane i + d
    return v;                                 // lane 0 holds the warp's sum
}

// one float per block: warps reduce by shuffles, then warp 0 sums the warps
__global__ void block_sums(const float *x, float *out, int n)
{
    __shared__ float per_warp[32];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    float v = warp_sum(i < n ? x[i] : 0.0f);
    if (lane == 0)
        per_warp[warp] = v;
    __syncthreads();
    if (warp == 0) {
        v = lane < blockDim.x / 32 ? per_warp[lane] : 0.0f;
        v = warp_sum(v);
        if (lane == 0)
            out[blockIdx.x] = v;
    }
}

// per warp: how many lanes hold a negative number, and lane 0's value to all
__global__ void votes(const float *x, int *negatives, float *first)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned int mask = __ballot_sync(FULL, x[i] < 0.0f);
    float lane0 = __shfl_sync(FULL, x[i], 0);          // broadcast from lane 0
    if (threadIdx.x % 32 == 0)
        negatives[i / 32] = __popc(mask);
    first[i] = lane0;
}
""")

n = 256 * 40
x = np.random.default_rng(6).standard_normal(n).astype(np.float32)
x_gpu = gpuarray.to_gpu(x)

sums = gpuarray.empty(40, np.float32)
mod.get_function("block_sums")(x_gpu, sums, np.int32(n), block=(256, 1, 1), grid=(40, 1))
ref = x.reshape(40, 256).astype(np.float64).sum(axis=1)
err = float(np.max(np.abs(sums.get() - ref)))
print(f"40 block sums by warp shuffles: max error vs NumPy {err:.2e}")

negatives = gpuarray.empty(n // 32, np.int32)
first = gpuarray.empty(n, np.float32)
mod.get_function("votes")(x_gpu, negatives, first, block=(256, 1, 1), grid=(40, 1))
warps = x.reshape(-1, 32)
print("negative lanes in the first 8 warps (ballot + popc):", negatives[:8].get(),
      " NumPy:", (warps[:8] < 0).sum(axis=1))
ok = (err < 1e-4 and np.array_equal(negatives.get(), (warps < 0).sum(axis=1))
      and np.array_equal(first.get(), np.repeat(warps[:, 0], 32)))
print(f"every lane got lane 0's value (shfl_sync): "
      f"{np.array_equal(first.get(), np.repeat(warps[:, 0], 32))}   backend {drv.get_backend()}")
sys.exit(0 if ok else 1)
