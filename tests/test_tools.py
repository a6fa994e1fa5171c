"""pycudac.tools helpers with PyCUDA's names: the pool's bins, bitlog2 and the
context fixture. Runs on the simulator."""
import random

import numpy as np
import pytest

from pycudac import tools


def test_bitlog2():
    assert [tools.bitlog2(n) for n in (0, 1, 2, 3, 17, 0xaffe, 0x3affe, 0xcc3affe)] == \
        [0, 0, 1, 1, 4, 15, 17, 27]
    assert tools.bitlog2(np.uint64(2 ** 63)) == 63
    with pytest.raises(ValueError, match="bitlog2: n must be >= 0"):
        tools.bitlog2(-1)
    with pytest.raises(TypeError, match="bitlog2: n must be an int"):
        tools.bitlog2(2.5)


def test_pool_bins_numbered():
    """PyCUDA's DeviceMemoryPool.bin_number / alloc_size, on pycudac's bins:
    the bin's size serves the request, wastes at most a quarter of it, and
    numbers the same bin back."""
    D = tools.DeviceMemoryPool
    rng = random.Random(3)
    sizes = list(range(0, 3000)) + [rng.randrange(1 << 31) >> rng.randrange(32)
                                     for _ in range(3000)] + [2 ** 40 + 1]
    sizes += [(1 << e) + d for e in range(20, 45) for d in (-1, 0, 1, 12345)]
    for n in sizes:
        b = D.bin_number(n)
        a = D.alloc_size(b)
        assert a == tools.bin_size(n) >= n and D.bin_number(a) == b, n
        # PyCUDA's four bins to a doubling up to 16 MiB, then 64: at most 1/64
        # wasted, or an array of most of a GPU's memory would not fit
        assert a <= max(256, n * (1.25 if n <= 1 << 24 else 65 / 64) + 256), n
    assert tools.bin_size((1 << 34) + 1) == 65 << 28
    got = [D.alloc_size(i) for i in range(12)]
    assert got == [256, 512, 768, 1024, 1280, 1536, 1792, 2048, 2560, 3072, 3584, 4096]
    every = [D.alloc_size(i) for i in range(1000)]
    assert every == sorted(set(every)) and (1 << 24) in every
    with pytest.raises(ValueError, match="bin_number: nbytes must be >= 0"):
        D.bin_number(-1)
    with pytest.raises(TypeError, match="alloc_size: bin_nr must be an int"):
        D.alloc_size(1.0)


def test_pool_serves_from_numbered_bins(backend):
    import pycudac.autoinit  # noqa: F401
    pool = tools.DeviceMemoryPool()
    a = pool.allocate(1000)
    assert a.size == pool.alloc_size(pool.bin_number(1000)) == 1024
    a.free()
    assert int(pool.allocate(900)) == int(a)  # the same bin, the block reused
    pool.stop_holding()


def test_init_cuda_context_fixture_is_pycuda_generator(backend):
    """`yield from tools.init_cuda_context_fixture()` inside a fixture, as
    PyCUDA's own test files do."""
    from pycudac import driver
    before = driver.Context.get_current()
    gen = tools.init_cuda_context_fixture()
    ctx = next(gen)
    assert driver.Context.get_current() is ctx and ctx is not before
    with pytest.raises(StopIteration):
        next(gen)
    assert driver.Context.get_current() is before


@pytest.fixture
def pycuda_style_context(backend):
    yield from tools.init_cuda_context_fixture()


def test_fixture_made_the_pycuda_way(pycuda_style_context):
    from pycudac import driver, gpuarray
    assert driver.Context.get_current() is pycuda_style_context
    assert (gpuarray.to_gpu(np.arange(4)) * 2).get().tolist() == [0, 2, 4, 6]


def test_device_data_and_occupancy(backend):
    import pycudac.autoinit  # noqa: F401
    from pycudac import driver
    dd = tools.DeviceData()
    dev = driver.Context.get_device()
    assert dd.max_threads == dev.max_threads_per_block and dd.warp_size == 32
    assert dd.warps_per_mp * 32 == dev.max_threads_per_multiprocessor
    assert (dd.align_bytes(), dd.align_bytes(8), dd.align_words(8)) == (64, 128, 16)
    assert (dd.align(65), dd.align_dtype(17, 8), dd.coalesce(17)) == (128, 32, 32)
    assert [dd.make_valid_tex_channel_count(n) for n in (1, 2, 3, 4)] == [1, 2, 4, 4]
    with pytest.raises(ValueError, match="align_bytes"):
        dd.align_bytes(2)
    full = tools.OccupancyRecord(dd, 256)
    assert full.limited_by == "warps" and full.occupancy == 1.0
    assert full.tb_per_mp == dd.warps_per_mp // 8
    tiny = tools.OccupancyRecord(dd, 32)
    assert tiny.limited_by == "device" and tiny.tb_per_mp == dd.thread_blocks_per_mp
    smem = tools.OccupancyRecord(dd, 128, shared_mem=dd.shared_memory)
    assert smem.limited_by == "smem" and smem.tb_per_mp == dd.shared_memory_per_mp // \
        dd.shared_memory and 0 < smem.occupancy < 1
    regs = tools.OccupancyRecord(dd, 1024, registers=64)
    assert regs.limited_by == "regs" and regs.tb_per_mp == dd.registers_per_mp // (64 * 1024)
    with pytest.raises(ValueError, match="threads must be"):
        tools.OccupancyRecord(dd, dd.max_threads + 1)
    with pytest.raises(ValueError, match="registers"):
        tools.OccupancyRecord(dd, 1024, registers=255)


def test_pools_refuse_what_would_crash_or_leak(backend):
    """Found by an adversarial review: PageLockedMemoryPool.allocate took an
    object dtype, and a reused pinned block read as object pointers crashed
    the interpreter (run in a child here); its stop_holding() kept holding
    what was freed afterwards; DeviceMemoryPool.allocate took 4.9 and "16"."""
    import subprocess
    import sys
    code = ("import numpy as np, pycudac.autoinit\n"
            "from pycudac import tools\n"
            "p = tools.PageLockedMemoryPool()\n"
            "h = p.allocate(4, np.float64); h[:] = 1e-300; del h\n"
            "try:\n"
            "    o = p.allocate(4, object); print(o[0])\n"
            "except TypeError as e:\n"
            "    print('refused:', e)\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and "refused: PageLockedMemoryPool.allocate: dtype object" in \
        r.stdout, (r.returncode, r.stdout, r.stderr[-800:])
    import pycudac.autoinit  # noqa: F401
    hp = tools.PageLockedMemoryPool()
    h = hp.allocate(1 << 20, np.uint8)
    hp.stop_holding()
    del h
    assert hp.held_blocks == 0 and hp.active_blocks == 0
    with pytest.raises(ValueError, match="order must be 'C' or 'F'"):
        hp.allocate(4, np.float32, order="X")
    dp = tools.DeviceMemoryPool()
    for bad in (4.9, "16"):
        with pytest.raises(TypeError, match="allocate: nbytes must be an int"):
            dp.allocate(bad)
    assert int(dp.allocate(np.int64(16))) != 0


def test_pycudas_argument_descriptions_live_in_tools(ctx):
    """pycuda.tools.VectorArg, ScalarArg, parse_c_arg and get_arg_type (an
    AttributeError before: code that builds an ElementwiseKernel from them
    imports them from tools), the same objects elementwise exports."""
    from pycudac import elementwise, gpuarray
    assert tools.VectorArg is elementwise.VectorArg and tools.ScalarArg is elementwise.ScalarArg
    x = tools.parse_c_arg("const float *x")
    assert (x.name, x.is_pointer, x.dtype, x.struct_char) == ("x", True, np.float32, "P")
    # classes, as PyCUDA's own scan and elementwise code tests them (a review:
    # isinstance(arg, VectorArg) was a TypeError while they were functions)
    assert isinstance(x, tools.VectorArg) and not isinstance(x, tools.ScalarArg)
    assert isinstance(tools.parse_c_arg("int n"), tools.ScalarArg)
    assert isinstance(tools.VectorArg(np.int32, "p"), tools.VectorArg)
    assert repr(tools.ScalarArg(np.float32, "a")) == "ScalarArg('a', float32)"
    with pytest.raises(ValueError, match="names no parameter"):
        tools.parse_c_arg("float")
    assert tools.get_arg_type("int n") == "i" and tools.get_arg_type("double *d") == "P"
    assert tools.ScalarArg(np.float64, "a").declarator() == "double a"
    with pytest.raises(ValueError, match="one C parameter"):
        tools.parse_c_arg("float *x, int n")
    with pytest.raises(TypeError, match="c_arg must be a str"):
        tools.parse_c_arg(3)
    k = elementwise.ElementwiseKernel([tools.VectorArg(np.float32, "x"),
                                       tools.ScalarArg(np.float32, "a")], "x[i] *= a", "scale")
    a = gpuarray.to_gpu(np.arange(6, dtype=np.float32))
    k(a, np.float32(3))
    assert a.get().tolist() == [0, 3, 6, 9, 12, 15]


def test_gpuarray_module_reshape_and_transpose(ctx):
    """PyCUDA's module-level gpuarray.reshape and gpuarray.transpose."""
    from pycudac import gpuarray
    host = np.arange(6, dtype=np.float32).reshape(2, 3)
    a = gpuarray.to_gpu(host)
    assert gpuarray.transpose(a).get().tolist() == host.T.tolist()
    assert gpuarray.reshape(a, 3, 2).get().tolist() == host.reshape(3, 2).tolist()
    assert gpuarray.reshape(a, (6,), order="C").shape == (6,)
    with pytest.raises(TypeError, match="a must be a GPUArray"):
        gpuarray.transpose(host)


def test_get_default_device_and_the_linear_combination_refusal(ctx, monkeypatch):
    from pycudac import driver, elementwise
    monkeypatch.setenv("CUDA_DEVICE", "0")
    with pytest.warns(DeprecationWarning, match="make_default_context"):
        assert tools.get_default_device() == driver.Device(0)
    monkeypatch.setenv("CUDA_DEVICE", "zero")
    with pytest.warns(DeprecationWarning), pytest.raises(ValueError, match="a number"):
        tools.get_default_device()
    with pytest.raises(driver.LogicError, match="texture references, which CUDA 12 removed"):
        elementwise.get_linear_combination_kernel(((True, np.float32, np.float32),), np.float32)


def test_splay_sizes_grid_stride_launches_as_pycuda(ctx):
    """gpuarray.splay(n): PyCUDA's launch shape, which code built on PyCUDA
    sizes its kernels with (compyle's Kernel; an AttributeError before).
    One warp a block while few elements, at most 4 * 8 * SMs blocks (PyCUDA
    counts 8 blocks to an SM), then warps added to each block up to 128
    threads."""
    from pycudac import driver as drv, gpuarray
    dev = drv.Context.get_device()
    a = drv.device_attribute
    warp = dev.get_attribute(a.WARP_SIZE)
    most = 4 * 8 * dev.get_attribute(a.MULTIPROCESSOR_COUNT)
    assert gpuarray.splay(0) == ((1, 1), (warp, 1, 1))
    assert gpuarray.splay(1) == ((1, 1), (warp, 1, 1))
    assert gpuarray.splay(warp + 1) == ((2, 1), (warp, 1, 1))
    assert gpuarray.splay(warp * most) == ((most, 1), (warp, 1, 1))
    assert gpuarray.splay(warp * most + 1) == ((most, 1), (2 * warp, 1, 1))
    assert gpuarray.splay(10 ** 9, dev) == ((most, 1), (128, 1, 1))
    for n in (1, 31, 1000, warp * most * 3 + 7, 10 ** 7):
        (blocks, _), (threads, _, _) = gpuarray.splay(n)
        assert blocks <= most and threads <= 128 and threads % warp == 0
        assert blocks * threads >= min(n, most * 128)  # a grid-stride loop covers the rest
    with pytest.raises(ValueError, match="splay: n must be >= 0"):
        gpuarray.splay(-1)
    with pytest.raises(TypeError, match="splay: n must be an int, not float"):
        gpuarray.splay(2.5)
    with pytest.raises(TypeError, match="splay: dev must be a Device or None, not int"):
        gpuarray.splay(10, 0)


def test_cluda_preamble(ctx):
    """pycuda._cluda.CLUDA_PREAMBLE, which code written for PyOpenCL and
    PyCUDA both (compyle) imports: ModuleNotFoundError before. A kernel in
    the preamble's dialect runs, and its macros mean CUDA's indices."""
    from pycudac import driver as drv, gpuarray
    from pycudac._cluda import CLUDA_PREAMBLE
    from pycudac.compiler import SourceModule
    # (the preamble starts on a line of its own, as PyCUDA's does)
    m = SourceModule("#define TWO 2" + CLUDA_PREAMBLE + r"""
    WITHIN_KERNEL float twice(float x) { return TWO * x; }
    KERNEL void k(GLOBAL_MEM float *out, GLOBAL_MEM const float *in, int n)
    {
        LOCAL_MEM float tile[64];
        int i = GID_0 * LDIM_0 + LID_0;
        tile[LID_0] = i < n ? in[i] : 0.0f;
        local_barrier();
        if (i < n) out[i] = twice(tile[LDIM_0 - 1 - LID_0]) + GDIM_0 + LID_1 + GID_1;
    }
    """, no_extern_c=True)
    k = m.get_function("k")
    assert [p.kind for p in k.param_layout] == ["ptr", "ptr", "i32"]
    x = np.arange(128, dtype=np.float32)
    out = gpuarray.empty_like(gpuarray.to_gpu(x))
    k(out, gpuarray.to_gpu(x), np.int32(128), block=(64, 1, 1), grid=(2, 1))
    want = 2 * x.reshape(2, 64)[:, ::-1].ravel() + 2
    np.testing.assert_array_equal(out.get(), want)
    drv.Context.synchronize()


def test_mymako(monkeypatch):
    """pycuda._mymako (ModuleNotFoundError before): Mako's templates, or
    without Mako an ImportError that says what to install."""
    import importlib
    import sys
    with monkeypatch.context() as mp:  # without Mako: an ImportError that says what to do
        mp.setitem(sys.modules, "mako", None)
        mp.delitem(sys.modules, "pycudac._mymako", raising=False)
        with pytest.raises(ImportError, match="renders Mako templates.*pip install Mako"):
            importlib.import_module("pycudac._mymako")
    monkeypatch.delitem(sys.modules, "pycudac._mymako", raising=False)
    pytest.importorskip("mako")
    mymako = importlib.import_module("pycudac._mymako")
    assert mymako.template.Template("${a}+${b}").render(a=1, b=2) == "1+2"
