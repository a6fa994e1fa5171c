"""Indexing GPUArrays (part of pycudac.gpuarray): `a[index]` and
`a[index] = value`.

Basic indices (ints, slices of any step, `...`, None) make views; an
integer index array reads rows through take().
"""
import builtins
import operator

import numpy as np

from pycudac import gpuarray as _ga
from pycudac import tools
from pycudac._gpuarray_funcs import take
from pycudac._gpuarray_ops import _scalar_desc


def getitem(a, index):
    if isinstance(index, (list, np.ndarray)) and not (
            isinstance(index, np.ndarray) and index.ndim == 0):
        index = _ga.to_gpu(np.asarray(index))
    if isinstance(index, _ga.GPUArray):
        if index.dtype == np.bool_:
            raise TypeError("boolean mask indexing is not supported; use where()")
        return take(a, index, axis=0)
    if not isinstance(index, tuple):
        index = (index,)
    n_real = builtins.sum(1 for i in index if i is not None and i is not Ellipsis)
    if n_real > a.ndim:
        raise IndexError(f"too many indices for array: array is {a.ndim}-dimensional, "
                         f"but {n_real} were indexed")
    if builtins.sum(1 for i in index if i is Ellipsis) > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    shape, strides = [], []
    offset = 0
    d = 0
    for i in index:
        if i is Ellipsis:
            for _ in range(a.ndim - n_real):
                shape.append(a.shape[d])
                strides.append(a.strides[d])
                d += 1
        elif i is None:
            shape.append(1)
            strides.append(0)
        elif isinstance(i, slice):
            start, stop, step = i.indices(a.shape[d])
            n = len(range(start, stop, step))
            offset += start * a.strides[d] if n else 0
            shape.append(n)
            strides.append(a.strides[d] * step)
            d += 1
        else:
            try:
                k = operator.index(i)
            except TypeError:
                raise IndexError(f"only integers, slices (':'), ellipsis ('...'), "
                                 f"numpy.newaxis ('None') and integer GPUArrays are "
                                 f"valid indices, got {type(i).__name__}") from None
            n = a.shape[d]
            if k < -n or k >= n:
                raise IndexError(f"index {k} is out of bounds for axis {d} with size {n}")
            offset += (k % n) * a.strides[d]
            d += 1
    while d < a.ndim:
        shape.append(a.shape[d])
        strides.append(a.strides[d])
        d += 1
    return a._view(tuple(shape), tuple(strides), offset)


def setitem(a, index, value):
    if isinstance(index, (_ga.GPUArray, list)) or (isinstance(index, np.ndarray) and index.ndim):
        raise TypeError("assignment through an index array is not supported (a[idx] = v); "
                        "use where() or an ElementwiseKernel")
    view = a[index] if not (isinstance(index, slice) and index == slice(None)) else a
    if isinstance(value, _ga.GPUArray):
        view._assign_array(value)
    elif _scalar_desc(value) is not None and not isinstance(value, np.ndarray):
        view.fill(value)
    else:
        host = np.asarray(value)
        if host.ndim == 0:
            view.fill(host[()])
        else:
            tools.check_dtype(host.dtype, "setitem: value dtype")
            view._assign_array(_ga.to_gpu(host.astype(view.dtype, copy=False)))