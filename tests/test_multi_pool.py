"""Stream-ordered memory pools (driver.DeviceMemoryResource, cuMemPool*):
allocation and free in stream order, the release threshold and the
counters, use as a GPUArray allocator, and sharing a pool and its
allocations with another process (a POSIX file descriptor through
multiprocessing, then 72 bytes per allocation)."""
import os

import numpy as np
import pytest

from pycudac import driver as drv

import _multi_children as kids
from _multi import in_child

MiB = 1 << 20


@pytest.fixture(scope="module", autouse=True)
def ctx(autoinit):
    return autoinit


def test_allocate_use_and_free():
    pool = drv.DeviceMemoryResource()
    assert pool.device == drv.Context.get_device().ordinal
    assert not pool.is_ipc_enabled and not pool.is_imported
    x = np.arange(1000, dtype=np.float32)
    a = pool.allocate(x.nbytes)
    assert isinstance(a, drv.DeviceAllocation) and a.size == x.nbytes
    drv.memcpy_htod(a, x)
    out = np.empty_like(x)
    drv.memcpy_dtoh(out, a)
    assert (out == x).all()
    assert pool.used_mem_current >= x.nbytes
    assert pool.reserved_mem_current >= pool.used_mem_current
    a.free()
    drv.Context.synchronize()
    assert pool.used_mem_current == 0


def test_release_threshold_keeps_or_gives_back_memory():
    pool = drv.DeviceMemoryResource()
    assert pool.release_threshold == 0
    a = pool.allocate(4 * MiB)
    a.free()
    drv.Context.synchronize()  # with threshold 0, freed memory goes back at a sync
    assert pool.reserved_mem_current == 0
    pool.release_threshold = 64 * MiB
    assert pool.release_threshold == 64 * MiB
    b = pool.allocate(4 * MiB)
    b.free()
    drv.Context.synchronize()
    assert pool.reserved_mem_current >= 4 * MiB  # kept for the next allocation
    assert pool.reserved_mem_high >= 4 * MiB and pool.used_mem_high >= 4 * MiB
    pool.trim(0)
    assert pool.reserved_mem_current == 0
    with pytest.raises(ValueError, match="release_threshold"):
        pool.release_threshold = -1


def test_stream_ordered_allocation_and_deallocate():
    pool = drv.DeviceMemoryResource()
    s = drv.Stream()
    a = pool.allocate(MiB, stream=s)
    drv.memset_d32_async(a, 7, MiB // 4, s)
    out = np.empty(MiB // 4, np.uint32)
    drv.memcpy_dtoh_async(out, a, s)
    s.synchronize()
    assert (out == 7).all()
    pool.deallocate(a, stream=s)
    assert a.freed
    s.synchronize()
    assert pool.used_mem_current == 0
    with pytest.raises(TypeError, match="deallocate"):
        pool.deallocate(drv.mem_alloc(16))
    with pytest.raises(TypeError, match=r"allocate\(stream\)"):
        pool.allocate(16, stream=3)
    with pytest.raises(ValueError, match=r"allocate\(size\)"):
        pool.allocate(-1)
    assert pool.allocate(0).size == 0


def test_pool_is_a_gpuarray_allocator():
    from pycudac import gpuarray
    pool = drv.DeviceMemoryResource()
    a = gpuarray.arange(1000, dtype=np.float32, allocator=pool)
    b = gpuarray.empty(1000, np.float32, allocator=pool.allocate)
    b.fill(2)
    assert pool.used_mem_current >= 8000
    assert ((a * b).get() == 2 * np.arange(1000, dtype=np.float32)).all()
    del a, b
    import gc
    gc.collect()
    drv.Context.synchronize()
    assert pool.used_mem_current == 0


def test_default_pool():
    pool = drv.DeviceMemoryResource.default()
    assert "default pool" in repr(pool)
    old = pool.release_threshold
    pool.release_threshold = 2 * MiB
    assert pool.release_threshold == 2 * MiB
    pool.release_threshold = old


def test_constructor_refusals():
    with pytest.raises(TypeError, match=r"DeviceMemoryResource\(device\)"):
        drv.DeviceMemoryResource(device="0")
    with pytest.raises(ValueError, match="out of range"):
        drv.DeviceMemoryResource(device=99)
    with pytest.raises(drv.LogicError, match="ipc_enabled=True"):
        drv.DeviceMemoryResource().get_allocation_handle()
    with pytest.raises(TypeError, match="IPCAllocationHandle or a file descriptor"):
        drv.DeviceMemoryResource.from_allocation_handle(None, "fd")
    fd = os.open(os.devnull, os.O_RDONLY)
    try:
        with pytest.raises(drv.Error, match="not one a memory pool exported"):
            drv.DeviceMemoryResource.from_allocation_handle(None, fd)
    finally:
        os.close(fd)


def test_shared_pool_across_processes(child):
    pool = drv.DeviceMemoryResource(ipc_enabled=True)
    assert pool.is_ipc_enabled
    n = 4096
    x = np.arange(n, dtype=np.float32)
    buf = pool.allocate(x.nbytes)
    drv.memcpy_htod(buf, x)
    desc = pool.get_ipc_descriptor(buf)
    assert isinstance(desc, bytes) and len(desc) == 72
    handle = pool.get_allocation_handle()
    seen, refused, imported = in_child(child, kids.pool_import_and_double, handle, desc, n)
    handle.close()
    assert seen == x.tolist() and imported and refused == "LogicError"
    out = np.empty_like(x)
    drv.memcpy_dtoh(out, buf)
    assert (out == 2 * x).all()
    buf.free()


def test_shared_pool_refusals(child):
    pool = drv.DeviceMemoryResource(ipc_enabled=True)
    buf = pool.allocate(256)
    with pytest.raises(drv.Error, match="ipc_enabled=True"):
        drv.DeviceMemoryResource().get_ipc_descriptor(drv.DeviceMemoryResource().allocate(64))
    r = in_child(child, kids.pool_import_garbage, pool.get_allocation_handle(), bytes(72))
    assert r[0] == "error" and "cuMemPoolImportPointer" in r[2], r
    r = in_child(child, kids.pool_import_garbage, pool.get_allocation_handle(), b"x")
    assert r[0] == "error" and r[1] == "ValueError" and "72 bytes" in r[2], r
    with pytest.raises(drv.LogicError, match="was not imported"):
        pool.import_ipc_descriptor(pool.get_ipc_descriptor(buf))
    buf.free()
    with pytest.raises(ValueError, match="was freed"):
        pool.get_ipc_descriptor(buf)


RECV_FDS = r"""
import socket, sys
import numpy as np
import pycudac.autoinit
from pycudac import driver as drv
sock = socket.socket(fileno=int(sys.argv[1]))
msg, fds, _, _ = socket.recv_fds(sock, 1024, 1)
pool = drv.DeviceMemoryResource.from_allocation_handle(None, fds[0])
buf = pool.import_ipc_descriptor(msg)
host = np.empty(buf.size // 4, np.float32)
drv.memcpy_dtoh(host, buf)
buf.free()
drv.Context.synchronize()
print("sum", float(host.sum()))
"""


def test_pool_descriptor_over_a_unix_socket():
    """Without multiprocessing: the pool's descriptor crosses a Unix socket
    with socket.send_fds, and its int opens the pool on the other side."""
    import socket
    import subprocess
    import sys
    pool = drv.DeviceMemoryResource(ipc_enabled=True)
    x = np.arange(256, dtype=np.float32)
    buf = pool.allocate(x.nbytes)
    drv.memcpy_htod(buf, x)
    here, there = socket.socketpair()
    with here, there:
        env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [
            os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
            os.environ.get("PYTHONPATH")])))
        p = subprocess.Popen([sys.executable, "-c", RECV_FDS, str(there.fileno())],
                             pass_fds=[there.fileno()], env=env, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
        handle = pool.get_allocation_handle()
        socket.send_fds(here, [pool.get_ipc_descriptor(buf)], [handle.fileno()])
        out, err = p.communicate(timeout=180)
        handle.close()
    assert p.returncode == 0, err[-2000:]
    assert f"sum {float(x.sum())}" in out
    buf.free()
