"""GPUArray's memory shared and managed: __cuda_array_interface__, DLPack,
CuPy and PyTorch (`gpu`), a GPUArray as a kernel argument, memory pools
(freed blocks, arrays over freed memory), pycudac.tools and its test
helpers. Runs on the simulator (CI) and the GPU."""
import gc

import numpy as np
import pytest

pytestmark = pytest.mark.usefixtures("autoinit")  # ga and autoinit: conftest.py


# ------------------------------------------------------------------ interop

class _CAIExporter:
    def __init__(self, arr):
        self.arr = arr
        self.__cuda_array_interface__ = arr.__cuda_array_interface__


def test_cuda_array_interface_roundtrip(ga):
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    a = ga.to_gpu(x)
    cai = a.__cuda_array_interface__
    assert cai["version"] == 3 and cai["shape"] == (3, 4) and cai["typestr"] == "<f4"
    assert cai["data"] == (a.ptr, False) and cai["strides"] == (16, 4) and "stream" in cai
    assert a.T.__cuda_array_interface__["strides"] == (4, 16)
    b = ga.asarray(_CAIExporter(a.T))
    assert b.ptr == a.ptr and b.shape == (4, 3)
    np.testing.assert_array_equal(b.get(), x.T)
    a.fill(1)   # zero-copy: b sees it
    np.testing.assert_array_equal(b.get(), np.ones((4, 3), np.float32))
    assert ga.asarray(a) is a
    np.testing.assert_array_equal(ga.asarray([1, 2]).get(), [1, 2])


def test_dlpack_roundtrip(ga):
    x = np.arange(20, dtype=np.int16).reshape(4, 5)
    a = ga.to_gpu(x)
    assert a.__dlpack_device__()[0] == 2
    b = ga.from_dlpack(a[:, 1:])
    assert b.ptr == a.ptr + 2 and b.shape == (4, 4)
    np.testing.assert_array_equal(b.get(), x[:, 1:])
    a.fill(3)
    np.testing.assert_array_equal(b.get(), np.full((4, 4), 3, np.int16))
    cap = a.__dlpack__()   # dropped unconsumed: the destructor frees it
    del cap
    gc.collect()


@pytest.mark.gpu
def test_cupy_interop_both_ways(ga):
    cp = pytest.importorskip("cupy")
    c = cp.arange(10, dtype=cp.float32)
    g = ga.asarray(c)
    assert g.ptr == c.data.ptr
    g2 = g * 2
    c2 = cp.asarray(g2)
    assert c2.data.ptr == g2.ptr
    np.testing.assert_array_equal(cp.asnumpy(c2), np.arange(10, dtype=np.float32) * 2)
    c3 = cp.from_dlpack(g2)
    assert c3.data.ptr == g2.ptr
    g3 = ga.from_dlpack(c)
    assert g3.ptr == c.data.ptr


@pytest.mark.gpu
def test_torch_interop_both_ways(ga):
    torch = pytest.importorskip("torch")
    t = torch.arange(10, dtype=torch.float32, device="cuda")
    g = ga.from_dlpack(t)
    assert g.ptr == t.data_ptr()
    g2 = g + 1
    t2 = torch.from_dlpack(g2)
    assert t2.data_ptr() == g2.ptr
    assert torch.equal(t2.cpu(), torch.arange(10, dtype=torch.float32) + 1)
    t3 = torch.as_tensor(g2, device="cuda")
    assert t3.data_ptr() == g2.ptr


# ------------------------------------------------------------------ memory pool

def test_device_memory_pool_reuses_blocks():
    from pycudac import driver, tools
    pool = tools.DeviceMemoryPool()
    a = pool.allocate(1000)
    addr = int(a)
    assert pool.active_blocks == 1
    a.free()
    assert pool.held_blocks == 1 and pool.active_blocks == 0
    assert a.freed
    # a freed block is no pointer any more (its address may be b's below)
    with pytest.raises(ValueError, match="pooled allocation .* freed"):
        driver.memcpy_htod(a, np.zeros(4, np.float32))
    b = pool.allocate(900)   # same bin
    assert int(b) == addr and not b.freed
    del b
    gc.collect()
    assert pool.held_blocks == 1
    pool.free_held()
    assert pool.held_blocks == 0
    assert tools.bin_size(1) == 256 and tools.bin_size(1000) >= 1000


def test_a_gpuarray_over_freed_memory_raises_instead_of_touching_it(ga):
    """GPUArray(gpudata=a DeviceAllocation), then that allocation's free():
    the array's own operations took its address as an int and read or wrote
    the freed memory (a sticky 700 on the simulator; on a GPU, whatever lives
    there now), and a view passed to a kernel did too (found by an
    adversarial review). Each now raises a ValueError; the context stays
    usable."""
    from pycudac import driver
    from pycudac.compiler import SourceModule
    twice = SourceModule("__global__ void twice(float *x) { x[threadIdx.x] *= 2; }"
                         ).get_function("twice")
    alloc = driver.mem_alloc(256)
    a = ga.GPUArray((64,), np.float32, gpudata=alloc)
    a.fill(1)
    view = a[8:]
    alloc.free()
    ops = {"+=": lambda: a.__iadd__(1), "*": lambda: a * 2, "sum": lambda: ga.sum(a),
           "get": a.get, "fill": lambda: a.fill(0), "setitem": lambda: a.__setitem__(
               slice(None), 3), "ptr": lambda: a.ptr, "view.get": view.get,
           "view * 2": lambda: view * 2, "copy": a.copy}
    for name, op in ops.items():
        with pytest.raises(ValueError, match="device memory was freed"):
            op()
    for arg in (a, view):
        with pytest.raises(ValueError, match="argument 1 'x'.* device memory was freed"):
            twice(arg, block=(4, 1, 1))
    assert not driver.is_poisoned()
    assert ga.to_gpu(np.arange(3, dtype=np.float32)).get().tolist() == [0, 1, 2]


def test_freeing_a_block_an_array_holds_waits_for_the_array(ga):
    """`a.gpudata.free()` while `a` lives: the block goes back to the pool
    only when the array is gone, so the next allocation never shares a's
    memory (it did: a.get() read b's data and a.fill wrote into b)."""
    from pycudac import driver, tools
    pool = tools.DeviceMemoryPool()
    a = ga.to_gpu(np.arange(8, dtype=np.float32), allocator=pool.allocate)
    block = a.gpudata
    block.free()
    assert block.freed and pool.active_blocks == 1 and pool.held_blocks == 0
    with pytest.raises(ValueError, match="pooled allocation .* freed"):
        driver.memcpy_htod(block, np.zeros(8, np.float32))
    b = ga.to_gpu(np.full(8, 7, np.float32), allocator=pool.allocate)
    assert b.ptr != a.ptr
    a.fill(1)
    assert np.array_equal(b.get(), np.full(8, 7, np.float32))
    assert np.array_equal((a[2:] * 2).get(), np.full(6, 2, np.float32))
    addr = a.ptr
    del a, block
    gc.collect()
    assert pool.active_blocks == 1 and pool.held_blocks == 1
    c = pool.allocate(32)  # the same bin: a's block, returned at last
    assert int(c) == addr
    # a block no array holds still goes back at once
    d = pool.allocate(32)
    d.free()
    assert pool.held_blocks == 1 and pool.active_blocks == 2


def test_pagelocked_pool():
    from pycudac import tools
    pool = tools.PageLockedMemoryPool()
    h = pool.allocate((10, 10), np.float32)
    assert h.shape == (10, 10) and h.dtype == np.float32
    h[...] = 1
    del h
    gc.collect()
    assert pool.held_blocks == 1
    h2 = pool.allocate((100,), np.float32)
    assert h2.size == 100 and pool.held_blocks == 0


def test_gpuarrays_use_pool(ga):
    pool = ga.get_default_pool()
    a = ga.empty((1 << 16,), np.float32)
    addr = a.ptr
    del a
    gc.collect()
    b = ga.empty((1 << 16,), np.float32)
    assert b.ptr == addr and pool.held_blocks >= 0


def test_tools_misc():
    from pycudac import characterize, tools
    assert tools.dtype_to_ctype(np.float32) == "float"
    assert tools.dtype_to_ctype(np.uint64) == "unsigned long long"
    assert tools.dtype_to_ctype(np.complex64) == "pcc_complex64"
    with pytest.raises(TypeError, match="dtype"):
        tools.dtype_to_ctype(np.dtype("U3"))
    assert characterize.has_double_support()
    assert characterize.sizeof("double") == 8
    assert characterize.sizeof("pcc_complex64") == 8
    calls = []

    @tools.context_dependent_memoize
    def f(x):
        calls.append(x)
        return x * 2
    assert f(2) == 4 and f(2) == 4 and calls == [2]
    tools.clear_context_caches()
    assert f(2) == 4 and calls == [2, 2]


# ------------------------------------------------------------------ kernels and tools

def test_gpuarray_as_kernel_argument(ga):
    """A pointer parameter takes a GPUArray (int(gpudata) = element 0, views
    included) and a pooled allocation."""
    from pycudac.compiler import SourceModule
    mod = SourceModule("""
    __global__ void twice(float *out, const float *in, int n)
    {
        int i = blockIdx.x * blockDim.x + threadIdx.x;
        if (i < n) out[i] = 2 * in[i];
    }""")
    f = mod.get_function("twice")
    x = np.arange(40, dtype=np.float32)
    a = ga.to_gpu(x)
    out = ga.zeros(30, np.float32)
    f(out, a[10:], np.int32(30), block=(32, 1, 1), grid=(1, 1))
    np.testing.assert_array_equal(out.get(), 2 * x[10:])
    f(out.gpudata, a.gpudata, np.int32(30), block=(32, 1, 1), grid=(1, 1))
    np.testing.assert_array_equal(out.get(), 2 * x[:30])


def test_mark_cuda_test_and_fixture():
    from pycudac import driver, tools
    seen = []

    @tools.mark_cuda_test
    def inner():
        seen.append(driver.Context.get_current())
        return 5
    before = driver.Context.get_current()
    assert inner() == 5 and seen[0] is not before
    assert driver.Context.get_current() is before
    gen = tools.init_cuda_context_fixture()
    ctx = next(gen)
    assert driver.Context.get_current() is ctx
    with pytest.raises(StopIteration):
        next(gen)
    assert driver.Context.get_current() is before
