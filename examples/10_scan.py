"""10 · Scans (prefix sums) and what they are for: stream compaction.

An inclusive scan turns [3, 1, 4, 1, 5] into [3, 4, 8, 9, 14]. Within one
block it runs in shared memory in log2(n) steps (Hillis-Steele): at step
d every element adds the one d places to its left; the reads of a step
must all finish before its writes, hence two barriers per step. Across
blocks: scan each block, scan the blocks' totals, add each block's offset
— the multi-block version below. Then InclusiveScanKernel, and the classic
use: an exclusive scan of "keep?" flags gives every kept element its place
in the output, which packs the kept elements without gaps.
"""
import sys

import numpy as np

import pycudac.autoinit  # noqa: F401
import pycudac.driver as drv
from pycudac import gpuarray
from pycudac.compiler import SourceModule
from pycudac.scan import ExclusiveScanKernel, InclusiveScanKernel

BLOCK = 256
mod = SourceModule(r"""
#define BLOCK 256

// scan one block's 256 elements in place; block_totals[b] gets the last one
__global__ void block_scan(int *x, int *block_totals, int n)
{
    __shared__ int s[BLOCK];
    int t = threadIdx.x, i = blockIdx.x * BLOCK + t;
    s[t] = i < n ? x[i] : 0;
    __syncthreads();
    for (int d = 1; d < BLOCK; d *= 2) {
        int add = t >= d ? s[t - d] : 0;
        __syncthreads();            // every read of this step is done
        s[t] += add;
        __syncthreads();            // every write of this step is done
    }
    if (i < n)
        x[i] = s[t];
    if (t == BLOCK - 1)
        block_totals[blockIdx.x] = s[t];
}

// add the sum of all earlier blocks to every element of block b
__global__ void add_offsets(int *x, const int *scanned_totals, int n)
{
    int i = blockIdx.x * BLOCK + threadIdx.x;
    if (blockIdx.x > 0 && i < n)
        x[i] += scanned_totals[blockIdx.x - 1];
}

// stream compaction: element i goes to slot[i] when it is kept
__global__ void scatter_kept(const int *x, const int *keep, const int *slot, int *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && keep[i])
        out[slot[i]] = x[i];
}
""")
block_scan = mod.get_function("block_scan")
add_offsets = mod.get_function("add_offsets")
scatter_kept = mod.get_function("scatter_kept")

n = 50_000                                   # 196 blocks; their totals fit one block
x = np.random.default_rng(4).integers(-9, 10, n).astype(np.int32)
blocks = (n + BLOCK - 1) // BLOCK

# multi-block scan by hand: block scans, a scan of the totals, the offsets
y = gpuarray.to_gpu(x)
totals = gpuarray.empty(blocks, np.int32)
block_scan(y, totals, np.int32(n), block=(BLOCK, 1, 1), grid=(blocks, 1))
ignored = gpuarray.empty(1, np.int32)
block_scan(totals, ignored, np.int32(blocks), block=(BLOCK, 1, 1), grid=(1, 1))
add_offsets(y, totals, np.int32(n), block=(BLOCK, 1, 1), grid=(blocks, 1))
ok = np.array_equal(y.get(), np.cumsum(x))
print(f"hand-written scan of {n} ints over {blocks} blocks equals np.cumsum: {ok}")

# the library's scan (a single pass with decoupled look-back)
cumsum = InclusiveScanKernel(np.int32, "a+b")
z = gpuarray.to_gpu(x)
cumsum(z)                                    # in place
ok &= np.array_equal(z.get(), np.cumsum(x))
print("InclusiveScanKernel(np.int32, 'a+b') equals np.cumsum:", np.array_equal(z.get(),
                                                                               np.cumsum(x)))

# stream compaction: keep the positive elements, in order
x_gpu = gpuarray.to_gpu(x)
keep = (x_gpu > 0).astype(np.int32)
slot = keep.copy()
ExclusiveScanKernel(np.int32, "a+b", neutral="0")(slot)     # slot[i] = kept before i
count = int(slot[-1:].get()[0] + keep[-1:].get()[0])
packed = gpuarray.empty(count, np.int32)
scatter_kept(x_gpu, keep, slot, packed, np.int32(n), block=(BLOCK, 1, 1), grid=(blocks, 1))
ok &= np.array_equal(packed.get(), x[x > 0])
print(f"compaction kept {count} of {n} elements, in order: "
      f"{np.array_equal(packed.get(), x[x > 0])}  (backend {drv.get_backend()})")
sys.exit(0 if ok else 1)
