"""GPUArray at memory bandwidth (issue 6), on 2^28 float32 (1 GiB) arrays:

  y = 2*x, z = x + y        effective TB/s (bytes read + written) vs device copy
  sum(x), max(x), dot(x,y)  effective read TB/s
  inclusive scan (int32)    TB/s (read + write) vs device copy
  to_gpu / get (pageable)   GB/s
  2*x on 1000 elements      µs per op, end to end (launch + pool allocation)

beside CuPy (x*2.0, x+y, cp.sum, cp.max, cp.dot, cp.cumsum). Device-side times
use events on the default stream, warm-up first, median of many. Each result
is checked against NumPy once.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import numpy as np  # noqa: E402

from common import Recorder, gpu_timer, header, median, now, paired, parse_args  # noqa: E402


def tbps(nbytes, ms):
    return nbytes / (ms * 1e-3) / 1e12


def close(a, b, rtol):
    a = np.asarray(a, np.float64)
    b = np.asarray(b, np.float64)
    den = max(np.linalg.norm(b.ravel()), 1e-30)
    return float(np.linalg.norm((a - b).ravel()) / den) <= rtol


def bench_pycudac(rec, quick):
    import pycudac.autoinit  # noqa: F401
    import pycudac.driver as drv
    from pycudac import gpuarray

    n = (1 << 18) if quick else (1 << 28)
    warm, reps = (1, 3) if quick else (2, 10)
    rng = np.random.default_rng(3)
    xh = rng.random(n, dtype=np.float32) + 0.5
    yh = rng.random(n, dtype=np.float32) + 0.5
    timed, how = gpu_timer()
    x = gpuarray.to_gpu(xh)
    y = gpuarray.to_gpu(yh)

    def measure(metric, fn, nbytes, check=None):
        out = fn()  # warm-up: compile, pool
        if check is not None and not check(out):
            raise AssertionError(f"{metric}: result differs from NumPy")
        del out
        s = []
        for i in range(warm + reps):
            ms = timed(fn)
            if i >= warm:
                s.append(tbps(nbytes, ms))
        rec.value("pycudac", metric, median(s), "TB/s", s, elements=n, bytes=nbytes, timer=how)

    k = min(n, 1 << 16)  # checked prefix
    rec.guard("pycudac", ["scale_TBps"], measure, "scale_TBps", lambda: 2 * x, 2 * n * 4,
              lambda o: np.array_equal(o.get()[:k], 2 * xh[:k]))

    rec.guard("pycudac", ["add_TBps"], measure, "add_TBps", lambda: x + y, 3 * n * 4,
              lambda o: np.array_equal(o.get()[:k], xh[:k] + yh[:k]))
    rec.guard("pycudac", ["sum_TBps"], measure, "sum_TBps", lambda: gpuarray.sum(x), n * 4,
              lambda o: close(o.get(), xh.sum(dtype=np.float64), 1e-4))
    rec.guard("pycudac", ["max_TBps"], measure, "max_TBps", lambda: gpuarray.max(x), n * 4,
              lambda o: float(o.get()) == float(xh.max()))
    rec.guard("pycudac", ["dot_TBps"], measure, "dot_TBps", lambda: gpuarray.dot(x, y), 2 * n * 4,
              lambda o: close(o.get(), np.dot(xh.astype(np.float64), yh), 1e-4))

    def scan():
        from pycudac.scan import InclusiveScanKernel
        knl = InclusiveScanKernel(np.int32, "a+b")
        ih = rng.integers(0, 4, n, dtype=np.int32)
        xi = gpuarray.to_gpu(ih)
        oi = gpuarray.empty_like(xi)
        try:
            knl(xi, oi)
            two_args = True
        except TypeError:
            two_args = False
        if two_args:
            if not np.array_equal(oi.get(), np.cumsum(ih, dtype=np.int32)):
                raise AssertionError("scan result differs from NumPy")
            run = lambda: knl(xi, oi)  # noqa: E731
        else:  # in place, PyCUDA's default
            knl(xi)
            if not np.array_equal(xi.get(), np.cumsum(ih, dtype=np.int32)):
                raise AssertionError("scan result differs from NumPy")
            run = lambda: knl(xi)  # noqa: E731
        s = []
        for i in range(warm + reps):
            ms = timed(run)
            if i >= warm:
                s.append(tbps(2 * n * 4, ms))
        rec.value("pycudac", "scan_TBps", median(s), "TB/s", s, elements=n, dtype="int32",
                  out_of_place=two_args)
    rec.guard("pycudac", ["scan_TBps"], scan)

    def dtod():
        a = gpuarray.empty(n, np.float32)
        b = gpuarray.empty(n, np.float32)
        drv.memset_d32(a.gpudata, 0x3F8CCCCD, n)
        s = []
        for i in range(warm + reps):
            ms = timed(lambda: drv.memcpy_dtod(b.gpudata, a.gpudata, n * 4))
            if i >= warm:
                s.append(tbps(2 * n * 4, ms))
        rec.value("pycudac", "dtod_same_process_TBps", median(s), "TB/s", s, bytes=n * 4)
    rec.guard("pycudac", ["dtod_same_process_TBps"], dtod)

    def transfers():
        m = (16 if quick else 256) << 20
        a = rng.random(m // 4, dtype=np.float32)
        s, g = [], None
        for i in range(warm + reps):
            t0 = now()
            g = gpuarray.to_gpu(a)
            if i >= warm:
                s.append(m / (now() - t0) / 1e9)
        rec.value("pycudac", "to_gpu_GBps", median(s), "GB/s", s, bytes=m)
        s = []
        for i in range(warm + reps):
            t0 = now()
            back = g.get()
            if i >= warm:
                s.append(m / (now() - t0) / 1e9)
        if not np.array_equal(back, a):
            raise AssertionError("to_gpu/get round trip differs")
        rec.value("pycudac", "get_GBps", median(s), "GB/s", s, bytes=m,
                  note="into a new array: includes the first-touch page faults of its memory")
        # get(ary=out) into an array the process already touched: the copy
        # itself, as the floor's pageable D2H measures it
        out = np.empty_like(a)
        out.fill(0)
        s = []
        for i in range(warm + reps):
            t0 = now()
            g.get(ary=out)
            if i >= warm:
                s.append(m / (now() - t0) / 1e9)
        if not np.array_equal(out, a):
            raise AssertionError("get(ary=) differs")
        rec.value("pycudac", "get_into_GBps", median(s), "GB/s", s, bytes=m)
    rec.guard("pycudac", ["to_gpu_GBps", "get_GBps", "get_into_GBps"], transfers)

    def small():
        xs_h = rng.random(1000, dtype=np.float32)
        xs = gpuarray.to_gpu(xs_h)
        if not np.array_equal((2 * xs).get(), 2 * xs_h):
            raise AssertionError("small 2*x differs from NumPy")
        k, batches = (50, 3) if quick else (2000, 15)
        s = []
        for b in range(batches + 1):
            drv.Context.synchronize()
            t0 = now()
            for _ in range(k):
                y = 2 * xs
            drv.Context.synchronize()
            if b:
                s.append((now() - t0) * 1e6 / k)
        del y
        rec.value("pycudac", "small_scale_us", median(s), "us", s, elements=1000)
    rec.guard("pycudac", ["small_scale_us"], small)


def bench_cupy(rec, quick):
    import cupy as cp

    n = (1 << 18) if quick else (1 << 28)
    warm, reps = (1, 3) if quick else (2, 10)
    rng = cp.random.default_rng(4)
    x = rng.random(n, dtype=cp.float32) + 0.5
    y = rng.random(n, dtype=cp.float32) + 0.5
    e0, e1 = cp.cuda.Event(), cp.cuda.Event()

    def measure(metric, fn, nbytes):
        fn()
        s = []
        for i in range(warm + reps):
            e0.record()
            fn()
            e1.record()
            e1.synchronize()
            if i >= warm:
                s.append(tbps(nbytes, cp.cuda.get_elapsed_time(e0, e1)))
        rec.value("cupy", metric, median(s), "TB/s", s, elements=n, bytes=nbytes)

    rec.guard("cupy", ["scale_TBps"], measure, "scale_TBps", lambda: x * 2.0, 2 * n * 4)
    rec.guard("cupy", ["add_TBps"], measure, "add_TBps", lambda: x + y, 3 * n * 4)
    rec.guard("cupy", ["sum_TBps"], measure, "sum_TBps", lambda: cp.sum(x), n * 4)
    rec.guard("cupy", ["max_TBps"], measure, "max_TBps", lambda: cp.max(x), n * 4)
    rec.guard("cupy", ["dot_TBps"], measure, "dot_TBps", lambda: cp.dot(x, y), 2 * n * 4)
    xi = cp.asarray(np.random.default_rng(5).integers(0, 4, n, dtype=np.int32))
    oi = cp.empty_like(xi)
    rec.guard("cupy", ["scan_TBps"], measure, "scan_TBps",
              lambda: cp.cumsum(xi, dtype=cp.int32, out=oi), 2 * n * 4)

    def small():
        xs = cp.asarray(np.random.default_rng(6).random(1000, dtype=np.float32))
        k, batches = (50, 3) if quick else (2000, 15)
        s = []
        for b in range(batches + 1):
            cp.cuda.Device().synchronize()
            t0 = now()
            for _ in range(k):
                ys = xs * 2.0
            cp.cuda.Device().synchronize()
            if b:
                s.append((now() - t0) * 1e6 / k)
        del ys
        rec.value("cupy", "small_scale_us", median(s), "us", s, elements=1000)
    rec.guard("cupy", ["small_scale_us"], small)


def main():
    args = parse_args(__doc__.splitlines()[0])
    rec = Recorder(args)
    header(rec, "gpuarray")
    metrics = ["scale_TBps", "add_TBps", "sum_TBps", "max_TBps", "dot_TBps", "scan_TBps",
               "dtod_same_process_TBps", "to_gpu_GBps", "get_GBps", "small_scale_us"]
    rec.guard("pycudac", metrics, bench_pycudac, rec, args.quick)
    import gc
    gc.collect()
    rec.guard("cupy", [m for m in metrics if m not in ("dtod_same_process_TBps", "to_gpu_GBps",
                                                        "get_GBps")],
              bench_cupy, rec, args.quick)
    return 0


if __name__ == "__main__":
    sys.exit(main())
