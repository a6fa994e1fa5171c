"""Simulator speed (issue 5): on the CPU simulator backend, a vector add of
1M float32 (block 256) and a shared-memory tree reduction of 1M float32
(block 256, __syncthreads in the loop), per launch after the first, beside
NumPy doing the same computation. Targets (2 CPU cores): < 50 ms and
< 500 ms. Each result is checked against NumPy.

Runs on any machine (it forces PYCUDAC_BACKEND=sim). To hold it to the
target's two cores on a bigger machine: `taskset -c 0,1 python3 bench/bench_sim.py`.
"""
import os
import sys

os.environ["PYCUDAC_BACKEND"] = "sim"
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import numpy as np  # noqa: E402

from common import Recorder, header, median, now, parse_args  # noqa: E402

SRC = r"""
__global__ void vadd(const float *a, const float *b, float *c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        c[i] = a[i] + b[i];
}

__global__ void tree_sum(const float *in, float *out, int n)
{
    __shared__ float s[256];
    unsigned int t = threadIdx.x;
    unsigned int i = blockIdx.x * blockDim.x + t;
    s[t] = i < n ? in[i] : 0.0f;
    __syncthreads();
    for (unsigned int k = blockDim.x / 2; k > 0; k >>= 1) {
        if (t < k)
            s[t] += s[t + k];
        __syncthreads();
    }
    if (t == 0)
        out[blockIdx.x] = s[0];
}
"""

N = 1 << 20
BLOCK = 256


def cpu_count():
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count()


def main():
    args = parse_args(__doc__.splitlines()[0])
    rec = Recorder(args)
    header(rec, f"simulator speed, {cpu_count()} CPU cores usable")
    reps = 3 if args.quick else 7
    rng = np.random.default_rng(7)
    a = rng.random(N, dtype=np.float32)
    b = rng.random(N, dtype=np.float32)
    grid = (N + BLOCK - 1) // BLOCK

    def np_time(fn):
        fn()
        s = []
        for _ in range(reps * 3):
            t0 = now()
            fn()
            s.append((now() - t0) * 1e3)
        return s

    c_np = np.empty_like(a)
    s = np_time(lambda: np.add(a, b, out=c_np))
    rec.value("numpy", "sim_vadd_ms", median(s), "ms", s, elements=N)
    s = np_time(lambda: a.sum())
    rec.value("numpy", "sim_reduce_ms", median(s), "ms", s, elements=N)

    state = {}

    def setup():
        import pycudac.autoinit  # noqa: F401
        import pycudac.driver as drv
        from pycudac.compiler import SourceModule
        t0 = now()
        mod = SourceModule(SRC)
        rec.info("pycudac", "sim_compile", seconds=round(now() - t0, 3),
                 backend=drv.get_backend())
        if drv.get_backend() != "sim":
            raise RuntimeError(f"backend is {drv.get_backend()}, not sim")
        state.update(drv=drv, mod=mod)
    rec.guard("pycudac", ["sim_vadd_ms", "sim_reduce_ms"], setup)
    if not state:
        return 0
    drv, mod = state["drv"], state["mod"]

    def vadd():
        f = mod.get_function("vadd")
        da, db, dc = drv.mem_alloc(a.nbytes), drv.mem_alloc(b.nbytes), drv.mem_alloc(a.nbytes)
        drv.memcpy_htod(da, a)
        drv.memcpy_htod(db, b)

        def launch():
            f(da, db, dc, np.int32(N), block=(BLOCK, 1, 1), grid=(grid, 1))
            drv.Context.synchronize()
        t0 = now()
        launch()  # the first launch (loads, spins up workers)
        first = (now() - t0) * 1e3
        s = []
        for _ in range(reps):
            t0 = now()
            launch()
            s.append((now() - t0) * 1e3)
        c = np.empty_like(a)
        drv.memcpy_dtoh(c, dc)
        if not np.array_equal(c, a + b):
            raise AssertionError("vadd result differs from NumPy")
        rec.value("pycudac", "sim_vadd_ms", median(s), "ms", s, elements=N, block=BLOCK,
                  first_ms=first)
    rec.guard("pycudac", ["sim_vadd_ms"], vadd)

    def reduce():
        f = mod.get_function("tree_sum")
        din, dout = drv.mem_alloc(a.nbytes), drv.mem_alloc(grid * 4)
        drv.memcpy_htod(din, a)

        def launch():
            f(din, dout, np.int32(N), block=(BLOCK, 1, 1), grid=(grid, 1))
            drv.Context.synchronize()
        t0 = now()
        launch()
        first = (now() - t0) * 1e3
        s = []
        for _ in range(reps):
            t0 = now()
            launch()
            s.append((now() - t0) * 1e3)
        part = np.empty(grid, np.float32)
        drv.memcpy_dtoh(part, dout)
        ref = a.astype(np.float64).reshape(grid, BLOCK).sum(axis=1)
        err = float(np.abs(part - ref).max() / np.abs(ref).max())
        if not err < 1e-5:
            raise AssertionError(f"tree_sum partial sums differ from NumPy (rel err {err:.2e})")
        rec.value("pycudac", "sim_reduce_ms", median(s), "ms", s, elements=N, block=BLOCK,
                  first_ms=first, rel_err=err)
    rec.guard("pycudac", ["sim_reduce_ms"], reduce)
    return 0


if __name__ == "__main__":
    sys.exit(main())
