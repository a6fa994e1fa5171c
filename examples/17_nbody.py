"""17 · A small real application: an N-body simulation.

N stars attract each other by gravity. Each step every star sums the pull
of all N stars — N^2 interactions, the classic GPU workload (GPU Gems 3,
ch. 31). One thread per star; the block walks through the other stars in
tiles of 128 that it stages in shared memory, so each position is read
from global memory once per block rather than once per thread. Positions
and velocities stay on the device for the whole run (a kick-drift-kick
leapfrog integrator); the host only checks, at the end, that the total
energy was conserved and that the last step agrees with NumPy, and draws
the stars' paths into nbody.png.
"""
import sys

import numpy as np

import pycudac.autoinit  # noqa: F401
import pycudac.driver as drv
from pycudac import gpuarray
from pycudac.compiler import SourceModule
from _png import out_path, write_png

TILE = 128
mod = SourceModule(r"""
#define TILE 128

// acceleration of every star; pos is (x, y, z, mass) per star
__global__ void accelerations(const float4 *pos, float3 *acc, int n, float eps2)
{
    __shared__ float4 tile[TILE];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float4 me = i < n ? pos[i] : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    float3 a = make_float3(0.0f, 0.0f, 0.0f);
    for (int start = 0; start < n; start += TILE) {
        int j = start + threadIdx.x;
        tile[threadIdx.x] = j < n ? pos[j] : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
        __syncthreads();
        for (int k = 0; k < TILE; ++k) {
            float4 o = tile[k];                     // mass 0 past the end: no pull
            float dx = o.x - me.x, dy = o.y - me.y, dz = o.z - me.z;
            float r2 = dx * dx + dy * dy + dz * dz + eps2;   // softened distance
            float inv = rsqrtf(r2);
            float s = o.w * inv * inv * inv;
            a.x += dx * s; a.y += dy * s; a.z += dz * s;
        }
        __syncthreads();
    }
    if (i < n)
        acc[i] = a;
}

// leapfrog: half a kick, a drift; or only the second half kick
__global__ void kick_drift(float4 *pos, float3 *vel, const float3 *acc, int n, float dt,
                           int drift)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float3 v = vel[i], a = acc[i];
    v.x += 0.5f * dt * a.x; v.y += 0.5f * dt * a.y; v.z += 0.5f * dt * a.z;
    vel[i] = v;
    if (drift) {
        float4 p = pos[i];
        p.x += dt * v.x; p.y += dt * v.y; p.z += dt * v.z;
        pos[i] = p;
    }
}
""")
accelerations = mod.get_function("accelerations")
kick_drift = mod.get_function("kick_drift")

n, steps, dt, eps2 = 512, 60, 0.01, 0.05
rng = np.random.default_rng(8)
p = np.zeros((n, 4), np.float32)
radius = rng.uniform(0.2, 1.0, n)
angle = rng.uniform(0, 2 * np.pi, n)
p[:, 0], p[:, 1] = radius * np.cos(angle), radius * np.sin(angle)
p[:, 2] = rng.normal(0, 0.05, n)
p[:, 3] = 1.0 / n                                           # total mass 1
v = np.zeros((n, 3), np.float32)
speed = np.sqrt(radius) * 0.8                               # roughly circular orbits
v[:, 0], v[:, 1] = -speed * np.sin(angle), speed * np.cos(angle)

def energy(p, v):
    d = p[None, :, :3].astype(np.float64) - p[:, None, :3]
    r = np.sqrt((d ** 2).sum(-1) + eps2)
    m = p[:, 3].astype(np.float64)
    potential = -0.5 * (m[:, None] * m[None, :] / r).sum() + 0.5 * (m * m / np.sqrt(eps2)).sum()
    return 0.5 * (m * (v.astype(np.float64) ** 2).sum(-1)).sum() + potential

def acc_numpy(p):
    d = p[None, :, :3].astype(np.float64) - p[:, None, :3]
    r2 = (d ** 2).sum(-1) + eps2
    return (d * (p[None, :, 3] / r2 ** 1.5)[..., None]).sum(1)

pos, vel = gpuarray.to_gpu(p), gpuarray.to_gpu(v)
acc = gpuarray.empty((n, 3), np.float32)
block, grid = (TILE, 1, 1), ((n + TILE - 1) // TILE, 1)
e0 = energy(p, v)
trail = []
accelerations(pos, acc, np.int32(n), np.float32(eps2), block=block, grid=grid)
for step in range(steps):
    kick_drift(pos, vel, acc, np.int32(n), np.float32(dt), np.int32(1), block=block, grid=grid)
    accelerations(pos, acc, np.int32(n), np.float32(eps2), block=block, grid=grid)
    kick_drift(pos, vel, acc, np.int32(n), np.float32(dt), np.int32(0), block=block, grid=grid)
    if step % 3 == 0:
        trail.append(pos.get()[:, :2].copy())
p_end, v_end = pos.get(), vel.get()
e1 = energy(p_end, v_end)
acc_err = float(np.max(np.abs(acc.get() - acc_numpy(p_end))) / np.max(np.abs(acc_numpy(p_end))))
print(f"{n} stars, {steps} leapfrog steps of dt = {dt} (backend {drv.get_backend()})")
print(f"total energy {e0:.6f} -> {e1:.6f} (relative drift {abs(e1 - e0) / abs(e0):.2e})")
print(f"last accelerations vs NumPy's float64 sum: relative error {acc_err:.2e}")

size = 400
img = np.full((size, size, 3), 255, np.uint8)
for k, xy in enumerate(trail):
    shade = np.uint8(200 - 190 * k / max(len(trail) - 1, 1))
    ij = np.clip(((xy + 1.3) / 2.6 * size).astype(int), 0, size - 1)
    img[size - 1 - ij[:, 1], ij[:, 0]] = (shade, shade, 255)
print("wrote", write_png(out_path("nbody.png"), img))
sys.exit(0 if abs(e1 - e0) / abs(e0) < 1e-2 and acc_err < 1e-3 else 1)
