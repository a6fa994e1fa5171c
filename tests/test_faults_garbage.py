"""Garbage to every public entry point (issue 7, fault 13): sizes, pointers,
buffers, streams, events, contexts, launch configurations, Function and
Module methods, images, compile arguments, dtypes and shapes. Each call
works or raises TypeError, ValueError, OverflowError, MemoryError or the
driver's error, with a message: never a crash. Public API only; the
simulator in CI, the GPU under `make gpu-check`."""
import math

import numpy as np
import pytest

drv = pytest.importorskip("pycudac.driver")

import _faults_setup  # noqa: E402

mod = _faults_setup.mod  # a fixture: pytest finds it in this module


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
