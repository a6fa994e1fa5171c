"""pycudac.curandom — random numbers on the device, with PyCUDA's names, as
kernel source of pycudac's own (no cuRAND, no toolkit header: the same
kernels run on the GPU and on the simulator).

PyCUDA's generator classes, each keeping block_count x generators_per_block
streams of state in device memory (stream t fills elements t, t + T, ...):

    XORWOWRandomNumberGenerator(seed_getter=None, offset=0)
    MRG32k3aRandomNumberGenerator(seed_getter=None, offset=0)
    Sobol32RandomNumberGenerator(dir_vector=None, offset=0)
    ScrambledSobol32RandomNumberGenerator(dir_vector=None, scramble_vector=None, offset=0)
    Sobol64RandomNumberGenerator(dir_vector=None, offset=0)
    ScrambledSobol64RandomNumberGenerator(dir_vector=None, scramble_vector=None, offset=0)

with fill_uniform / gen_uniform (float32, float64 in (0, 1]; int32, uint32;
int64, uint64 from the Sobol64 ones), fill_normal / gen_normal,
fill_log_normal / gen_log_normal(shape, dtype, mean, stddev),
fill_poisson(data, lambda_value=None) / gen_poisson(shape, dtype, lambda_value)
(uint32; with no lambda the array's own values are the means, float32,
float64 or uint32), call_skip_ahead(_array), and for the pseudo-random ones
call_skip_ahead_sequence(_array) (MRG32k3a also _subsequence). Helpers:
seed_getter_uniform(n), seed_getter_unique(n), generate_direction_vectors(
count, direction), generate_scramble_constants32/64(count),
direction_vector_set. A generator is reproducible by its seeds (or
direction vectors) and offset, on devices of the same multiprocessor count.
The numbers are not cuRAND's bit for bit: the algorithms are the same, the
seeding is pycudac's (see each module).

Also pycudac's own counter-based PhiloxGenerator(seed, offset) and rand()
(uniform from a module-wide Philox generator).

Where things live (pycudac/_curand/, each module importing only those
before it): checks (argument checks), kernels (the shared device code and
the kernel templates), base (the generator base classes, seed getters),
philox, xorwow, mrg32k3a, joe_kuo (Joe and Kuo's direction numbers), sobol.
"""
import numpy as np

from pycudac._curand.base import seed_getter_uniform, seed_getter_unique
from pycudac._curand.mrg32k3a import MRG32k3aRandomNumberGenerator
from pycudac._curand.philox import (
    PhiloxGenerator, PhiloxRandomNumberGenerator, philox4x32_reference, philox_raw,
    reference_uniform, _KINDS)
from pycudac._curand.sobol import (
    ScrambledSobol32RandomNumberGenerator, ScrambledSobol64RandomNumberGenerator,
    Sobol32RandomNumberGenerator, Sobol64RandomNumberGenerator, direction_vector_set,
    generate_direction_vectors, generate_scramble_constants32, generate_scramble_constants64)
from pycudac._curand.xorwow import XORWOWRandomNumberGenerator

__all__ = [
    "XORWOWRandomNumberGenerator", "MRG32k3aRandomNumberGenerator",
    "Sobol32RandomNumberGenerator", "ScrambledSobol32RandomNumberGenerator",
    "Sobol64RandomNumberGenerator", "ScrambledSobol64RandomNumberGenerator",
    "PhiloxGenerator", "PhiloxRandomNumberGenerator", "rand", "seed_getter_uniform",
    "seed_getter_unique", "generate_direction_vectors", "generate_scramble_constants32",
    "generate_scramble_constants64", "direction_vector_set", "get_curand_version",
    "philox4x32_reference", "philox_raw", "reference_uniform"]

# What get_curand_version() answers: the cuRAND version from which PyCUDA's
# wrapper offers everything pycudac's generators do (log-normal from 4.0,
# MRG32k3a from 4.1, Poisson from 5.0), so that PyCUDA code gating on it
# finds them. pycudac itself uses no cuRAND.
CURAND_API_LEVEL = (5, 0, 0)

_default = None


def rand(shape, dtype=np.float32, stream=None):
    """Uniform numbers from a module-wide Philox generator seeded from the
    OS: in [0, 1) for float32 / float64, over the whole range for int32 /
    uint32 (as PyCUDA's rand)."""
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
    """CURAND_API_LEVEL, (5, 0, 0): the cuRAND API level of PyCUDA's
    wrapper that pycudac's own generators stand in for (no cuRAND is used
    or needed; PyCUDA code that checks `get_curand_version() >= (4, 1, 0)`
    and the like finds every generator and distribution)."""
    return CURAND_API_LEVEL
