"""bench/bench_multi.py — issue 23's figures on two GPUs, each a paired ratio
(the two sides alternate, round after round, in one process or one pair of
ranks, and the median of the per-round ratios is the figure):

  peer copy GB/s      memcpy_peer_async loop, device 0 -> device 1, against
                      the C floor's cuMemcpyPeerAsync loop (bench/floor_multi.c)
                      on the same memory and contexts: target >= 0.97x
  IPC open+close us   IPCMemoryHandle(h).close() of another process's memory,
                      against cuIpcOpenMemHandle + cuIpcCloseMemHandle: <= 1.10x
  pool alloc+free us  pool.allocate(n, stream).free(), against
                      cuMemAllocFromPoolAsync + cuMemFreeAsync on the same pool
                      and stream: <= 1.50x (a Python object per allocation)
  all-reduce busbw    nccl4py's allreduce of a 1 GiB float32 GPUArray, two ranks
                      (one process per GPU), against the same all-reduce of a
                      CuPy array (else of nccl4py's own buffer): >= 0.97x

    python3 bench/bench_multi.py [--quick] [--json PATH] [--allow-na]

Exit status: 0 when every row passed; 1 when a target was missed or a row
could not be measured (n/a), unless --allow-na (a smoke run: --quick on
the simulator, where there is no libcuda for the floor and no NCCL).
Every process it starts runs with NCCL_NVLS_ENABLE=0.
"""
import ctypes
import multiprocessing as mp
import os
import sys
import time

os.environ.setdefault("NCCL_NVLS_ENABLE", "0")  # never NVLink multicast (NVLS)

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import ROOT, Recorder, fmt, median, paired  # noqa: E402

FLOOR_LIB = os.path.join(ROOT, "bench", "out", "libfloor_multi.so")
MiB = 1 << 20

# (label, metric, kind, bound): kind "ge": ratio >= bound; "le": ratio <= bound
TARGETS = [
    ("peer copy GB/s, 0 -> 1", "peer_copy_GBps", "ge", 0.97),
    ("IPC open+close us", "ipc_open_close_us", "le", 1.10),
    ("pool alloc+free us", "pool_alloc_free_us", "le", 1.50),
    ("all-reduce busbw GB/s, 1 GiB", "allreduce_busbw_GBps", "ge", 0.97),
]


def load_floor():
    if not os.path.exists(FLOOR_LIB):
        return None, (f"{FLOOR_LIB} not built (cc -O2 -fPIC -shared -Iinclude "
                      "bench/floor_multi.c -ldl)")
    try:
        lib = ctypes.CDLL(FLOOR_LIB)
    except OSError as exc:
        return None, f"cannot load {FLOOR_LIB}: {exc}"
    vp, sz, i = ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int
    lib.fm_error.restype = ctypes.c_char_p
    lib.fm_peer_GBps.argtypes = [vp, ctypes.c_uint64, vp, ctypes.c_uint64, vp, sz, i]
    lib.fm_peer_GBps.restype = ctypes.c_double
    lib.fm_ipc_open_close_us.argtypes = [vp, ctypes.c_char_p, i]
    lib.fm_ipc_open_close_us.restype = ctypes.c_double
    lib.fm_pool_alloc_free_us.argtypes = [vp, vp, vp, sz, i]
    lib.fm_pool_alloc_free_us.restype = ctypes.c_double
    if lib.fm_init() < 0:
        return None, lib.fm_error().decode(errors="replace")
    return lib, None


def checked(lib, value):
    if value < 0:
        raise RuntimeError(lib.fm_error().decode(errors="replace"))
    return value


def alternate(rounds, mine, floor):
    """Per round (order alternating): (mine, floor)."""
    out = []
    for r in range(rounds):
        if r % 2:
            f = floor()
            m = mine()
        else:
            m = mine()
            f = floor()
        out.append((m, f))
    return out


def record_pair(rec, metric, unit, pairs, ref_name, kind):
    mine = [m for m, _ in pairs]
    ref = [f for _, f in pairs]
    ratios = [m / f for m, f in pairs]
    rec.value("pycudac", metric, median(mine), unit, mine, **paired(ratios))
    rec.value(ref_name, metric, median(ref), unit, ref)
    return median(ratios)


# ---- peer copies -----------------------------------------------------------------

def bench_peer(rec, q, lib, c0, c1):
    import pycudac.driver as drv
    n = (8 if q else 256) * MiB
    reps, rounds = (3, 3) if q else (10, 9)
    with c0:
        a = drv.mem_alloc(n)
        drv.memset_d8(a, 1, n)
    with c1:
        b = drv.mem_alloc(n)
        for peer in (c0,):
            try:
                drv.Context.enable_peer_access(peer)
            except drv.LogicError as exc:
                if getattr(exc, "code", 0) != 704:  # already enabled is fine
                    raise
    with c0:
        try:
            drv.Context.enable_peer_access(c1)
        except drv.LogicError as exc:
            if getattr(exc, "code", 0) != 704:
                raise
    with c1:
        s = drv.Stream(flags=drv.stream_flags.NON_BLOCKING)

        def mine():
            drv.memcpy_peer_async(b, a, n, stream=s)  # untimed, as the floor's first
            s.synchronize()
            t0 = time.perf_counter()
            for _ in range(reps):
                drv.memcpy_peer_async(b, a, n, stream=s)
            s.synchronize()
            return n * reps / (time.perf_counter() - t0) / 1e9

        def floor():
            return checked(lib, lib.fm_peer_GBps(c1.handle, int(b), c1.handle, int(a),
                                                 c0.handle, n, reps))
        if lib is None:
            rec.value("pycudac", "peer_copy_GBps", median([mine() for _ in range(rounds)]),
                      "GB/s")
            return None
        return record_pair(rec, "peer_copy_GBps", "GB/s", alternate(rounds, mine, floor),
                           "floor", "ge")


# ---- IPC open --------------------------------------------------------------------

def _exporter(device, conn):
    """A spawned process holding 64 MiB on `device` until told to stop."""
    os.environ["CUDA_DEVICE"] = str(device)
    import pycudac.autoinit  # noqa: F401
    import pycudac.driver as drv
    a = drv.mem_alloc(64 * MiB)
    conn.send(bytes(drv.mem_get_ipc_handle(a)))
    conn.recv()
    a.free()


def bench_ipc(rec, q, lib, c0, exporter_device):
    import pycudac.driver as drv
    reps, rounds = (5, 3) if q else (50, 9)
    ctx = mp.get_context("spawn")
    here, there = ctx.Pipe()
    p = ctx.Process(target=_exporter, args=(exporter_device, there))
    p.start()
    try:
        if not here.poll(120):
            raise RuntimeError("the exporting process sent no handle in 120 s")
        h = here.recv()
        with c0:
            drv.IPCMemoryHandle(h).close()  # first map: untimed

            def mine():
                t0 = time.perf_counter()
                for _ in range(reps):
                    drv.IPCMemoryHandle(h).close()
                return (time.perf_counter() - t0) * 1e6 / reps

            def floor():
                return checked(lib, lib.fm_ipc_open_close_us(c0.handle, h, reps))
            if lib is None:
                rec.value("pycudac", "ipc_open_close_us",
                          median([mine() for _ in range(rounds)]), "us")
                return None
            return record_pair(rec, "ipc_open_close_us", "us", alternate(rounds, mine, floor),
                               "floor", "le")
    finally:
        try:
            here.send("stop")
        except OSError:
            pass
        p.join(60)
        if p.is_alive():
            p.terminate()


# ---- pool allocation --------------------------------------------------------------

def bench_pool(rec, q, lib, c0):
    import pycudac.driver as drv
    n = MiB
    reps, rounds = (50, 3) if q else (2000, 9)
    with c0:
        pool = drv.DeviceMemoryResource()
        pool.release_threshold = 1 << 30  # freed blocks stay: the steady state
        s = drv.Stream(flags=drv.stream_flags.NON_BLOCKING)
        allocate = pool.allocate

        def mine():
            t0 = time.perf_counter()
            for _ in range(reps):
                allocate(n, s).free()
            dt = time.perf_counter() - t0
            s.synchronize()
            return dt * 1e6 / reps

        def floor():
            return checked(lib, lib.fm_pool_alloc_free_us(c0.handle, pool.handle, s.handle, n,
                                                          reps))
        mine()
        if lib is None:
            rec.value("pycudac", "pool_alloc_free_us", median([mine() for _ in range(rounds)]),
                      "us")
            return None
        return record_pair(rec, "pool_alloc_free_us", "us", alternate(rounds, mine, floor),
                           "floor", "le")


# ---- all-reduce through nccl4py ----------------------------------------------------

def _allreduce_rank(rank, nranks, nbytes, rounds, iters, link, results):
    try:
        os.environ["CUDA_DEVICE"] = str(rank)
        import numpy as np
        import pycudac.autoinit  # noqa: F401
        import pycudac.driver as drv
        from pycudac import gpuarray
        import nccl.core as nccl
        if rank == 0:
            uid = nccl.get_unique_id().as_bytes
            for c in link:
                c.send(uid)
        else:
            uid = link.recv()
        comm = nccl.Communicator.init(nranks, rank, nccl.UniqueId.from_bytes(uid))
        n = nbytes // 4
        mine = gpuarray.empty(n, np.float32)
        mine.fill(1.0)
        try:
            import cupy as cp
            cp.cuda.Device(rank).use()
            ref, ref_name = cp.ones(n, dtype=cp.float32), "cupy"
        except ImportError:
            ref, ref_name = nccl.mem_alloc(nbytes), "nccl4py Buffer"
        s = drv.Stream(flags=drv.stream_flags.NON_BLOCKING)
        drv.Context.synchronize()

        def run(buf):
            comm.allreduce(buf, buf, nccl.SUM, stream=s.handle)  # warm-up, untimed
            s.synchronize()
            t0 = time.perf_counter()
            for _ in range(iters):
                comm.allreduce(buf, buf, nccl.SUM, stream=s.handle)
            s.synchronize()
            t = (time.perf_counter() - t0) / iters
            return nbytes / t * 2 * (nranks - 1) / nranks / 1e9  # bus bandwidth

        pairs = []
        for r in range(rounds):
            if r % 2:
                f = run(ref)
                m = run(mine)
            else:
                m = run(mine)
                f = run(ref)
            pairs.append((m, f))
        # and the sum is right: ones summed over the ranks
        mine.fill(1.0)
        comm.allreduce(mine, mine, nccl.SUM, stream=s.handle)
        s.synchronize()
        ok = bool((mine[:1024].get() == nranks).all())
        comm.destroy()
        results.put((rank, {"pairs": pairs, "ref": ref_name, "ok": ok,
                            "version": getattr(nccl, "__version__", "?")}))
    except BaseException as exc:
        results.put((rank, f"{type(exc).__name__}: {exc}"))


def bench_allreduce(rec, q):
    nbytes = (64 if q else 1024) * MiB
    rounds, iters = (3, 2) if q else (7, 5)
    ctx = mp.get_context("spawn")
    pipes = [ctx.Pipe() for _ in range(1)]
    results = ctx.Queue()
    procs = [ctx.Process(target=_allreduce_rank,
                         args=(r, 2, nbytes, rounds, iters,
                               [p[0] for p in pipes] if r == 0 else pipes[0][1], results))
             for r in range(2)]
    for p in procs:
        p.start()
    try:
        out = dict(results.get(timeout=300) for _ in procs)
    finally:
        for p in procs:
            p.join(60)
            if p.is_alive():
                p.terminate()
    bad = {r: o for r, o in out.items() if not isinstance(o, dict)}
    if bad:
        raise RuntimeError(f"a rank failed: {bad}")
    if not all(o["ok"] for o in out.values()):
        raise RuntimeError("the all-reduce of the GPUArray gave a wrong sum")
    r0 = out[0]
    rec.info("nccl4py", "info", version=r0["version"], reference=r0["ref"],
             bytes=nbytes, NCCL_NVLS_ENABLE=os.environ.get("NCCL_NVLS_ENABLE"))
    return record_pair(rec, "allreduce_busbw_GBps", "GB/s", r0["pairs"], r0["ref"], "ge")


# ---- the run -----------------------------------------------------------------------

def main():
    import argparse
    ap = argparse.ArgumentParser(description="issue 23's multi-GPU benchmarks")
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--json", metavar="PATH")
    ap.add_argument("--allow-na", action="store_true",
                    help="a row that cannot be measured is not a failure (smoke runs)")
    args = ap.parse_args()
    import pycudac.driver as drv
    drv.init()
    if drv.get_backend() == "sim":
        os.environ.setdefault("PYCUDAC_SIM_DEVICES", "2")
    rec = Recorder(args)
    print(f"== bench_multi (backend: {drv.get_backend()}, NCCL_NVLS_ENABLE="
          f"{os.environ.get('NCCL_NVLS_ENABLE')})", flush=True)
    ratios = {}
    if drv.Device.count() < 2:
        for _, metric, _, _ in TARGETS:
            rec.na("pycudac", metric, f"needs two devices, {drv.Device.count()} here")
    else:
        lib, why = load_floor() if drv.get_backend() == "cuda" else (None, "no libcuda: the "
                                                                    "simulator")
        c0 = drv.Device(0).retain_primary_context()
        c1 = drv.Device(1).retain_primary_context()
        for metric, fn, fargs in (
                ("peer_copy_GBps", bench_peer, (c0, c1)),
                ("ipc_open_close_us", bench_ipc, (c0, 1)),
                ("pool_alloc_free_us", bench_pool, (c0,))):
            r = rec.guard("pycudac", [metric], fn, rec, args.quick, lib, *fargs)
            if r is not None:
                ratios[metric] = r
            elif lib is None:
                rec.na("floor", metric, why)
        if drv.get_backend() != "cuda":
            rec.na("pycudac", "allreduce_busbw_GBps", "NCCL runs only on GPUs")
        else:
            try:
                import nccl.core  # noqa: F401
            except ImportError as exc:
                rec.na("pycudac", "allreduce_busbw_GBps", f"nccl4py: {exc}")
            else:
                r = rec.guard("pycudac", ["allreduce_busbw_GBps"], bench_allreduce, rec,
                              args.quick)
                if r is not None:
                    ratios["allreduce_busbw_GBps"] = r
    print()
    print(f"  {'metric':<32} {'ratio':>8}  {'target':<10} result")
    failed = False
    for label, metric, kind, bound in TARGETS:
        r = ratios.get(metric)
        if r is None:
            print(f"  {label:<32} {'n/a':>8}  {kind} {bound:<7} {'n/a' if args.allow_na else 'FAIL (n/a)'}")
            failed |= not args.allow_na
            continue
        ok = r >= bound if kind == "ge" else r <= bound
        failed |= not ok
        print(f"  {label:<32} {fmt(r):>8}  {kind} {bound:<7} {'PASS' if ok else 'FAIL'}")
    print(f"bench_multi: {'FAILED' if failed else 'PASSED'}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
