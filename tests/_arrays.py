"""Sample arrays for the GPUArray tests (test_gpuarray, test_gpuarray_index):
small values of every dtype, so results compare exactly with NumPy's."""
import numpy as np
from numpy.lib.recfunctions import unstructured_to_structured


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
