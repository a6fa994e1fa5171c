"""18 · k-means clustering: assignment on the device, sums with atomics.

Each iteration of Lloyd's algorithm has two steps. Assignment: every point
finds its nearest centroid — one thread per point, the k centroids read
from `__constant__` memory, which every thread reads at the same address
at once (the case constant memory's broadcast serves best). Update: each
centroid becomes the mean of its points — every point atomically adds its
coordinates and a count into its cluster's slot. The host only divides k
sums by k counts. The result must agree with the same iterations in NumPy,
and the clusters are drawn into kmeans.png.
"""
import sys

import numpy as np

import pycudac.autoinit  # noqa: F401
import pycudac.driver as drv
from pycudac import gpuarray
from pycudac.compiler import SourceModule
from _png import out_path, write_png

K = 5
mod = SourceModule(r"""
#define K 5
__constant__ float2 centroids[K];

__global__ void assign(const float2 *pts, int *label, float *sums, int *counts, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float2 p = pts[i];
    int best = 0;
    float best_d = 3.4e38f;
    for (int c = 0; c < K; ++c) {
        float dx = p.x - centroids[c].x, dy = p.y - centroids[c].y;
        float d = dx * dx + dy * dy;
        if (d < best_d) { best_d = d; best = c; }
    }
    label[i] = best;
    atomicAdd(&sums[2 * best], p.x);
    atomicAdd(&sums[2 * best + 1], p.y);
    atomicAdd(&counts[best], 1);
}
""")
assign = mod.get_function("assign")
centroids_gpu, _ = mod.get_global("centroids")

rng = np.random.default_rng(9)
true_centres = rng.uniform(-8, 8, (K, 2))
n = 20_000
pts = (true_centres[rng.integers(0, K, n)] + rng.normal(0, 1.2, (n, 2))).astype(np.float32)
pts_gpu = gpuarray.to_gpu(pts)
label = gpuarray.empty(n, np.int32)
c = pts[rng.choice(n, K, replace=False)].copy()         # start at K random points
c_ref = c.astype(np.float64)

for it in range(10):
    drv.memcpy_htod(centroids_gpu, c)                    # into constant memory
    sums, counts = gpuarray.zeros(2 * K, np.float32), gpuarray.zeros(K, np.int32)
    assign(pts_gpu, label, sums, counts, np.int32(n), block=(256, 1, 1),
           grid=((n + 255) // 256, 1))
    cnt = counts.get()
    c = np.where(cnt[:, None] > 0, sums.get().reshape(K, 2) / np.maximum(cnt, 1)[:, None],
                 c).astype(np.float32)
    # the same iteration in NumPy
    d = ((pts[:, None, :] - c_ref[None].astype(np.float32)) ** 2).sum(-1)
    lab = d.argmin(1)
    c_ref = np.array([pts[lab == k].mean(0) if (lab == k).any() else c_ref[k]
                      for k in range(K)])
moved = float(np.max(np.abs(c - c_ref)))
print(f"{n} points, k = {K}, 10 iterations (backend {drv.get_backend()})")
print("cluster sizes:", np.bincount(label.get(), minlength=K))
print(f"centroids differ from NumPy's by at most {moved:.2e} (float32 atomics add in any order)")

size, colours = 360, np.array([[230, 25, 75], [60, 180, 75], [0, 130, 200], [245, 130, 48],
                               [145, 30, 180]], np.uint8)
img = np.full((size, size, 3), 255, np.uint8)
ij = np.clip(((pts + 12) / 24 * size).astype(int), 0, size - 1)
img[size - 1 - ij[:, 1], ij[:, 0]] = colours[label.get()]
for x, y in np.clip(((c + 12) / 24 * size).astype(int), 3, size - 4):
    img[size - 1 - y - 3:size - 1 - y + 4, x - 3:x + 4] = 0
print("wrote", write_png(out_path("kmeans.png"), img))
sys.exit(0 if moved < 1e-2 else 1)
