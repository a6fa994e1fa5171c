"""pycudac.curandom — random numbers on the device, as kernel source of
pycudac's own (no cuRAND): the counter-based PhiloxGenerator(seed, offset)
and rand() (uniform from a module-wide Philox generator).

Where things live (pycudac/_curand/, each module importing only those
before it): checks (argument checks), philox.
"""
import os

import numpy as np

from pycudac._curand.philox import (
    PhiloxGenerator, PhiloxRandomNumberGenerator, philox4x32_reference, philox_raw,
    reference_uniform, _KINDS)

__all__ = ["PhiloxGenerator", "rand", "philox4x32_reference", "seed_getter_uniform",
           "seed_getter_unique", "get_curand_version"]


def seed_getter_uniform(n=None):
    """A random 64-bit seed from the OS (PyCUDA has per-thread seed arrays;
    Philox needs one key)."""
    return int.from_bytes(os.urandom(8), "little")


seed_getter_unique = seed_getter_uniform

_default = None


def rand(shape, dtype=np.float32, stream=None):
    """Uniform numbers from a module-wide generator seeded from the OS: in
    [0, 1) for float32 / float64, over the whole range for int32 / uint32
    (as PyCUDA's rand)."""
    global _default
    dtype = np.dtype(dtype)
    kind = "uniform" if dtype in (np.float32, np.float64) else "bits"
    if (kind, dtype) not in _KINDS:
        raise TypeError(f"rand: dtype must be float32, float64, int32 or uint32, got {dtype}")
    if _default is None:
        _default = PhiloxGenerator()
    from pycudac import gpuarray
    return _default._fill(kind, gpuarray.empty(shape, dtype), stream)


def get_curand_version():
    """None: pycudac uses no cuRAND (its generator is Philox in kernel source).
    PyCUDA answers None too where cuRAND is missing."""
    return None
