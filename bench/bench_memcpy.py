"""Copies (issue 2): pinned H2D/D2H and pageable H2D of 256 MiB, a 4-byte
memcpy_htod, and a 1 GiB device-to-device copy — through pycudac, beside
CuPy. The C floor of the same calls is bench/out/floor (pinned, pageable,
small, dtod); bench/report.py puts them side by side.

Copies are timed with the host clock around the call and a context
synchronize (as the floor does); the device-to-device copy with events.
"""
import itertools
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import numpy as np  # noqa: E402

from common import Recorder, gpu_timer, header, load_floor, median, now, paired, \
    parse_args  # noqa: E402


def gbps(nbytes, seconds):
    return nbytes / seconds / 1e9


def alternate(turns, warm, rounds):
    """Runs each (name, fn) of `turns` `warm` times untimed, then `rounds`
    times, in an order that flips every round (so that neither side always
    runs first); returns {name: [what fn returned, per round]}."""
    for _, fn in turns:
        for _ in range(warm):
            fn()
    got = {name: [] for name, _ in turns}
    for r in range(rounds):
        for name, fn in (turns if r % 2 == 0 else turns[::-1]):
            got[name].append(fn())
    return got


def bench_pycudac(rec, quick, floor_lib):
    import pycudac.autoinit  # noqa: F401
    import pycudac.driver as drv

    nbytes = (16 if quick else 256) << 20
    warm, reps = (1, 3) if quick else (2, 11)
    rng = np.random.default_rng(1)
    d = drv.mem_alloc(nbytes)

    sync = drv.Context.synchronize

    def timed_copy(fn):
        def one():
            t0 = now()
            fn()
            sync()  # a pageable H2D copy may return before its last DMA lands
            return gbps(nbytes, now() - t0)
        return one

    def floor_call(fn, *args):
        """fn(*args) of the C floor in this process; its error raised."""
        v = fn(*args)
        if v < 0:
            raise RuntimeError(floor_lib.floor_error().decode(errors="replace"))
        return v

    def pinned():
        """256 MiB copies between page-locked memory and the device, one at a
        time, alternating with the C floor's copies of the same host buffer
        in this process when it loads (a paired ratio: what a host's PCIe
        gives moves between the floor's process and this one)."""
        h = drv.pagelocked_empty(nbytes // 4, np.float32)
        h[:] = rng.random(nbytes // 4, dtype=np.float32)
        back = drv.pagelocked_empty(nbytes // 4, np.float32)
        for to_host, metric, host, mine in (
                (0, "pinned_h2d_GBps", h, lambda: drv.memcpy_htod(d, h)),
                (1, "pinned_d2h_GBps", back, lambda: drv.memcpy_dtoh(back, d))):
            turns = [("mine", timed_copy(mine))]
            if floor_lib is not None:
                turns.append(("floor", lambda host=host, to_host=to_host: floor_call(
                    floor_lib.floor_copy_GBps, host.ctypes.data, nbytes, to_host)))
            got = alternate(turns, warm, reps)
            s, f = got["mine"], got.get("floor")
            pair = paired([a / b for a, b in zip(s, f)]) if f else {}
            rec.value("pycudac", metric, median(s), "GB/s", s, bytes=nbytes, **pair)
            if f:
                rec.value("floor-inproc", metric, median(f), "GB/s", f, bytes=nbytes)
        if not np.array_equal(back, h):
            raise AssertionError("pinned round trip returned different data")
    rec.guard("pycudac", ["pinned_h2d_GBps", "pinned_d2h_GBps"], pinned)

    def pageable():
        a = rng.random(nbytes // 4, dtype=np.float32)  # ordinary, touched
        for _ in range(warm):
            drv.memcpy_htod(d, a)
        s = [timed_copy(lambda: drv.memcpy_htod(d, a))() for _ in range(reps)]
        rec.value("pycudac", "pageable_h2d_GBps", median(s), "GB/s", s, bytes=nbytes)
        back = np.empty_like(a)
        back[:] = 0.5  # touched
        for _ in range(warm):
            drv.memcpy_dtoh(back, d)
        s = [timed_copy(lambda: drv.memcpy_dtoh(back, d))() for _ in range(reps)]
        if not np.array_equal(back, a):
            raise AssertionError("pageable round trip returned different data")
        rec.value("pycudac", "pageable_d2h_GBps", median(s), "GB/s", s, bytes=nbytes)
    rec.guard("pycudac", ["pageable_h2d_GBps", "pageable_d2h_GBps"], pageable)

    def small():
        """4-byte memcpy_htod batches, alternating with the C floor's
        cuMemcpyHtoD batches in this process when it loads (a paired ratio)."""
        d4 = drv.mem_alloc(4)
        x = np.array([1.25], np.float32)
        n, batches = (200, 5) if quick else (2000, 25)

        def mine():
            t0 = now()
            for _ in itertools.repeat(None, n):
                drv.memcpy_htod(d4, x)
            return (now() - t0) * 1e6 / n

        turns = [("mine", mine)]
        if floor_lib is not None:
            turns.append(("floor", lambda: floor_call(floor_lib.floor_htod_small_us, n)))
        got = alternate(turns, 1, batches)
        s, f = got["mine"], got.get("floor")
        pair = paired([a / b for a, b in zip(s, f)]) if f else {}
        rec.value("pycudac", "htod_4B_us", median(s), "us", s, bytes=4, host="pageable", **pair)
        if f:
            rec.value("floor-inproc", "htod_4B_us", median(f), "us", f, bytes=4,
                      host="pageable")
    rec.guard("pycudac", ["htod_4B_us"], small)

    def dtod():
        big = (64 if quick else 1024) << 20
        a, b = drv.mem_alloc(big), drv.mem_alloc(big)
        drv.memset_d32(a, 0x3F8CCCCD, big // 4)
        timed, how = gpu_timer()
        s = []
        for i in range(warm + reps):
            ms = timed(lambda: drv.memcpy_dtod(b, a, big))
            if i >= warm:
                s.append(2 * big / (ms * 1e-3) / 1e12)
        rec.value("pycudac", "dtod_TBps", median(s), "TB/s", s, bytes=big,
                  counted="read+write", timer=how)
        a.free()
        b.free()
    rec.guard("pycudac", ["dtod_TBps"], dtod)
    d.free()


def bench_cupy(rec, quick):
    import cupy as cp

    nbytes = (16 if quick else 256) << 20
    warm, reps = (1, 3) if quick else (2, 11)
    n = nbytes // 4
    rng = np.random.default_rng(2)
    d = cp.empty(n, dtype=cp.float32)
    stream = cp.cuda.get_current_stream()

    def one(fn):
        t0 = now()
        fn()
        stream.synchronize()
        return gbps(nbytes, now() - t0)

    def pinned():
        mem = cp.cuda.alloc_pinned_memory(nbytes)
        h = np.frombuffer(mem, np.float32, n)
        h[:] = rng.random(n, dtype=np.float32)
        s = [one(lambda: d.set(h)) for _ in range(warm + reps)][warm:]
        rec.value("cupy", "pinned_h2d_GBps", median(s), "GB/s", s, bytes=nbytes)
        s = [one(lambda: d.get(out=h)) for _ in range(warm + reps)][warm:]
        rec.value("cupy", "pinned_d2h_GBps", median(s), "GB/s", s, bytes=nbytes)
    rec.guard("cupy", ["pinned_h2d_GBps", "pinned_d2h_GBps"], pinned)

    def pageable():
        a = rng.random(n, dtype=np.float32)
        s = [one(lambda: d.set(a)) for _ in range(warm + reps)][warm:]
        rec.value("cupy", "pageable_h2d_GBps", median(s), "GB/s", s, bytes=nbytes)
    rec.guard("cupy", ["pageable_h2d_GBps"], pageable)

    def small():
        d4 = cp.empty(1, dtype=cp.float32)
        x = np.array([1.25], np.float32)
        k, batches = (200, 5) if quick else (2000, 15)
        s = []
        for b in range(batches + 1):
            t0 = now()
            for _ in range(k):
                d4.set(x)
            stream.synchronize()
            if b:
                s.append((now() - t0) * 1e6 / k)
        rec.value("cupy", "htod_4B_us", median(s), "us", s, bytes=4, host="pageable")
    rec.guard("cupy", ["htod_4B_us"], small)

    def dtod():
        big = (64 if quick else 1024) << 20
        a = cp.full(big // 4, 1.1, dtype=cp.float32)
        b = cp.empty_like(a)
        e0, e1 = cp.cuda.Event(), cp.cuda.Event()
        s = []
        for i in range(warm + reps):
            e0.record()
            b.data.copy_from_device(a.data, big)
            e1.record()
            e1.synchronize()
            if i >= warm:
                s.append(2 * big / (cp.cuda.get_elapsed_time(e0, e1) * 1e-3) / 1e12)
        rec.value("cupy", "dtod_TBps", median(s), "TB/s", s, bytes=big, counted="read+write")
    rec.guard("cupy", ["dtod_TBps"], dtod)


def floor_here(args):
    """The C floor in this process (after pycudac made its context current),
    for the paired 4-byte copy; None when it is not built or will not load
    (pycudac's own failure is then reported by its rows)."""
    try:
        import pycudac.autoinit  # noqa: F401
        from common import pycudac_nvrtc_path
        lib, _ = load_floor(args.floor_lib, pycudac_nvrtc_path())
        return lib
    except Exception:
        return None


def main():
    args = parse_args(__doc__.splitlines()[0])
    rec = Recorder(args)
    header(rec, "copies")
    rec.guard("pycudac", ["pinned_h2d_GBps", "pinned_d2h_GBps", "pageable_h2d_GBps",
                          "pageable_d2h_GBps", "htod_4B_us", "dtod_TBps"],
              bench_pycudac, rec, args.quick, floor_here(args))
    rec.guard("cupy", ["pinned_h2d_GBps", "pinned_d2h_GBps", "pageable_h2d_GBps",
                       "htod_4B_us", "dtod_TBps"], bench_cupy, rec, args.quick)
    return 0


if __name__ == "__main__":
    sys.exit(main())
