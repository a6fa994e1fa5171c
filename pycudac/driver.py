"""pycudac.driver — the CUDA driver as Python objects (PyCUDA's names)."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal, Union

if TYPE_CHECKING:
    from numpy.typing import ArrayLike, DTypeLike, NDArray

_Shape = Union[int, "tuple[int, ...]"]
_Order = Literal["C", "F"]

# The public API: PyCUDA's names and pycudac's own. The C extension also
# holds the compile cache's entry points (cache_*, compile_source ...), which
# pycudac.compiler uses; they stay reachable here but are not part of it.
__all__ = [
    # errors
    "Error", "LogicError", "LaunchError", "MemoryError", "RuntimeError", "CompileError",
    "is_poisoned",
    # the backend, the driver, devices and contexts
    "init", "get_backend", "get_driver_version", "get_version",
    "Device", "Context", "device_attribute", "ctx_flags", "compute_mode", "limit",
    "func_cache", "shared_config",
    # device memory and copies
    "DeviceAllocation", "ManagedAllocation", "PointerHolderBase",
    "mem_alloc", "mem_alloc_async", "mem_alloc_like", "mem_alloc_pitch", "mem_get_info",
    "prefetch",
    "to_device", "from_device", "from_device_like",
    "memcpy_htod", "memcpy_dtoh", "memcpy_dtod", "memcpy_peer",
    "memcpy_htod_async", "memcpy_dtoh_async", "memcpy_dtod_async",
    "memset_d8", "memset_d16", "memset_d32",
    "memset_d8_async", "memset_d16_async", "memset_d32_async",
    "memset_d2d8", "memset_d2d16", "memset_d2d32",
    # host memory
    "HostAllocation", "PagelockedHostAllocation", "RegisteredHostMemory",
    "pagelocked_empty", "pagelocked_zeros", "pagelocked_empty_like", "pagelocked_zeros_like",
    "aligned_empty", "aligned_zeros", "aligned_empty_like", "aligned_zeros_like",
    "register_host_memory", "host_alloc_flags", "mem_host_register_flags",
    "managed_empty", "managed_zeros", "managed_empty_like", "managed_zeros_like",
    "mem_attach_flags",
    # modules, kernels and their arguments
    "Module", "Function", "ParamLayout", "function_attribute", "jit_input_type",
    "module_from_buffer", "module_from_file", "In", "Out", "InOut", "ArgumentHandler",
    # streams, events and graphs
    "Stream", "Event", "stream_flags", "event_flags",
    "Graph", "GraphExec", "GraphNode", "graph_node_type", "capture_status", "capture_mode",
    "update_capture_dependencies_flags",
    # CUDA arrays, texture and surface objects
    "Array", "ArrayDescriptor", "ArrayDescriptor3D", "array_format", "array3d_flags",
    "address_mode", "filter_mode", "dtype_to_array_format", "np_to_array",
    "gpuarray_to_array", "matrix_to_array", "array_to_np", "TextureObject", "SurfaceObject",
    "Memcpy2D", "Memcpy3D", "make_multichannel_2d_array",
    # NVRTC, profiling
    "nvrtc_version", "nvrtc_supported_archs", "start_profiler", "stop_profiler",
]
from pycudac._driver import *  # noqa: F401,F403
from pycudac._driver import (  # noqa: F401
    Error, LogicError, LaunchError, MemoryError, RuntimeError, CompileError,
    is_poisoned, get_backend, _raise_for_code, _debug_counters, _register,
)
from pycudac._args import In, Out, InOut, ArgumentHandler  # noqa: F401
from pycudac._driver import _host_alloc, _host_register, _managed_alloc  # noqa: F401
from pycudac._textures import (  # noqa: F401
    Array, ArrayDescriptor, ArrayDescriptor3D, array_format, array3d_flags, address_mode,
    filter_mode, dtype_to_array_format, np_to_array, gpuarray_to_array, matrix_to_array,
    array_to_np, TextureObject, SurfaceObject, Memcpy2D, Memcpy3D, make_multichannel_2d_array,
)
from pycudac._simcheck import (  # noqa: F401
    sim_check, check_report, sim_profile, Profile, ProfileRow, format_profile,
)


# ---- enums (values from NVIDIA's Driver API documentation) ------------------
import atexit as _atexit
import enum as _enum
import numbers as _numbers
import operator as _operator

import numpy as _np


class _Named:
    """str() and an empty format give the member's name, as PyCUDA's enums
    print (dump_properties-style `f"{attr}: {value}"`); numbers still compare
    and format as ints with a format spec."""

    def __str__(self):
        name = self.name
        if name is None and isinstance(self, _enum.Flag):
            # Python 3.10 names no combination of flags; 3.11 and newer join
            # the single-bit members in definition order, as here
            value, parts = int(self), []
            for member in type(self):
                bit = int(member)
                if bit and bit & (bit - 1) == 0 and value & bit:
                    parts.append(member.name)
                    value &= ~bit
            name = "|".join(parts) if parts and not value else None
        return name or int.__repr__(self)

    def __format__(self, spec):
        return str(self) if not spec else int.__format__(int(self), spec)


class device_attribute(_Named, _enum.IntEnum):
    """CUdevice_attribute, without the CU_DEVICE_ATTRIBUTE_ prefix
    (aliases of the same value share one member)."""
    MAX_THREADS_PER_BLOCK = 1
    MAX_BLOCK_DIM_X = 2
    MAX_BLOCK_DIM_Y = 3
    MAX_BLOCK_DIM_Z = 4
    MAX_GRID_DIM_X = 5
    MAX_GRID_DIM_Y = 6
    MAX_GRID_DIM_Z = 7
    MAX_SHARED_MEMORY_PER_BLOCK = 8
    SHARED_MEMORY_PER_BLOCK = 8
    TOTAL_CONSTANT_MEMORY = 9
    WARP_SIZE = 10
    MAX_PITCH = 11
    MAX_REGISTERS_PER_BLOCK = 12
    REGISTERS_PER_BLOCK = 12
    CLOCK_RATE = 13
    TEXTURE_ALIGNMENT = 14
    GPU_OVERLAP = 15
    MULTIPROCESSOR_COUNT = 16
    KERNEL_EXEC_TIMEOUT = 17
    INTEGRATED = 18
    CAN_MAP_HOST_MEMORY = 19
    COMPUTE_MODE = 20
    MAXIMUM_TEXTURE1D_WIDTH = 21
    MAXIMUM_TEXTURE2D_WIDTH = 22
    MAXIMUM_TEXTURE2D_HEIGHT = 23
    MAXIMUM_TEXTURE3D_WIDTH = 24
    MAXIMUM_TEXTURE3D_HEIGHT = 25
    MAXIMUM_TEXTURE3D_DEPTH = 26
    MAXIMUM_TEXTURE2D_LAYERED_WIDTH = 27
    MAXIMUM_TEXTURE2D_LAYERED_HEIGHT = 28
    MAXIMUM_TEXTURE2D_LAYERED_LAYERS = 29
    MAXIMUM_TEXTURE2D_ARRAY_WIDTH = 27
    MAXIMUM_TEXTURE2D_ARRAY_HEIGHT = 28
    MAXIMUM_TEXTURE2D_ARRAY_NUMSLICES = 29
    SURFACE_ALIGNMENT = 30
    CONCURRENT_KERNELS = 31
    ECC_ENABLED = 32
    PCI_BUS_ID = 33
    PCI_DEVICE_ID = 34
    TCC_DRIVER = 35
    MEMORY_CLOCK_RATE = 36
    GLOBAL_MEMORY_BUS_WIDTH = 37
    L2_CACHE_SIZE = 38
    MAX_THREADS_PER_MULTIPROCESSOR = 39
    ASYNC_ENGINE_COUNT = 40
    UNIFIED_ADDRESSING = 41
    MAXIMUM_TEXTURE1D_LAYERED_WIDTH = 42
    MAXIMUM_TEXTURE1D_LAYERED_LAYERS = 43
    CAN_TEX2D_GATHER = 44
    MAXIMUM_TEXTURE2D_GATHER_WIDTH = 45
    MAXIMUM_TEXTURE2D_GATHER_HEIGHT = 46
    MAXIMUM_TEXTURE3D_WIDTH_ALTERNATE = 47
    MAXIMUM_TEXTURE3D_HEIGHT_ALTERNATE = 48
    MAXIMUM_TEXTURE3D_DEPTH_ALTERNATE = 49
    PCI_DOMAIN_ID = 50
    TEXTURE_PITCH_ALIGNMENT = 51
    MAXIMUM_TEXTURECUBEMAP_WIDTH = 52
    MAXIMUM_TEXTURECUBEMAP_LAYERED_WIDTH = 53
    MAXIMUM_TEXTURECUBEMAP_LAYERED_LAYERS = 54
    MAXIMUM_SURFACE1D_WIDTH = 55
    MAXIMUM_SURFACE2D_WIDTH = 56
    MAXIMUM_SURFACE2D_HEIGHT = 57
    MAXIMUM_SURFACE3D_WIDTH = 58
    MAXIMUM_SURFACE3D_HEIGHT = 59
    MAXIMUM_SURFACE3D_DEPTH = 60
    MAXIMUM_SURFACE1D_LAYERED_WIDTH = 61
    MAXIMUM_SURFACE1D_LAYERED_LAYERS = 62
    MAXIMUM_SURFACE2D_LAYERED_WIDTH = 63
    MAXIMUM_SURFACE2D_LAYERED_HEIGHT = 64
    MAXIMUM_SURFACE2D_LAYERED_LAYERS = 65
    MAXIMUM_SURFACECUBEMAP_WIDTH = 66
    MAXIMUM_SURFACECUBEMAP_LAYERED_WIDTH = 67
    MAXIMUM_SURFACECUBEMAP_LAYERED_LAYERS = 68
    MAXIMUM_TEXTURE1D_LINEAR_WIDTH = 69
    MAXIMUM_TEXTURE2D_LINEAR_WIDTH = 70
    MAXIMUM_TEXTURE2D_LINEAR_HEIGHT = 71
    MAXIMUM_TEXTURE2D_LINEAR_PITCH = 72
    MAXIMUM_TEXTURE2D_MIPMAPPED_WIDTH = 73
    MAXIMUM_TEXTURE2D_MIPMAPPED_HEIGHT = 74
    COMPUTE_CAPABILITY_MAJOR = 75
    COMPUTE_CAPABILITY_MINOR = 76
    MAXIMUM_TEXTURE1D_MIPMAPPED_WIDTH = 77
    STREAM_PRIORITIES_SUPPORTED = 78
    GLOBAL_L1_CACHE_SUPPORTED = 79
    LOCAL_L1_CACHE_SUPPORTED = 80
    MAX_SHARED_MEMORY_PER_MULTIPROCESSOR = 81
    MAX_REGISTERS_PER_MULTIPROCESSOR = 82
    MANAGED_MEMORY = 83
    MULTI_GPU_BOARD = 84
    MULTI_GPU_BOARD_GROUP_ID = 85
    HOST_NATIVE_ATOMIC_SUPPORTED = 86
    SINGLE_TO_DOUBLE_PRECISION_PERF_RATIO = 87
    PAGEABLE_MEMORY_ACCESS = 88
    CONCURRENT_MANAGED_ACCESS = 89
    COMPUTE_PREEMPTION_SUPPORTED = 90
    CAN_USE_HOST_POINTER_FOR_REGISTERED_MEM = 91
    CAN_USE_STREAM_MEM_OPS_V1 = 92
    CAN_USE_64_BIT_STREAM_MEM_OPS_V1 = 93
    CAN_USE_STREAM_WAIT_VALUE_NOR_V1 = 94
    COOPERATIVE_LAUNCH = 95
    COOPERATIVE_MULTI_DEVICE_LAUNCH = 96
    MAX_SHARED_MEMORY_PER_BLOCK_OPTIN = 97
    CAN_FLUSH_REMOTE_WRITES = 98
    HOST_REGISTER_SUPPORTED = 99
    PAGEABLE_MEMORY_ACCESS_USES_HOST_PAGE_TABLES = 100
    DIRECT_MANAGED_MEM_ACCESS_FROM_HOST = 101
    VIRTUAL_ADDRESS_MANAGEMENT_SUPPORTED = 102
    VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED = 102
    HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED = 103
    HANDLE_TYPE_WIN32_HANDLE_SUPPORTED = 104
    HANDLE_TYPE_WIN32_KMT_HANDLE_SUPPORTED = 105
    MAX_BLOCKS_PER_MULTIPROCESSOR = 106
    GENERIC_COMPRESSION_SUPPORTED = 107
    MAX_PERSISTING_L2_CACHE_SIZE = 108
    MAX_ACCESS_POLICY_WINDOW_SIZE = 109
    GPU_DIRECT_RDMA_WITH_CUDA_VMM_SUPPORTED = 110
    RESERVED_SHARED_MEMORY_PER_BLOCK = 111
    SPARSE_CUDA_ARRAY_SUPPORTED = 112
    READ_ONLY_HOST_REGISTER_SUPPORTED = 113
    TIMELINE_SEMAPHORE_INTEROP_SUPPORTED = 114
    MEMORY_POOLS_SUPPORTED = 115
    GPU_DIRECT_RDMA_SUPPORTED = 116
    GPU_DIRECT_RDMA_FLUSH_WRITES_OPTIONS = 117
    GPU_DIRECT_RDMA_WRITES_ORDERING = 118
    MEMPOOL_SUPPORTED_HANDLE_TYPES = 119
    CLUSTER_LAUNCH = 120
    DEFERRED_MAPPING_CUDA_ARRAY_SUPPORTED = 121
    CAN_USE_64_BIT_STREAM_MEM_OPS = 122
    CAN_USE_STREAM_WAIT_VALUE_NOR = 123
    DMA_BUF_SUPPORTED = 124
    IPC_EVENT_SUPPORTED = 125
    MEM_SYNC_DOMAIN_COUNT = 126
    TENSOR_MAP_ACCESS_SUPPORTED = 127
    HANDLE_TYPE_FABRIC_SUPPORTED = 128
    UNIFIED_FUNCTION_POINTERS = 129
    NUMA_CONFIG = 130
    NUMA_ID = 131
    MULTICAST_SUPPORTED = 132
    MPS_ENABLED = 133
    HOST_NUMA_ID = 134
    D3D12_CIG_SUPPORTED = 135
    MEM_DECOMPRESS_ALGORITHM_MASK = 136
    MEM_DECOMPRESS_MAXIMUM_LENGTH = 137
    VULKAN_CIG_SUPPORTED = 138
    GPU_PCI_DEVICE_ID = 139
    GPU_PCI_SUBSYSTEM_ID = 140
    HOST_NUMA_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED = 141
    HOST_NUMA_MEMORY_POOLS_SUPPORTED = 142
    HOST_NUMA_MULTINODE_IPC_SUPPORTED = 143
    HOST_MEMORY_POOLS_SUPPORTED = 144
    HOST_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED = 145
    HOST_ALLOC_DMA_BUF_SUPPORTED = 146
    ONLY_PARTIAL_HOST_NATIVE_ATOMIC_SUPPORTED = 147


class function_attribute(_Named, _enum.IntEnum):
    """CUfunction_attribute, without the CU_FUNC_ATTRIBUTE_ prefix."""
    MAX_THREADS_PER_BLOCK = 0
    SHARED_SIZE_BYTES = 1
    CONST_SIZE_BYTES = 2
    LOCAL_SIZE_BYTES = 3
    NUM_REGS = 4
    PTX_VERSION = 5
    BINARY_VERSION = 6
    CACHE_MODE_CA = 7
    MAX_DYNAMIC_SHARED_SIZE_BYTES = 8
    PREFERRED_SHARED_MEMORY_CARVEOUT = 9
    CLUSTER_SIZE_MUST_BE_SET = 10
    REQUIRED_CLUSTER_WIDTH = 11
    REQUIRED_CLUSTER_HEIGHT = 12
    REQUIRED_CLUSTER_DEPTH = 13
    NON_PORTABLE_CLUSTER_SIZE_ALLOWED = 14
    CLUSTER_SCHEDULING_POLICY_PREFERENCE = 15


class ctx_flags(_Named, _enum.IntFlag):
    """CUctx_flags."""
    SCHED_AUTO = 0x00
    SCHED_SPIN = 0x01
    SCHED_YIELD = 0x02
    SCHED_BLOCKING_SYNC = 0x04
    BLOCKING_SYNC = 0x04
    SCHED_MASK = 0x07
    MAP_HOST = 0x08
    LMEM_RESIZE_TO_MAX = 0x10
    COREDUMP_ENABLE = 0x20
    USER_COREDUMP_ENABLE = 0x40
    SYNC_MEMOPS = 0x80
    FLAGS_MASK = 0xFF


class limit(_Named, _enum.IntEnum):
    """CUlimit: Context.set_limit / Context.get_limit."""
    STACK_SIZE = 0
    PRINTF_FIFO_SIZE = 1
    MALLOC_HEAP_SIZE = 2
    DEV_RUNTIME_SYNC_DEPTH = 3
    DEV_RUNTIME_PENDING_LAUNCH_COUNT = 4
    MAX_L2_FETCH_GRANULARITY = 5
    PERSISTING_L2_CACHE_SIZE = 6


class event_flags(_Named, _enum.IntFlag):
    """CUevent_flags."""
    DEFAULT = 0x0
    BLOCKING_SYNC = 0x1
    DISABLE_TIMING = 0x2
    INTERPROCESS = 0x4


class ipc_mem_flags(_Named, _enum.IntFlag):
    """CUipcMem_flags (IPCMemoryHandle's flags)."""
    LAZY_ENABLE_PEER_ACCESS = 0x1


class stream_flags(_Named, _enum.IntFlag):
    """CUstream_flags."""
    DEFAULT = 0x0
    NON_BLOCKING = 0x1


class host_alloc_flags(_Named, _enum.IntFlag):
    """cuMemHostAlloc flags (CU_MEMHOSTALLOC_*)."""
    PORTABLE = 0x01
    DEVICEMAP = 0x02
    WRITECOMBINED = 0x04


class mem_host_register_flags(_Named, _enum.IntFlag):
    """cuMemHostRegister flags (CU_MEMHOSTREGISTER_*)."""
    PORTABLE = 0x01
    DEVICEMAP = 0x02
    IOMEMORY = 0x04
    READ_ONLY = 0x08


class func_cache(_Named, _enum.IntEnum):
    """CUfunc_cache: Context.set_cache_config / Function.set_cache_config,
    the preference between L1 cache and shared memory."""
    PREFER_NONE = 0
    PREFER_SHARED = 1
    PREFER_L1 = 2
    PREFER_EQUAL = 3


class shared_config(_Named, _enum.IntEnum):
    """CUsharedconfig: Context.set_shared_config / Function.set_shared_config,
    the shared memory bank size (fixed at four bytes on every GPU CUDA 13
    drives)."""
    DEFAULT_BANK_SIZE = 0
    FOUR_BYTE_BANK_SIZE = 1
    EIGHT_BYTE_BANK_SIZE = 2


class mem_attach_flags(_Named, _enum.IntFlag):
    """CUmemAttach_flags."""
    GLOBAL = 0x1
    HOST = 0x2
    SINGLE = 0x4


class jit_input_type(_Named, _enum.IntEnum):
    """CUjitInputType: what DynamicModule.add_data / add_file are given."""
    CUBIN = 0
    PTX = 1
    FATBINARY = 2
    OBJECT = 3
    LIBRARY = 4
    NVVM = 5  # LTO-IR (compile(..., target="ltoir")), linked by nvJitLink


class compute_mode(_Named, _enum.IntEnum):
    """CUcomputemode (what `dev.compute_mode` reads)."""
    DEFAULT = 0
    PROHIBITED = 2
    EXCLUSIVE_PROCESS = 3


class capture_status(_Named, _enum.IntEnum):
    """CUstreamCaptureStatus (Stream.is_capturing, get_capture_info_v2)."""
    NONE = 0
    ACTIVE = 1
    INVALIDATED = 2


class capture_mode(_Named, _enum.IntEnum):
    """CUstreamCaptureMode (Stream.begin_capture)."""
    GLOBAL = 0
    THREAD_LOCAL = 1
    RELAXED = 2


class update_capture_dependencies_flags(_Named, _enum.IntEnum):
    """CUstreamUpdateCaptureDependencies_flags."""
    ADD_CAPTURE_DEPENDENCIES = 0
    SET_CAPTURE_DEPENDENCIES = 1


class graph_node_type(_Named, _enum.IntEnum):
    """CUgraphNodeType (GraphNode.type)."""
    KERNEL = 0
    MEMCPY = 1
    MEMSET = 2
    HOST = 3
    GRAPH = 4
    EMPTY = 5
    WAIT_EVENT = 6
    EVENT_RECORD = 7


# ---- host-side arrays over page-locked and managed memory ---------------------

def _array_layout(shape, dtype, order, fname):
    """(shape tuple, dtype, order, nbytes) after checking each argument."""
    dtype = _np.dtype(dtype)
    if dtype.hasobject:
        raise TypeError(f"{fname}: dtype {dtype} holds Python objects; only fixed-size "
                        "dtypes can live in page-locked or managed memory")
    if isinstance(shape, _numbers.Integral) or hasattr(shape, "__index__"):
        shape = (shape,)
    if isinstance(shape, (str, bytes, bytearray)):  # iterable, but not a shape (NumPy agrees)
        raise TypeError(f"{fname}: shape must be an int or a tuple of ints, not {shape!r}")
    try:
        shape = tuple(_operator.index(s) for s in shape)
    except TypeError:
        raise TypeError(f"{fname}: shape must be an int or a tuple of ints, "
                        f"not {shape!r}") from None
    if any(s < 0 for s in shape):
        raise ValueError(f"{fname}: shape must not have negative dimensions, got {shape}")
    if order not in ("C", "F"):
        raise ValueError(f"{fname}: order must be 'C' or 'F', not {order!r}")
    n = dtype.itemsize
    for s in shape:
        n *= s
    return shape, dtype, order, n


def _flags(value, what):
    """A flags argument: an int (a combination of the flag constants), >= 0."""
    if isinstance(value, (bool, _np.bool_)) or not isinstance(value, (int, _np.integer)):
        raise TypeError(f"{what} must be an int (a combination of the flag constants), not "
                        f"{type(value).__name__}")
    if not 0 <= value < 1 << 31:
        raise ValueError(f"{what} = {value} is out of range (0..2**31-1)")
    return int(value)


def pagelocked_empty(shape: _Shape, dtype: DTypeLike = _np.float64, order: _Order = "C",
                     mem_flags: int = 0) -> NDArray[Any]:
    """A NumPy array in page-locked (pinned) host memory; its .base is the
    HostAllocation that frees the memory when the last view dies."""
    shape, dtype, order, n = _array_layout(shape, dtype, order, "pagelocked_empty")
    alloc = _host_alloc(n, _flags(mem_flags, "pagelocked_empty: mem_flags"))
    ary = _np.ndarray(shape, dtype, buffer=alloc, order=order)
    alloc._track_array(ary)  # free() with ary alive waits for it
    return ary


def aligned_empty(shape: _Shape, dtype: DTypeLike = _np.float64, order: _Order = "C",
                  alignment: int = 4096) -> NDArray[Any]:
    """A NumPy array in ordinary host memory whose data starts at a multiple
    of `alignment` bytes (a power of two), e.g. for register_host_memory."""
    shape, dtype, order, n = _array_layout(shape, dtype, order, "aligned_empty")
    if isinstance(alignment, bool) or not isinstance(alignment, (int, _np.integer)):
        raise TypeError(f"aligned_empty: alignment must be an int, not "
                        f"{type(alignment).__name__}")
    if alignment < 1 or alignment & (alignment - 1):
        raise ValueError(f"aligned_empty: alignment must be a power of two, not {alignment}")
    raw = _np.empty(n + alignment, _np.uint8)
    start = -raw.ctypes.data % alignment
    return _np.ndarray(shape, dtype, buffer=raw[start:start + n], order=order)


def aligned_zeros(shape: _Shape, dtype: DTypeLike = _np.float64, order: _Order = "C",
                  alignment: int = 4096) -> NDArray[Any]:
    ary = aligned_empty(shape, dtype, order, alignment)
    ary.fill(0)
    return ary


def aligned_empty_like(ary, alignment=4096):
    return aligned_empty(ary.shape, ary.dtype, _like_order(ary), alignment)


def aligned_zeros_like(ary, alignment=4096):
    return aligned_zeros(ary.shape, ary.dtype, _like_order(ary), alignment)


def pagelocked_zeros(shape: _Shape, dtype: DTypeLike = _np.float64, order: _Order = "C",
                     mem_flags: int = 0) -> NDArray[Any]:
    ary = pagelocked_empty(shape, dtype, order, mem_flags)
    ary.fill(0)
    return ary


def _like_order(ary):
    return "F" if ary.flags.f_contiguous and not ary.flags.c_contiguous else "C"


def pagelocked_empty_like(array: ArrayLike, mem_flags: int = 0) -> NDArray[Any]:
    array = _np.asarray(array)
    return pagelocked_empty(array.shape, array.dtype, _like_order(array), mem_flags)


def pagelocked_zeros_like(array: ArrayLike, mem_flags: int = 0) -> NDArray[Any]:
    array = _np.asarray(array)
    return pagelocked_zeros(array.shape, array.dtype, _like_order(array), mem_flags)


def register_host_memory(ary: Any, flags: int = 0) -> NDArray[Any]:
    """Page-lock the memory of an existing contiguous array; returns an array
    over the same memory whose .base is the registration (unregistered when
    it dies, and holding `ary` alive until then)."""
    if isinstance(ary, _np.ndarray):
        view = ary
    else:
        try:
            view = _np.frombuffer(ary, dtype=_np.uint8)  # no copy
        except TypeError:
            raise TypeError("register_host_memory(ary): ary must be a numpy array or a "
                            f"buffer, not {type(ary).__name__}") from None
    if not (view.flags.c_contiguous or view.flags.f_contiguous):
        raise ValueError("register_host_memory(ary): ary must be contiguous")
    if view.dtype.hasobject:
        raise TypeError("register_host_memory(ary): ary holds Python objects (dtype=object)")
    reg = _host_register(ary, _flags(flags, "register_host_memory: flags"))
    out = _np.ndarray(view.shape, view.dtype, buffer=reg, strides=view.strides)
    if not view.flags.writeable:
        out.flags.writeable = False
    return out


def managed_empty(shape: _Shape, dtype: DTypeLike = _np.float64, order: _Order = "C",
                  mem_flags: int = mem_attach_flags.GLOBAL) -> NDArray[Any]:
    """A NumPy array in managed (unified) memory: NumPy on the host and
    kernels on the device use the same memory. Its .base is a
    ManagedAllocation (a DeviceAllocation: int() is the device address)."""
    shape, dtype, order, n = _array_layout(shape, dtype, order, "managed_empty")
    alloc = _managed_alloc(n, _flags(mem_flags, "managed_empty: mem_flags"))
    ary = _np.ndarray(shape, dtype, buffer=alloc, order=order)
    alloc._track_array(ary)  # free() with ary alive waits for it
    return ary


def managed_zeros(shape: _Shape, dtype: DTypeLike = _np.float64, order: _Order = "C",
                  mem_flags: int = mem_attach_flags.GLOBAL) -> NDArray[Any]:
    ary = managed_empty(shape, dtype, order, mem_flags)
    ary.fill(0)
    return ary


def managed_empty_like(array, mem_flags=mem_attach_flags.GLOBAL):
    array = _np.asarray(array)
    return managed_empty(array.shape, array.dtype, _like_order(array), mem_flags)


def managed_zeros_like(array, mem_flags=mem_attach_flags.GLOBAL):
    array = _np.asarray(array)
    return managed_zeros(array.shape, array.dtype, _like_order(array), mem_flags)


# ---- PyCUDA conveniences --------------------------------------------------------

# PyCUDA's names for the objects behind pinned and registered arrays.
PagelockedHostAllocation = HostAllocation  # noqa: F405
RegisteredHostMemory = HostAllocation  # noqa: F405

def get_version() -> tuple[int, int, int]:
    """The CUDA version as (major, minor, 0). PyCUDA gives the toolkit it was
    built against; pycudac is built against none and gives the driver's."""
    v = get_driver_version()  # noqa: F405
    return (v // 1000, v % 1000 // 10, 0)


class PointerHolderBase:
    """Device memory pycudac did not allocate, for kernels, copies and
    GPUArray(gpudata=...): subclass it and define get_pointer() (the device
    address, an int), as with PyCUDA's class of the same name."""

    def get_pointer(self):
        raise NotImplementedError(f"{type(self).__name__} must define get_pointer() "
                                  "(the device address, an int)")

    def __index__(self):
        return _operator.index(self.get_pointer())

    __int__ = __index__


def mem_alloc_pitch(width: int, height: int, access_size: int) -> tuple[DeviceAllocation, int]:
    """PyCUDA's pitched 2D allocation: (allocation, pitch) for `height` rows of
    `width` bytes, each row starting `pitch` bytes after the last, pitch a
    multiple of the device's TEXTURE_PITCH_ALIGNMENT (so a row may back a 2D
    texture or a Memcpy2D). access_size, the bytes a thread reads at once, is
    4, 8 or 16 as for cuMemAllocPitch; every row start is aligned for it."""
    from pycudac._checks import index_arg
    width = index_arg(width, "mem_alloc_pitch: width")
    height = index_arg(height, "mem_alloc_pitch: height")
    access_size = index_arg(access_size, "mem_alloc_pitch: access_size")
    if width <= 0 or height <= 0:
        raise ValueError(f"mem_alloc_pitch: width and height must be positive, got {width} "
                         f"and {height}")
    if access_size not in (4, 8, 16):
        raise ValueError(f"mem_alloc_pitch: access_size must be 4, 8 or 16, got {access_size}")
    align = max(Context.get_device().get_attribute(  # noqa: F405
        device_attribute.TEXTURE_PITCH_ALIGNMENT) or 512, access_size)  # noqa: F405
    pitch = -(-width // align) * align
    return mem_alloc(pitch * height), pitch  # noqa: F405


def _memset_2d(set_row, what, dest, pitch, value, width, height, elem):
    from pycudac._checks import index_arg
    pitch = index_arg(pitch, f"{what}: pitch")
    width = index_arg(width, f"{what}: width")
    height = index_arg(height, f"{what}: height")
    if width < 0 or height < 0 or pitch < width * elem:
        raise ValueError(f"{what}: width ({width} elements of {elem} bytes) and height "
                         f"({height}) must be >= 0, and pitch ({pitch}) at least a row")
    if width == 0 or height == 0:
        return
    size = getattr(dest, "size", None)
    if size is not None and (height - 1) * pitch + width * elem > size:
        raise ValueError(f"{what}: {height} rows of pitch {pitch} do not fit the {size}-byte "
                         f"allocation")
    set_row(dest, value, width)  # the first row through dest: a freed one is refused
    start = _operator.index(dest)
    for row in range(1, height):
        set_row(start + row * pitch, value, width)


def memset_d2d8(dest: Any, pitch: int, value: int, width: int, height: int) -> None:
    """Set `height` rows of `width` bytes, `pitch` bytes apart, to an 8-bit value."""
    _memset_2d(memset_d8, "memset_d2d8", dest, pitch, value, width, height, 1)  # noqa: F405


def memset_d2d16(dest: Any, pitch: int, value: int, width: int, height: int) -> None:
    """Set `height` rows of `width` 16-bit values, `pitch` bytes apart."""
    _memset_2d(memset_d16, "memset_d2d16", dest, pitch, value, width, height, 2)  # noqa: F405


def memset_d2d32(dest: Any, pitch: int, value: int, width: int, height: int) -> None:
    """Set `height` rows of `width` 32-bit values, `pitch` bytes apart."""
    _memset_2d(memset_d32, "memset_d2d32", dest, pitch, value, width, height, 4)  # noqa: F405


def mem_alloc_like(ary: ArrayLike) -> DeviceAllocation:  # noqa: F405
    """Device memory the size of host array `ary`."""
    return mem_alloc(_np.asarray(ary).nbytes)


def to_device(bf_obj: Any) -> DeviceAllocation:  # noqa: F405
    """Copy a host buffer to new device memory; returns the DeviceAllocation."""
    nbytes = memoryview(bf_obj).nbytes if not isinstance(bf_obj, _np.ndarray) else bf_obj.nbytes
    alloc = mem_alloc(nbytes)
    memcpy_htod(alloc, bf_obj)
    return alloc


def from_device(devptr: Any, shape: _Shape, dtype: DTypeLike,
                order: _Order = "C") -> NDArray[Any]:
    """A new host array of `shape`/`dtype` filled from device memory."""
    result = _np.empty(shape, dtype, order=order)
    memcpy_dtoh(result, devptr)
    return result


def from_device_like(devptr: Any, other_ary: NDArray[Any]) -> NDArray[Any]:
    result = _np.empty_like(other_ary)
    memcpy_dtoh(result, devptr)
    return result



# ---- memory pools shared between processes ---------------------------------------

class IPCAllocationHandle:
    """A memory pool's POSIX file descriptor, as get_allocation_handle()
    gives it: owned (closed by close() or when the object dies). It pickles
    through multiprocessing (a Pipe, a Queue, a spawned Process's
    arguments): the receiver gets its own duplicate of the descriptor
    (multiprocessing.reduction.DupFd). Without multiprocessing, send
    fileno() with socket.send_fds and pass the int to from_allocation_handle."""

    def __init__(self, fd):
        self._fd = _operator.index(fd)

    def fileno(self):
        if self._fd < 0:
            raise ValueError("IPCAllocationHandle: the descriptor was closed")
        return self._fd

    def detach(self):
        """The descriptor, which the caller now owns."""
        fd, self._fd = self.fileno(), -1
        return fd

    def close(self):
        fd, self._fd = self._fd, -1
        if fd >= 0:
            import os
            os.close(fd)

    def __del__(self):
        try:
            self.close()
        except Exception:  # never raise from a finalizer
            pass

    def __reduce__(self):
        from multiprocessing import reduction
        return (_rebuild_allocation_handle, (reduction.DupFd(self.fileno()),))

    def __repr__(self):
        return f"<IPCAllocationHandle fd={self._fd}>"


def _rebuild_allocation_handle(dupfd):
    return IPCAllocationHandle(dupfd.detach())


class DeviceMemoryResource(MemoryPool):  # noqa: F405
    """A stream-ordered memory pool (cuMemPoolCreate) on `device` (a
    Device, an ordinal, or None for the current context's).

    PyCUDA has none; the names are cuda.core's DeviceMemoryResource's:
    allocate(size, stream=None) and deallocate(buffer, stream=None),
    ipc_enabled= and max_size=, get_allocation_handle() and
    from_allocation_handle(device, handle); release_threshold and the
    reserved/used counters are attributes, as cuda.core's `attributes`
    has them; trim() is CuPy's free_all_blocks. Calling the pool
    allocates, so it is a GPUArray allocator:
    `gpuarray.empty(n, np.float32, allocator=pool)`.

    An allocation is a DeviceAllocation freed on the stream it was made
    on (cuMemFreeAsync) when it dies, at free(), or at deallocate()."""

    def get_allocation_handle(self):
        """The pool's IPCAllocationHandle, for from_allocation_handle in
        another process (needs ipc_enabled=True)."""
        return IPCAllocationHandle(self._export_fd())

    @classmethod
    def from_allocation_handle(cls, device, handle):
        """The pool another process exported (an IPCAllocationHandle, or
        a file descriptor as an int); its buffers are opened with
        import_ipc_descriptor(get_ipc_descriptor's bytes)."""
        if isinstance(handle, IPCAllocationHandle):
            fd = handle.fileno()
        elif isinstance(handle, bool) or not isinstance(handle, (int, _np.integer)):
            raise TypeError("from_allocation_handle(handle): handle must be an "
                            "IPCAllocationHandle or a file descriptor (int), not "
                            f"{type(handle).__name__}")
        else:
            fd = int(handle)
        return cls._import_fd(fd, device)

    def __repr__(self):
        return MemoryPool.__repr__(self)  # noqa: F405


def _at_exit():
    """Interpreter exit: drop what pycudac caches (memory pools' free blocks,
    pinned staging buffers) while the driver is still there, so the process
    ends holding only what the user still holds. Never raises."""
    import gc
    import sys
    try:
        gpuarray = sys.modules.get("pycudac.gpuarray")
        for pool in list(getattr(gpuarray, "_pools", {}).values()):
            pool.stop_holding()
        gc.collect()
        from pycudac import _driver
        _driver._release_caches()
    except Exception:  # at exit nothing may be raised
        pass


_atexit.register(_at_exit)
# Function's __vectorcalloffset__ member only tells PyType_FromSpec where the
# vectorcall pointer lives (read once, when the type is made); left in the
# type's dict it showed in help(Function) as if it were API.
try:
    del Function.__vectorcalloffset__  # type: ignore[attr-defined]  # noqa: F405
except (AttributeError, TypeError):  # already gone, or an immutable type
    pass
# Device.get_attributes() and attribute access (src/core/device.c) use it.
_register("device_attribute", device_attribute)
# Context.get_cache_config / get_shared_config answer with their members.
_register("func_cache", func_cache)
_register("shared_config", shared_config)
