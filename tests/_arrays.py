"""Sample arrays for the GPUArray tests (test_gpuarray, test_gpuarray_index):
small values of every dtype, so results compare exactly with NumPy's."""
import numpy as np
from numpy.lib.recfunctions import unstructured_to_structured

NUMPY2 = int(np.__version__.split(".")[0]) >= 2
# What assigning a Python int out of an integer dtype's range raises: NumPy 2
# refuses it; NumPy 1.x warns that it will (an error under the suite's
# filterwarnings) and wraps. pycudac does what the installed NumPy does.
OUT_OF_RANGE = OverflowError if NUMPY2 else DeprecationWarning


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
