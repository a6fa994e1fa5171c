"""Faults, load and garbage input (issue 7) not covered elsewhere.

Everything here uses the public API and runs on the simulator in CI and on
the GPU under `make gpu-check` (PYCUDAC_BACKEND=cuda). Exit, fork and
poisoning run in subprocesses. tests/README.md maps each numbered fault of
issue 7 to the tests that cover it (here and in the other test files)."""
import gc
import math
import os
import subprocess
import sys
import textwrap
import threading
import time
import weakref

import numpy as np
import pytest

drv = pytest.importorskip("pycudac.driver")


SRC = r"""
__global__ void add_one(float *x, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] += 1.0f;
}
__global__ void spin(long long iters, unsigned long long *out)
{
    volatile unsigned long long acc = 0;
    for (long long i = 0; i < iters; i++) acc = acc * 6364136223846793005ULL + 1;
    if (threadIdx.x == 0) out[0] = acc;
}
"""


@pytest.fixture(scope="module")
def mod(ctx):
    from pycudac.compiler import SourceModule
    return SourceModule(SRC)


def _rss():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def _run(code, backend=None, timeout=180):
    env = dict(os.environ)
    if backend:
        env["PYCUDAC_BACKEND"] = backend
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True,
                          text=True, env=env, timeout=timeout)


# ---- 12: nothing lost under load -----------------------------------------------------

N = 10_000
RSS_SLACK = 8 << 20     # allocator pools, lazily-built caches: a leak of even
MEM_SLACK = 1 << 20     # 1 KiB per iteration would be 10 MB over 10,000
# Under AddressSanitizer (tools/ci/asan.sh sets PYCUDAC_UNDER_ASAN) freed memory
# sits in ASan's quarantine (256 MiB by default), so RSS is not a leak measure
# there; device memory still is.
UNDER_ASAN = os.environ.get("PYCUDAC_UNDER_ASAN") == "1"


def _asan_quiet(stderr):
    """stderr without ASan's one known warning: the simulator leaves a faulting
    kernel by siglongjmp out of its SIGSEGV handler (on the alternate signal
    stack), which ASan cannot follow (google/sanitizers#189). Only filtered
    under ASan; nothing else is."""
    if not UNDER_ASAN:
        return stderr
    keep = [ln for ln in stderr.splitlines(True)
            if "ASan is ignoring requested __asan_handle_no_return" not in ln
            and "False positive error reports may follow" not in ln
            and "google/sanitizers/issues/189" not in ln]
    return "".join(keep)


def _flat(body, warmup=200):
    """Runs body(i) N times after a warm-up; returns (device bytes lost, RSS growth)."""
    for i in range(warmup):
        body(i)
    gc.collect()
    free0, rss0 = drv.mem_get_info()[0], _rss()
    for i in range(N):
        body(i)
    gc.collect()
    return free0 - drv.mem_get_info()[0], 0 if UNDER_ASAN else _rss() - rss0


def test_alloc_free_10000_flat(ctx):
    x = np.arange(64, dtype=np.uint8)
    sizes = [1, 100, 4096, 65536, 1 << 20]

    def body(i):
        a = drv.mem_alloc(sizes[i % len(sizes)])
        if i % 50 == 0:
            drv.memcpy_htod(a, x[:a.size])
        if i % 3 == 0:
            a.free()
            a.free()  # a second free is a no-op

    lost, grew = _flat(body)
    assert lost <= MEM_SLACK, f"device memory lost: {lost} bytes"
    assert grew <= RSS_SLACK, f"RSS grew by {grew} bytes"


def test_module_load_unload_10000_flat(ctx):
    from pycudac import compiler
    image = compiler.compile(SRC)
    a = drv.mem_alloc(4 * 32)
    drv.memset_d32(a, 0, 32)

    def body(i):
        m = drv.module_from_buffer(image)
        f = m.get_function("add_one")
        if i % 500 == 0:
            f(a, np.int32(32), block=(32, 1, 1), grid=(1, 1))
        del f, m

    lost, grew = _flat(body, warmup=50)
    assert lost <= MEM_SLACK, f"device memory lost: {lost} bytes"
    assert grew <= RSS_SLACK, f"RSS grew by {grew} bytes"
    y = np.zeros(32, np.float32)
    drv.memcpy_dtoh(y, a)
    assert (y == 1 + N // 500).all()  # the launches on the loaded modules ran


def test_launch_10000_flat(mod):
    f = mod.get_function("add_one")
    n = 256
    a = drv.mem_alloc(4 * n)
    drv.memset_d32(a, 0, n)
    s = drv.Stream()

    def body(i):
        if i % 2:
            f(a, np.int32(n), block=(128, 1, 1), grid=(2, 1))
        else:
            f(a, n, block=(128, 1, 1), grid=(2, 1), stream=s)

    lost, grew = _flat(body, warmup=100)
    drv.Context.synchronize()
    assert lost <= MEM_SLACK and grew <= RSS_SLACK, (lost, grew)
    y = np.zeros(n, np.float32)
    drv.memcpy_dtoh(y, a)
    assert (y == N + 100).all()


def test_launch_with_in_out_10000_flat(mod):
    """In/InOut make a temporary device buffer per call: all of it comes back."""
    f = mod.get_function("add_one")
    x = np.zeros(64, np.float32)

    def body(i):
        f(drv.InOut(x), np.int32(64), block=(64, 1, 1))

    lost, grew = _flat(body, warmup=100)
    assert lost <= MEM_SLACK and grew <= RSS_SLACK, (lost, grew)
    assert (x == N + 100).all()


def test_gpuarray_temporaries_10000_flat(ctx):
    from pycudac import gpuarray
    x = gpuarray.to_gpu(np.arange(1000, dtype=np.float32))
    acc = {"sum": 0.0}

    def body(i):
        y = (x + 1) * 2 - x          # three temporaries per iteration
        if i % 1000 == 0:
            acc["sum"] = float(y.get()[10])

    lost, grew = _flat(body, warmup=100)
    assert lost <= MEM_SLACK, f"device memory lost: {lost} bytes"
    assert grew <= RSS_SLACK, f"RSS grew by {grew} bytes"
    assert acc["sum"] == (10 + 1) * 2 - 10


# ---- 5: other threads, GC on another thread, the caller's context ------------------------

class _Cycle(list):
    """A list that can be weakly referenced."""


@pytest.mark.tsan
def test_gc_on_another_thread_frees_in_owner_context(ctx):
    """Reference cycles holding allocations of two contexts, collected by a
    thread that has a third context current: each is freed in its own
    context, the thread's current context is what it was, nothing leaks."""
    # The first extra contexts of a process make the driver reserve memory it
    # keeps (seen: 8 MiB on an H100): create and destroy two before measuring.
    for _ in range(2):
        warm = drv.Device(0).make_context()
        drv.Context.pop()
        warm.detach()
    gc.collect()
    free0 = drv.mem_get_info()[0]
    other = drv.Device(0).make_context()
    in_other = []
    for _ in range(20):
        c = _Cycle([drv.mem_alloc(1 << 20)])
        c.append(c)                      # a cycle: only the collector frees it
        in_other.append(c)
    drv.Context.pop()
    in_ctx = []
    for _ in range(20):
        c = _Cycle([drv.mem_alloc(1 << 20), drv.Stream(), drv.Event()])
        c.append(c)
        in_ctx.append(c)
    ref = weakref.ref(in_ctx[0])
    del c
    seen, errors = [], []

    def collect():
        try:
            third = drv.Device(0).make_context()  # current in this thread only
            in_other.clear()
            in_ctx.clear()
            gc.collect()
            seen.append(drv.Context.get_current() is third)
            drv.Context.pop()
            third.detach()
        except BaseException as exc:  # reported below
            errors.append(exc)

    t = threading.Thread(target=collect)
    t.start()
    t.join()
    assert not errors, errors
    assert seen == [True]
    assert ref() is None
    assert drv.Context.get_current() is ctx
    other.detach()
    gc.collect()
    # The driver keeps some memory after contexts and a thread that made CUDA
    # calls come and go (8-10 MiB seen on an H100, whatever was freed); the
    # 40 allocations above are 40 MiB, so a leak of them still shows.
    assert drv.mem_get_info()[0] >= free0 - MEM_SLACK - (16 << 20)


@pytest.mark.tsan
def test_launches_and_frees_from_many_threads(mod, ctx):
    f = mod.get_function("add_one")
    errors = []
    gc.collect()
    free0 = drv.mem_get_info()[0]

    def work(k):
        try:
            x = np.full(300, k, np.float32)
            for i in range(50):
                a = drv.mem_alloc(x.nbytes)
                drv.memcpy_htod(a, x)
                f(a, np.int32(x.size), block=(128, 1, 1), grid=(3, 1))
                y = np.empty_like(x)
                drv.memcpy_dtoh(y, a)
                assert (y == k + 1).all()
                assert drv.Context.get_current() is ctx
                if i % 2:
                    a.free()
                del a                    # the other half freed by refcount here
        except BaseException as exc:  # reported below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    gc.collect()
    assert drv.mem_get_info()[0] >= free0 - MEM_SLACK
    assert drv.Context.get_current() is ctx


@pytest.mark.tsan
def test_objects_freed_in_a_thread_with_no_context(ctx):
    """A thread that never touched CUDA drops modules, streams, events and
    allocations: freed (in their context), and the thread is left with no
    context made current behind its back."""
    objs = [drv.mem_alloc(4096), drv.Stream(), drv.Event(), drv.pagelocked_empty(100, np.float32)]
    refs = [weakref.ref(o) for o in objs if type(o).__weakrefoffset__]
    out = []

    def drop():
        from pycudac import _driver
        objs.clear()
        gc.collect()
        out.append(_driver._current_context_handle())

    t = threading.Thread(target=drop)
    t.start()
    t.join()
    assert out == [0]
    assert all(r() is None for r in refs)
    assert drv.Context.get_current() is ctx


@pytest.mark.tsan
def test_first_launches_of_a_process_on_every_worker_thread():
    """The first launches of a fresh process start the simulator's worker
    threads and give each its fibers, all at once: under ThreadSanitizer
    (tools/ci/tsan.sh; the subprocess inherits it) two races were found
    there: the pool threads read the worker table while it was still being
    filled, and the workers cached the page and stack sizes unsynchronized.
    Multi-block launches, plain, then with a barrier and a shuffle, then from
    three Python threads at once; results checked on any backend."""
    r = _run('''
        import threading
        import numpy as np
        import pycudac.autoinit
        import pycudac.driver as drv
        from pycudac.compiler import SourceModule
        m = SourceModule(r"""
        __global__ void plain(float *a) { a[blockIdx.x * blockDim.x + threadIdx.x] += 1.0f; }
        __global__ void bar(float *a)
        {
            extern __shared__ float s[];
            s[threadIdx.x] = threadIdx.x;
            __syncthreads();
            float partner = __shfl_xor_sync(0xffffffff, s[threadIdx.x], 1);
            a[blockIdx.x * 64 + threadIdx.x] = s[63 - threadIdx.x] + partner;
        }""")
        plain, bar = m.get_function("plain"), m.get_function("bar")
        i = np.arange(64)
        want = np.tile((63 - i) + (i ^ 1), 32).astype(np.float32)

        def run(errors):
            try:
                a = np.zeros(64 * 32, np.float32)
                plain(drv.InOut(a), block=(64, 1, 1), grid=(32, 1))
                assert (a == 1).all()
                bar(drv.Out(a), block=(64, 1, 1), grid=(32, 1), shared=64 * 4)
                assert (a == want).all(), a[:64]
            except BaseException as exc:  # reported below
                errors.append(exc)

        errors = []
        run(errors)
        threads = [threading.Thread(target=run, args=(errors,)) for _ in range(3)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert not errors, errors
        print("ok")
    ''')
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "ok"
    assert "ThreadSanitizer" not in r.stderr


# ---- 6: blocking calls release the GIL ----------------------------------------------------

def _ticks_during(call):
    """Runs call() while another Python thread ticks. Returns (ticks during
    the call, call duration, longest stretch of the call with no tick): with
    the GIL held for the call the longest stretch is the whole call."""
    stamps = []
    started, stop = threading.Event(), threading.Event()

    def spin():
        started.set()
        while not stop.is_set():
            stamps.append(time.perf_counter())
            time.sleep(0)

    t = threading.Thread(target=spin)
    t.start()
    started.wait()
    time.sleep(0.01)
    t0 = time.perf_counter()
    call()
    t1 = time.perf_counter()
    stop.set()
    t.join()
    inside = [x for x in stamps if t0 <= x <= t1]
    edges = [t0] + inside + [t1]
    gap = max(b - a for a, b in zip(edges, edges[1:]))
    return len(inside), t1 - t0, gap


@pytest.mark.tsan
def test_long_copy_releases_the_gil(ctx):
    n = 128 << 20
    host = np.ones(n, np.uint8)
    a = drv.mem_alloc(n)
    back = np.empty_like(host)

    def copies():
        for _ in range(2):
            drv.memcpy_htod(a, host)
            drv.memcpy_dtoh(back, a)

    ticks, dt, gap = _ticks_during(copies)
    assert back[::4096].all()
    assert ticks > 0 and gap < 0.5 * dt, f"{ticks} ticks in {dt:.3f} s of copies, gap {gap:.3f} s"


@pytest.mark.tsan
def test_long_kernel_and_synchronize_release_the_gil(mod):
    """On the GPU the launch returns at once and synchronize() blocks; on
    the simulator the launch itself runs the kernel. Either way another
    Python thread keeps running for the whole time."""
    f = mod.get_function("spin")
    out = drv.mem_alloc(8)
    iters = 60_000_000 if drv.get_backend() == "sim" else 100_000_000

    def run():
        f(np.int64(iters), out, block=(1, 1, 1), grid=(1, 1))
        drv.Context.synchronize()

    ticks, dt, gap = _ticks_during(run)
    assert dt > 0.02, f"the kernel was too short to tell ({dt:.3f} s)"
    assert ticks > 0 and gap < 0.5 * dt, f"{ticks} ticks in a {dt:.3f} s kernel, gap {gap:.3f} s"


# ---- 8: async copies keep the host object alive ----------------------------------------------

def test_async_htod_source_dropped_before_the_stream_gets_there(mod):
    """A long kernel is queued first, so on the GPU the copy has not run when
    the only reference to its source is dropped."""
    spin = mod.get_function("spin")
    scratch = drv.mem_alloc(8)
    s = drv.Stream()
    n = 1 << 20
    a = drv.mem_alloc(4 * n)
    for k in range(3):
        spin(np.int64(2_000_000), scratch, block=(1, 1, 1), stream=s)
        x = np.arange(n, dtype=np.float32) + k
        ref = weakref.ref(x)
        drv.memcpy_htod_async(a, x, s)
        del x
        gc.collect()
        y = drv.pagelocked_empty(n, np.float32)
        drv.memcpy_dtoh_async(y, a, s)
        s.synchronize()
        assert ref() is None  # released once the stream is done
        assert y[0] == k and y[-1] == n - 1 + k


def test_async_dtoh_destination_dropped_is_written_safely(mod):
    """The destination of a dtoh copy is dropped by the caller: the stream
    keeps it alive until the copy is done (no write into freed memory)."""
    spin = mod.get_function("spin")
    scratch = drv.mem_alloc(8)
    s = drv.Stream()
    n = 1 << 18
    a = drv.mem_alloc(4 * n)
    drv.memset_d32(a, 7, n)
    refs = []
    for _ in range(4):
        spin(np.int64(1_000_000), scratch, block=(1, 1, 1), stream=s)
        y = np.empty(n, np.int32)
        refs.append(weakref.ref(y))
        drv.memcpy_dtoh_async(y, a, s)
        del y
    gc.collect()
    junk = [np.zeros(n, np.int32) for _ in range(4)]  # reuse freed memory if any
    s.synchronize()
    gc.collect()
    assert all(r() is None for r in refs)
    assert all((j == 0).all() for j in junk)


def test_in_out_on_a_stream_with_the_array_dropped(mod):
    f = mod.get_function("add_one")
    s = drv.Stream()
    keep = np.zeros(1000, np.float32)
    x = np.zeros(1000, np.float32)
    ref = weakref.ref(x)
    f(drv.InOut(x), np.int32(1000), block=(256, 1, 1), grid=(4, 1), stream=s)
    f(drv.InOut(keep), np.int32(1000), block=(256, 1, 1), grid=(4, 1), stream=s)
    del x
    s.synchronize()
    gc.collect()
    assert ref() is None
    assert (keep == 1).all()


def test_async_copy_stream_dropped_with_work_pending(ctx):
    """Dropping the Stream object (and the host array) with a copy queued."""
    n = 1 << 20
    a = drv.mem_alloc(4 * n)
    x = np.arange(n, dtype=np.float32)
    s = drv.Stream()
    drv.memcpy_htod_async(a, x, s)
    del s, x
    gc.collect()
    drv.Context.synchronize()
    y = np.empty(n, np.float32)
    drv.memcpy_dtoh(y, a)
    assert (y == np.arange(n, dtype=np.float32)).all()


# ---- 9: compile errors cache nothing --------------------------------------------------------

def test_compile_error_caches_nothing(ctx, tmp_path):
    """A failing compile (on the running backend's compiler) raises
    CompileError with the log, writes no entry and no temporary file, and
    fails again the second time (no negative or broken memo)."""
    from pycudac import compiler
    from pycudac.compiler import CompileError, SourceModule
    cache = tmp_path / "cache"
    bad = "__global__ void k(float *a)\n{\n    a[0] = not_declared_anywhere;\n}\n"
    for _ in range(2):
        with pytest.raises(CompileError) as ei:
            SourceModule(bad, cache_dir=str(cache))
        assert "not_declared_anywhere" in ei.value.log
        assert "not_declared_anywhere" in str(ei.value)
    stats = compiler.cache_stats(str(cache))
    assert stats["entries"] == 0
    left = sorted(p.name for p in cache.iterdir()) if cache.exists() else []
    assert left == [], left
    good = SourceModule(bad.replace("not_declared_anywhere", "1.0f"), cache_dir=str(cache))
    assert good.get_function("k") is not None
    assert compiler.cache_stats(str(cache))["entries"] == 1


# ---- 13: garbage to every public entry point ---------------------------------------------

CLEAN = (TypeError, ValueError, OverflowError, MemoryError, drv.Error)
SIZES = [-1, -(2 ** 63), 2 ** 64, 2 ** 100, float("nan"), float("inf"), 1.5, "8", None,
         b"8", [8], np.float64(8.0), object()]


def _clean(fn, *args, **kw):
    """fn(*args) either works or raises one of the clean exception types;
    never SystemError, a crash, or an exception without a message."""
    try:
        return fn(*args, **kw)
    except CLEAN as exc:
        assert str(exc), f"{type(exc).__name__} without a message from {fn}{args}"
        assert not isinstance(exc, SystemError)
        return exc


@pytest.mark.valgrind
@pytest.mark.parametrize("bad", SIZES, ids=repr)
def test_garbage_sizes(ctx, bad):
    for fn in (drv.mem_alloc, drv.mem_alloc_async, drv.pagelocked_empty, drv.pagelocked_zeros,
               drv.managed_empty):
        if fn in (drv.pagelocked_empty, drv.pagelocked_zeros, drv.managed_empty):
            if isinstance(bad, list):
                continue  # a shape sequence: valid
            r = _clean(fn, bad, np.float32)
        else:
            r = _clean(fn, bad)
        assert isinstance(r, BaseException), f"{fn.__name__}({bad!r}) returned {r!r}"
    a = drv.mem_alloc(64)
    for fn in (drv.memset_d8, drv.memset_d16, drv.memset_d32):
        assert isinstance(_clean(fn, a, 0, bad), BaseException)
        r = _clean(fn, a, bad, 4)
        if not isinstance(r, BaseException):  # a value that converts must be in range
            assert isinstance(bad, (np.floating, float)) is False or math.isfinite(bad)
    assert isinstance(_clean(drv.memcpy_dtod, a, a, bad), BaseException)
    assert isinstance(_clean(drv.memcpy_dtod_async, a, a, bad), BaseException)


@pytest.mark.valgrind
def test_garbage_pointers_and_buffers(ctx):
    a = drv.mem_alloc(64)
    host = np.zeros(16, np.float32)
    bad_ptrs = [-1, 2 ** 64, 1.5, "0x10", None, [], object(), np.float32(1), np.zeros(2)]
    for p in bad_ptrs:
        for fn, args in ((drv.memcpy_htod, (p, host)), (drv.memcpy_dtoh, (host, p)),
                         (drv.memcpy_dtod, (p, a, 16)), (drv.memcpy_dtod, (a, p, 16)),
                         (drv.memset_d8, (p, 0, 16))):
            r = _clean(fn, *args)
            assert isinstance(r, BaseException), f"{fn.__name__}{args!r} returned {r!r}"
    bad_host = [None, 3, "abc", object(), np.zeros(4, object), np.zeros((4, 4))[:, 0],
                np.zeros(0), np.float32(1.0), np.array(1.0, np.float64)]
    for h in bad_host:
        _clean(drv.memcpy_htod, a, h)
        _clean(drv.memcpy_dtoh, h, a)
    # copies bigger than the allocation are refused before the driver sees them
    assert isinstance(_clean(drv.memcpy_htod, a, np.zeros(1000, np.float32)), ValueError)
    assert isinstance(_clean(drv.memcpy_dtoh, np.zeros(1000, np.float32), a), ValueError)
    # 0-d and empty arrays that fit are fine
    drv.memcpy_htod(a, np.array(3.0, np.float32))
    drv.memcpy_htod(a, np.zeros(0, np.float32))
    z = np.zeros((), np.float32)
    drv.memcpy_dtoh(z, a)
    assert z == 3.0
    b = drv.mem_alloc(64)
    a.free()
    for fn, args in ((drv.memcpy_htod, (a, host)), (drv.memcpy_dtoh, (host, a)),
                     (drv.memset_d32, (a, 0, 1)), (drv.memcpy_dtod, (b, a, 4))):
        assert isinstance(_clean(fn, *args), (ValueError, drv.Error)), fn


@pytest.mark.valgrind
def test_garbage_streams_events_contexts(ctx):
    a = drv.mem_alloc(64)
    host = np.zeros(16, np.float32)
    for s in (1, "s", object(), 1.5, drv.Event(), a):
        for fn, args in ((drv.memcpy_htod_async, (a, host, s)),
                         (drv.memcpy_dtoh_async, (host, a, s)),
                         (drv.memset_d8_async, (a, 0, 4, s))):
            assert isinstance(_clean(fn, *args), TypeError), (fn, s)
    for flags in (-1, 2 ** 40, 1.5, "x", None):
        _clean(drv.Stream, flags)
        _clean(drv.Event, flags)
    e0, e1 = drv.Event(), drv.Event()
    assert isinstance(_clean(e0.time_till, "x"), TypeError)
    assert isinstance(_clean(e0.record, 5), TypeError)
    for bad in (-1, 2 ** 64, 1.5, "0", None, 10 ** 6):
        assert isinstance(_clean(drv.Device, bad), BaseException), bad
    for bad in (-1, 2 ** 64, "x", 1.5):
        assert isinstance(_clean(drv.Device(0).make_context, bad), BaseException), bad
    assert drv.Context.get_current() is ctx
    for bad in ("x", 1.5, None, 2 ** 64):
        assert isinstance(_clean(drv.Device(0).get_attribute, bad), BaseException)
    del e1


def test_garbage_launch_configs(mod, ctx):
    f = mod.get_function("add_one")
    a = drv.mem_alloc(4 * 64)
    bads = [dict(block=None), dict(block=(0, 1, 1)), dict(block=(-1, 1, 1)),
            dict(block=(2 ** 40, 1, 1)), dict(block=(1.5, 1, 1)), dict(block=(float("nan"),)),
            dict(block=(1, 1, 1, 1)), dict(block="32"), dict(block=(2048, 1, 1)),
            dict(grid=(0, 1)), dict(grid=(-1, 1)), dict(grid=(2 ** 33, 1)), dict(grid="x"),
            dict(grid=(1, 1, 1, 1)), dict(shared=-1), dict(shared=2 ** 40),
            dict(shared=float("nan")), dict(stream=5), dict(stream="s"),
            dict(bogus_keyword=1)]
    for kw in bads:
        kw = dict(kw)
        kw.setdefault("block", (64, 1, 1))
        r = _clean(f, a, np.int32(64), **kw)
        assert isinstance(r, BaseException), f"launch with {kw} was accepted"
        assert not drv.is_poisoned()
    f(a, np.int32(64), block=(64, 1, 1))     # the context is still usable
    drv.Context.synchronize()


@pytest.mark.valgrind
def test_garbage_to_function_methods(mod):
    f = mod.get_function("add_one")
    for bad in ("x", -1, 2 ** 64, 1.5, None):
        assert isinstance(_clean(f.get_attribute, bad), BaseException), bad
        assert isinstance(_clean(f.set_attribute, bad, 0), BaseException), bad
    for bad in (-1, 2 ** 64, "x", float("nan")):
        assert isinstance(_clean(f.max_potential_block_size, bad), BaseException), bad
    for bad in ((), "x", None, [1, 2], ("z",)):
        _clean(f.prepare, bad)
    assert isinstance(_clean(mod.get_function, 5), TypeError)
    assert isinstance(_clean(mod.get_function, "no_such_kernel"), BaseException)
    assert isinstance(_clean(mod.get_global, None), TypeError)
    for name in ("add_one\0x", "\0"):  # C would read only up to the NUL
        assert isinstance(_clean(mod.get_function, name), ValueError)
        assert isinstance(_clean(mod.get_global, name), ValueError)


@pytest.mark.valgrind
def test_garbage_to_module_loading(ctx, tmp_path):
    for img in (b"", b"\x00" * 64, b"garbage" * 100, b"\x7fELF" + b"\x00" * 100):
        assert isinstance(_clean(drv.module_from_buffer, img), (ValueError, drv.Error)), img[:8]
    for img in (None, 5, [1]):
        assert isinstance(_clean(drv.module_from_buffer, img), TypeError), img
    with pytest.raises(FileNotFoundError):
        drv.module_from_file(str(tmp_path / "missing"))
    with pytest.raises(IsADirectoryError):
        drv.module_from_file(str(tmp_path))
    with pytest.raises(ValueError, match="not a regular file"):
        drv.module_from_file("/dev/zero")
    p = tmp_path / "junk.cubin"
    p.write_bytes(b"\x00junk")
    assert isinstance(_clean(drv.module_from_file, str(p)), drv.Error)
    assert not drv.is_poisoned()


def test_flags_arguments_are_named(ctx):
    for make in (lambda v: drv.Stream(flags=v), lambda v: drv.Event(flags=v),
                 lambda v: drv.pagelocked_empty(3, mem_flags=v),
                 lambda v: drv.managed_empty(3, mem_flags=v)):
        for bad, exc in (("x", TypeError), (1.5, TypeError), (-1, ValueError),
                         (2 ** 40, ValueError)):
            with pytest.raises(exc, match="flags"):
                make(bad)
    assert not drv.is_poisoned()


def test_truncated_images_never_reach_the_loader(ctx):
    """cuModuleLoadData gets no length: a truncated image (this backend's
    own: a CUBIN or a simulator image) is refused before it."""
    from pycudac import compiler
    img = compiler.compile("__global__ void k(float *x) { x[0] = 1; }")
    for n in (9, 30, 63, len(img) // 2, len(img) - 1):
        with pytest.raises(ValueError, match="truncated"):
            drv.module_from_buffer(img[:n])
    assert drv.module_from_buffer(img).get_function("k") is not None
    assert not drv.is_poisoned()


def test_damaged_simulator_images_fail_their_checksum(ctx):
    """A simulator image goes to dlopen, which trusts it: it carries a
    CRC-32C of its shared object, and a damaged one is refused. (A CUBIN has
    no checksum, and the NVIDIA driver's parser can crash on damaged bytes:
    README, "The compile cache"; the cache verifies its own entries first.)"""
    import random
    from pycudac import compiler
    if drv.get_backend() != "sim":
        pytest.skip("simulator images only: a CUBIN carries no checksum of its own")
    img = compiler.compile("__global__ void k(float *x) { x[0] = 1; }")
    rng = random.Random(7)
    for _ in range(20):
        b = bytearray(img)
        for _ in range(3):
            b[rng.randrange(24, len(b))] ^= 0xFF
        assert isinstance(_clean(drv.module_from_buffer, bytes(b)), drv.Error)
    assert not drv.is_poisoned()


def test_garbage_to_compile(ctx):
    from pycudac import compiler
    from pycudac.compiler import SourceModule
    for src in (None, 5, b"__global__ void k() {}", ["x"]):
        assert isinstance(_clean(SourceModule, src), TypeError), src
    for bad in ("", "\x00", "__global__ void k( {", "#error nope"):
        r = _clean(SourceModule, bad)
        assert isinstance(r, BaseException) or bad == "", bad
    for opts in ("-O3", [None], [b"-O3"], ["--no-such-flag"], 5):
        assert isinstance(_clean(SourceModule, "__global__ void k() {}", options=opts),
                          (TypeError, ValueError)), opts
    for arch in (5.5, "sm_", "xx_90", -1, None):
        if arch is None:
            continue
        assert isinstance(_clean(compiler.compile, "__global__ void k() {}", arch=arch),
                          (TypeError, ValueError)), arch


@pytest.mark.valgrind
@pytest.mark.parametrize("dtype", [object, "U4", "S4", "V8", "M8[s]", "m8[s]"])
def test_garbage_dtypes_to_arrays(ctx, dtype):
    from pycudac import gpuarray
    r = _clean(gpuarray.empty, (4,), dtype)
    assert isinstance(r, (TypeError, ValueError)) or r.size == 4
    host = np.zeros(4, dtype)
    r = _clean(gpuarray.to_gpu, host)
    assert isinstance(r, (TypeError, ValueError)) or (r.get() == host).all()


def test_garbage_shapes_to_arrays(ctx):
    from pycudac import gpuarray
    for shape in ((-1,), (2 ** 62, 2 ** 62), (float("nan"),), (1.5,), ("3",), (None,),
                  2 ** 70, -5):
        for fn in (gpuarray.empty, gpuarray.zeros):
            assert isinstance(_clean(fn, shape, np.float32), BaseException), (fn, shape)
        assert isinstance(_clean(drv.pagelocked_empty, shape, np.float32), BaseException)
    # 0-d and empty arrays work everywhere
    for host in (np.array(2.5, np.float32), np.zeros(0, np.float32), np.zeros((3, 0), np.int8)):
        g = gpuarray.to_gpu(host)
        assert g.shape == host.shape and (g.get() == host).all()
        assert (g + g).shape == host.shape
    z = gpuarray.zeros((), np.float64)
    assert float(z.get()) == 0.0
    assert gpuarray.sum(gpuarray.zeros(0, np.float32)).get() == 0


# ---- 1, 2, 3: poisoning, frees after it, exit with it outstanding (subprocesses) ----------

POISON = """
import gc, sys, threading
import numpy as np
import pycudac.autoinit
from pycudac import driver as drv
from pycudac.compiler import SourceModule

mod = SourceModule(r'''
__global__ void null_write(int *p) { p[threadIdx.x] = 1; }
__global__ void ok(int *p) { }
''')
live = [drv.mem_alloc(1024) for _ in range(5)]
s, e = drv.Stream(), drv.Event()
hostbuf = drv.pagelocked_zeros(256, np.float32)
other = drv.Device(0).make_context()
in_other = drv.mem_alloc(64)
drv.Context.pop()
cyc = [drv.mem_alloc(8)]
cyc.append(cyc)                                   # only the collector frees it
mod.get_function("null_write")(None, block=(32, 1, 1), grid=(1, 1))
try:
    drv.Context.synchronize()
    print("NO ERROR")
except drv.Error as exc:
    print("ERR", type(exc).__name__, exc.code)
print("POISONED", drv.is_poisoned())
# every later call raises at once with the original error
for name, call in [("alloc", lambda: drv.mem_alloc(4)),
                   ("copy", lambda: drv.memcpy_htod(live[0], np.zeros(4, np.uint8))),
                   ("launch", lambda: mod.get_function("ok")(live[0], block=(1, 1, 1))),
                   ("stream", lambda: drv.Stream()),
                   ("ctx", lambda: drv.Device(0).make_context())]:
    try:
        call()
        print(name, "NO ERROR")
    except drv.Error as exc:
        print(name, exc.code)
# frees after the sticky error, from this thread, another thread and the GC
del live[:2]
threading.Thread(target=lambda: live.clear()).start()
del cyc
gc.collect()
del in_other
try:
    other.detach()           # an explicit call: raises like every other call
    print("detach NO ERROR")
except drv.Error as exc:
    print("detach", exc.code)
del other                    # the destructor stays silent
gc.collect()
print("SKIPPED>0", drv._debug_counters()["skipped_frees"] > 0)
raise RuntimeError("the one traceback")
"""


def test_poisoned_process_one_traceback_and_silent_frees(ctx):
    backend = drv.get_backend()
    r = _run(POISON, backend=backend)
    out = r.stdout.split("\n")
    assert "ERR LaunchError 700" in r.stdout, r.stdout + r.stderr
    assert "POISONED True" in out
    for name in ("alloc", "copy", "launch", "stream", "ctx", "detach"):
        assert f"{name} 700" in out, r.stdout
    assert "SKIPPED>0 True" in out
    assert r.returncode == 1                        # the deliberate exception only
    err = _asan_quiet(r.stderr)
    assert err.count("Traceback") == 1, r.stderr
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert lines[-1] == "RuntimeError: the one traceback", r.stderr
    assert "Segmentation" not in err and "Warning" not in err


def test_exit_with_sticky_error_outstanding_is_clean(ctx):
    """The fault is never synchronized on: exit finds it, stays silent, exits 0."""
    r = _run("""
        import numpy as np
        import pycudac.autoinit
        from pycudac import driver as drv
        from pycudac.compiler import SourceModule
        mod = SourceModule("__global__ void w(int *p) { p[threadIdx.x + (1 << 28)] = 1; }")
        a = drv.mem_alloc(64)
        s = drv.Stream()
        keep = [drv.mem_alloc(256) for _ in range(4)], drv.Event(), drv.Stream()
        mod.get_function("w")(a, block=(32, 1, 1), stream=s)
        print("launched")
    """, backend=drv.get_backend())
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "launched"
    assert _asan_quiet(r.stderr) == ""


def test_objects_outlive_their_destroyed_context(ctx):
    r = _run("""
        import gc
        import numpy as np
        import pycudac.autoinit
        from pycudac import driver as drv
        c = drv.Device(0).make_context()
        a = drv.mem_alloc(64); s = drv.Stream(); e = drv.Event()
        h = drv.pagelocked_empty(16, np.float32)
        drv.Context.pop()
        c.detach()
        c.detach()                  # twice: a no-op
        del c
        gc.collect()
        del a, s, e, h              # their context is held alive by them, or gone: silent
        gc.collect()
        b = drv.mem_alloc(16)       # the primary context is still fine
        drv.memcpy_htod(b, np.arange(4, dtype=np.int32))
        print("ok", drv.is_poisoned())
    """, backend=drv.get_backend())
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "ok False"
    assert r.stderr == ""


def test_launches_after_a_sticky_error_raise_it_again_from_the_same_call_site(ctx):
    """Issue 21: the second launch from one call site after a fault took the
    fast path into the general one with the poisoned error already set, and
    raised SystemError, which `except LaunchError` misses."""
    r = _run("""
        import numpy as np
        import pycudac.autoinit
        from pycudac import driver as drv
        from pycudac.compiler import SourceModule
        f = SourceModule("__global__ void k(int *p) { *p = 1; }").get_function("k")
        for i in range(4):
            try:
                f(np.intp(0), block=(1, 1, 1))
                drv.Context.synchronize()
                print(i, "no error")
            except drv.LaunchError as exc:
                print(i, type(exc).__name__, exc.code)
            except Exception as exc:
                print(i, "WRONG", type(exc).__name__, exc)
    """, backend=drv.get_backend())
    lines = r.stdout.split("\n")
    assert [ln.split(" ", 1)[1] for ln in lines if ln] == ["LaunchError 700"] * 4, \
        r.stdout + r.stderr


def test_a_launch_as_a_threads_first_call(ctx):
    """Issue 21: a thread whose first pycudac call is a launch got
    CUDA_ERROR_INVALID_CONTEXT (201); it runs in the kernel's context, on the
    fast path and the general one (In/Out), and that context stays current
    in the thread as it would after an allocation."""
    from pycudac.compiler import SourceModule
    src = "__global__ void k(int *p, int v) { p[threadIdx.x] = v; }"
    f = SourceModule(src).get_function("k")
    a = drv.mem_alloc(4 * 32)
    out = []

    def first_call(general):
        try:
            if general:
                host = np.zeros(32, np.int32)
                f(drv.Out(host), np.int32(9), block=(32, 1, 1))
                out.append(int(host.sum()))
            else:
                f(a, np.int32(5), block=(32, 1, 1))
                drv.Context.synchronize()
                out.append("fast")
            out.append(drv.Context.get_current() is ctx)
        except Exception as exc:  # the assertion below shows it
            out.append(repr(exc))

    for general in (False, True):
        t = threading.Thread(target=first_call, args=(general,))
        t.start()
        t.join()
    host = np.zeros(32, np.int32)
    drv.memcpy_dtoh(host, a)
    assert out == ["fast", True, 9 * 32, True]
    assert (host == 5).all()


# ---- which codes poison: every sticky code, and no other (the stub driver) ----------------

# The driver's sticky codes (DESIGN.md): 700 illegal address, 710 assert, 714 hardware
# stack error, 715 illegal instruction, 716 misaligned address, 717 invalid address
# space, 718 invalid PC, 719 launch failed. On the simulator only some can happen (700,
# 710, 719); the stub driver (tests/c/stub_libcuda.c, stub_fail) returns any of them.
STICKY = [700, 710, 714, 715, 716, 717, 718, 719]
NOT_STICKY = [1, 2, 701, 702]   # invalid value, out of memory, out of resources, timeout

STUB_FAULT = r"""
import ctypes, os, sys, threading, time
import pycudac.autoinit
import pycudac.driver as drv
from pycudac.compiler import SourceModule
lib = ctypes.CDLL(os.environ["PYCUDAC_LIBCUDA"])
f = SourceModule("__global__ void k(int *p) { }").get_function("k")
a = drv.mem_alloc(64)
f(a, block=(1, 1, 1))                          # a launch that works first
for code in map(int, sys.argv[2:]):
    if sys.argv[1] == "launch":
        lib.stub_fail(code, 0, 0)
        call = lambda: f(a, block=(1, 1, 1))
    else:                                        # the error comes with a synchronize
        lib.stub_fail(0, code, 0)
        call = drv.Context.synchronize
    try:
        call()
        print(code, "NO ERROR")
    except drv.Error as e:
        print(code, "ERR", type(e).__name__, e.code)
    lib.stub_fail(0, 0, 0)
    print(code, "POISONED", drv.is_poisoned())
    try:
        drv.mem_alloc(16)
        print(code, "LATER ok")
    except drv.Error as e:
        print(code, "LATER", e.code)
"""


def _stub_child(stub_driver, code, *args):
    env = dict(os.environ, PYCUDAC_BACKEND="cuda", PYCUDAC_LIBCUDA=stub_driver)
    r = subprocess.run([sys.executable, "-c", textwrap.dedent(code), *map(str, args)],
                       capture_output=True, text=True, timeout=120, env=env)
    if "NVRTC" in r.stderr and r.returncode != 0:
        pytest.skip(f"no NVRTC for the stub driver's kernels: {r.stderr[-300:]}")
    return r


@pytest.mark.parametrize("code", STICKY)
def test_every_sticky_code_poisons_the_process(stub_driver, code):
    """A mutation that dropped 716 from the sticky codes passed the suite
    (tools/mutate.py P1): the simulator makes only some of them."""
    r = _stub_child(stub_driver, STUB_FAULT, "launch", code)
    assert f"{code} ERR LaunchError {code}" in r.stdout, r.stdout + r.stderr
    assert f"{code} POISONED True" in r.stdout
    assert f"{code} LATER {code}" in r.stdout


@pytest.mark.parametrize("where", ["launch", "sync"])
def test_codes_that_are_not_sticky_leave_the_process_usable(stub_driver, where):
    r = _stub_child(stub_driver, STUB_FAULT, where, *NOT_STICKY)
    for code in NOT_STICKY:
        assert f"{code} ERR " in r.stdout and f"{code} POISONED False" in r.stdout, r.stdout
        assert f"{code} LATER ok" in r.stdout
    if where == "sync":
        r = _stub_child(stub_driver, STUB_FAULT, "sync", 719)
        assert "719 ERR LaunchError 719" in r.stdout and "719 POISONED True" in r.stdout


STUB_TWO_FAULTS = r"""
import ctypes, os, threading, time
import pycudac.autoinit
import pycudac.driver as drv
from pycudac.compiler import SourceModule
lib = ctypes.CDLL(os.environ["PYCUDAC_LIBCUDA"])
f = SourceModule("__global__ void k(int *p) { }").get_function("k")
a = drv.mem_alloc(64)
s = drv.Stream()
f(a, block=(1, 1, 1))
lib.stub_fail(0, 719, 800)       # a synchronize waits 0.8 s, then reports 719
seen = {}

def waiter():
    try:
        s.synchronize()
        seen["b"] = "NO ERROR"
    except drv.Error as e:
        seen["b"] = (e.code, str(e))

t = threading.Thread(target=waiter)
t.start()
time.sleep(0.1)                  # the other thread is inside the driver now
lib.stub_fail(700, 719, 800)     # this launch fails first, with 700
try:
    f(a, block=(1, 1, 1))
except drv.Error as e:
    first = (e.code, str(e))
t.join()
print("FIRST", first[0])
print("SECOND", seen["b"][0])
print("SAME MESSAGE", seen["b"][1] == first[1])
"""


def test_a_second_sticky_error_repeats_the_first(stub_driver):
    """Once poisoned, a sticky code another thread's call returns reports
    the original error, not its own (tools/mutate.py P5 survived)."""
    r = _stub_child(stub_driver, STUB_TWO_FAULTS)
    assert "FIRST 700" in r.stdout, r.stdout + r.stderr
    assert "SECOND 700" in r.stdout
    assert "SAME MESSAGE True" in r.stdout
