"""02 · Vector addition, step by step: allocate, copy in, launch, copy out.

The same work as `c = a + b` in NumPy, done the long way so every step is
visible: device memory from `mem_alloc`, copies with `memcpy_htod` /
`memcpy_dtoh`, a grid large enough to cover n elements (a ceiling
division), and the bounds check `if (i < n)` for the threads of the last
block that fall past the end. Then the one-line form with drv.In / drv.Out,
which makes the same copies for you.
"""
import sys

import numpy as np

import pycudac.autoinit  # noqa: F401
import pycudac.driver as drv
from pycudac.compiler import SourceModule

mod = SourceModule(r"""
__global__ void vector_add(const float *a, const float *b, float *c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)                  // the last block may reach past the end
        c[i] = a[i] + b[i];
}
""")
vector_add = mod.get_function("vector_add")

n = 100_000
rng = np.random.default_rng(0)
a = rng.standard_normal(n).astype(np.float32)
b = rng.standard_normal(n).astype(np.float32)

# 1. device memory, 2. copies in
a_gpu, b_gpu, c_gpu = drv.mem_alloc(a.nbytes), drv.mem_alloc(b.nbytes), drv.mem_alloc(a.nbytes)
drv.memcpy_htod(a_gpu, a)
drv.memcpy_htod(b_gpu, b)

# 3. the launch: 256 threads a block, enough blocks for n elements
threads = 256
blocks = (n + threads - 1) // threads
vector_add(a_gpu, b_gpu, c_gpu, np.int32(n), block=(threads, 1, 1), grid=(blocks, 1))

# 4. copy the result out
c = np.empty_like(a)
drv.memcpy_dtoh(c, c_gpu)
print(f"{n} elements, {blocks} blocks of {threads} threads "
      f"({blocks * threads - n} threads past the end did nothing)")
print(f"long form:  max |c - (a+b)| = {np.max(np.abs(c - (a + b)))}")

# The same in one call: In copies to the device before, Out back after.
c2 = np.zeros_like(a)
vector_add(drv.In(a), drv.In(b), drv.Out(c2), np.int32(n), block=(threads, 1, 1),
           grid=(blocks, 1))
print(f"In/Out form: max |c - (a+b)| = {np.max(np.abs(c2 - (a + b)))}")
sys.exit(0 if np.array_equal(c, a + b) and np.array_equal(c2, a + b) else 1)
