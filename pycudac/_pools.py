"""The memory pools behind pycudac.tools (PyCUDA's names; import them from
there): DeviceMemoryPool and the PooledDeviceAllocation blocks it hands
out, PageLockedMemoryPool and its PooledHostAllocation blocks, the bins
both round requests to (bin_size), and PyCUDA's bitlog2.

A freed block goes back into the bin of its rounded size, so a temporary
never pays cuMemAlloc (or a pinned allocation) twice.
"""

import numpy as np

from pycudac import _simcheck
from pycudac._checks import index_arg

# ------------------------------------------------------------ device memory pool

_MIN_BIN = 256
# Above this, bins are 64 to a doubling instead of 4: a request wastes at
# most 1/64 of itself. With PyCUDA's 4 an array of 2**34 + 1 bytes took
# 5 * 2**32: an array of 80% of a GPU's memory could fail where PyCUDA's
# GPUArray (plain cuMemAlloc) and CuPy's pool fit it, and code that sizes
# its arrays to the free memory (cuvarbase) ran out.
_FINE_ABOVE_LOG2 = 24


_bin_cache = {}


def bin_size(nbytes):
    """Bytes actually allocated for a request of `nbytes`: a multiple of 256
    with at most three significant bits up to 16 MiB (at most 1/4 wasted,
    PyCUDA's bins), seven above (at most 1/64)."""
    b = _bin_cache.get(nbytes)
    if b is None:
        b = _bin_size(nbytes)
        if len(_bin_cache) < 4096:
            _bin_cache[nbytes] = b
    return b


def _mantissa_bits(e):
    return 2 if e < _FINE_ABOVE_LOG2 else 6


def _bin_size(nbytes):
    if nbytes <= _MIN_BIN:
        return _MIN_BIN
    e = (nbytes - 1).bit_length() - 1  # 2**e < nbytes <= 2**(e + 1)
    step = 1 << max(e - _mantissa_bits(e), 8)
    return (nbytes + step - 1) // step * step


# Bins numbered in size order: 256, 512, 768, 1024 (numbers 0-3), then four
# to a doubling, 5, 6, 7 and 8 times 2**(e-2) for e = 10, 11, ... (4, 5, ...),
# then from e = 24 sixty-four to a doubling, 65 ... 128 times 2**(e-6).
_COARSE_BINS = 4 + 4 * (_FINE_ABOVE_LOG2 - 10)


def _bin_number(size):
    if size <= 4 * _MIN_BIN:
        return size // _MIN_BIN - 1
    e = (size - 1).bit_length() - 1
    if e < _FINE_ABOVE_LOG2:
        return 4 + 4 * (e - 10) + (size >> (e - 2)) - 5
    return _COARSE_BINS + 64 * (e - _FINE_ABOVE_LOG2) + (size >> (e - 6)) - 65


def _bin_alloc_size(bin_nr):
    if bin_nr < 4:
        return (bin_nr + 1) * _MIN_BIN
    if bin_nr < _COARSE_BINS:
        e, q = 10 + (bin_nr - 4) // 4, 5 + (bin_nr - 4) % 4
        return q << (e - 2)
    e, q = _FINE_ABOVE_LOG2 + (bin_nr - _COARSE_BINS) // 64, 65 + (bin_nr - _COARSE_BINS) % 64
    return q << (e - 6)


def bitlog2(n):
    """floor(log2(n)) for n >= 1, and 0 for 0 (PyCUDA's bitlog2)."""
    n = _index_arg(n, "bitlog2: n")
    return max(n.bit_length() - 1, 0)


def _index_arg(v, what):
    v = index_arg(v, what)
    if v < 0:
        raise ValueError(f"{what} must be >= 0, got {v}")
    return v


class PooledDeviceAllocation(int):
    """A block from a DeviceMemoryPool. It *is* its address (an int), so it
    goes wherever a device pointer does; it returns to the pool when freed
    or garbage-collected. (Reuse is stream-ordered like CuPy's pool: safe for
    work queued on one stream; for work on several streams synchronize
    before dropping the last reference.)"""

    def __new__(cls, pool, alloc, size):
        self = int.__new__(cls, int(alloc))
        self.pool = pool
        self.alloc = alloc
        self.size = size
        # True once free()d: the address may be another block user's now, and
        # pycudac refuses it as a pointer (a plain attribute: pointer
        # conversion reads it on every launch that passes the block)
        self.freed = False
        # True once a GPUArray holds it (GPUArray sets it): such an array
        # keeps using the address, so free() cannot hand it to anyone else
        self.in_array = False
        return self

    def free(self):
        """Return the block to the pool now. If a GPUArray holds it, the
        return waits for the last reference to go, so that the array never
        shares its memory with the next block (in PyCUDA that is undefined
        behaviour); the block itself is refused as a pointer either way."""
        self.freed = True
        if self.in_array:
            return  # __del__ returns it
        alloc, self.alloc = self.alloc, None
        if alloc is not None:
            self.pool._release(self.size, alloc)

    release = free

    def __del__(self):
        alloc = self.alloc
        if alloc is None:
            return
        self.alloc = None
        try:
            pool = self.pool
            size = self.size
            pool.active_blocks -= 1
            pool.active_bytes -= size
            if pool._holding:
                bin_ = pool._bins.get(size)
                if bin_ is None:
                    pool._bins[size] = [alloc]
                else:
                    bin_.append(alloc)
                pool.held_blocks += 1
            else:
                pool.managed_bytes -= size
                alloc.free()
        except Exception:  # never raise from a finalizer (interpreter exit)
            pass

    def __repr__(self):
        return f"<PooledDeviceAllocation 0x{int(self):x} size={self.size}>"


class DeviceMemoryPool:
    """Bin pool of device memory (PyCUDA's DeviceMemoryPool)."""

    def __init__(self, allocator=None):
        if allocator is None:
            from pycudac import driver
            allocator = driver.mem_alloc
        self._allocator = allocator
        self._bins = {}
        self._holding = True
        self.active_blocks = 0
        self.held_blocks = 0
        self.active_bytes = 0
        self.managed_bytes = 0

    def allocate(self, nbytes):
        if type(nbytes) is not int:  # as mem_alloc: 4.9 and "16" were taken
            nbytes = index_arg(nbytes, "DeviceMemoryPool.allocate: nbytes")
        if nbytes < 0:
            raise ValueError(f"allocate: nbytes must be >= 0, got {nbytes}")
        # under the simulator's checks a block is exactly what was asked:
        # in a bin's slack an access past an array's end is no allocation's
        # (memcheck saw nothing, initcheck only a read of unwritten memory:
        # cuvarbase's conditional entropy writes one past its bins)
        size = max(nbytes, 1) if _simcheck._instrumented() else bin_size(nbytes)
        bin_ = self._bins.get(size)
        if bin_:
            alloc = bin_.pop()
            self.held_blocks -= 1
        else:
            try:
                alloc = self._allocator(size)
            except Exception:
                if not self.held_blocks:
                    raise
                self.free_held()
                alloc = self._allocator(size)
            self.managed_bytes += size
        self.active_blocks += 1
        self.active_bytes += size
        return PooledDeviceAllocation(self, alloc, size)

    __call__ = allocate

    def _release(self, size, alloc):
        self.active_blocks -= 1
        self.active_bytes -= size
        if self._holding:
            self._bins.setdefault(size, []).append(alloc)
            self.held_blocks += 1
        else:
            self.managed_bytes -= size
            alloc.free()

    def free_held(self):
        """Give every held (unused) block back to the driver."""
        for size, allocs in self._bins.items():
            for alloc in allocs:
                alloc.free()
                self.managed_bytes -= size
        self._bins.clear()
        self.held_blocks = 0

    def stop_holding(self):
        self._holding = False
        self.free_held()

    @property
    def bin_count(self):
        return len(self._bins)

    @staticmethod
    def bin_number(nbytes):
        """The number of the bin a request of `nbytes` is served from."""
        return _bin_number(bin_size(_index_arg(nbytes, "bin_number: nbytes")))

    @staticmethod
    def alloc_size(bin_nr):
        """The bytes a block of bin `bin_nr` holds (>= every request it serves)."""
        return _bin_alloc_size(_index_arg(bin_nr, "alloc_size: bin_nr"))


class _HostView:
    """Lets a NumPy array keep its pooled page-locked block alive."""

    def __init__(self, block, shape, dtype, strides=None):
        self.block = block
        self.__array_interface__ = {
            "shape": tuple(shape), "typestr": dtype.str, "descr": dtype.descr,
            "data": (block.address, False), "strides": strides, "version": 3}


class PooledHostAllocation:
    def __init__(self, pool, host, size):
        self.pool, self.host, self.size = pool, host, size
        self.address = host.__array_interface__["data"][0]

    def free(self):
        host, self.host = self.host, None
        if host is not None:
            self.pool._release(self.size, host)

    def __del__(self):
        try:
            self.free()
        except Exception:
            pass


class PageLockedMemoryPool:
    """Bin pool of page-locked host memory; allocate(shape, dtype) returns a
    NumPy array whose pinned block returns to the pool when it dies."""

    def __init__(self, allocator=None):
        if allocator is None:
            from pycudac import driver

            def allocator(n):
                return driver.pagelocked_empty((n,), np.uint8)
        self._allocator = allocator
        self._bins = {}
        self._holding = True
        self.active_blocks = 0
        self.held_blocks = 0

    def allocate(self, shape, dtype=np.float64, order="C"):
        dtype = np.dtype(dtype)
        if dtype.hasobject:
            # pagelocked_empty's rule: a reused block read as object
            # pointers crashed the interpreter
            raise TypeError(f"PageLockedMemoryPool.allocate: dtype {dtype} holds Python "
                            f"objects, which pinned memory cannot")
        if order not in ("C", "F"):
            raise ValueError(f"PageLockedMemoryPool.allocate: order must be 'C' or 'F', got "
                             f"{order!r}")
        shape = (shape,) if isinstance(shape, (int, np.integer)) else tuple(shape)
        shape = tuple(_index_arg(n, "PageLockedMemoryPool.allocate: shape") for n in shape)
        nbytes = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
        size = bin_size(nbytes)
        bin_ = self._bins.get(size)
        if bin_:
            host = bin_.pop()
            self.held_blocks -= 1
        else:
            try:
                host = self._allocator(size)
            except Exception:
                if not self.held_blocks:
                    raise
                self.free_held()
                host = self._allocator(size)
        self.active_blocks += 1
        block = PooledHostAllocation(self, host, size)
        strides = None
        if order == "F" and len(shape) > 1:
            strides = _f_strides(shape, dtype.itemsize)
        return np.asarray(_HostView(block, shape, dtype, strides))

    __call__ = allocate

    def _release(self, size, host):
        self.active_blocks -= 1
        if self._holding:
            self._bins.setdefault(size, []).append(host)
            self.held_blocks += 1

    def free_held(self):
        self._bins.clear()
        self.held_blocks = 0

    def stop_holding(self):
        """Free the held blocks, and every block freed from now on (PyCUDA's:
        it kept holding those, pinned memory nobody would use again)."""
        self._holding = False
        self.free_held()


def _f_strides(shape, itemsize):
    strides, acc = [], itemsize
    for n in shape:
        strides.append(acc)
        acc *= max(n, 1)
    return tuple(strides)
