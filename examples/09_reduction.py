"""09 · Reductions: adding up a million numbers in parallel.

A sum is not independent per element, so it runs as a tree: each block
loads its part into shared memory and halves the number of active threads
at every step (with a `__syncthreads()` between steps), leaving one partial
sum per block; a second launch of the same kernel adds the partials. Each
thread first adds several elements in a grid-stride loop, so the grid can
stay small. Then the same result from ReductionKernel (a generated
reduction with a map expression) and from gpuarray.sum.
"""
import sys

import numpy as np

import pycudac.autoinit  # noqa: F401
import pycudac.driver as drv
from pycudac import gpuarray
from pycudac.compiler import SourceModule
from pycudac.reduction import ReductionKernel

BLOCK = 256
mod = SourceModule(r"""
#define BLOCK 256

__global__ void block_sum(const double *in, double *partial, int n)
{
    __shared__ double s[BLOCK];
    int t = threadIdx.x;
    double acc = 0.0;
    // grid-stride loop: thread i adds elements i, i + all threads, ...
    for (int i = blockIdx.x * BLOCK + t; i < n; i += gridDim.x * BLOCK)
        acc += in[i];
    s[t] = acc;
    __syncthreads();
    for (int half = BLOCK / 2; half > 0; half /= 2) {   // the tree
        if (t < half)
            s[t] += s[t + half];
        __syncthreads();
    }
    if (t == 0)
        partial[blockIdx.x] = s[0];
}
""")
block_sum = mod.get_function("block_sum")

n = 1 << 20
x = np.random.default_rng(3).random(n)          # float64 in [0, 1)
x_gpu = gpuarray.to_gpu(x)

blocks = 64
partial = gpuarray.empty(blocks, np.float64)
block_sum(x_gpu, partial, np.int32(n), block=(BLOCK, 1, 1), grid=(blocks, 1))   # n -> 64
total = gpuarray.empty(1, np.float64)
block_sum(partial, total, np.int32(blocks), block=(BLOCK, 1, 1), grid=(1, 1))   # 64 -> 1
two_pass = float(total.get()[0])

# a generated reduction: map each element, combine with reduce_expr
sum_of_squares = ReductionKernel(np.float64, neutral="0", reduce_expr="a+b",
                                 map_expr="x[i]*x[i]", arguments="const double *x")
squares = float(sum_of_squares(x_gpu).get())

builtin = float(gpuarray.sum(x_gpu).get())
exact = float(np.sum(x))
print(f"sum of {n} numbers:  two-pass kernel {two_pass:.6f}   gpuarray.sum {builtin:.6f}   "
      f"NumPy {exact:.6f}")
print(f"sum of squares: ReductionKernel {squares:.6f}   NumPy {float(np.dot(x, x)):.6f}")
print(f"(summation order differs from NumPy's, so the last digits may too; backend "
      f"{drv.get_backend()})")
ok = (abs(two_pass - exact) < 1e-8 * n and abs(builtin - exact) < 1e-8 * n
      and abs(squares - np.dot(x, x)) < 1e-8 * n)
sys.exit(0 if ok else 1)
