"""11 · Histograms with atomics, in global and in shared memory.

Many threads adding 1 to the same bin at once would lose updates with a
plain `bins[b] += 1`; `atomicAdd` makes each increment indivisible. With
every thread of the grid hitting the same 64 counters in global memory the
atomics queue up, so the second kernel gives each block its own private
histogram in `__shared__` memory (cleared, filled with fast shared-memory
atomics, then added into the global one once per bin). Both must equal
NumPy's bincount exactly.
"""
import sys

import numpy as np

import pycudac.autoinit  # noqa: F401
import pycudac.driver as drv
from pycudac import gpuarray
from pycudac.compiler import SourceModule

BINS = 64
mod = SourceModule(r"""
#define BINS 64

__global__ void hist_global(const unsigned char *data, unsigned int *bins, int n)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        atomicAdd(&bins[data[i] / 4], 1u);          // 256 values, 64 bins
}

__global__ void hist_shared(const unsigned char *data, unsigned int *bins, int n)
{
    __shared__ unsigned int local[BINS];
    for (int b = threadIdx.x; b < BINS; b += blockDim.x)
        local[b] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        atomicAdd(&local[data[i] / 4], 1u);
    __syncthreads();
    for (int b = threadIdx.x; b < BINS; b += blockDim.x)
        if (local[b])
            atomicAdd(&bins[b], local[b]);
}
""")

n = 400_000
rng = np.random.default_rng(5)
data = np.clip(rng.normal(128, 40, n), 0, 255).astype(np.uint8)
data_gpu = gpuarray.to_gpu(data)
expected = np.bincount(data // 4, minlength=BINS)

ok = True
for name in ("hist_global", "hist_shared"):
    bins = gpuarray.zeros(BINS, np.uint32)
    start, end = drv.Event(), drv.Event()
    start.record()
    mod.get_function(name)(data_gpu, bins, np.int32(n), block=(256, 1, 1), grid=(32, 1))
    end.record()
    end.synchronize()
    got = bins.get()
    ok &= np.array_equal(got, expected)
    print(f"{name:11s} {end.time_since(start):8.3f} ms   equals np.bincount: "
          f"{np.array_equal(got, expected)}   total {int(got.sum())}")

peak = int(np.argmax(expected))
print("every 4th bin, as #s per 2% of the largest:")
for b in range(0, BINS, 4):
    print(f"  values {4 * b:3d}-{4 * b + 3:3d}: " + "#" * int(50 * expected[b] / expected[peak]))
sys.exit(0 if ok else 1)
