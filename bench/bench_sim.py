"""Simulator speed (issue 5): on the CPU simulator backend, a vector add of
1M float32 (block 256) and a shared-memory tree reduction of 1M float32
(block 256, __syncthreads in the loop), per launch after the first, beside
NumPy doing the same computation (info rows). The targets (issue 26) are
ratios to numba-cuda's simulator (NUMBA_ENABLE_CUDASIM=1) running the same
two kernels, written for numba, in the same run: at 4K elements (16 blocks),
a size its Python thread per CUDA thread runs in seconds; pycudac's
simulator is timed on the same size. Without numba the reference rows are
n/a with the reason. Each result is checked against NumPy.

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
N_SMALL = 1 << 12   # the size both simulators run for the ratio targets
BLOCK = 256


def cpu_count():
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count()


def numba_sim(rec, a, b, reps):
    """numba-cuda's simulator on the same two kernels (the reference of the
    ratio targets); numba is imported here only, with its simulator on."""
    # module globals: the simulator swaps the kernels' global `cuda` for its
    # per-thread stand-in, and cannot reach a closure's
    global cuda, float32
    os.environ["NUMBA_ENABLE_CUDASIM"] = "1"
    from numba import cuda, float32

    @cuda.jit
    def vadd(x, y, z, n):
        i = cuda.blockIdx.x * cuda.blockDim.x + cuda.threadIdx.x
        if i < n:
            z[i] = x[i] + y[i]

    @cuda.jit
    def tree_sum(x, out, n):
        s = cuda.shared.array(256, float32)
        t = cuda.threadIdx.x
        i = cuda.blockIdx.x * cuda.blockDim.x + t
        s[t] = x[i] if i < n else 0.0
        cuda.syncthreads()
        k = cuda.blockDim.x // 2
        while k > 0:
            if t < k:
                s[t] += s[t + k]
            cuda.syncthreads()
            k //= 2
        if t == 0:
            out[cuda.blockIdx.x] = s[0]

    n = a.size
    g = n // BLOCK
    z = np.empty_like(a)
    part = np.empty(g, np.float32)
    vadd[1, 32](a, b, z, 32)  # its first launch sets the simulator up
    for metric, run, check in (
            ("sim_vadd_small_ms", lambda: vadd[g, BLOCK](a, b, z, n),
             lambda: np.allclose(z, a + b)),
            ("sim_reduce_small_ms", lambda: tree_sum[g, BLOCK](a, part, n),
             lambda: np.allclose(part, a.astype(np.float64).reshape(g, BLOCK).sum(axis=1),
                                 rtol=1e-5))):
        s = []
        for _ in range(reps):
            t0 = now()
            run()
            s.append((now() - t0) * 1e3)
        if not check():
            raise AssertionError(f"numba-cuda simulator: {metric} differs from NumPy")
        rec.value("numba-cudasim", metric, median(s), "ms", s, elements=n, block=BLOCK)


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

    def small(metric, name):
        """pycudac's simulator at N_SMALL, as numba's is timed below."""
        f = mod.get_function(name)
        g = N_SMALL // BLOCK
        x, y = a[:N_SMALL].copy(), b[:N_SMALL].copy()
        dx, dy, dz = drv.mem_alloc(x.nbytes), drv.mem_alloc(y.nbytes), drv.mem_alloc(x.nbytes)
        drv.memcpy_htod(dx, x)
        drv.memcpy_htod(dy, y)
        if name == "vadd":
            def launch():
                f(dx, dy, dz, np.int32(N_SMALL), block=(BLOCK, 1, 1), grid=(g, 1))
                drv.Context.synchronize()
        else:
            def launch():
                f(dx, dz, np.int32(N_SMALL), block=(BLOCK, 1, 1), grid=(g, 1))
                drv.Context.synchronize()
        launch()
        s = []
        for _ in range(reps):
            t0 = now()
            launch()
            s.append((now() - t0) * 1e3)
        out = np.empty(N_SMALL if name == "vadd" else g, np.float32)
        drv.memcpy_dtoh(out, dz)
        want = x + y if name == "vadd" else x.astype(np.float64).reshape(g, BLOCK).sum(axis=1)
        if not np.allclose(out, want, rtol=1e-5):
            raise AssertionError(f"{name} at {N_SMALL} differs from NumPy")
        rec.value("pycudac", metric, median(s), "ms", s, elements=N_SMALL, block=BLOCK)
    rec.guard("pycudac", ["sim_vadd_small_ms"], small, "sim_vadd_small_ms", "vadd")
    rec.guard("pycudac", ["sim_reduce_small_ms"], small, "sim_reduce_small_ms", "tree_sum")
    rec.guard("numba-cudasim", ["sim_vadd_small_ms", "sim_reduce_small_ms"], numba_sim, rec,
              a[:N_SMALL].copy(), b[:N_SMALL].copy(), 1 if args.quick else 2)

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
