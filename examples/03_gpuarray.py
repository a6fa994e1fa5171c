"""03 · Arrays that live on the GPU: gpuarray, cumath and ElementwiseKernel.

Writing a kernel for every `a * x + y` is tedious. `gpuarray.to_gpu` copies
a NumPy array to the device and gives back a GPUArray, which does
arithmetic, comparisons, reductions and NumPy-style indexing on the device
(each operation is a generated kernel, compiled once and cached);
`pycudac.cumath` has the math functions; `.get()` copies back. When one
expression should be one kernel, ElementwiseKernel writes it from a line
of C: `z[i] = a*x[i] + b*y[i]` runs for every index i.
"""
import sys

import numpy as np

import pycudac.autoinit  # noqa: F401
from pycudac import cumath, gpuarray
from pycudac.elementwise import ElementwiseKernel

rng = np.random.default_rng(1)
x = rng.standard_normal(50_000).astype(np.float32)
y = rng.standard_normal(50_000).astype(np.float32)

x_gpu = gpuarray.to_gpu(x)          # a copy on the device
y_gpu = gpuarray.to_gpu(y)

# arithmetic and math functions, each a kernel on the device
z_gpu = 2 * x_gpu + cumath.sin(y_gpu)
print("2x + sin(y):", z_gpu[:4].get(), "...")
ok = np.allclose(z_gpu.get(), 2 * x + np.sin(y), rtol=1e-5, atol=1e-6)

# reductions come back as 0-d GPUArrays; .get() (or float()) reads them
total = gpuarray.sum(x_gpu * y_gpu).get()
print(f"dot(x, y) = {float(total):.4f}  (NumPy: {float(np.dot(x, y)):.4f})")
ok &= abs(float(total) - float(np.dot(x.astype(np.float64), y))) < 1e-2

# NumPy-style indexing and boolean masks work on the device too
positive = x_gpu[x_gpu > 0]
print(f"{positive.size} of {x.size} elements of x are positive")
ok &= positive.size == int((x > 0).sum())

# one expression, one kernel
lin_comb = ElementwiseKernel(
    "float a, float *x, float b, float *y, float *z",
    "z[i] = a*x[i] + b*y[i]",
    "lin_comb")
z2_gpu = gpuarray.empty_like(x_gpu)
lin_comb(5.0, x_gpu, 6.0, y_gpu, z2_gpu)
print("5x + 6y:", z2_gpu[:4].get(), "...")
ok &= np.allclose(z2_gpu.get(), 5 * x + 6 * y, rtol=1e-5, atol=1e-5)
sys.exit(0 if ok else 1)
