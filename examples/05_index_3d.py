"""05 · Indexing in 3D: a Laplacian stencil on a volume.

Grids and blocks have a z dimension as well. Here each thread owns one
voxel of a (depth, height, width) volume and computes the 7-point
Laplacian — the sum of its six neighbours minus six times itself — the
building block of diffusion and Poisson solvers. Element (z, y, x) of a
C-ordered volume is at `(z * height + y) * width + x`; the boundary
voxels, which lack neighbours, are left at zero. Checked against the same
stencil written with NumPy slices.
"""
import sys

import numpy as np

import pycudac.autoinit  # noqa: F401
import pycudac.driver as drv
from pycudac.compiler import SourceModule

mod = SourceModule(r"""
__global__ void laplacian(const float *u, float *out, int depth, int height, int width)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    int z = blockIdx.z * blockDim.z + threadIdx.z;
    if (x < 1 || y < 1 || z < 1 || x >= width - 1 || y >= height - 1 || z >= depth - 1)
        return;                                   // boundary and out-of-range threads
    int sx = 1, sy = width, sz = width * height;  // the strides, in elements
    int i = z * sz + y * sy + x;
    out[i] = u[i - sx] + u[i + sx] + u[i - sy] + u[i + sy] + u[i - sz] + u[i + sz]
           - 6.0f * u[i];
}
""")
laplacian = mod.get_function("laplacian")

depth, height, width = 20, 24, 28
z, y, x = np.indices((depth, height, width)).astype(np.float32)
u = (x * x + 2 * y * y + 3 * z * z).astype(np.float32)   # its Laplacian is 2+4+6 = 12
out = np.zeros_like(u)

block = (8, 8, 4)
grid = ((width + 7) // 8, (height + 7) // 8, (depth + 3) // 4)
laplacian(drv.In(u), drv.Out(out), np.int32(depth), np.int32(height), np.int32(width),
          block=block, grid=grid)
print(f"volume {depth}x{height}x{width}, blocks {block}, grid {grid}")

ref = np.zeros_like(u)
ref[1:-1, 1:-1, 1:-1] = (u[1:-1, 1:-1, :-2] + u[1:-1, 1:-1, 2:] + u[1:-1, :-2, 1:-1]
                         + u[1:-1, 2:, 1:-1] + u[:-2, 1:-1, 1:-1] + u[2:, 1:-1, 1:-1]
                         - 6 * u[1:-1, 1:-1, 1:-1])
print(f"Laplacian of x^2 + 2y^2 + 3z^2 inside the volume: {np.unique(out[1:-1, 1:-1, 1:-1])}"
      " (exactly 12)")
sys.exit(0 if np.array_equal(out, ref) and np.all(out[1:-1, 1:-1, 1:-1] == 12) else 1)
