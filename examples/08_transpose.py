"""08 · Transposing through shared memory: coalescing and bank conflicts.

A naive transpose reads rows and writes columns, so neighbouring threads
write addresses a whole row apart: on a GPU those writes cannot be
combined ("coalesced"). The tiled version reads a 32x32 tile with
coalesced row reads into shared memory, then writes it out transposed,
again along rows. The tile is declared 32x33: the extra column shifts each
row by one bank, so reading a column of the tile does not make 32 threads
queue on the same shared-memory bank.
"""
import sys

import numpy as np

import pycudac.autoinit  # noqa: F401
import pycudac.driver as drv
from pycudac import gpuarray
from pycudac.compiler import SourceModule

mod = SourceModule(r"""
#define TILE 32
#define ROWS 8     // a block is 32x8 threads; each thread moves 4 elements

__global__ void transpose_naive(float *out, const float *in, int height, int width)
{
    int x = blockIdx.x * TILE + threadIdx.x;
    for (int j = 0; j < TILE; j += ROWS) {
        int y = blockIdx.y * TILE + threadIdx.y + j;
        if (x < width && y < height)
            out[x * height + y] = in[y * width + x];
    }
}

__global__ void transpose_tiled(float *out, const float *in, int height, int width)
{
    __shared__ float tile[TILE][TILE + 1];          // +1: no bank conflicts
    int x = blockIdx.x * TILE + threadIdx.x;
    for (int j = 0; j < TILE; j += ROWS) {
        int y = blockIdx.y * TILE + threadIdx.y + j;
        if (x < width && y < height)
            tile[threadIdx.y + j][threadIdx.x] = in[y * width + x];
    }
    __syncthreads();
    x = blockIdx.y * TILE + threadIdx.x;            // the transposed block
    for (int j = 0; j < TILE; j += ROWS) {
        int y = blockIdx.x * TILE + threadIdx.y + j;
        if (x < height && y < width)
            out[y * height + x] = tile[threadIdx.x][threadIdx.y + j];
    }
}
""")

height, width = 100, 70
a = np.arange(height * width, dtype=np.float32).reshape(height, width)
a_gpu = gpuarray.to_gpu(a)
ok = True
for name in ("transpose_naive", "transpose_tiled"):
    out = gpuarray.empty((width, height), np.float32)
    mod.get_function(name)(out, a_gpu, np.int32(height), np.int32(width), block=(32, 8, 1),
                           grid=((width + 31) // 32, (height + 31) // 32))
    good = np.array_equal(out.get(), a.T)
    print(f"{name}: {height}x{width} -> {width}x{height}, equal to a.T: {good}")
    ok &= good
# GPUArray's .T is a view with swapped strides (no data moves); get() of it
# hands NumPy the transposed array
print("a_gpu.T.get() equals a.T:", np.array_equal(a_gpu.T.get(), a.T))
print(f"backend: {drv.get_backend()}")
sys.exit(0 if ok else 1)
