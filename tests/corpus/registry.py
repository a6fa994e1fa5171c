"""The corpus's building blocks: how a kernel's arguments are described (In,
Out, InOut, Gpu, Val), a Case, the small helpers references share, and the
CASES list that cases_*.py fill."""
import os
from dataclasses import dataclass, field
from typing import Any, Callable, Optional

import numpy as np


HERE = os.path.dirname(os.path.abspath(__file__))


def source_text(name):
    with open(os.path.join(HERE, name), encoding="utf-8") as f:
        return f.read()


def toolkit_includes():
    """The CUDA toolkit's include directories, as a PyCUDA user passes them for
    <cuda_fp16.h> or <cooperative_groups.h> (CUDA 13 keeps libcu++ under
    include/cccl). The simulator has its own versions of those headers."""
    for root in (os.environ.get("CUDA_HOME"), os.environ.get("CUDA_PATH"), "/usr/local/cuda"):
        inc = os.path.join(root or "", "include")
        if root and os.path.isfile(os.path.join(inc, "cuda_fp16.h")):
            cccl = os.path.join(inc, "cccl")
            return [inc] + ([cccl] if os.path.isdir(cccl) else [])
    return []



# ---------------------------------------------------------------- arguments

@dataclass(frozen=True)
class In:
    key: str        # drv.In(d[key])


@dataclass(frozen=True)
class Out:
    key: str        # drv.Out(d[key]); d[key] holds the result afterwards


@dataclass(frozen=True)
class InOut:
    key: str


@dataclass(frozen=True)
class Gpu:
    key: str        # gpuarray.to_gpu(d[key]); read back into d[key] after the launch


@dataclass(frozen=True)
class Val:
    key: str        # d[key] as it is (a NumPy scalar, a np.void struct)


# ---------------------------------------------------------------- cases

@dataclass
class Case:
    id: str
    src: str
    kernel: str                       # kernel name or name expression
    make: Callable[[np.random.Generator], dict]
    args: tuple = ()
    block: Any = (1, 1, 1)            # tuple, or callable(d)
    grid: Any = (1, 1)
    shared: Any = 0
    expect: Optional[Callable[[dict], dict]] = None   # key -> expected array
    check: Optional[Callable[[dict, dict], None]] = None  # (after, before) -> asserts
    rtol: float = 0.0
    atol: float = 0.0                 # both 0: exact
    setup: Optional[Callable] = None  # setup(module, d, drv) before the launch
    run: Optional[Callable] = None    # run(module, d, drv, gpuarray) instead of one launch
    launches: int = 1                 # the same launch this many times
    launch_kw: dict = field(default_factory=dict)
    stdout: Optional[Callable[[dict], list]] = None  # lines that must be printed
    tags: tuple = ()
    xfail_sim: Optional[str] = None
    xfail: Optional[str] = None
    raises: tuple = ()
    seed: int = 0


def cdiv(a, b):
    return (a + b - 1) // b


def ints_as_floats(rng, n, lo=-8, hi=9, dtype=np.float32):
    """Integer-valued floats: any summation order gives the exact sum."""
    return rng.integers(lo, hi, n).astype(dtype)


def chunk_sums(x, chunk):
    pad = cdiv(x.size, chunk) * chunk - x.size
    return np.concatenate([x, np.zeros(pad, x.dtype)]).reshape(-1, chunk).sum(
        axis=1, dtype=np.float64)


def grid_stride_block_sums(x, nblocks, chunk):
    """Sums per block of a grid-stride loop where block b owns chunks b, b + nblocks, ..."""
    owner = (np.arange(x.size) // chunk) % nblocks
    return np.bincount(owner, weights=x.astype(np.float64), minlength=nblocks)


def segmented_cumsum(x, seg, exclusive):
    pad = cdiv(x.size, seg) * seg - x.size
    y = np.concatenate([x, np.zeros(pad, x.dtype)]).reshape(-1, seg)
    c = np.cumsum(y, axis=1, dtype=np.float64)
    if exclusive:
        c = c - y
    return c.ravel()[:x.size]


def set_constant(mod, drv, name, value):
    """A __constant__ variable set from the host: the module's global and a copy."""
    ptr, size = mod.get_global(name)
    value = np.ascontiguousarray(value)
    assert value.nbytes <= size, (name, value.nbytes, size)
    drv.memcpy_htod(ptr, value)


CASES = []


def case(**kw):
    CASES.append(Case(**kw))
