"""A context's and a kernel's settings: cache and shared-memory bank
preferences (Context/Function.set_cache_config, set_shared_config,
driver.func_cache, driver.shared_config) and ManagedAllocation.attach, with
PyCUDA's names (PyCUDA code that called them got an AttributeError); a new
context's flags and the device attributes asked by number. On both backends."""
import numpy as np
import pytest

import pycudac.driver as drv
from pycudac.compiler import SourceModule

KERNEL = """
__global__ void fill(int *out, int v)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    __shared__ int s[64];
    s[threadIdx.x] = v + i;
    __syncthreads();
    out[i] = s[blockDim.x - 1 - threadIdx.x];
}
"""


@pytest.fixture
def restore_cache_config(ctx):
    before = drv.Context.get_cache_config()
    yield
    drv.Context.set_cache_config(before)


def expect_fill(out, v):
    n = out.size
    assert out.tolist() == [v + (i // 64) * 64 + 63 - i % 64 for i in range(n)]


def test_context_cache_config_round_trip(restore_cache_config):
    for member in drv.func_cache:
        drv.Context.set_cache_config(member)
        got = drv.Context.get_cache_config()
        assert got == member and isinstance(got, drv.func_cache)
        assert str(got) == member.name  # PyCUDA's enums print their names
    drv.Context.set_cache_config(2)  # a plain int is the same value
    assert drv.Context.get_cache_config() is drv.func_cache.PREFER_L1


@pytest.mark.parametrize("bad, exc", [(4, ValueError), (-1, ValueError), (2**70, ValueError),
                                      (1.0, TypeError), ("PREFER_L1", TypeError),
                                      (True, TypeError), (None, TypeError)])
def test_a_bad_cache_config_is_refused_and_changes_nothing(restore_cache_config, bad, exc):
    drv.Context.set_cache_config(drv.func_cache.PREFER_SHARED)
    f = SourceModule(KERNEL).get_function("fill")
    for call in (drv.Context.set_cache_config, f.set_cache_config):
        with pytest.raises(exc, match=r"set_cache_config\(config\): config must be a "
                                      r"driver\.func_cache member"):
            call(bad)
    assert drv.Context.get_cache_config() is drv.func_cache.PREFER_SHARED


def test_another_enums_member_is_refused(restore_cache_config):
    """An IntEnum is an int: set_cache_config(shared_config.EIGHT_BYTE_BANK_SIZE)
    set PREFER_L1, and attach(func_cache.PREFER_SHARED) attached GLOBAL (a
    review). PyCUDA's enums refuse each other's members; so does pycudac.
    NumPy ints and plain ints stay accepted."""
    f = SourceModule(KERNEL).get_function("fill")
    with pytest.raises(TypeError, match=r"config must be a driver\.func_cache member, not "
                                        r"shared_config\.EIGHT_BYTE_BANK_SIZE"):
        drv.Context.set_cache_config(drv.shared_config.EIGHT_BYTE_BANK_SIZE)
    with pytest.raises(TypeError, match="driver.shared_config member, not func_cache"):
        f.set_shared_config(drv.func_cache.PREFER_SHARED)
    with pytest.raises(TypeError, match="driver.mem_attach_flags member, not func_cache"):
        drv.managed_zeros(4, np.int32).base.attach(drv.func_cache.PREFER_SHARED)
    drv.Context.set_cache_config(np.uint8(2))
    assert drv.Context.get_cache_config() is drv.func_cache.PREFER_L1


def test_shared_config_is_accepted_and_banks_stay_four_bytes(ctx):
    """Every GPU CUDA 13 drives has fixed four-byte banks: a request is
    taken and changes nothing, as the driver documents."""
    f = SourceModule(KERNEL).get_function("fill")
    for member in drv.shared_config:
        drv.Context.set_shared_config(member)
        f.set_shared_config(member)
        got = drv.Context.get_shared_config()
        assert got is drv.shared_config.FOUR_BYTE_BANK_SIZE
    for bad, exc in [(3, ValueError), (-1, ValueError), (0.5, TypeError)]:
        for call in (drv.Context.set_shared_config, f.set_shared_config):
            with pytest.raises(exc, match=r"set_shared_config\(config\): config must be a "
                                          r"driver\.shared_config member"):
                call(bad)


def test_a_kernel_runs_under_each_cache_preference(restore_cache_config):
    f = SourceModule(KERNEL).get_function("fill")
    out = np.full(256, -1, np.int32)
    for k, member in enumerate(drv.func_cache):
        f.set_cache_config(member)
        drv.Context.set_cache_config(drv.func_cache(3 - k))
        f(drv.Out(out), np.int32(10 * k), block=(64, 1, 1), grid=(4, 1))
        expect_fill(out, 10 * k)


def test_pycuda_style_preferences():
    """As PyCUDA programs write it."""
    import pycudac.autoinit  # noqa: F401
    import pycudac.driver as cuda
    mod = SourceModule(KERNEL)
    func = mod.get_function("fill")
    func.set_cache_config(cuda.func_cache.PREFER_L1)
    cuda.Context.set_cache_config(cuda.func_cache.PREFER_SHARED)
    cuda.Context.set_shared_config(cuda.shared_config.FOUR_BYTE_BANK_SIZE)
    out = np.zeros(64, np.int32)
    func(cuda.Out(out), np.int32(1), block=(64, 1, 1))
    expect_fill(out, 1)
    cuda.Context.set_cache_config(cuda.func_cache.PREFER_NONE)


@pytest.mark.detached_memory
def test_a_function_of_a_detached_context_is_refused(ctx):
    """Its module went with the context: the handle must not reach the
    driver (get_attribute and set_attribute sent it too)."""
    new = drv.Device(0).make_context()
    f = SourceModule(KERNEL).get_function("fill")
    drv.Context.pop()
    new.detach()
    for call in (lambda: f.set_cache_config(drv.func_cache.PREFER_L1),
                 lambda: f.set_shared_config(drv.shared_config.DEFAULT_BANK_SIZE),
                 lambda: f.get_attribute(drv.function_attribute.NUM_REGS),
                 lambda: f.set_attribute(
                     drv.function_attribute.MAX_DYNAMIC_SHARED_SIZE_BYTES, 0)):
        with pytest.raises(drv.LogicError, match="kernel 'fill'.*detached"):
            call()
    assert drv.Context.get_current() is ctx and not drv.is_poisoned()


# ---- ManagedAllocation.attach ---------------------------------------------------------

def test_attach_to_a_stream_and_back(ctx):
    f = SourceModule(KERNEL).get_function("fill")
    out = drv.managed_zeros(128, np.int32)
    mem = out.base
    assert isinstance(mem, drv.ManagedAllocation)
    s = drv.Stream()
    assert mem.attach(drv.mem_attach_flags.SINGLE, s) is None
    f(mem, np.int32(3), block=(64, 1, 1), grid=(2, 1), stream=s)
    s.synchronize()
    expect_fill(out, 3)
    mem.attach(drv.mem_attach_flags.HOST, stream=s)
    s.synchronize()
    out[:] = 0  # the host's to write
    mem.attach(drv.mem_attach_flags.GLOBAL)
    f(mem, np.int32(5), block=(64, 1, 1), grid=(2, 1))
    drv.Context.synchronize()
    expect_fill(out, 5)


def test_attach_refuses_bad_arguments(ctx):
    mem = drv.managed_zeros(16, np.float32).base
    s = drv.Stream()
    with pytest.raises(ValueError, match=r"SINGLE\) needs a stream"):
        mem.attach(drv.mem_attach_flags.SINGLE)
    for flags in (0, 3, 8, -1, drv.mem_attach_flags.GLOBAL | drv.mem_attach_flags.HOST):
        with pytest.raises(ValueError, match=r"attach\(mem_flags\): mem_flags must be a "
                                             r"driver\.mem_attach_flags member"):
            mem.attach(flags, s)
    with pytest.raises(TypeError, match="mem_attach_flags member, not str"):
        mem.attach("GLOBAL")
    with pytest.raises(TypeError, match=r"attach\(stream\): stream must be a driver\.Stream"):
        mem.attach(drv.mem_attach_flags.GLOBAL, 0)
    with pytest.raises(TypeError):
        mem.attach()
    assert not hasattr(drv.mem_alloc(16), "attach")  # managed memory only
    drv.Context.synchronize()
    assert not drv.is_poisoned()


@pytest.mark.detached_memory
def test_attach_of_freed_or_detached_memory_is_refused(ctx):
    mem = drv.managed_empty(16, np.int32).base  # (the array is gone: free() frees)
    mem.free()
    with pytest.raises(ValueError, match="attach: the DeviceAllocation was already freed"):
        mem.attach(drv.mem_attach_flags.GLOBAL)
    new = drv.Device(0).make_context()
    gone = drv.managed_empty(16, np.int32).base
    drv.Context.pop()
    new.detach()
    with pytest.raises(drv.LogicError, match="attach: .*context was detached"):
        gone.attach(drv.mem_attach_flags.GLOBAL)
    assert drv.Context.get_current() is ctx and not drv.is_poisoned()


# ---- a context's flags, a device's attributes by number -------------------------------

def test_make_context_names_bad_flags(ctx):
    """Bits outside CU_CTX_FLAGS_MASK were the driver's bare 'cuCtxCreate
    failed: invalid argument' (a LogicError naming no argument)."""
    dev = drv.Device(0)
    for flags in (12345, 0x100, 2**31 - 1):
        with pytest.raises(ValueError, match=r"make_context\(flags\): .* not driver\.ctx_flags"):
            dev.make_context(flags=flags)
    new = dev.make_context(flags=drv.ctx_flags.SCHED_BLOCKING_SYNC | drv.ctx_flags.MAP_HOST)
    drv.Context.pop()
    new.detach()
    assert drv.Context.get_current() is ctx


def test_get_attribute_names_an_unknown_number(ctx):
    dev = drv.Device(0)
    with pytest.raises(ValueError, match=r"get_attribute\(attr\): 99999 is not a device "
                                         r"attribute this driver knows"):
        dev.get_attribute(99999)
    assert dev.get_attribute(drv.device_attribute.WARP_SIZE) == 32


# ---- a destroyed context's handle, given to the next one ---------------------------

@pytest.mark.detached_memory
def test_a_recycled_context_handle_meets_no_stale_cache(ctx):
    """The driver gives a destroyed context's CUcontext to the next context it
    makes (the simulator does too). Context equality was the handle's, so the
    GPUArray pool, ElementwiseKernel's and context_dependent_memoize's caches
    handed the new context the dead one's memory and kernels: gpuarray.zeros
    in it was 'memset_d8 failed: invalid argument' on an H200. A detached
    Context equals itself alone, and detach() empties the caches of it."""
    from pycudac import gpuarray, tools
    from pycudac._gpuarray.layout import pools
    dev = drv.Device(0)
    first = dev.make_context()
    a = gpuarray.zeros(1000, np.float32)
    b = (a + 1).get()
    assert (b == 1).all()
    del a
    drv.Context.pop()
    first.detach()
    assert first == first and not any(k is first for k in pools)
    second = dev.make_context()
    try:
        if drv.get_backend() == "sim":
            assert second.handle == first.handle  # as the driver reuses it
        assert second != first and hash(second) == hash(first) or second.handle != first.handle
        c = gpuarray.zeros(1000, np.float32)
        assert ((c + 2).get() == 2).all()
        assert tools.current_context() is second
    finally:
        drv.Context.pop()
        second.detach()
    assert drv.Context.get_current() is ctx and not drv.is_poisoned()


@pytest.mark.detached_memory
def test_a_stream_of_a_detached_context_is_refused(ctx):
    """A Stream goes with its context: attach(), an async copy and a launch
    took it and passed the destroyed handle to the driver (found by a
    review; the simulator, reusing the handle, showed nothing)."""
    new = drv.Device(0).make_context()
    s = drv.Stream()
    drv.Context.pop()
    new.detach()
    f = SourceModule(KERNEL).get_function("fill")
    out = drv.managed_zeros(64, np.int32)
    blk = (64, 1, 1)
    f(out.base, np.int32(1), block=blk)  # the next launch with blk takes the fast path
    drv.Context.synchronize()
    for call in (lambda: out.base.attach(drv.mem_attach_flags.SINGLE, s),
                 lambda: drv.memcpy_htod_async(out.base, np.zeros(4, np.int32), s),
                 lambda: f(out.base, np.int32(1), block=blk, stream=s),
                 lambda: f(out.base, np.int32(1), block=(64, 1, 1), stream=s)):
        with pytest.raises(drv.LogicError, match="Stream's context was detached"):
            call()
    assert drv.Context.get_current() is ctx and not drv.is_poisoned()
