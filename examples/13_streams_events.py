"""13 · Streams and events: overlapping work, ordering it, timing it.

Work queued on one stream runs in order; work on different streams may
overlap — copies on one while a kernel runs on another. Asynchronous
copies need page-locked (pinned) host memory. An event marks a point in a
stream: `Stream.wait_for_event` makes another stream wait for it, and two
events time what ran between them. Here each of two streams copies its
half of the data in, squares it, and copies it back; a third stream waits
for both events before it adds the halves. (On the CPU simulator each call
finishes before it returns, so there is nothing to overlap, but the order
and the API are the same.)
"""
import sys

import numpy as np

import pycudac.autoinit  # noqa: F401
import pycudac.driver as drv
from pycudac import gpuarray
from pycudac.compiler import SourceModule

mod = SourceModule(r"""
__global__ void square(float *x, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = x[i] * x[i];
}
__global__ void add(float *out, const float *a, const float *b, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = a[i] + b[i];
}
""")
square, add = mod.get_function("square"), mod.get_function("add")

n = 1 << 18
half = n // 2
host = drv.pagelocked_empty(n, np.float32)          # pinned: copies can be asynchronous
host[:] = np.random.default_rng(7).standard_normal(n)
result = drv.pagelocked_zeros(half, np.float32)

streams = [drv.Stream(), drv.Stream()]
parts = [gpuarray.empty(half, np.float32) for _ in streams]
done = [drv.Event() for _ in streams]
start, end = drv.Event(), drv.Event()
grid = ((half + 255) // 256, 1)

start.record()                                        # on the default stream
for k, s in enumerate(streams):
    drv.memcpy_htod_async(parts[k].gpudata, host[k * half:(k + 1) * half], s)
    square(parts[k], np.int32(half), block=(256, 1, 1), grid=grid, stream=s)
    done[k].record(s)                                 # "stream k got this far"

final = drv.Stream()
for e in done:
    final.wait_for_event(e)                           # wait for both halves
out = gpuarray.empty(half, np.float32)
add(out, parts[0], parts[1], np.int32(half), block=(256, 1, 1), grid=grid, stream=final)
drv.memcpy_dtoh_async(result, out.gpudata, final)
end.record(final)
end.synchronize()                                     # the host waits here, once

expected = host[:half] ** 2 + host[half:] ** 2
print(f"two streams squared {half} elements each; a third added them after both events")
print(f"elapsed between the first and last event: {end.time_since(start):.3f} ms "
      f"(backend {drv.get_backend()})")
print(f"every stream done: {all(s.is_done() for s in streams + [final])}; "
      f"result equals NumPy: {np.allclose(result, expected, rtol=1e-6)}")
sys.exit(0 if np.allclose(result, expected, rtol=1e-6) else 1)
