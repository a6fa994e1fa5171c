"""pycudac.gpuarray — NumPy-shaped arrays in device memory (PyCUDA's names).

    import pycudac.autoinit
    from pycudac import gpuarray
    x = gpuarray.to_gpu(numpy.arange(10, dtype=numpy.float32))
    y = (2 * x + 1).get()

A GPUArray is shape + dtype + byte strides over device memory. Indexing with
ints, slices (any step), `...` and `None` gives views; integer index arrays
and boolean masks (GPUArray or host, NumPy's rules, also in assignment)
give copies and scatters computed on the device (see _gpuarray_index);
arithmetic follows NumPy (NEP 50 promotion, broadcasting) and works on any
strided operands.
`gpudata` is the owning allocation for a fresh array and an int-like
pointer (address of element 0, keeping the allocation alive) for a view;
`ptr` is always the plain int address of element 0.

Memory comes from a per-context tools.DeviceMemoryPool unless an
`allocator` is given, so temporaries do not pay cuMemAlloc.

Interop: `__cuda_array_interface__` (v3) export and import (`asarray`),
DLPack export (`__dlpack__`, `__dlpack_device__`) and import
(`from_dlpack`), all zero-copy.

Limits (device code cannot raise): integer `x // 0` and `x % 0` give 0 and
a negative integer power gives 0 (NumPy: warning / ValueError); `take`
clips out-of-range indices (indexing with `a[idx]` raises IndexError);
float -> int casts of NaN/inf are whatever the hardware gives. Arrays
with more than 8 dimensions that cannot be merged need a copy first.
float16 elements are `pcc_half` (2-byte storage, pcc_h2f/pcc_f2h) in
kernels, complex ones `pcc_complex64/128` (float2/double2 layout with
operators) — see tools.KERNEL_PREAMBLE. `vec` dtypes (float4 ...) take
+ - * / and unary - componentwise (with each other, real scalars and vec
scalars), `fill` and indexing; other operators on them are a TypeError.

Where things live (this module is the public face and re-exports them;
each module of pycudac/_gpuarray/ imports only those before it):
    _gpuarray/layout.py  shapes, strides, view pointers, the memory pool
    _gpuarray/vec.py     the vec dtypes (float4 ...) and their component view
    _gpuarray/array.py   the GPUArray class
    _gpuarray/create.py  constructors (empty, zeros, to_gpu ...), foreign imports
    _gpuarray/ops.py     operator dispatch onto elementwise map kernels, vec math
    _gpuarray/index.py   a[index] and a[index] = value
    _gpuarray/funcs.py   where, maximum, logical_and, concatenate, take, multi_put, sum ...
"""
from pycudac._gpuarray.array import GPUArray
from pycudac._gpuarray.create import (
    to_gpu, to_gpu_async, empty, zeros, ones, empty_like, zeros_like, ones_like, arange, asarray,
    from_dlpack, is_gpuarray)
from pycudac._gpuarray.funcs import (  # noqa: A004 (sum, min, max, any, all: PyCUDA's names)
    maximum, minimum, where, if_positive, logical_and, logical_or, logical_not, concatenate,
    stack, take, multi_take, multi_put, multi_take_put, dot, sum, min, max, any, all, subset_dot,
    subset_sum, subset_min, subset_max)
from pycudac._gpuarray.layout import get_default_pool
from pycudac._gpuarray.vec import vec

__all__ = [
    "GPUArray", "to_gpu", "to_gpu_async", "empty", "zeros", "ones", "empty_like", "zeros_like",
    "ones_like", "arange", "asarray", "from_dlpack", "where", "maximum", "minimum",
    "concatenate", "stack", "take", "dot", "sum", "min", "max", "any", "all", "vec",
    "if_positive", "is_gpuarray", "logical_and", "logical_or", "logical_not", "subset_dot",
    "subset_sum", "subset_min", "subset_max", "multi_take", "multi_put", "multi_take_put",
    "get_default_pool", "reshape", "transpose", "splay",
]


def transpose(a, axes=None):
    """PyCUDA's gpuarray.transpose: a.transpose(axes), a view with its axes
    permuted (reversed without axes)."""
    if not isinstance(a, GPUArray):
        raise TypeError(f"transpose: a must be a GPUArray, not {type(a).__name__}")
    return a.transpose(axes)


def reshape(a, *shape, **kwargs):
    """PyCUDA's gpuarray.reshape: a.reshape(*shape, order=...)."""
    if not isinstance(a, GPUArray):
        raise TypeError(f"reshape: a must be a GPUArray, not {type(a).__name__}")
    return a.reshape(*shape, **kwargs)


def splay(n, dev=None):
    """PyCUDA's launch shape for n elements over a grid-stride loop:
    ((blocks, 1), (threads, 1, 1)). One warp per block while there are few
    elements, up to 4 * 8 * SMs blocks (PyCUDA's DeviceData counts 8 blocks
    to an SM, whatever the device); then the blocks grow by warps to 128
    threads. `dev`: a Device, the current context's by
    default. Code built on PyCUDA sizes its ElementwiseKernel-style kernels
    with it (compyle's Array.take)."""
    from pycudac import driver as drv
    from pycudac._checks import index_arg
    n = index_arg(n, "splay: n")
    if n < 0:
        raise ValueError(f"splay: n must be >= 0, got {n}")
    if dev is None:
        dev = drv.Context.get_device()
    elif not isinstance(dev, drv.Device):
        raise TypeError(f"splay: dev must be a Device or None, not {type(dev).__name__}")
    att = drv.device_attribute
    warp = dev.get_attribute(att.WARP_SIZE)
    most_blocks = 4 * 8 * dev.get_attribute(att.MULTIPROCESSOR_COUNT)
    return _splay_shape(n, warp, most_blocks)


def _splay_shape(n, warp, most_blocks, most_threads=128):
    # (this module's min and max are PyCUDA's array reductions)
    if n <= warp * most_blocks:
        blocks, threads = -(-n // warp) or 1, warp
    elif n < most_threads * most_blocks:
        warps = -(-n // warp)  # the warps n needs, spread over every block
        blocks, threads = most_blocks, -(-warps // most_blocks) * warp
    else:
        blocks, threads = most_blocks, most_threads
    return (blocks, 1), (threads, 1, 1)


def _memcpy_discontig(dst, src, async_=False, stream=None):
    """PyCUDA's private copy between two arrays of one shape and dtype, each
    a GPUArray or a numpy.ndarray, any strides; code built on PyCUDA calls it
    (reikna's cluda Array.copy)."""
    import numpy as np
    for name, a in (("dst", dst), ("src", src)):
        if not isinstance(a, (GPUArray, np.ndarray)):
            raise TypeError(f"_memcpy_discontig: {name} must be a GPUArray or a numpy.ndarray, "
                            f"not {type(a).__name__}")
    if dst.shape != src.shape or dst.dtype != src.dtype:
        raise ValueError(f"_memcpy_discontig: dst ({dst.shape}, {dst.dtype}) and src "
                         f"({src.shape}, {src.dtype}) must have one shape and dtype")
    stream = stream if async_ or stream is not None else None
    if isinstance(dst, np.ndarray):
        if isinstance(src, np.ndarray):
            dst[...] = src
        elif dst.flags.c_contiguous or dst.flags.f_contiguous:
            src.get(ary=dst, async_=async_, stream=stream)
        else:
            dst[...] = src.get(stream=stream)
    elif isinstance(src, np.ndarray):
        dst.set(src, async_=async_, stream=stream)
    elif dst.size:
        from pycudac._gpuarray import ops
        ops.copy_into(dst, src, stream)
