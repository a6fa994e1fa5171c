"""15 · Heat diffusion: a stencil time-stepped on the device, frames as PNGs.

The heat equation du/dt = alpha * Laplacian(u) on a plate, stepped with
the explicit scheme u' = u + r * (sum of 4 neighbours - 4u). Every step
reads one array and writes the other ("ping-pong"), so no thread reads a
value another thread of the same step has already overwritten; the two
device arrays swap roles between launches and never leave the device.
The edges are held at 0 (cold), a hot square starts in the middle and an
off-centre spot is held hot. After the run, the field is compared with the
same steps in NumPy, and the first and last frames are written as PNGs.
"""
import sys

import numpy as np

import pycudac.autoinit  # noqa: F401
import pycudac.driver as drv
from pycudac import gpuarray
from pycudac.compiler import SourceModule
from _png import colormap, out_path, write_png

mod = SourceModule(r"""
__global__ void heat_step(const float *u, float *v, int h, int w, float r,
                          int sy, int sx, float source)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h)
        return;
    int i = y * w + x;
    if (x == 0 || y == 0 || x == w - 1 || y == h - 1)
        v[i] = 0.0f;                                   // cold edges
    else if (y == sy && x == sx)
        v[i] = source;                                 // a spot held hot
    else
        v[i] = u[i] + r * (u[i - 1] + u[i + 1] + u[i - w] + u[i + w] - 4.0f * u[i]);
}
""")
heat_step = mod.get_function("heat_step")

h, w, steps, r = 96, 128, 300, 0.24          # r <= 0.25 keeps the explicit scheme stable
sy, sx, source = 30, 90, 1.0
u0 = np.zeros((h, w), np.float32)
u0[h // 2 - 12:h // 2 + 12, w // 2 - 30:w // 2 - 6] = 1.0

a, b = gpuarray.to_gpu(u0), gpuarray.empty_like(gpuarray.to_gpu(u0))
args = (np.int32(h), np.int32(w), np.float32(r), np.int32(sy), np.int32(sx),
        np.float32(source))
grid = ((w + 15) // 16, (h + 15) // 16)
start, end = drv.Event(), drv.Event()
start.record()
for _ in range(steps):
    heat_step(a, b, *args, block=(16, 16, 1), grid=grid)
    a, b = b, a                                  # ping-pong: the new field is in a
end.record()
end.synchronize()
u = a.get()

ref = u0.copy()
for _ in range(steps):
    nxt = np.empty_like(ref)
    nxt[1:-1, 1:-1] = ref[1:-1, 1:-1] + np.float32(r) * (
        ref[1:-1, :-2] + ref[1:-1, 2:] + ref[:-2, 1:-1] + ref[2:, 1:-1]
        - np.float32(4) * ref[1:-1, 1:-1])
    nxt[0, :] = nxt[-1, :] = nxt[:, 0] = nxt[:, -1] = 0
    nxt[sy, sx] = source
    ref = nxt
err = float(np.max(np.abs(u - ref)))
print(f"{steps} steps on a {h}x{w} plate in {end.time_since(start):.1f} ms "
      f"(backend {drv.get_backend()})")
print(f"total heat {u0.sum():.1f} -> {u.sum():.1f} (the edges take it away, the spot adds); "
      f"max difference from NumPy {err:.2e}")
for name, field in (("heat_0.png", u0), (f"heat_{steps}.png", u)):
    big = np.kron(field / max(float(u0.max()), 1e-9), np.ones((3, 3)))   # 3x larger pixels
    print("wrote", write_png(out_path(name), colormap(big)))
sys.exit(0 if err < 1e-4 else 1)
