"""PyCUDA's classic first program, on pycudac: multiply two arrays element by
element in a kernel. drv.In copies an array to the device before the launch,
drv.Out copies the result back after it. The only change from the PyCUDA
original is `pycuda` -> `pycudac` in the imports.

Runs on the GPU, or on the CPU simulator where there is none.
"""
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if os.path.isdir(os.path.join(ROOT, "pycudac")) and ROOT not in sys.path:
    sys.path.insert(0, ROOT)  # the in-place build of this tree

import numpy as np  # noqa: E402

import pycudac.autoinit  # noqa: E402,F401
import pycudac.driver as drv  # noqa: E402
from pycudac.compiler import SourceModule  # noqa: E402

mod = SourceModule("""
__global__ void multiply_them(float *dest, float *a, float *b)
{
    const int i = threadIdx.x;
    dest[i] = a[i] * b[i];
}
""")

multiply_them = mod.get_function("multiply_them")

a = np.random.randn(400).astype(np.float32)
b = np.random.randn(400).astype(np.float32)
dest = np.zeros_like(a)
multiply_them(drv.Out(dest), drv.In(a), drv.In(b), block=(400, 1, 1), grid=(1, 1))

err = float(np.max(np.abs(dest - a * b)))
print(f"backend {drv.get_backend()}: max |dest - a*b| = {err}")
sys.exit(0 if err == 0.0 else 1)
