"""Argument checks shared by the generators: each error names the method,
the argument and what was expected (TypeError for a wrong kind, ValueError
for a wrong value, as everywhere in pycudac)."""
import math
import numbers

import numpy as np


def count(fn, what, value, bits=64):
    """An int in 0..2**bits - 1 (a seed, offset or skip count)."""
    if not isinstance(value, (int, np.integer)) or isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{fn}: {what} must be an int, got {type(value).__name__}")
    value = int(value)
    if not 0 <= value < 1 << bits:
        raise ValueError(f"{fn}: {what} must be in 0..2**{bits}-1, got {value}")
    return value


def real(fn, what, value, low=None, high=None):
    """A finite real number (Python or NumPy), optionally within [low, high]."""
    if not isinstance(value, numbers.Real) or isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{fn}: {what} must be a real number, got {type(value).__name__}")
    value = float(value)
    if not math.isfinite(value):
        raise ValueError(f"{fn}: {what} must be finite, got {value}")
    if (low is not None and value < low) or (high is not None and value > high):
        lo = "-inf" if low is None else repr(low)
        hi = "inf" if high is None else repr(high)
        raise ValueError(f"{fn}: {what} must be in [{lo}, {hi}], got {value!r}")
    return value


def gpu_array(fn, what, data, dtypes, size=None):
    """A contiguous GPUArray of one of `dtypes` (and `size` elements, when
    given): the arrays a kernel writes or reads whole."""
    from pycudac.gpuarray import GPUArray
    if not isinstance(data, GPUArray):
        hint = " (a host array: copy it with gpuarray.to_gpu)" if isinstance(data, np.ndarray) else ""
        raise TypeError(f"{fn}: {what} must be a GPUArray, got {type(data).__name__}{hint}")
    if data.dtype not in dtypes:
        ok = ", ".join(str(np.dtype(d)) for d in dtypes)
        raise TypeError(f"{fn}: {what} has dtype {data.dtype}; expected {ok}")
    if data._layout is None:
        raise ValueError(f"{fn}: {what} must be contiguous (shape {data.shape}, "
                         f"strides {data.strides})")
    if size is not None and data.size != size:
        raise ValueError(f"{fn}: {what} must have {size} elements (one per generator), "
                         f"got {data.size} (shape {data.shape})")
    return data
