"""04 · Indexing in 2D: a grid of blocks over an image.

For data with rows and columns, blocks and grids have a y dimension too:
a block of 16x16 threads covers a 16x16 tile, and the grid has enough
tiles to cover the whole (height, width) array. Each thread computes its
column from the x indices and its row from the y ones; NumPy's C order
stores element (row, col) at `row * width + col`. Widths that are not a
multiple of the block need the bounds check in both directions.
"""
import sys

import numpy as np

import pycudac.autoinit  # noqa: F401
import pycudac.driver as drv
from pycudac.compiler import SourceModule

mod = SourceModule(r"""
__global__ void add_coords(float *img, int height, int width)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x;   // x: across a row
    int row = blockIdx.y * blockDim.y + threadIdx.y;   // y: down the columns
    if (row < height && col < width)
        img[row * width + col] += 1000.0f * row + col;
}

__global__ void block_of(int *owner, int height, int width)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row < height && col < width)
        owner[row * width + col] = blockIdx.y * gridDim.x + blockIdx.x;
}
""")
add_coords = mod.get_function("add_coords")
block_of = mod.get_function("block_of")

height, width = 37, 50              # deliberately not multiples of 16
block = (16, 16, 1)
grid = ((width + 15) // 16, (height + 15) // 16)
print(f"array {height}x{width}, blocks of 16x16, grid {grid[0]}x{grid[1]} "
      f"= {grid[0] * grid[1] * 256} threads for {height * width} elements")

img = np.zeros((height, width), np.float32)
add_coords(drv.InOut(img), np.int32(height), np.int32(width), block=block, grid=grid)
rows, cols = np.indices((height, width))
ok = np.array_equal(img, 1000.0 * rows + cols)
print("img[2, :4] =", img[2, :4], "(1000*row + col)")

owner = np.zeros((height, width), np.int32)
block_of(drv.Out(owner), np.int32(height), np.int32(width), block=block, grid=grid)
print("which block wrote each 8th element:")
print(owner[::8, ::8])
ok &= np.array_equal(owner, (rows // 16) * grid[0] + cols // 16)
sys.exit(0 if ok else 1)
