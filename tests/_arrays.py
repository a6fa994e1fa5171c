"""Sample arrays for the GPUArray tests (test_gpuarray, test_gpuarray_functions,
test_gpuarray_index): small values of every dtype, so results compare exactly
with NumPy's."""
import numpy as np
from numpy.lib.recfunctions import unstructured_to_structured

NUMPY_VERSION = tuple(int(p) for p in np.__version__.split(".")[:2])
NUMPY2 = NUMPY_VERSION >= (2, 0)
# What assigning a Python int out of an integer dtype's range raises: NumPy 2
# refuses it; NumPy 1.24-1.26 warn that they will (an error under the suite's
# filterwarnings); NumPy 1.23 wraps it silently (None here). pycudac does
# what the installed NumPy does.
OUT_OF_RANGE = (OverflowError if NUMPY2 else DeprecationWarning if NUMPY_VERSION >= (1, 24)
                else None)


def sample(dtype, shape=(5, 7), seed=0):
    rng = np.random.default_rng(seed)
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        return rng.integers(0, 2, shape).astype(bool)
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return rng.integers(max(info.min, -100), min(info.max, 100), shape).astype(dtype)
    if dtype.kind == "c":
        return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dtype)
    if dtype.kind == "V":
        base = dtype.fields["x"][0]
        comps = sample(base, shape + (len(dtype.names),), seed)
        return unstructured_to_structured(comps, dtype=dtype)
    return rng.standard_normal(shape).astype(dtype)


class DLPackOnly:
    """An array reached only through __dlpack__ (that of the array it keeps):
    a CPU array the GPU cannot reach, or a GPUArray seen as a DLPack tensor."""

    def __init__(self, a):
        self.a = a

    def __dlpack__(self, *args, **kw):
        return self.a.__dlpack__(*args, **kw)

    def __dlpack_device__(self):
        return self.a.__dlpack_device__()
