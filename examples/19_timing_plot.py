"""19 · Timing kernels with events, and a plot of the result.

How long does a kernel take as the problem grows? Events recorded before
and after a launch measure it on the device's clock (no host overhead in
the figure); one warm-up launch keeps the first call's module loading out
of it, and the best of several runs is reported. The times of a SAXPY over
sizes from 2^12 to 2^20 are printed and drawn as bars into timing.png,
labelled with log2(size). On the CPU simulator the numbers time the
simulator, not a GPU: they show the method, not a GPU's speed.
"""
import sys

import numpy as np

import pycudac.autoinit  # noqa: F401
import pycudac.driver as drv
from pycudac import gpuarray
from pycudac.compiler import SourceModule
from _png import bar_chart, out_path, write_png

mod = SourceModule(r"""
__global__ void saxpy(float a, const float *x, float *y, int n)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        y[i] = a * x[i] + y[i];
}
""")
saxpy = mod.get_function("saxpy")

def time_ms(n, repeats=3):
    x, y = gpuarray.zeros(n, np.float32) + 1, gpuarray.zeros(n, np.float32)
    grid = (min((n + 255) // 256, 1024), 1)
    saxpy(np.float32(2), x, y, np.int32(n), block=(256, 1, 1), grid=grid)   # warm-up
    best = float("inf")
    for _ in range(repeats):
        start, end = drv.Event(), drv.Event()
        start.record()
        saxpy(np.float32(2), x, y, np.int32(n), block=(256, 1, 1), grid=grid)
        end.record()
        end.synchronize()
        best = min(best, end.time_since(start))
    ok = bool(np.all(y.get() == 2 * (repeats + 1)))
    return best, ok

sizes = [1 << k for k in range(12, 21, 2)]
times, ok = [], True
print(f"backend {drv.get_backend()}: best of 3 runs")
for n in sizes:
    ms, good = time_ms(n)
    times.append(ms)
    ok &= good
    print(f"  n = 2^{n.bit_length() - 1:<3d} {ms:9.3f} ms   {3 * 4 * n / ms / 1e6:8.2f} GB/s")
path = write_png(out_path("timing.png"),
                 bar_chart(times, labels=[n.bit_length() - 1 for n in sizes]))
print("wrote", path)
sys.exit(0 if ok else 1)
