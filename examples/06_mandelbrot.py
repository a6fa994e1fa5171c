"""06 · The Mandelbrot set, one thread per pixel, written as a PNG.

A picture is a 2D grid of independent work — the best case for a GPU.
Each thread maps its pixel to a point c of the complex plane and iterates
z = z^2 + c until |z| > 2 or the iteration budget runs out; the count
becomes the pixel's colour. The result is compared with the same
iteration in NumPy and written to mandelbrot.png.
"""
import sys

import numpy as np

import pycudac.autoinit  # noqa: F401
import pycudac.driver as drv
from pycudac.compiler import SourceModule
from _png import colormap, out_path, write_png

mod = SourceModule(r"""
__global__ void mandelbrot(int *counts, int width, int height,
                           float x0, float y0, float step, int max_iter)
{
    int px = blockIdx.x * blockDim.x + threadIdx.x;
    int py = blockIdx.y * blockDim.y + threadIdx.y;
    if (px >= width || py >= height)
        return;
    float cr = x0 + px * step, ci = y0 + py * step;
    float zr = 0.0f, zi = 0.0f;
    int k = 0;
    while (k < max_iter && zr * zr + zi * zi <= 4.0f) {
        float t = zr * zr - zi * zi + cr;
        zi = 2.0f * zr * zi + ci;
        zr = t;
        ++k;
    }
    counts[py * width + px] = k;
}
""")
mandelbrot = mod.get_function("mandelbrot")

width, height, max_iter = 320, 240, 64
x0, y0, step = -2.2, -1.2, 2.4 / height
counts = np.zeros((height, width), np.int32)
mandelbrot(drv.Out(counts), np.int32(width), np.int32(height), np.float32(x0),
           np.float32(y0), np.float32(step), np.int32(max_iter),
           block=(16, 16, 1), grid=((width + 15) // 16, (height + 15) // 16))

# the same iteration in NumPy, in float32 like the kernel
c = ((np.float32(x0) + np.arange(width, dtype=np.float32) * np.float32(step))[None, :]
     + 1j * (np.float32(y0) + np.arange(height, dtype=np.float32) * np.float32(step))[:, None])
cr, ci = c.real.astype(np.float32), c.imag.astype(np.float32)
zr, zi = np.zeros_like(cr), np.zeros_like(ci)
ref = np.zeros((height, width), np.int32)
for _ in range(max_iter):
    alive = zr * zr + zi * zi <= 4
    ref += alive
    zr, zi = (np.where(alive, zr * zr - zi * zi + cr, zr),
              np.where(alive, np.float32(2) * zr * zi + ci, zi))
mismatch = np.mean(counts != ref)
inside = np.mean(counts == max_iter)
print(f"{width}x{height} pixels, {max_iter} iterations: {inside:.1%} of them inside the set")
print(f"pixels differing from NumPy's float32 iteration: {mismatch:.3%} "
      "(fused multiply-adds round differently at the set's edge)")

shade = np.where(counts == max_iter, 0.0, np.sqrt(counts / max_iter))
path = write_png(out_path("mandelbrot.png"), colormap(shade))
print(f"wrote {path}")
sys.exit(0 if mismatch < 0.01 else 1)
