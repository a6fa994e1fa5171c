"""14 · CUDA graphs: record a few steps of work once, replay them many times.

Launching many small kernels costs the CPU a few microseconds each. A
graph records the work once — here by capturing what a stream is given
(Stream.begin_capture / end_capture), plus a node added by hand — is made
ready to launch (Graph.instantiate), and then replays the whole step as
one launch. One kernel node then gets new arguments between replays
(GraphExec.kernel_node_set_params), as PyCUDA's graph API does it.
"""
import numpy as np

import pycudac.autoinit  # noqa: F401
from pycudac import driver as drv
from pycudac.compiler import SourceModule

mod = SourceModule(r"""
__global__ void axpy(float *y, const float *x, float a, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] += a * x[i];
}
__global__ void scale(float *y, float s, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] *= s;
}
""")
axpy, scale = mod.get_function("axpy"), mod.get_function("scale")

n = 1 << 12
block, grid = (256, 1, 1), ((n + 255) // 256, 1)
x = np.linspace(0, 1, n, dtype=np.float32)
y = np.zeros(n, np.float32)
x_gpu, y_gpu = drv.to_device(x), drv.to_device(y)
out = drv.pagelocked_empty(n, np.float32)

# One step: y = 0.5 * (y + 2 x), then a copy of y back to the host.
s = drv.Stream()
s.begin_capture()
axpy(y_gpu, x_gpu, np.float32(2), np.int32(n), block=block, grid=grid, stream=s)
_, _, graph, deps = s.get_capture_info_v2()
half = graph.add_kernel_node(y_gpu, np.float32(0.5), np.int32(n), func=scale,
                             block=block, grid=grid, dependencies=deps)
s.update_capture_dependencies([half], drv.update_capture_dependencies_flags.SET_CAPTURE_DEPENDENCIES)
drv.memcpy_dtoh_async(out, y_gpu, s)
graph = s.end_capture()
print(f"captured {len(graph.get_nodes())} nodes:",
      ", ".join(str(drv.graph_node_type(node.type)) for node in graph.get_nodes()))

step = graph.instantiate()
expect = y.copy()
for _ in range(10):
    step.launch(s)
    expect = 0.5 * (expect + 2 * x)
s.synchronize()
assert np.allclose(out, expect), "the replays disagree with NumPy"
print("10 replays match NumPy")

# The same graph with another factor in its scale node.
step.kernel_node_set_params(y_gpu, np.float32(0.25), np.int32(n), func=scale,
                            block=block, grid=grid, kernel_node=half)
step.launch(s)
s.synchronize()
expect = 0.25 * (expect + 2 * x)
assert np.allclose(out, expect), "the changed node disagrees with NumPy"
print(f"after kernel_node_set_params: matches NumPy (backend: {drv.get_backend()})")
