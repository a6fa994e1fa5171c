"""Several devices in one process: contexts on two devices, peer access
(Context.enable_peer_access / disable_peer_access, PyCUDA's static methods),
memcpy_peer and memcpy_peer_async, GPUArray work on the current context's
device, and the launch's refusal of memory of a device the kernel cannot
reach. Runs where two devices exist; on the one-device simulator,
test_two_device_suite runs this file again with PYCUDAC_SIM_DEVICES=2."""
import os
import subprocess
import sys

import numpy as np
import pytest

from pycudac import driver as drv

from _multi import need_two_devices, run_file_with_two_sim_devices

INC = """
__global__ void inc(float *x, int n)
{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) x[i] += 1.0f; }
"""


def test_two_device_suite(backend):
    run_file_with_two_sim_devices(__file__)


@pytest.fixture(scope="module")
def ctxs(backend):
    """The primary contexts of devices 0 and 1 (none left current)."""
    need_two_devices()
    c0 = drv.Device(0).retain_primary_context()
    c1 = drv.Device(1).retain_primary_context()
    yield c0, c1


def kernel():
    from pycudac.compiler import SourceModule
    return SourceModule(INC).get_function("inc")


def test_devices_and_peer_capability(ctxs):
    d0, d1 = drv.Device(0), drv.Device(1)
    assert drv.Device.count() >= 2
    assert d0.pci_bus_id() != d1.pci_bus_id()
    assert d0.can_access_peer(d0) is False  # the driver's answer for a device and itself
    assert d0.can_access_peer(d1) == d1.can_access_peer(d0)
    with pytest.raises(TypeError, match="must be a Device"):
        d0.can_access_peer(1)
    c0, c1 = ctxs
    assert c0.device == d0 and c1.device == d1 and c0 != c1


def test_memory_lives_in_each_device(ctxs):
    c0, c1 = ctxs
    with c0:
        a = drv.mem_alloc(64)
        assert drv.Context.get_device() == drv.Device(0)
    with c1:
        b = drv.mem_alloc(64)
        assert drv.Context.get_device() == drv.Device(1)
    assert a.context == c0 and b.context == c1


def test_memcpy_peer_between_devices(ctxs):
    c0, c1 = ctxs
    x = np.arange(1000, dtype=np.float32)
    with c0:
        a = drv.mem_alloc(x.nbytes)
        drv.memcpy_htod(a, x)
    with c1:
        b = drv.mem_alloc(x.nbytes)
        drv.memset_d8(b, 0, x.nbytes)
    with c1:  # contexts from the allocations
        drv.memcpy_peer(b, a, x.nbytes)
        out = np.empty_like(x)
        drv.memcpy_dtoh(out, b)
    assert (out == x).all()
    # explicit contexts, int addresses, from a third context current
    with c0:
        drv.memset_d8(a, 0, x.nbytes)
        drv.memcpy_peer(int(a), int(b), x.nbytes, dest_context=c0, src_context=c1)
        drv.memcpy_dtoh(out, a)
    assert (out == x).all()


def test_memcpy_peer_async_on_a_stream(ctxs):
    c0, c1 = ctxs
    x = np.arange(256, dtype=np.float64)
    with c0:
        a = drv.mem_alloc(x.nbytes)
        drv.memcpy_htod(a, x)
    with c1:
        b = drv.mem_alloc(x.nbytes)
        s = drv.Stream()
        drv.memcpy_peer_async(b, a, x.nbytes, stream=s)
        s.synchronize()
        out = np.empty_like(x)
        drv.memcpy_dtoh(out, b)
    assert (out == x).all()


def test_memcpy_peer_refusals(ctxs):
    c0, c1 = ctxs
    with c0:
        a = drv.mem_alloc(64)
    with c1:
        b = drv.mem_alloc(32)
        with pytest.raises(ValueError, match=r"memcpy_peer\(dest\).*only 32 bytes"):
            drv.memcpy_peer(b, a, 64)
        with pytest.raises(TypeError, match=r"memcpy_peer\(dest_context\) must be a Context"):
            drv.memcpy_peer(b, a, 32, dest_context=1)
        with pytest.raises(TypeError, match=r"memcpy_peer_async\(stream\)"):
            drv.memcpy_peer_async(b, a, 32, stream=7)
        with pytest.raises(TypeError):
            drv.memcpy_peer(b, a, 32, stream=None)  # the sync copy takes no stream


def test_enable_and_disable_peer_access(ctxs):
    if not drv.Device(0).can_access_peer(drv.Device(1)):
        pytest.skip("these devices cannot reach each other")
    c0, c1 = ctxs
    with c1:
        drv.Context.enable_peer_access(c0)
        with pytest.raises(drv.LogicError, match="ALREADY_ENABLED") as e:
            drv.Context.enable_peer_access(c0)
        assert e.value.code == 704
        drv.Context.disable_peer_access(c0)
        with pytest.raises(drv.LogicError, match="NOT_ENABLED") as e:
            drv.Context.disable_peer_access(c0)
        assert e.value.code == 705
        with pytest.raises(ValueError, match="peer is the current context"):
            drv.Context.enable_peer_access(c1)
        with pytest.raises(TypeError, match="peer must be a Context"):
            drv.Context.enable_peer_access(drv.Device(0))
        with pytest.raises(ValueError, match="flags must be 0"):
            drv.Context.enable_peer_access(c0, flags=1)


def test_launch_refuses_memory_of_an_unreachable_device(ctxs):
    c0, c1 = ctxs
    n = 100
    with c0:
        a = drv.mem_alloc(4 * n)
        drv.memset_d32(a, 0, n)
    with c1:
        f = kernel()
        b = drv.mem_alloc(4 * n)
        drv.memset_d32(b, 0, n)
        f(b, np.int32(n), block=(128, 1, 1))  # its own device: fine
        for _ in range(2):  # every call, not only the first
            with pytest.raises(ValueError) as e:
                f(a, np.int32(n), block=(128, 1, 1))
            msg = str(e.value)
            assert "kernel 'inc' argument 1 'x'" in msg
            assert "device 0's memory" in msg and "runs on device 1" in msg
            assert "enable_peer_access" in msg
        drv.Context.synchronize()
    out = np.empty(n, np.float32)
    with c0:
        drv.memcpy_dtoh(out, a)
    assert (out == 0).all()  # nothing ran on it


def test_launch_after_enable_peer_access_reaches_the_peer(ctxs):
    if not drv.Device(0).can_access_peer(drv.Device(1)):
        pytest.skip("these devices cannot reach each other")
    c0, c1 = ctxs
    n = 100
    with c0:
        a = drv.mem_alloc(4 * n)
        drv.memset_d32(a, 0, n)
    with c1:
        f = kernel()
        drv.Context.enable_peer_access(c0)
        try:
            f(a, np.int32(n), block=(128, 1, 1))
            drv.Context.synchronize()
        finally:
            drv.Context.disable_peer_access(c0)
        with pytest.raises(ValueError, match="no peer access"):
            f(a, np.int32(n), block=(128, 1, 1))
    out = np.empty(n, np.float32)
    with c0:
        drv.memcpy_dtoh(out, a)
    assert (out == 1).all()


def test_gpuarray_works_on_the_current_device(ctxs):
    from pycudac import gpuarray
    c0, c1 = ctxs
    x = np.arange(1000, dtype=np.float32)
    with c0:
        a = gpuarray.to_gpu(x)
        a2 = (a * 2 + 1).get()
        assert a.__dlpack_device__() == (2, 0)
    with c1:
        b = gpuarray.to_gpu(x)
        b2 = (b * 3).get()
        assert b.__dlpack_device__() == (2, 1)
        assert b.context == c1
    assert (a2 == 2 * x + 1).all() and (b2 == 3 * x).all()
    with c1:
        # an array of device 0 in device 1's work: refused, never launched
        with pytest.raises(ValueError, match="context"):
            a * 2
        f = kernel()
        with pytest.raises(ValueError, match=r"got a GPUArray in device 0's memory"):
            f(a, np.int32(a.size), block=(128, 1, 1))
    with c0:
        assert (a.get() == x).all()


def test_fast_path_stays_fast_for_its_own_context(ctxs):
    """With two devices in use, a launch whose memory is its own context's
    still takes the fast path; memory of another context goes the general
    way (where it is checked)."""
    from pycudac import gpuarray
    c0, c1 = ctxs
    with c0:
        f = kernel()
        a = gpuarray.zeros(64, np.float32)
        m = drv.mem_alloc(256)
        blk, n = (64, 1, 1), np.int32(64)
        f(a, n, block=blk)
        f(m, n, block=blk)
        before = drv._debug_counters()["general_launches"]
        for _ in range(5):
            f(a, n, block=blk)
            f(m, n, block=blk)
        assert drv._debug_counters()["general_launches"] == before
        assert (a.get() == 6).all()


def test_no_peer_hardware_is_a_clear_error():
    """PYCUDAC_SIM_PEER=0: devices that cannot reach each other."""
    from pycudac import driver
    if driver.get_backend() != "sim":
        pytest.skip("a simulator setting")
    code = r"""
import pycudac.driver as drv
drv.init()
assert drv.Device.count() == 2
assert not drv.Device(0).can_access_peer(drv.Device(1))
c0 = drv.Device(0).retain_primary_context()
c1 = drv.Device(1).retain_primary_context()
with c1:
    try:
        drv.Context.enable_peer_access(c0)
    except drv.LogicError as e:
        assert e.code == 217, e
        assert "device 1 cannot reach the memory of device 0" in str(e), e
        print("refused")
"""
    env = dict(os.environ, PYCUDAC_BACKEND="sim", PYCUDAC_SIM_DEVICES="2",
               PYCUDAC_SIM_PEER="0")
    r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 0 and "refused" in r.stdout, r.stderr


def test_sim_device_count_is_read_from_the_environment():
    from pycudac import driver
    if driver.get_backend() != "sim":
        pytest.skip("a simulator setting")
    code = "import pycudac.driver as d; d.init(); print(d.Device.count())"
    for value, want in (("3", 3), ("1", 1), ("0", 1), ("99", 16), ("x", 1)):
        env = dict(os.environ, PYCUDAC_BACKEND="sim", PYCUDAC_SIM_DEVICES=value)
        r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                           text=True, timeout=120)
        assert r.returncode == 0 and r.stdout.split() == [str(want)], (value, r.stderr)
