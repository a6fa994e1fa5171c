"""01 · Hello, threads: a kernel runs once per thread, and each thread knows
where it is.

A launch names a grid of blocks and a block of threads. Inside the kernel,
`blockIdx.x` says which block, `threadIdx.x` which thread of the block, and
`blockIdx.x * blockDim.x + threadIdx.x` is a number unique to the thread —
the index almost every kernel starts with. Device `printf` works (the
lines of different blocks may come in any order), and writing the index
into an array shows the same thing on the host.

Run:  .venv/bin/python examples/01_hello_threads.py
"""
import sys

import numpy as np

import pycudac.autoinit  # noqa: F401  (makes device 0's context current)
import pycudac.driver as drv
from pycudac.compiler import SourceModule

mod = SourceModule(r"""
#include <stdio.h>

__global__ void hello(int *who)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;   // this thread's global index
    if (threadIdx.x == 0)
        printf("block %d of %d starts (%d threads)\n", blockIdx.x, gridDim.x, blockDim.x);
    who[i] = 100 * blockIdx.x + threadIdx.x;         // remember who wrote here
}
""")
hello = mod.get_function("hello")

blocks, threads = 3, 4
who = np.zeros(blocks * threads, dtype=np.int32)
hello(drv.Out(who), block=(threads, 1, 1), grid=(blocks, 1))   # Out: copy back after
drv.Context.synchronize()                                         # flush device printf

print("element i was written by 100*block + thread:")
print(who.reshape(blocks, threads))
expected = (100 * np.arange(blocks)[:, None] + np.arange(threads)[None, :]).ravel()
print(f"backend: {drv.get_backend()}")
sys.exit(0 if np.array_equal(who, expected) else 1)
