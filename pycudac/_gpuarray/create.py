"""The ways to make a GPUArray: empty, zeros, ones and their _like forms,
to_gpu, arange, and zero-copy imports of foreign device arrays (asarray
over __cuda_array_interface__, from_dlpack). Imports array; array's methods
reach this module at call time."""
import numpy as np

from pycudac import tools
from pycudac._gpuarray.array import GPUArray
from pycudac._gpuarray.layout import ViewPointer, c_strides, layout_of


# ======================================================================
# constructors
# ======================================================================

def is_gpuarray(x):
    return isinstance(x, GPUArray)


def empty(shape, dtype=np.float64, allocator=None, order="C"):
    return GPUArray(shape, dtype, allocator=allocator, order=order)


def zeros(shape, dtype=np.float64, allocator=None, order="C"):
    out = GPUArray(shape, dtype, allocator=allocator, order=order)
    if out.size:
        from pycudac import driver
        driver.memset_d8(out.ptr, 0, out.nbytes)
    return out


def ones(shape, dtype=np.float64, allocator=None, order="C"):
    return GPUArray(shape, dtype, allocator=allocator, order=order).fill(1)


def _like(other, dtype, order, what):
    if not isinstance(other, GPUArray):
        # a NumPy array's shape, dtype and layout (as CuPy takes it); anything
        # else was an AttributeError (_layout, dtype)
        if not isinstance(other, np.ndarray):
            raise TypeError(f"{what}: expected a GPUArray or a numpy.ndarray, got "
                            f"{type(other).__name__}")
        layout = "F" if other.flags.f_contiguous and not other.flags.c_contiguous else "C"
        if order in ("K", "A"):
            order = layout
        return GPUArray(other.shape, other.dtype if dtype is None else dtype, order=order)
    if dtype is None:
        dtype = other.dtype
    if order == "K" or order == "A":
        order = "F" if other._layout == "F" and other.ndim > 1 else "C"
    return GPUArray(other.shape, dtype, order=order)


def empty_like(other, dtype=None, order="K"):
    return _like(other, dtype, order, "empty_like")


def zeros_like(other, dtype=None, order="K"):
    out = _like(other, dtype, order, "zeros_like")
    if out.size:
        from pycudac import driver
        driver.memset_d8(out.ptr, 0, out.nbytes)
    return out


def ones_like(other, dtype=None, order="K"):
    return _like(other, dtype, order, "ones_like").fill(1)


def to_gpu(ary, allocator=None):
    """Copy a host array (anything numpy.asarray takes) to a new GPUArray."""
    if isinstance(ary, GPUArray):
        return ary.copy()
    ary = np.asarray(ary)
    tools.check_dtype(ary.dtype, "to_gpu: ary.dtype")
    order = "F" if (ary.flags.f_contiguous and not ary.flags.c_contiguous) else "C"
    out = GPUArray(ary.shape, ary.dtype, allocator=allocator, order=order)
    out.set(ary)
    return out


def to_gpu_async(ary, allocator=None, stream=None):
    ary = np.asarray(ary)
    tools.check_dtype(ary.dtype, "to_gpu_async: ary.dtype")
    order = "F" if (ary.flags.f_contiguous and not ary.flags.c_contiguous) else "C"
    out = GPUArray(ary.shape, ary.dtype, allocator=allocator, order=order)
    out.set_async(ary, stream=stream)
    return out


def arange(*args, dtype=None, allocator=None, **kwargs):
    """Like numpy.arange (computed on the host, then copied)."""
    if "start" in kwargs or "stop" in kwargs or "step" in kwargs:
        start = kwargs.pop("start", 0)
        stop = kwargs.pop("stop", None)
        step = kwargs.pop("step", 1)
        args = (start, stop, step) if stop is not None else (start,)
    if kwargs:
        raise TypeError(f"arange: unexpected keyword arguments {sorted(kwargs)}")
    host = np.arange(*args, dtype=dtype)
    return to_gpu(host, allocator=allocator)


# ======================================================================
# importing foreign device arrays (zero-copy)
# ======================================================================

class _Foreign:
    """Keeps the exporting object alive for a GPUArray made from it."""

    def __init__(self, obj):
        self.obj = obj


def _from_cai(obj):
    cai = obj.__cuda_array_interface__
    shape = tuple(int(n) for n in cai["shape"])
    dtype = tools.check_dtype(np.dtype(cai["typestr"]) if not cai.get("descr") or
                              len(cai["descr"]) <= 1 else np.dtype(cai["descr"]),
                              "__cuda_array_interface__ typestr")
    ptr = int(cai["data"][0] or 0)
    strides = cai.get("strides")
    strides = c_strides(shape, dtype.itemsize) if strides is None else tuple(strides)
    stream = cai.get("stream")
    if stream is not None and stream not in (1, 2) and cai.get("version", 0) >= 3:
        from pycudac import driver
        driver.Context.synchronize()
    owner = _Foreign(obj)
    return GPUArray._make(shape, dtype, strides, layout_of(shape, strides, dtype.itemsize),
                          ViewPointer(ptr, owner), ptr, owner, tools.current_context())


def asarray(obj, dtype=None):
    """A GPUArray for `obj`: itself, a zero-copy view of an object with
    __cuda_array_interface__ or a CUDA __dlpack__, or a copy of host data."""
    if isinstance(obj, GPUArray):
        out = obj
    elif hasattr(obj, "__cuda_array_interface__"):
        out = _from_cai(obj)
    elif hasattr(obj, "__dlpack_device__") and obj.__dlpack_device__()[0] == 2:
        out = from_dlpack(obj)
    else:
        out = to_gpu(np.asarray(obj))
    if dtype is not None and np.dtype(dtype) != out.dtype:
        out = out.astype(dtype)
    return out


def from_dlpack(obj):
    """Zero-copy import of a DLPack-exporting device array."""
    from pycudac import _dlpack
    return _dlpack.import_(obj)


