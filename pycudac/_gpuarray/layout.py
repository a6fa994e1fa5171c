"""Shapes, strides and memory for GPUArray (part of pycudac.gpuarray).

Pure bookkeeping that needs no kernel: C/F strides and contiguity tests,
shape and axis normalization, the int-like pointer a view carries, the
`flags` object, and the per-context memory pool arrays allocate from.
"""
import builtins
import operator

import numpy as np

from pycudac import _driver, tools


def c_strides(shape, itemsize):
    strides = []
    acc = itemsize
    for n in reversed(shape):
        strides.append(acc)
        acc *= builtins.max(n, 1)
    return tuple(reversed(strides))


def f_strides(shape, itemsize):
    strides = []
    acc = itemsize
    for n in shape:
        strides.append(acc)
        acc *= builtins.max(n, 1)
    return tuple(strides)


def is_c(shape, strides, itemsize):
    acc = itemsize
    for n, s in zip(reversed(shape), reversed(strides)):
        if n == 0:
            return True
        if n != 1 and s != acc:
            return False
        acc *= n
    return True


def is_f(shape, strides, itemsize):
    return is_c(shape[::-1], strides[::-1], itemsize)


def layout_of(shape, strides, itemsize):
    if is_c(shape, strides, itemsize):
        return "C"
    if is_f(shape, strides, itemsize):
        return "F"
    return None


def _shape_tuple(shape, what):
    """`shape` as a tuple of Python ints: an int, a 0-d integer ndarray (as
    NumPy and PyCUDA take it) or a sequence of ints."""
    dims = (shape,) if isinstance(shape, (int, np.integer)) or (
        isinstance(shape, np.ndarray) and shape.ndim == 0) else shape
    try:
        return tuple(operator.index(n) for n in dims)
    except TypeError:
        raise TypeError(f"{what} must be an int or a tuple of ints, got {shape!r}") from None


def normalize_shape(shape, what="shape"):
    shape = _shape_tuple(shape, what)
    for n in shape:
        if n < 0:
            raise ValueError(f"{what} must not contain negative sizes, got {shape}")
    return shape


def prod(shape):
    p = 1
    for n in shape:
        p *= n
    return p


class ViewPointer(int):
    """Address of a view's element 0 that keeps the owning allocation
    alive (int(view.gpudata) works wherever a pointer is accepted)."""

    def __new__(cls, address, owner):
        self = int.__new__(cls, address)
        self.base = owner
        return self

    def __repr__(self):
        return f"<device pointer 0x{int(self):x}>"



# GPUArray.ptr, a launch and a TextureObject refuse a view whose owner's
# DeviceAllocation was free()d: C knows the type by this
_driver._register("view_pointer", ViewPointer)

pools = {}  # context -> DeviceMemoryPool (dropped by tools.clear_context_caches)
tools._context_caches.append(pools)


def default_pool(ctx):
    pool = pools.get(ctx)
    if pool is None:
        pool = pools[ctx] = tools.DeviceMemoryPool()
    return pool


def get_default_pool():
    """The DeviceMemoryPool GPUArrays of the current context allocate from."""
    return default_pool(tools.current_context())


class Flags:
    __slots__ = ("c_contiguous", "f_contiguous")

    def __init__(self, c, f):
        self.c_contiguous, self.f_contiguous = c, f

    @property
    def forc(self):
        return self.c_contiguous or self.f_contiguous

    def __repr__(self):
        return f"  C_CONTIGUOUS : {self.c_contiguous}\n  F_CONTIGUOUS : {self.f_contiguous}"


def normalize_shape_with_minus(shape):
    shape = _shape_tuple(shape, "shape")
    for n in shape:
        if n < -1:
            raise ValueError(f"negative dimensions not allowed: {shape}")
    return shape


def memory_order_view(host):
    """1-d view of a C- or F-contiguous host array, in memory order."""
    if host.ndim == 0:
        return host.reshape(1)
    return host.ravel(order="F" if not host.flags.c_contiguous else "C")


def norm_axis(axis, ndim):
    axis = operator.index(axis)
    if not -ndim <= axis < builtins.max(ndim, 1):
        raise np.exceptions.AxisError(axis, ndim)
    return axis % ndim if ndim else 0



def clear_pools():
    pools.clear()
