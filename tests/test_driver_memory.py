"""Device memory: mem_alloc and its refusals, copies of every dtype and
buffer between host and device and their refusals, memsets (1D and pitched
2D), peer copies, PyCUDA's conveniences and PointerHolderBase, mem_alloc_async,
a 10,000-allocation loop that must not leak, and host checks made before the
driver is loaded. Runs on the simulator and the GPU."""
import gc
import os
import subprocess
import sys
import textwrap
import weakref

import numpy as np
import pytest

from pycudac import driver as drv

import _driver_setup

ctx = _driver_setup.ctx  # a fixture: pytest finds it in this module


# ---- device memory -------------------------------------------------------------

@pytest.mark.valgrind
def test_mem_alloc_basics(ctx):
    a = drv.mem_alloc(1000)
    assert a.size == 1000 and int(a) != 0
    assert int(a) == a.__index__()
    assert "1000 bytes" in repr(a)
    assert a.context is ctx
    r = weakref.ref(a)
    a.free()
    a.free()  # idempotent
    assert a.freed and "freed" in repr(a)
    with pytest.raises(ValueError, match="freed"):
        drv.memcpy_htod(a, np.zeros(4, np.uint8))
    del a
    assert r() is None


@pytest.mark.valgrind
def test_mem_alloc_zero():
    a = drv.mem_alloc(0)
    assert a.size == 0
    drv.memcpy_htod(a, np.zeros(0, np.float32))
    a.free()


@pytest.mark.parametrize("bad, exc, msg", [
    (-1, ValueError, ">= 0"), (1.5, TypeError, "float"), (float("nan"), TypeError, "nan"),
    (2**70, OverflowError, "too large"), ("10", TypeError, "str"), (None, TypeError, "None"),
])
@pytest.mark.valgrind
def test_mem_alloc_bad_size(bad, exc, msg):
    with pytest.raises(exc, match=msg) as info:
        drv.mem_alloc(bad)
    assert "bytes" in str(info.value)


@pytest.mark.valgrind
def test_mem_alloc_huge_is_memory_error():
    with pytest.raises(MemoryError):
        drv.mem_alloc(1 << 60)


def test_deviceallocation_not_constructible():
    with pytest.raises(TypeError, match="mem_alloc"):
        drv.DeviceAllocation()


@pytest.mark.valgrind
def test_mem_get_info():
    free, total = drv.mem_get_info()
    assert 0 < free <= total


_SIZED_TO_FREE = textwrap.dedent("""
    import numpy as np
    import pycudac.autoinit
    from pycudac import driver as drv, gpuarray
    free, total = drv.mem_get_info()
    print("total", total, "free", free)
    # cuvarbase's idiom: arrays sized to 90% of the free memory (empty: the
    # simulator touches none of it), and one just over a power of two
    a = gpuarray.empty(int(0.9 * free) // 4, np.float32)
    a[:8].fill(1.0)
    assert a[:8].get().tolist() == [1.0] * 8
    del a
    b = gpuarray.empty((1 << 30) + (1 << 20), np.uint8)
    print("used", free - drv.mem_get_info()[0])
""")


def test_arrays_sized_to_the_free_memory_fit():
    """PYCUDAC_SIM_MEMORY gives the simulated device its memory (the host's
    otherwise, where code that takes 90% of the free memory takes the host's
    RAM), and a GPUArray of ~90% of the free memory fits: the default pool
    rounded 1 GiB + 1 MiB up to 1.25 GiB (PyCUDA's bins, 4 to a doubling),
    so such an array ran out of memory where PyCUDA's GPUArray (cuMemAlloc)
    and CuPy's pool fit it; above 16 MiB a request now wastes at most 1/64."""
    env = dict(os.environ, PYCUDAC_BACKEND="sim", PYCUDAC_SIM_MEMORY="1400M")
    r = subprocess.run([sys.executable, "-c", _SIZED_TO_FREE], env=env, capture_output=True,
                       text=True, timeout=120)
    assert r.returncode == 0, r.stderr[-2000:]
    lines = dict(line.split(" ", 1) for line in r.stdout.splitlines())
    assert lines["total"].startswith(str(1400 << 20))
    assert int(lines["used"]) <= ((1 << 30) + (1 << 20)) * 65 // 64
    for setting, total in (("2G", 2 << 30), ("1536MiB", 1536 << 20), ("1073741824", 1 << 30),
                           ("a lot", None), ("-1G", None), (" -1", None),
                           ("99999999999999999999", None), ("18446744073709551615", None),
                           ("8388608T", None)):  # past a signed 64-bit count
        env["PYCUDAC_SIM_MEMORY"] = setting  # what is no size leaves the host's
        r = subprocess.run([sys.executable, "-c", "import pycudac.autoinit\n"
                            "from pycudac import driver as drv\n"
                            "print(drv.Context.get_device().total_memory())"],
                           env=env, capture_output=True, text=True, timeout=120)
        assert r.returncode == 0, r.stderr[-2000:]
        got = int(r.stdout.split()[-1])
        assert got == total if total else got == os.sysconf("SC_PHYS_PAGES") * \
            os.sysconf("SC_PAGE_SIZE"), setting


DTYPES = ["bool", "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64",
          "float16", "float32", "float64", "complex64", "complex128", "S5", "U3",
          "datetime64[ns]", "timedelta64[s]",
          [("a", "i4"), ("b", "f8"), ("c", "S3")],
          np.dtype([("x", "u1"), ("y", "f4")], align=True)]


def _sample(dtype, n=37):
    dtype = np.dtype(dtype)
    raw = np.random.default_rng(1).integers(0, 256, n * dtype.itemsize, dtype=np.uint8)
    if dtype.kind in "SUb":
        if dtype.kind == "b":
            return raw[:n] % 2 == 0
        words = [("w%d" % i)[: dtype.itemsize // (4 if dtype.kind == "U" else 1)]
                 for i in range(n)]
        return np.array(words, dtype)
    if dtype.kind == "f" or dtype.kind == "c":
        return np.arange(n).astype(dtype) / 3
    return raw.view(dtype)


@pytest.mark.valgrind
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_round_trip_every_dtype(dtype):
    x = _sample(dtype)
    a = drv.mem_alloc(x.nbytes)
    b = drv.mem_alloc(x.nbytes)
    drv.memcpy_htod(a, x)
    drv.memcpy_dtod(b, a, x.nbytes)
    y = np.empty_like(x)
    drv.memcpy_dtoh(y, b)
    assert y.tobytes() == x.tobytes()
    assert (y == x).all()


def test_string_array_seed_example():
    x = np.array(["stuff"], "S5")
    a = drv.mem_alloc(x.nbytes)
    drv.memcpy_htod(a, x)
    b = drv.mem_alloc(x.nbytes)
    drv.memcpy_dtod(b, a, x.nbytes)
    y = np.empty_like(x)
    drv.memcpy_dtoh(y, b)
    assert y[0] == b"stuff" and y.dtype == np.dtype("S5")


@pytest.mark.valgrind
def test_buffer_protocol_objects():
    a = drv.mem_alloc(16)
    drv.memcpy_htod(a, b"0123456789abcdef")
    out = bytearray(16)
    drv.memcpy_dtoh(out, a)
    assert bytes(out) == b"0123456789abcdef"
    drv.memcpy_htod(a, memoryview(b"ABCDEFGHIJKLMNOP"))
    mv = memoryview(bytearray(16))
    drv.memcpy_dtoh(mv, a)
    assert mv.tobytes() == b"ABCDEFGHIJKLMNOP"
    f = np.asfortranarray(np.arange(4, dtype=np.uint32).reshape(2, 2))
    drv.memcpy_htod(a, f)  # any contiguous order copies its bytes
    g = np.empty((2, 2), np.uint32, order="F")
    drv.memcpy_dtoh(g, a)
    assert (g == f).all()


@pytest.mark.valgrind
def test_keywords_and_int_pointers():
    x = np.arange(8, dtype=np.int32)
    a = drv.mem_alloc(x.nbytes)
    drv.memcpy_htod(dest=int(a), src=x)
    y = np.zeros_like(x)
    drv.memcpy_dtoh(src=a, dest=y)
    assert (x == y).all()
    # interior pointer
    drv.memcpy_htod(int(a) + 16, np.full(4, 7, np.int32))
    drv.memcpy_dtoh(y, a)
    assert (y == [0, 1, 2, 3, 7, 7, 7, 7]).all()


@pytest.mark.valgrind
def test_object_arrays_rejected():
    a = drv.mem_alloc(64)
    obj = np.array([1, "x", None], dtype=object)
    with pytest.raises(TypeError, match=r"memcpy_htod\(src\).*object"):
        drv.memcpy_htod(a, obj)
    with pytest.raises(TypeError, match=r"memcpy_dtoh\(dest\).*object"):
        drv.memcpy_dtoh(obj, a)
    with pytest.raises(TypeError, match="object"):
        drv.memcpy_htod(a, memoryview(obj))
    rec = np.zeros(2, dtype=[("a", "i4"), ("o", "O")])
    with pytest.raises(TypeError, match="object"):
        drv.memcpy_htod(a, rec)


@pytest.mark.valgrind
def test_non_contiguous_rejected():
    a = drv.mem_alloc(64)
    x = np.arange(16, dtype=np.int32)[::2]
    with pytest.raises(ValueError, match=r"memcpy_htod\(src\).*contiguous"):
        drv.memcpy_htod(a, x)
    y = np.zeros((4, 4), np.int32)[:, 1]
    with pytest.raises(ValueError, match=r"memcpy_dtoh\(dest\).*contiguous"):
        drv.memcpy_dtoh(y, a)
    with pytest.raises(ValueError, match="contiguous"):
        drv.memcpy_htod(a, memoryview(np.arange(16, dtype=np.int32))[::2])


@pytest.mark.valgrind
def test_read_only_destination_rejected():
    a = drv.mem_alloc(16)
    ro = np.zeros(4, np.int32)
    ro.flags.writeable = False
    with pytest.raises(ValueError, match=r"memcpy_dtoh\(dest\).*read-only"):
        drv.memcpy_dtoh(ro, a)
    with pytest.raises(TypeError, match="read-only"):
        drv.memcpy_dtoh(b"0123456789abcdef", a)


@pytest.mark.valgrind
def test_device_range_too_small():
    a = drv.mem_alloc(16)
    with pytest.raises(ValueError, match=r"memcpy_htod\(dest\).*32 bytes.*16 bytes"):
        drv.memcpy_htod(a, np.zeros(8, np.int32))
    with pytest.raises(ValueError, match=r"memcpy_dtoh\(src\)"):
        drv.memcpy_dtoh(np.zeros(8, np.int32), a)
    b = drv.mem_alloc(8)
    with pytest.raises(ValueError, match=r"memcpy_dtod\(dest\)"):
        drv.memcpy_dtod(b, a, 16)
    with pytest.raises(ValueError, match=r"memcpy_dtod\(src\)"):
        drv.memcpy_dtod(a, b, 16)
    with pytest.raises(ValueError, match="memset_d32"):
        drv.memset_d32(a, 0, 5)


@pytest.mark.valgrind
def test_int_pointer_range_checked():
    a = drv.mem_alloc(16)
    with pytest.raises(ValueError, match="device memory there holds only 8 bytes"):
        drv.memcpy_htod(int(a) + 8, np.zeros(16, np.uint8))


@pytest.mark.valgrind
def test_wrong_kinds_rejected():
    a = drv.mem_alloc(16)
    x = np.zeros(4, np.int32)
    with pytest.raises(TypeError, match=r"memcpy_htod\(dest\).*argument order"):
        drv.memcpy_htod(x, a)
    with pytest.raises(TypeError, match=r"memcpy_htod\(src\).*argument order"):
        drv.memcpy_htod(a, a)
    with pytest.raises(TypeError, match=r"memcpy_htod\(dest\)"):
        drv.memcpy_htod(1.0, x)
    with pytest.raises(ValueError, match=r"memcpy_htod\(dest\).*>= 0"):
        drv.memcpy_htod(-5, x)
    with pytest.raises(TypeError, match="missing"):
        drv.memcpy_htod(a)
    with pytest.raises(TypeError, match="unexpected keyword"):
        drv.memcpy_htod(a, x, strm=None)
    with pytest.raises(TypeError, match=r"memcpy_dtod\(size\): size"):
        drv.memcpy_dtod(a, a, 1.5)
    with pytest.raises(ValueError, match=r"memcpy_dtod\(size\): size must be >= 0"):
        drv.memcpy_dtod(a, a, -1)
    with pytest.raises(TypeError, match="Stream"):
        drv.memcpy_htod_async(a, x, "stream")
    # each entry point names its own arguments
    with pytest.raises(ValueError, match=r"^memcpy_dtoh_async\(src\): the device address "
                                         r"must be >= 0"):
        drv.memcpy_dtoh_async(x, -1)
    with pytest.raises(OverflowError, match=r"^memcpy_htod_async\(dest\): the device address "
                                            r"is too large"):
        drv.memcpy_htod_async(1 << 64, x)
    with pytest.raises(TypeError, match=r"^memcpy_dtod_async\(src\)"):
        drv.memcpy_dtod_async(a, 1.0, 4)
    with pytest.raises(TypeError, match=r"^memcpy_dtoh\(dest\)"):
        drv.memcpy_dtoh(a, a)


@pytest.mark.valgrind
def test_memset():
    a = drv.mem_alloc(64)
    out = np.zeros(64, np.uint8)
    drv.memset_d8(a, 0xAB, 64)
    drv.memcpy_dtoh(out, a)
    assert (out == 0xAB).all()
    drv.memset_d16(a, 0x1234, 32)
    drv.memcpy_dtoh(out, a)
    assert (out.view(np.uint16) == 0x1234).all()
    drv.memset_d32(a, -1, 16)
    drv.memcpy_dtoh(out, a)
    assert (out.view(np.uint32) == 0xFFFFFFFF).all()
    s = drv.Stream()
    drv.memset_d32_async(a, 7, 16, s)
    drv.memset_d8_async(a, 1, 4, stream=s)
    drv.memset_d16_async(a, 2, 1)
    s.synchronize()
    drv.Context.synchronize()
    drv.memcpy_dtoh(out, a)
    assert list(out[:4]) == [2, 0, 1, 1] and (out.view(np.uint32)[1:] == 7).all()
    with pytest.raises(OverflowError, match="8 bits"):
        drv.memset_d8(a, 256, 1)
    with pytest.raises(TypeError, match="data"):
        drv.memset_d32(a, 1.0, 1)
    with pytest.raises(ValueError, match=r"^memset_d8\(count\): count must be >= 0"):
        drv.memset_d8(a, 0, -1)
    # each entry point names itself and its arguments
    with pytest.raises(ValueError, match=r"^memset_d16_async\(dest\): the device address"):
        drv.memset_d16_async(-8, 0, 1)
    with pytest.raises(TypeError, match=r"memset_d32_async\(\) takes at most 4 arguments"):
        drv.memset_d32_async(a, 0, 1, None, None)
    with pytest.raises(TypeError, match=r"memset_d32\(\) takes at most 3 arguments"):
        drv.memset_d32(a, 0, 1, None)


def test_memcpy_peer_same_context(ctx):
    x = np.arange(10, dtype=np.float64)
    a = drv.mem_alloc(x.nbytes)
    b = drv.mem_alloc(x.nbytes)
    drv.memcpy_htod(a, x)
    drv.memcpy_peer(b, a, x.nbytes)
    drv.memcpy_peer(b, a, x.nbytes, dest_context=ctx, src_context=ctx)
    y = np.empty_like(x)
    drv.memcpy_dtoh(y, b)
    assert (x == y).all()
    with pytest.raises(TypeError, match="dest_context"):
        drv.memcpy_peer(b, a, 8, dest_context=3)


@pytest.mark.valgrind
def test_pycuda_conveniences():
    x = np.arange(5, dtype=np.int16)
    a = drv.to_device(x)
    assert (drv.from_device(a, x.shape, x.dtype) == x).all()
    assert (drv.from_device_like(a, x) == x).all()
    assert drv.mem_alloc_like(x).size == x.nbytes


def test_pointer_holder_base():
    """Foreign device memory wrapped as PyCUDA does: a subclass with
    get_pointer(), used by copies, kernels and GPUArray(gpudata=...)."""
    from pycudac import gpuarray
    from pycudac.compiler import SourceModule

    class Holder(drv.PointerHolderBase):
        def __init__(self, alloc, offset=0):
            super().__init__()
            self.alloc, self.offset = alloc, offset

        def get_pointer(self):
            return int(self.alloc) + self.offset

    x = np.arange(8, dtype=np.float32)
    owner = drv.to_device(x)
    h = Holder(owner, 4 * 4)  # the second half
    assert int(h) == int(owner) + 16
    assert (drv.from_device(h, (4,), np.float32) == x[4:]).all()
    k = SourceModule("__global__ void twice(float *a) { a[threadIdx.x] *= 2; }")
    k.get_function("twice")(h, block=(4, 1, 1), grid=(1, 1))
    g = gpuarray.GPUArray((4,), np.float32, gpudata=h)
    assert (g.get() == 2 * x[4:]).all()
    assert (drv.from_device(owner, (8,), np.float32) == np.r_[x[:4], 2 * x[4:]]).all()
    with pytest.raises(NotImplementedError, match="get_pointer"):
        int(drv.PointerHolderBase())


@pytest.mark.valgrind
def test_mem_alloc_async():
    s = drv.Stream()
    a = drv.mem_alloc_async(100, s)
    x = np.arange(25, dtype=np.int32)
    drv.memcpy_htod_async(a, x, s)
    y = np.zeros_like(x)
    drv.memcpy_dtoh_async(y, a, s)
    s.synchronize()
    assert (x == y).all()
    a.free()
    b = drv.mem_alloc_async(16)
    assert b.size == 16
    with pytest.raises(TypeError, match="stream"):
        drv.mem_alloc_async(16, stream=1)


def test_alloc_free_loop_does_not_leak():
    gc.collect()
    free_before = drv.mem_get_info()[0]
    x = np.zeros(64, np.uint8)
    for i in range(10000):
        a = drv.mem_alloc(4096)
        if i % 100 == 0:
            drv.memcpy_htod(a, x)
        if i % 2:
            a.free()
        del a
    gc.collect()
    assert drv.mem_get_info()[0] >= free_before - (1 << 20)


@pytest.mark.valgrind
def test_host_validation_needs_no_driver():
    """Bad host buffers and sizes are refused before the driver is loaded."""
    code = textwrap.dedent("""
        import numpy as np
        from pycudac import driver as drv
        checks = [
            (lambda: drv.memcpy_htod(4096, np.array([1, None], object)), TypeError, "object"),
            (lambda: drv.memcpy_htod(4096, np.arange(8)[::2]), ValueError, "contiguous"),
            (lambda: drv.memcpy_dtoh(b"abcd", 4096), TypeError, "read-only"),
            (lambda: drv.memcpy_htod(np.zeros(2), 4096), TypeError, "argument order"),
            (lambda: drv.mem_alloc(-1), ValueError, ">= 0"),
            (lambda: drv.mem_alloc(float("nan")), TypeError, "nan"),
            (lambda: drv.memcpy_dtod(4096, 8192, 2.5), TypeError, "size"),
            (lambda: drv.pagelocked_empty(3, object), TypeError, "object"),
        ]
        for fn, exc, text in checks:
            try:
                fn()
            except exc as e:
                assert text in str(e), (text, str(e))
            else:
                raise AssertionError(f"no {exc.__name__} for {text}")
        try:
            drv.mem_alloc(16)
        except drv.Error as e:
            assert "libcuda" in str(e) or "no-such-libcuda" in str(e), str(e)
        print("ok")
    """)
    env = dict(os.environ, PYCUDAC_BACKEND="cuda",
               PYCUDAC_LIBCUDA="/nonexistent/no-such-libcuda.so.1")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "ok"


def test_pitched_allocation_and_2d_memset(ctx):
    """PyCUDA's mem_alloc_pitch and memset_d2d8/16/32 (an AttributeError
    before: found by an adversarial review): rows `pitch` bytes apart, pitch
    a multiple of TEXTURE_PITCH_ALIGNMENT, each row's first `width` elements
    set and the padding left alone; bad arguments named."""
    align = drv.Context.get_device().get_attribute(drv.device_attribute.TEXTURE_PITCH_ALIGNMENT)
    a, pitch = drv.mem_alloc_pitch(100, 3, 4)
    assert pitch >= 100 and pitch % max(align, 4) == 0 and a.size >= 3 * pitch
    drv.memset_d8(a, 0, a.size)
    for fn, dt, width, value in ((drv.memset_d2d8, np.uint8, 20, 0x5A),
                                 (drv.memset_d2d16, np.uint16, 10, 0x1234),
                                 (drv.memset_d2d32, np.uint32, 5, 0xDEADBEEF)):
        fn(a, pitch, value, width, 3)
        rows = np.zeros(3 * pitch, np.uint8)
        drv.memcpy_dtoh(rows, a)
        rows = rows.reshape(3, pitch).view(dt)
        assert (rows[:, :width] == value).all()
        drv.memset_d8(a, 0, a.size)
    rows = np.zeros(3 * pitch, np.uint8)
    drv.memset_d2d8(int(a), pitch, 1, 4, 2)  # an int address too
    drv.memcpy_dtoh(rows, a)
    assert rows.reshape(3, pitch)[:2, :4].all() and not rows.reshape(3, pitch)[:, 4:].any()
    for call, exc, match in [(lambda: drv.mem_alloc_pitch(0, 1, 4), ValueError, "positive"),
                             (lambda: drv.mem_alloc_pitch(4, 1, 3), ValueError, "4, 8 or 16"),
                             (lambda: drv.mem_alloc_pitch(4.0, 1, 4), TypeError, "width"),
                             (lambda: drv.memset_d2d32(a, 4, 0, 10, 3), ValueError, "pitch"),
                             (lambda: drv.memset_d2d8(a, pitch, 0, 10, 100), ValueError,
                              "do not fit")]:
        with pytest.raises(exc, match=match):
            call()
    a.free()
    with pytest.raises(ValueError, match="freed"):
        drv.memset_d2d8(a, pitch, 0, 4, 2)
