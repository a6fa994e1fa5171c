"""DLPack export and import for GPUArray (zero-copy), with ctypes.

Export: `GPUArray.__dlpack__()` returns a PyCapsule named "dltensor" that
holds a DLManagedTensor (DLPack 0.x ABI, which every consumer accepts), or,
when the consumer passes max_version=(1, ...) as mpi4py and cuda.core do, one
named "dltensor_versioned" holding a DLManagedTensorVersioned (DLPack 1.x;
mpi4py accepts no other then). Its deleter drops the reference that keeps
the GPUArray's memory alive. A capsule that is never consumed calls the
deleter from its destructor.

Streams (the DLPack rule): the consumer names the stream it will use the
data on; pycudac's work is ordered on the legacy default stream, so for a
stream other than the legacy one (1) that stream is made to wait for the
work queued so far (an event, no host wait); -1 (mpi4py's) asks for no
synchronization at all.

Import: `from_dlpack(obj)` calls obj.__dlpack__(stream=1), renames the
capsule "used_dltensor" (it is ours now) and wraps the memory in a
GPUArray whose owner calls the producer's deleter when it dies.
"""
import ctypes

import numpy as np

from pycudac import tools

kDLCPU, kDLCUDA, kDLCUDAHost, kDLCUDAManaged = 1, 2, 3, 13


class DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", DLDevice), ("ndim", ctypes.c_int32),
                ("dtype", DLDataType), ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)), ("byte_offset", ctypes.c_uint64)]


class DLManagedTensor(ctypes.Structure):
    pass


_Deleter = ctypes.CFUNCTYPE(None, ctypes.POINTER(DLManagedTensor))
DLManagedTensor._fields_ = [("dl_tensor", DLTensor), ("manager_ctx", ctypes.c_void_p),
                            ("deleter", _Deleter)]


class DLPackVersion(ctypes.Structure):
    _fields_ = [("major", ctypes.c_uint32), ("minor", ctypes.c_uint32)]


class DLManagedTensorVersioned(ctypes.Structure):
    pass


_DeleterV = ctypes.CFUNCTYPE(None, ctypes.POINTER(DLManagedTensorVersioned))
DLManagedTensorVersioned._fields_ = [("version", DLPackVersion),
                                     ("manager_ctx", ctypes.c_void_p),
                                     ("deleter", _DeleterV), ("flags", ctypes.c_uint64),
                                     ("dl_tensor", DLTensor)]
DLPACK_MAJOR, DLPACK_MINOR = 1, 0

_CODES = {"i": 0, "u": 1, "f": 2, "c": 5, "b": 6}
_KINDS = {v: k for k, v in _CODES.items()}

_api = ctypes.pythonapi
_api.PyCapsule_New.restype = ctypes.py_object
_api.PyCapsule_New.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
_api.PyCapsule_GetPointer.restype = ctypes.c_void_p
_api.PyCapsule_GetPointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
_api.PyCapsule_SetName.restype = ctypes.c_int
_api.PyCapsule_SetName.argtypes = [ctypes.py_object, ctypes.c_char_p]
_api.PyCapsule_IsValid.restype = ctypes.c_int
_api.PyCapsule_IsValid.argtypes = [ctypes.py_object, ctypes.c_char_p]

# Exported tensors alive: address of the DLManagedTensor -> what it holds.
_live = {}


@_Deleter
def _deleter(mt):
    _live.pop(ctypes.addressof(mt.contents), None)


@_DeleterV
def _deleter_v(mt):
    _live.pop(ctypes.addressof(mt.contents), None)


_CapsuleDestructor = ctypes.CFUNCTYPE(None, ctypes.c_void_p)


# The destructor gets the capsule while its refcount is 0: it must not be
# turned into a Python object, so these two take it as a raw pointer.
_raw_is_valid = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_char_p)(
    ("PyCapsule_IsValid", ctypes.pythonapi))
_raw_get_pointer = ctypes.PYFUNCTYPE(ctypes.c_void_p, ctypes.c_void_p, ctypes.c_char_p)(
    ("PyCapsule_GetPointer", ctypes.pythonapi))


@_CapsuleDestructor
def _capsule_destructor(capsule):
    # Still named "dltensor": nobody consumed it, so delete the tensor here.
    if _raw_is_valid(capsule, b"dltensor"):
        _live.pop(_raw_get_pointer(capsule, b"dltensor"), None)
    elif _raw_is_valid(capsule, b"dltensor_versioned"):
        _live.pop(_raw_get_pointer(capsule, b"dltensor_versioned"), None)


_NAME = ctypes.c_char_p(b"dltensor")
_NAME_V = ctypes.c_char_p(b"dltensor_versioned")


def device_of(ary):
    """(kDLCUDA, the ordinal of the device the array's memory is on)."""
    ctx = getattr(ary, "_ctx", None)
    try:
        ordinal = ctx.device.ordinal if ctx is not None else 0
    except Exception:
        ordinal = 0
    return (kDLCUDA, int(ordinal))


def _sync_for(stream):
    """Orders the consumer's `stream` after the work queued so far."""
    if stream is None:
        return
    if isinstance(stream, bool) or not isinstance(stream, int) or stream < -1:
        raise TypeError(f"__dlpack__(stream): stream must be None, -1, or a CUDA stream "
                        f"handle (an int), not {stream!r}")
    # None and 1 name the legacy stream, which pycudac's work is ordered on;
    # 0 (which the standard leaves ambiguous) is the driver API's name for it
    # too; -1 asks for no synchronization
    if stream in (-1, 0, 1):
        return
    from pycudac import _driver
    _driver._stream_wait_legacy(stream)


def export(ary, stream=None, max_version=None):
    """A capsule viewing `ary` (no copy): "dltensor_versioned" (DLPack 1.x)
    when max_version allows it, else "dltensor"."""
    dt = ary.dtype
    if dt.kind not in _CODES or dt.fields is not None:
        raise TypeError(f"__dlpack__: dtype {dt} has no DLPack equivalent")
    _sync_for(stream)
    versioned = max_version is not None and tuple(max_version)[:1] >= (DLPACK_MAJOR,)
    nd = ary.ndim
    mt = DLManagedTensorVersioned() if versioned else DLManagedTensor()
    shape = (ctypes.c_int64 * max(nd, 1))(*ary.shape)
    item = dt.itemsize
    if builtins_any(s % item for s in ary.strides):
        raise ValueError("__dlpack__: strides that are not a multiple of the itemsize")
    strides = (ctypes.c_int64 * max(nd, 1))(*[s // item for s in ary.strides])
    mt.dl_tensor.data = ary.ptr
    mt.dl_tensor.device = DLDevice(*device_of(ary))
    mt.dl_tensor.ndim = nd
    mt.dl_tensor.dtype = DLDataType(_CODES[dt.kind], item * 8, 1)
    mt.dl_tensor.shape = ctypes.cast(shape, ctypes.POINTER(ctypes.c_int64))
    mt.dl_tensor.strides = ctypes.cast(strides, ctypes.POINTER(ctypes.c_int64))
    mt.dl_tensor.byte_offset = 0
    mt.manager_ctx = None
    if versioned:
        mt.version = DLPackVersion(DLPACK_MAJOR, DLPACK_MINOR)
        mt.flags = 0
        mt.deleter = _deleter_v
    else:
        mt.deleter = _deleter
    addr = ctypes.addressof(mt)
    _live[addr] = (mt, shape, strides, ary)
    return _api.PyCapsule_New(addr, _NAME_V if versioned else _NAME,
                              ctypes.cast(_capsule_destructor, ctypes.c_void_p))


def builtins_any(it):
    for x in it:
        if x:
            return True
    return False


class _DLOwner:
    """Keeps an imported tensor alive; calls the producer's deleter."""

    def __init__(self, ptr, mt):
        self.ptr, self.mt = ptr, mt

    def __del__(self):
        try:
            if self.mt.deleter:
                self.mt.deleter(ctypes.cast(self.ptr, ctypes.POINTER(DLManagedTensor)))
        except Exception:
            pass


def import_(obj):
    """Zero-copy GPUArray from an object with __dlpack__ (CUDA memory)."""
    from pycudac._gpuarray.array import GPUArray
    from pycudac._gpuarray.layout import ViewPointer, c_strides, layout_of
    if hasattr(obj, "__dlpack_device__"):
        dev_type, _ = obj.__dlpack_device__()
        if dev_type not in (kDLCUDA, kDLCUDAManaged):
            raise TypeError(f"from_dlpack: the object lives on DLPack device type {dev_type}, "
                            f"not CUDA; use gpuarray.to_gpu(numpy.from_dlpack(obj))")
    if hasattr(obj, "__dlpack__"):
        try:
            capsule = obj.__dlpack__(stream=1)
        except TypeError:
            capsule = obj.__dlpack__()
    else:
        capsule = obj  # a capsule itself
    if not _api.PyCapsule_IsValid(capsule, b"dltensor"):
        raise TypeError("from_dlpack: expected an object with __dlpack__ or an unused "
                        "'dltensor' capsule")
    ptr = _api.PyCapsule_GetPointer(capsule, b"dltensor")
    mt = DLManagedTensor.from_address(ptr)
    t = mt.dl_tensor
    if t.device.device_type not in (kDLCUDA, kDLCUDAManaged):
        raise TypeError(f"from_dlpack: DLPack device type {t.device.device_type} is not CUDA")
    if t.dtype.lanes != 1 or t.dtype.code not in _KINDS:
        raise TypeError(f"from_dlpack: unsupported DLPack dtype code={t.dtype.code} "
                        f"bits={t.dtype.bits} lanes={t.dtype.lanes}")
    kind = _KINDS[t.dtype.code]
    dtype = np.dtype(bool) if kind == "b" else np.dtype(f"{kind}{t.dtype.bits // 8}")
    nd = t.ndim
    shape = tuple(t.shape[i] for i in range(nd))
    if t.strides:
        strides = tuple(t.strides[i] * dtype.itemsize for i in range(nd))
    else:
        strides = c_strides(shape, dtype.itemsize)
    _api.PyCapsule_SetName(capsule, b"used_dltensor")
    owner = _DLOwner(ptr, mt)
    owner.capsule = capsule
    addr = (t.data or 0) + t.byte_offset
    return GPUArray._make(shape, dtype, strides, layout_of(shape, strides, dtype.itemsize),
                          ViewPointer(addr, owner), addr, owner, tools.current_context())
