"""pycudac demo (`make demo`): compile two CUDA C kernels at run time, run them
on the GPU when there is one (else on the CPU simulator), check the results
against NumPy, and say what ran where.

    SAXPY              y = a*x + y, one thread per element
    block_sum          a tree reduction in shared memory (__syncthreads in
                       the loop), one partial sum per block, finished on the host

Run it twice: the second run finds the compiled kernels in the on-disk cache.
PYCUDAC_BACKEND=sim forces the simulator; =cuda refuses to fall back.
"""
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
if os.path.isdir(os.path.join(ROOT, "pycudac")) and ROOT not in sys.path:
    sys.path.insert(0, ROOT)  # the in-place build of this tree (`make build`)

import numpy as np  # noqa: E402

SOURCE = r"""
__global__ void saxpy(float a, const float *x, float *y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = a * x[i] + y[i];
}

#define BLOCK 256

__global__ void block_sum(const float *in, float *partial, int n)
{
    __shared__ float s[BLOCK];
    unsigned int t = threadIdx.x;
    unsigned int i = blockIdx.x * BLOCK + t;
    s[t] = i < n ? in[i] : 0.0f;
    __syncthreads();
    for (unsigned int k = BLOCK / 2; k > 0; k >>= 1) {
        if (t < k)
            s[t] += s[t + k];
        __syncthreads();
    }
    if (t == 0)
        partial[blockIdx.x] = s[0];
}
"""

BLOCK = 256


def cache_dir():
    """Where the compile cache lives (the documented order)."""
    try:
        from pycudac import compiler
        for name in ("cache_path", "cache_dir"):
            fn = getattr(compiler, name, None)
            if callable(fn):
                return str(fn())
    except Exception:
        pass
    if os.environ.get("PYCUDAC_CACHE_DIR"):
        return os.environ["PYCUDAC_CACHE_DIR"]
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "pycudac")


def count_entries(path):
    n = 0
    for _, _, files in os.walk(path):
        n += len(files)
    return n


def main():
    try:
        import pycudac.autoinit  # noqa: F401  (device 0's primary context)
        import pycudac.driver as drv
        from pycudac.compiler import SourceModule
    except Exception as exc:
        print(f"pycudac could not start: {type(exc).__name__}: {exc}")
        return 1

    backend = drv.get_backend()
    try:
        dev = drv.Context.get_device()
        major, minor = dev.compute_capability()
        where = f"{dev.name()} (compute capability {major}.{minor})"
    except Exception as exc:
        where = f"device details unavailable ({type(exc).__name__}: {exc})"
    print(f"backend : {backend}" + ("   (no GPU found: the CPU simulator runs the kernels)"
                                    if backend == "sim" else ""))
    print(f"device  : {where}")

    cdir = cache_dir()
    before = count_entries(cdir) if os.path.isdir(cdir) else 0
    t0 = time.perf_counter()
    mod = SourceModule(SOURCE)
    compile_s = time.perf_counter() - t0
    after = count_entries(cdir) if os.path.isdir(cdir) else 0
    hit = getattr(mod, "from_cache", None)
    if hit is None:
        hit = after == before and after > 0  # nothing new written: it was there
    print(f"compile : {compile_s * 1e3:.1f} ms, cache {'hit' if hit else 'miss'} ({cdir})")

    n = (1 << 20) if backend == "cuda" else (1 << 18)
    rng = np.random.default_rng()
    ok = True

    # SAXPY
    saxpy = mod.get_function("saxpy")
    a = np.float32(2.5)
    x = rng.standard_normal(n).astype(np.float32)
    y = rng.standard_normal(n).astype(np.float32)
    dx, dy = drv.mem_alloc(x.nbytes), drv.mem_alloc(y.nbytes)
    drv.memcpy_htod(dx, x)
    drv.memcpy_htod(dy, y)
    grid = (n + BLOCK - 1) // BLOCK
    t0 = time.perf_counter()
    saxpy(a, dx, dy, n, block=(BLOCK, 1, 1), grid=(grid, 1))
    drv.Context.synchronize()
    run_ms = (time.perf_counter() - t0) * 1e3
    out = np.empty_like(y)
    drv.memcpy_dtoh(out, dy)
    ref = a * x + y
    err = float(np.max(np.abs(out - ref)))
    good = err <= 1e-5 * float(np.max(np.abs(ref)))
    ok &= good
    print(f"saxpy   : n={n}, block={BLOCK}, grid={grid}, {run_ms:.2f} ms, "
          f"max error {err:.2e} {'OK' if good else 'WRONG'}")

    # shared-memory tree reduction
    block_sum = mod.get_function("block_sum")
    dpart = drv.mem_alloc(grid * 4)
    t0 = time.perf_counter()
    block_sum(dx, dpart, n, block=(BLOCK, 1, 1), grid=(grid, 1))
    drv.Context.synchronize()
    run_ms = (time.perf_counter() - t0) * 1e3
    part = np.empty(grid, np.float32)
    drv.memcpy_dtoh(part, dpart)
    total = float(part.astype(np.float64).sum())
    ref_total = float(x.astype(np.float64).sum())
    rel = abs(total - ref_total) / max(float(np.abs(x).astype(np.float64).sum()), 1e-30)
    good = rel < 1e-5
    ok &= good
    print(f"sum     : n={n}, {grid} blocks of {BLOCK}, {run_ms:.2f} ms, "
          f"sum {total:.6g} vs NumPy {ref_total:.6g} (rel error {rel:.1e}) "
          f"{'OK' if good else 'WRONG'}")

    print("result  : " + ("all results match NumPy" if ok else "MISMATCH against NumPy"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
