"""What the processes of tests/test_multi_ipc.py and test_multi_pool.py run
(spawned: importable by name). Each returns plain data; an error comes back
as ("error", type name, message) so that the parent asserts on it."""
import numpy as np

_ctx = None
_keep = []  # what must outlive one call (opened memory, pools)


def _context():
    global _ctx
    if _ctx is None:
        import pycudac.autoinit as ai
        _ctx = ai.context
    return _ctx


def _error(exc):
    return ("error", type(exc).__name__, str(exc))


def open_and_increment(handle, n):
    """Opens an IPC memory handle, reads n float32, adds 1 with a kernel,
    closes it; returns what it read first."""
    _context()
    from pycudac import driver, gpuarray
    from pycudac.compiler import SourceModule
    try:
        mem = driver.IPCMemoryHandle(handle)
    except Exception as exc:
        return _error(exc)
    seen = np.empty(n, np.float32)
    driver.memcpy_dtoh(seen, mem)
    arr = gpuarray.GPUArray((n,), np.float32, gpudata=mem)
    f = SourceModule("__global__ void inc(float *x, int n)"
                     "{ int i = threadIdx.x; if (i < n) x[i] += 1.0f; }").get_function("inc")
    f(arr, np.int32(n), block=(max(n, 1), 1, 1))
    driver.Context.synchronize()
    mem.close()
    return seen.tolist()


def open_twice(handle):
    """Opening the same handle twice in one context gives the same pointer."""
    _context()
    from pycudac import driver
    a = driver.IPCMemoryHandle(handle)
    b = driver.IPCMemoryHandle(handle)
    same = int(a) == int(b)
    a.close()
    b.close()
    return same


def try_open(handle):
    _context()
    from pycudac import driver
    try:
        mem = driver.IPCMemoryHandle(handle)
    except Exception as exc:
        return _error(exc)
    mem.close()
    return "opened"


def open_event(handle):
    """Opens an IPC event, waits on it in a stream and synchronizes."""
    _context()
    from pycudac import driver
    try:
        ev = driver.Event.from_ipc_handle(handle)
    except Exception as exc:
        return _error(exc)
    s = driver.Stream()
    s.wait_for_event(ev)
    ev.synchronize()
    s.synchronize()
    return ("ok", ev.query(), int(ev.flags))


def pool_import_and_double(handle, descriptor, n):
    """Imports a pool and one of its allocations; doubles its n float32 in
    place; frees it; returns what it read."""
    _context()
    from pycudac import driver
    try:
        pool = driver.DeviceMemoryResource.from_allocation_handle(None, handle)
        buf = pool.import_ipc_descriptor(descriptor)
    except Exception as exc:
        return _error(exc)
    host = np.empty(n, np.float32)
    driver.memcpy_dtoh(host, buf)
    driver.memcpy_htod(buf, host * 2)
    driver.Context.synchronize()
    refused = None
    try:
        pool.allocate(64)
    except Exception as exc:
        refused = type(exc).__name__
    buf.free()
    driver.Context.synchronize()
    handle.close()
    return (host.tolist(), refused, pool.is_imported)


def pool_import_garbage(handle, descriptor):
    _context()
    from pycudac import driver
    try:
        pool = driver.DeviceMemoryResource.from_allocation_handle(None, handle)
    except Exception as exc:
        return _error(exc)
    try:
        pool.import_ipc_descriptor(descriptor)
    except Exception as exc:
        return _error(exc)
    return "imported"
