"""The corpus: CUDA C kernels written the way public sources write them
(tests/corpus/*.cu, each naming the public kernel whose technique it follows),
and one Case per launch to check against NumPy.

SOURCES says how each .cu file compiles (extern "C" or not, options, name
expressions, whether it includes toolkit headers) and whether NVRTC accepts
it; tests/test_corpus_nvrtc.py compiles every one with NVRTC and with the
simulator's compiler. CASES says how to run a kernel: inputs from a seeded
NumPy generator, arguments, launch configuration, the NumPy reference and the
tolerance; tests/test_corpus.py runs them on the backend in use.

What fails today is written down here, with the failure it shows, so that a
fix in pycudac turns the case into an XPASS (the marks are strict) and the
mark must go:
  xfail_sim  fails on the simulator backend only,
  xfail      fails on every backend (e.g. a launch keyword pycudac lacks).
Each comes with `raises`, the exception class names the failure raises
('CompileError', 'TypeError', 'LaunchError', 'AssertionError').
"""
import math
import os
from dataclasses import dataclass, field
from fractions import Fraction
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


# ---------------------------------------------------------------- sources

@dataclass(frozen=True)
class Source:
    file: str
    no_extern_c: bool = False
    options: tuple = ()
    name_expressions: tuple = ()
    toolkit: bool = False   # #includes toolkit headers (cuda_fp16.h, cooperative_groups.h ...)
    valid: bool = True      # NVRTC accepts it
    # the simulator's compiler does not agree with NVRTC today: (what it does, key line)
    disagree: Optional[str] = None




SOURCES = {s.file: s for s in [
    Source("vector_add.cu"),
    Source("reduction_classic.cu"),
    Source("reduction_template.cu", no_extern_c=True,
           name_expressions=("reduce5<float, 256>", "reduce6<int, 128, false>",
                             "reduce6<float, 256, true>")),
    Source("reduction_shfl.cu"),
    Source("threadfence_reduction.cu"),
    Source("scan.cu"),
    Source("compaction.cu"),
    Source("histogram.cu"),
    Source("matmul.cu", no_extern_c=True, name_expressions=("matrixMulCUDA<16>",)),
    Source("matvec.cu"),
    Source("transpose.cu"),
    Source("stencil.cu", options=("-DBLOCK_SIZE=64",)),
    Source("convolution_separable.cu"),
    Source("constant_fir.cu", toolkit=True, options=("-use_fast_math",)),
    Source("nbody.cu"),
    Source("bitonic.cu"),
    Source("mandelbrot.cu"),
    Source("black_scholes.cu"),
    Source("monte_carlo_pi.cu"),
    Source("vector_types.cu"),
    Source("half_precision.cu", toolkit=True),
    Source("bfloat16.cu", toolkit=True),
    Source("warp_vote.cu"),
    Source("intrinsics.cu"),
    Source("math_api.cu"),
    Source("cucomplex.cu", toolkit=True),
    Source("cg_tiles.cu", no_extern_c=True, toolkit=True),
    Source("cg_thread_group.cu", toolkit=True),
    Source("cg_coalesced.cu", toolkit=True),
    Source("cg_partition.cu", toolkit=True),
    Source("cg_reduce.cu", toolkit=True),
    Source("cg_grid.cu", toolkit=True),
    Source("cg_grid_sync.cu", toolkit=True),
    Source("atomics.cu"),
    Source("sync_count.cu"),
    Source("recursion.cu"),
    Source("printf.cu"),
    Source("malloc.cu"),
    Source("struct_param.cu"),
    Source("dynamic_shared.cu"),
    Source("launch_bounds.cu"),
    Source("name_div.cu"),
    Source("name_index.cu"),
    Source("name_random.cu"),
    Source("clock_timing.cu"),
    Source("cuda_std.cu", no_extern_c=True, toolkit=True, options=("--std=c++17",)),
    # C headers NVRTC does not ship: pycudac hands both compilers the same small stand-ins
    # (src/compile/c_headers.c), so NVRTC accepts the file as nvcc does (it refused it
    # before: 'cannot open source file "stdint.h"')
    Source("std_c_headers.cu"),
    # deliberately invalid CUDA C: NVRTC refuses each; the simulator must too
    Source("invalid_atomicmax_float.cu", valid=False),
    Source("invalid_shared_init.cu", valid=False),
    Source("invalid_host_rand.cu", valid=False),
    Source("invalid_global_return.cu", valid=False),
    Source("invalid_extern_shared_types.cu", valid=False),
]}


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


# ---- vector_add.cu ---------------------------------------------------------

case(id="vectorAdd", src="vector_add.cu", kernel="vectorAdd",
     make=lambda r: dict(A=r.standard_normal(50_000).astype(np.float32),
                         B=r.standard_normal(50_000).astype(np.float32),
                         C=np.zeros(50_000, np.float32), n=np.int32(50_000)),
     args=(In("A"), In("B"), Out("C"), Val("n")), block=(256, 1, 1),
     grid=(cdiv(50_000, 256), 1), expect=lambda d: {"C": d["A"] + d["B"]})

case(id="saxpy_gpuarray", src="vector_add.cu", kernel="saxpy",
     make=lambda r: dict(n=np.int32(10_001), a=np.float32(2.5),
                         x=r.standard_normal(10_001).astype(np.float32),
                         y=r.standard_normal(10_001).astype(np.float32)),
     args=(Val("n"), Val("a"), Gpu("x"), Gpu("y")), block=(256, 1, 1),
     grid=(cdiv(10_001, 256), 1), expect=lambda d: {"y": d["a"] * d["x"] + d["y"]},
     rtol=1e-6, atol=1e-6)

case(id="saxpy_grid_stride", src="vector_add.cu", kernel="saxpy_grid_stride",
     make=lambda r: dict(n=np.int32(100_000), a=np.float32(-0.75),
                         x=r.standard_normal(100_000).astype(np.float32),
                         y=r.standard_normal(100_000).astype(np.float32)),
     args=(Val("n"), Val("a"), In("x"), InOut("y")), block=(128, 1, 1), grid=(4, 1),
     expect=lambda d: {"y": d["a"] * d["x"] + d["y"]}, rtol=1e-6, atol=1e-6)


# ---- reduction_classic.cu: reduce0..reduce4 ---------------------------------

def _reduce_case(kernel, per_block_load):
    n, bs = 100_000, 256
    chunk = bs * per_block_load
    case(id=kernel, src="reduction_classic.cu", kernel=kernel,
         make=lambda r: dict(x=ints_as_floats(r, n), out=np.zeros(cdiv(n, chunk), np.float32),
                             n=np.uint32(n)),
         args=(In("x"), Out("out"), Val("n")), block=(bs, 1, 1), grid=(cdiv(n, chunk), 1),
         shared=bs * 4, expect=lambda d: {"out": chunk_sums(d["x"], chunk)},
         tags=("reduction", "dynamic_shared"))


for _k, _load in (("reduce0", 1), ("reduce1", 1), ("reduce2", 1), ("reduce3", 2),
                  ("reduce4", 2)):
    _reduce_case(_k, _load)


# ---- reduction_template.cu: reduce5, reduce6 through name expressions -------

case(id="reduce5_float_256", src="reduction_template.cu", kernel="reduce5<float, 256>",
     make=lambda r: dict(x=ints_as_floats(r, 70_001), out=np.zeros(cdiv(70_001, 512), np.float32),
                         n=np.uint32(70_001)),
     args=(In("x"), Out("out"), Val("n")), block=(256, 1, 1), grid=(cdiv(70_001, 512), 1),
     shared=256 * 4, expect=lambda d: {"out": chunk_sums(d["x"], 512)},
     tags=("reduction", "template"))

case(id="reduce6_int_128_npow2", src="reduction_template.cu",
     kernel="reduce6<int, 128, false>",
     make=lambda r: dict(x=r.integers(-1000, 1000, 100_003).astype(np.int32),
                         out=np.zeros(8, np.int32), n=np.uint32(100_003)),
     args=(In("x"), Out("out"), Val("n")), block=(128, 1, 1), grid=(8, 1), shared=128 * 4,
     expect=lambda d: {"out": grid_stride_block_sums(d["x"], 8, 256)},
     tags=("reduction", "template"))

case(id="reduce6_float_256_pow2", src="reduction_template.cu",
     kernel="reduce6<float, 256, true>",
     make=lambda r: dict(x=ints_as_floats(r, 1 << 16), out=np.zeros(16, np.float32),
                         n=np.uint32(1 << 16)),
     args=(In("x"), Out("out"), Val("n")), block=(256, 1, 1), grid=(16, 1), shared=256 * 4,
     expect=lambda d: {"out": grid_stride_block_sums(d["x"], 16, 512)},
     tags=("reduction", "template"))


# ---- reduction_shfl.cu ---------------------------------------------------------

case(id="deviceReduceKernel", src="reduction_shfl.cu", kernel="deviceReduceKernel",
     make=lambda r: dict(x=r.integers(-100, 100, 100_000).astype(np.int32),
                         out=np.zeros(24, np.int32), n=np.int32(100_000)),
     args=(In("x"), Out("out"), Val("n")), block=(256, 1, 1), grid=(24, 1),
     expect=lambda d: {"out": grid_stride_block_sums(d["x"], 24, 256)},
     tags=("reduction", "warp_shuffle"))

case(id="deviceReduceWarpAtomicKernel", src="reduction_shfl.cu",
     kernel="deviceReduceWarpAtomicKernel",
     make=lambda r: dict(x=r.integers(-100, 100, 100_000).astype(np.int32),
                         out=np.zeros(1, np.int32), n=np.int32(100_000)),
     args=(In("x"), InOut("out"), Val("n")), block=(256, 1, 1), grid=(24, 1),
     expect=lambda d: {"out": [d["x"].sum()]}, tags=("reduction", "warp_shuffle", "atomics"))

case(id="warpAllReduceXor", src="reduction_shfl.cu", kernel="warpAllReduceXor",
     make=lambda r: dict(x=ints_as_floats(r, 256), out=np.zeros(256, np.float32)),
     args=(In("x"), Out("out")), block=(128, 1, 1), grid=(2, 1),
     expect=lambda d: {"out": np.repeat(d["x"].reshape(8, 32).sum(axis=1), 32)},
     tags=("warp_shuffle",))


# ---- threadfence_reduction.cu ----------------------------------------------------

case(id="reduceSinglePass", src="threadfence_reduction.cu", kernel="reduceSinglePass",
     make=lambda r: dict(x=ints_as_floats(r, 200_000, -4, 5), out=np.zeros(33, np.float32),
                         n=np.uint32(200_000)),
     args=(In("x"), Out("out"), Val("n")), block=(256, 1, 1), grid=(32, 1), shared=256 * 4,
     launches=2,  # the last block resets the retirement counter for the next launch
     expect=lambda d: {"out": np.append(grid_stride_block_sums(d["x"], 32, 256),
                                        d["x"].sum(dtype=np.float64))},
     tags=("reduction", "threadfence", "atomics", "device_global"))


# ---- scan.cu ------------------------------------------------------------------------

case(id="scan_naive", src="scan.cu", kernel="scan_naive",
     make=lambda r: dict(out=np.zeros(1000, np.float32), x=ints_as_floats(r, 1000, 0, 10),
                         n=np.int32(1000)),
     args=(Out("out"), In("x"), Val("n")), block=(256, 1, 1), grid=(4, 1),
     shared=2 * 256 * 4, expect=lambda d: {"out": segmented_cumsum(d["x"], 256, True)},
     tags=("scan", "dynamic_shared"))

case(id="prescan_blelloch", src="scan.cu", kernel="prescan",
     make=lambda r: dict(out=np.zeros(1000, np.int32),
                         x=r.integers(0, 100, 1000).astype(np.int32), n=np.int32(1000)),
     args=(Out("out"), In("x"), Val("n")), block=(128, 1, 1), grid=(4, 1),
     shared=(256 + 256 // 32 + 1) * 4,
     expect=lambda d: {"out": segmented_cumsum(d["x"], 256, True)},
     tags=("scan", "dynamic_shared"))

case(id="shfl_scan", src="scan.cu", kernel="shfl_scan",
     make=lambda r: dict(x=r.integers(0, 100, 1000).astype(np.int32),
                         out=np.zeros(1000, np.int32), sums=np.zeros(4, np.int32),
                         n=np.int32(1000)),
     args=(In("x"), Out("out"), Out("sums"), Val("n")), block=(256, 1, 1), grid=(4, 1),
     expect=lambda d: {"out": segmented_cumsum(d["x"], 256, False),
                       "sums": chunk_sums(d["x"], 256)},
     tags=("scan", "warp_shuffle"))


# ---- compaction.cu ---------------------------------------------------------------------

def _run_compaction(mod, d, drv, ga):
    n = int(d["n"])
    nb = cdiv(n, 256)
    src = ga.to_gpu(d["x"])
    offsets = ga.zeros(n, np.int32)
    counts = ga.zeros(nb, np.int32)
    total = ga.zeros(1, np.int32)
    out = ga.zeros(n, np.int32)
    mod.get_function("compact_scan_flags")(src, offsets, counts, np.int32(n), block=(256, 1, 1),
                                           grid=(nb, 1))
    mod.get_function("compact_scan_blocks")(counts, total, np.int32(nb),
                                            block=(max(32, 1 << (nb - 1).bit_length()), 1, 1),
                                            grid=(1, 1))
    mod.get_function("compact_scatter")(src, offsets, counts, out, np.int32(n),
                                        block=(256, 1, 1), grid=(nb, 1))
    d["out"], d["total"] = out.get(), total.get()


def _check_compaction(d, before):
    keep = before["x"][before["x"] > 0]
    assert int(d["total"][0]) == keep.size
    np.testing.assert_array_equal(d["out"][:keep.size], keep)  # order kept


case(id="stream_compaction_scan", src="compaction.cu", kernel="compact_scan_flags",
     make=lambda r: dict(x=r.integers(-5, 6, 5000).astype(np.int32), n=np.int32(5000)),
     run=_run_compaction, check=_check_compaction,
     tags=("scan", "compaction", "syncthreads_count", "gpuarray"))


def _check_filter(d, before):
    keep = before["x"][before["x"] > 0]
    assert int(d["nres"][0]) == keep.size
    np.testing.assert_array_equal(np.sort(d["dst"][:keep.size]), np.sort(keep))


case(id="filter_warp_aggregated", src="compaction.cu", kernel="filter_k",
     make=lambda r: dict(x=r.integers(-5, 6, 5000).astype(np.int32),
                         dst=np.zeros(5000, np.int32), nres=np.zeros(1, np.int32),
                         n=np.int32(5000)),
     args=(Out("dst"), InOut("nres"), In("x"), Val("n")), block=(128, 1, 1),
     grid=(cdiv(5000, 128), 1), check=_check_filter,
     tags=("compaction", "warp_vote", "atomics", "activemask"))


# ---- histogram.cu ------------------------------------------------------------------

def _histo_data(r):
    x = r.integers(0, 256, 100_000).astype(np.uint8)
    x[:3000] = 42  # a hot bin
    return x


case(id="histo_kernel", src="histogram.cu", kernel="histo_kernel",
     make=lambda r: dict(buf=_histo_data(r), size=np.int64(100_000),
                         histo=np.zeros(256, np.uint32)),
     args=(In("buf"), Val("size"), InOut("histo")), block=(256, 1, 1), grid=(16, 1),
     expect=lambda d: {"histo": np.bincount(d["buf"], minlength=256)},
     tags=("histogram", "atomics"))

case(id="histogram64_warps", src="histogram.cu", kernel="histogram64_warps",
     make=lambda r: dict(buf=_histo_data(r), n=np.int32(100_000),
                         histo=np.zeros(64, np.uint32)),
     args=(In("buf"), Val("n"), InOut("histo")), block=(128, 1, 1), grid=(8, 1),
     expect=lambda d: {"histo": np.bincount(d["buf"] & 63, minlength=64)},
     tags=("histogram", "atomics"))


# ---- matmul.cu, matvec.cu ------------------------------------------------------------

case(id="MatrixMulKernel", src="matmul.cu", kernel="MatrixMulKernel",
     make=lambda r: dict(M=ints_as_floats(r, (50, 50), -4, 5), N=ints_as_floats(r, (50, 50), -4, 5),
                         P=np.zeros((50, 50), np.float32), w=np.int32(50)),
     args=(In("M"), In("N"), Out("P"), Val("w")), block=(16, 16, 1), grid=(4, 4),
     expect=lambda d: {"P": d["M"] @ d["N"]}, tags=("matmul", "2d"))

case(id="MatrixMulTiled", src="matmul.cu", kernel="MatrixMulTiled",
     make=lambda r: dict(M=ints_as_floats(r, (45, 70), -4, 5), N=ints_as_floats(r, (70, 37), -4, 5),
                         P=np.zeros((45, 37), np.float32), m=np.int32(45), n=np.int32(37),
                         k=np.int32(70)),
     args=(In("M"), In("N"), Out("P"), Val("m"), Val("n"), Val("k")), block=(16, 16, 1),
     grid=(cdiv(37, 16), cdiv(45, 16)), expect=lambda d: {"P": d["M"] @ d["N"]},
     tags=("matmul", "shared_tiling", "2d"))

case(id="matrixMulCUDA_16", src="matmul.cu", kernel="matrixMulCUDA<16>",
     make=lambda r: dict(C=np.zeros((64, 32), np.float32), A=ints_as_floats(r, (64, 48), -4, 5),
                         B=ints_as_floats(r, (48, 32), -4, 5), wA=np.int32(48), wB=np.int32(32)),
     args=(Out("C"), In("A"), In("B"), Val("wA"), Val("wB")), block=(16, 16, 1), grid=(2, 4),
     expect=lambda d: {"C": d["A"] @ d["B"]}, tags=("matmul", "shared_tiling", "template"))

case(id="matvec_row_per_thread", src="matvec.cu", kernel="matvec_row_per_thread",
     make=lambda r: dict(A=ints_as_floats(r, (300, 200), -4, 5), x=ints_as_floats(r, 200, -4, 5),
                         y=np.zeros(300, np.float32), rows=np.int32(300), cols=np.int32(200)),
     args=(In("A"), In("x"), Out("y"), Val("rows"), Val("cols")), block=(128, 1, 1),
     grid=(3, 1), expect=lambda d: {"y": d["A"] @ d["x"]}, tags=("matvec",))

case(id="matvec_warp_per_row", src="matvec.cu", kernel="matvec_warp_per_row",
     make=lambda r: dict(A=ints_as_floats(r, (100, 300), -4, 5), x=ints_as_floats(r, 300, -4, 5),
                         y=np.zeros(100, np.float32), rows=np.int32(100), cols=np.int32(300)),
     args=(In("A"), In("x"), Out("y"), Val("rows"), Val("cols")), block=(128, 1, 1),
     grid=(25, 1), expect=lambda d: {"y": d["A"] @ d["x"]},
     tags=("matvec", "warp_shuffle", "ldg", "restrict"))


# ---- transpose.cu ----------------------------------------------------------------------

for _k, _t in (("copy", False), ("transposeNaive", True), ("transposeCoalesced", True),
               ("transposeNoBankConflicts", True)):
    case(id=f"transpose_{_k}", src="transpose.cu", kernel=_k,
         make=lambda r: dict(o=np.zeros((96, 96), np.float32),
                             i=r.standard_normal((96, 96)).astype(np.float32)),
         args=(Out("o"), In("i")), block=(32, 8, 1), grid=(3, 3),
         expect=(lambda d: {"o": d["i"].T}) if _t else (lambda d: {"o": d["i"]}),
         tags=("transpose", "shared_tiling", "2d"))


# ---- stencil.cu --------------------------------------------------------------------------

case(id="stencil_1d", src="stencil.cu", kernel="stencil_1d",
     make=lambda r: dict(x=r.integers(-50, 50, 1000 + 6).astype(np.int32),
                         out=np.zeros(1000, np.int32), n=np.int32(1000)),
     args=(In("x"), Out("out"), Val("n")), block=(64, 1, 1), grid=(cdiv(1000, 64), 1),
     expect=lambda d: {"out": np.convolve(d["x"], np.ones(7, np.int64), "valid")},
     tags=("stencil", "halo", "options"))


def _heat_ref(d):
    u = d["u"].astype(np.float64)
    p = np.pad(u, 1, mode="edge")
    lap = p[:-2, 1:-1] + p[2:, 1:-1] + p[1:-1, :-2] + p[1:-1, 2:] - 4 * u
    return {"o": u + float(d["k"]) * lap}


case(id="heat_step_2d", src="stencil.cu", kernel="heat_step",
     make=lambda r: dict(o=np.zeros((64, 64), np.float32),
                         u=r.random((64, 64)).astype(np.float32), dim=np.int32(64),
                         k=np.float32(0.25)),
     args=(Out("o"), In("u"), Val("dim"), Val("k")), block=(16, 16, 1), grid=(4, 4),
     expect=_heat_ref, rtol=1e-5, atol=1e-5, tags=("stencil", "2d"))


def _laplace_ref(d):
    u = d["u"].astype(np.float64)  # shape (nz, ny, nx)
    o = u.copy()
    c = u[1:-1, 1:-1, 1:-1]
    o[1:-1, 1:-1, 1:-1] = (u[1:-1, 1:-1, :-2] + u[1:-1, 1:-1, 2:] + u[1:-1, :-2, 1:-1] +
                           u[1:-1, 2:, 1:-1] + u[:-2, 1:-1, 1:-1] + u[2:, 1:-1, 1:-1] - 6 * c)
    return {"o": o}


case(id="laplace3d", src="stencil.cu", kernel="laplace3d",
     make=lambda r: dict(u=ints_as_floats(r, (12, 18, 20), 0, 10), o=np.zeros((12, 18, 20), np.float32),
                         nx=np.int32(20), ny=np.int32(18), nz=np.int32(12)),
     args=(In("u"), Out("o"), Val("nx"), Val("ny"), Val("nz")), block=(8, 8, 4), grid=(3, 3, 3),
     expect=_laplace_ref, tags=("stencil", "3d"))


INT3 = np.dtype([("x", np.int32), ("y", np.int32), ("z", np.int32)])

case(id="index3d_int3_by_value", src="stencil.cu", kernel="index3d",
     make=lambda r: dict(o=np.zeros((12, 18, 20), np.float32),
                         dims=np.array((20, 18, 12), INT3)[()]),
     args=(Out("o"), Val("dims")), block=(8, 8, 4), grid=(3, 3, 3),
     expect=lambda d: {"o": (np.arange(20)[None, None, :] + 100 * np.arange(18)[None, :, None] +
                             10000 * np.arange(12)[:, None, None]).astype(np.float32)},
     tags=("3d", "int3", "vector_by_value"))


# ---- convolution_separable.cu, constant_fir.cu: __constant__ memory ---------------------

def _conv_make(r):
    return dict(dst=np.zeros((32, 64), np.float32), src=r.random((32, 64)).astype(np.float32),
                w=np.int32(64), h=np.int32(32), taps=r.random(9).astype(np.float32))


def _conv_ref(d, axis):
    k = d["taps"].astype(np.float64)
    f = lambda v: np.convolve(v, k, "same")  # noqa: E731 (zero outside the image)
    return {"dst": np.apply_along_axis(f, axis, d["src"].astype(np.float64))}


case(id="convolutionRowsKernel", src="convolution_separable.cu", kernel="convolutionRowsKernel",
     make=_conv_make, setup=lambda m, d, drv: set_constant(m, drv, "c_Kernel", d["taps"]),
     args=(Out("dst"), In("src"), Val("w"), Val("h")), block=(32, 4, 1), grid=(2, 8),
     expect=lambda d: _conv_ref(d, 1), rtol=1e-5, atol=1e-5,
     tags=("convolution", "constant", "shared_tiling", "2d"))

case(id="convolutionColumnsKernel", src="convolution_separable.cu",
     kernel="convolutionColumnsKernel",
     make=_conv_make, setup=lambda m, d, drv: set_constant(m, drv, "c_Kernel", d["taps"]),
     args=(Out("dst"), In("src"), Val("w"), Val("h")), block=(16, 16, 1), grid=(4, 2),
     expect=lambda d: _conv_ref(d, 0), rtol=1e-5, atol=1e-5,
     tags=("convolution", "constant", "shared_tiling", "2d"))


def _fir_setup(mod, d, drv):
    set_constant(mod, drv, "d_taps", d["taps"])
    set_constant(mod, drv, "d_ntaps_used", np.array([11], np.int32))


case(id="fir_filter_constant", src="constant_fir.cu", kernel="fir_filter",
     make=lambda r: dict(x=r.standard_normal(1000).astype(np.float32),
                         y=np.zeros(1000, np.float32), n=np.int32(1000),
                         taps=r.standard_normal(16).astype(np.float32)),
     setup=_fir_setup, args=(In("x"), Out("y"), Val("n")), block=(128, 1, 1), grid=(8, 1),
     expect=lambda d: {"y": np.convolve(d["x"].astype(np.float64),
                                        d["taps"][:11].astype(np.float64))[:1000]},
     rtol=1e-5, atol=1e-5, tags=("constant",))

case(id="gaussian_weights_math_constants", src="constant_fir.cu", kernel="gaussian_weights",
     make=lambda r: dict(w=np.zeros(33, np.float32), n=np.int32(33), s=np.float32(4.0)),
     args=(Out("w"), Val("n"), Val("s")), block=(64, 1, 1), grid=(1, 1),
     expect=lambda d: {"w": np.exp(-0.5 * ((np.arange(33) - 16) / 4.0) ** 2) /
                       (4.0 * math.sqrt(2 * math.pi))},
     rtol=1e-5, atol=1e-7, tags=("math_constants", "forceinline", "fast_math"))


# ---- nbody.cu -----------------------------------------------------------------------------

def _nbody_make(r):
    pos = r.standard_normal((256, 4)).astype(np.float32)
    pos[:, 3] = r.random(256).astype(np.float32) + 0.5  # mass
    return dict(pos=pos, acc=np.zeros((256, 3), np.float32), n=np.int32(256))


def _nbody_ref(d):
    p = d["pos"].astype(np.float64)
    r = p[None, :, :3] - p[:, None, :3]  # r[i, j] = xj - xi
    dist2 = (r ** 2).sum(axis=2) + 0.01
    s = p[None, :, 3] * dist2 ** -1.5
    return {"acc": (r * s[:, :, None]).sum(axis=1)}


case(id="nbody_calculate_forces", src="nbody.cu", kernel="calculate_forces",
     make=_nbody_make, args=(In("pos"), Out("acc"), Val("n")), block=(64, 1, 1), grid=(4, 1),
     shared=64 * 16, expect=_nbody_ref, rtol=1e-3, atol=2e-3,
     tags=("nbody", "float4", "float3", "dynamic_shared"))


# ---- bitonic.cu -----------------------------------------------------------------------------

def _bitonic_make(r):
    keys = r.choice(1 << 30, 1024, replace=False).astype(np.uint32)
    return dict(dk=np.zeros(1024, np.uint32), dv=np.zeros(1024, np.uint32), sk=keys,
                sv=np.arange(1024, dtype=np.uint32), length=np.uint32(256), dir=np.uint32(1))


def _bitonic_ref(d):
    order = np.argsort(d["sk"].reshape(4, 256), axis=1, kind="stable")
    return {"dk": np.take_along_axis(d["sk"].reshape(4, 256), order, 1).ravel(),
            "dv": np.take_along_axis(d["sv"].reshape(4, 256), order, 1).ravel()}


case(id="bitonicSortShared", src="bitonic.cu", kernel="bitonicSortShared",
     make=_bitonic_make,
     args=(Out("dk"), Out("dv"), In("sk"), In("sv"), Val("length"), Val("dir")),
     block=(128, 1, 1), grid=(4, 1), shared=2 * 256 * 4, expect=_bitonic_ref,
     tags=("sort", "dynamic_shared"))


def _run_bitonic_steps(mod, d, drv, ga):
    f = mod.get_function("bitonic_sort_step")
    v = ga.to_gpu(d["v"])
    n = d["v"].size
    k = 2
    while k <= n:
        j = k // 2
        while j > 0:
            f(v, np.int32(j), np.int32(k), block=(256, 1, 1), grid=(n // 256, 1))
            j //= 2
        k *= 2
    d["v"] = v.get()


case(id="bitonic_sort_step", src="bitonic.cu", kernel="bitonic_sort_step",
     make=lambda r: dict(v=r.standard_normal(1024).astype(np.float32)),
     run=_run_bitonic_steps, expect=lambda d: {"v": np.sort(d["v"])},
     tags=("sort", "gpuarray", "many_launches"))


# ---- mandelbrot.cu --------------------------------------------------------------------------

def _mandel_ref(d):
    w, h, it_max = int(d["w"]), int(d["h"]), int(d["it"])
    f = np.float32
    cr = (f(d["x0"]) + np.arange(w, dtype=f) * f(d["s"]))[None, :].repeat(h, 0)
    ci = (f(d["y0"]) + np.arange(h, dtype=f) * f(d["s"]))[:, None].repeat(w, 1)
    zr = np.zeros((h, w), f)
    zi = np.zeros((h, w), f)
    its = np.zeros((h, w), np.int32)
    for _ in range(it_max):
        live = zr * zr + zi * zi <= f(4)
        t = zr * zr - zi * zi + cr
        zi = np.where(live, f(2) * zr * zi + ci, zi)
        zr = np.where(live, t, zr)
        its += live
    return its


def _check_mostly_equal(key, ref, frac):
    def check(d, before):
        got, want = d[key], ref(before)
        bad = np.count_nonzero(got != want)
        assert bad <= frac * got.size, f"{bad} of {got.size} pixels differ"
        assert np.any(want != want.flat[0])  # a picture, not a constant
    return check


case(id="mandelbrot", src="mandelbrot.cu", kernel="mandelbrot",
     make=lambda r: dict(out=np.zeros((64, 96), np.int32), w=np.int32(96), h=np.int32(64),
                         x0=np.float32(-2.0), y0=np.float32(-1.0), s=np.float32(3.0 / 96),
                         it=np.int32(64)),
     args=(Out("out"), Val("w"), Val("h"), Val("x0"), Val("y0"), Val("s"), Val("it")),
     block=(16, 16, 1), grid=(6, 4),
     check=_check_mostly_equal("out", _mandel_ref, 0.01), tags=("fractal", "2d"))


def _julia_ref(d):
    dim = int(d["dim"])
    f = np.float32
    x = np.arange(dim)
    jx = (f(1.5) * (dim // 2 - x).astype(f) / f(dim // 2))[None, :].repeat(dim, 0)
    jy = (f(1.5) * (dim // 2 - x).astype(f) / f(dim // 2))[:, None].repeat(dim, 1)
    ar, ai = jx.copy(), jy.copy()
    alive = np.ones((dim, dim), bool)
    with np.errstate(over="ignore", invalid="ignore"):
        for _ in range(200):
            ar, ai = ar * ar - ai * ai + f(-0.8), ai * ar + ar * ai + f(0.156)
            alive &= ~(ar * ar + ai * ai > 1000)
    return np.where(alive, 255, 0).astype(np.uint8)


case(id="julia_kernel", src="mandelbrot.cu", kernel="julia_kernel",
     make=lambda r: dict(bmp=np.zeros((64, 64), np.uint8), dim=np.int32(64)),
     args=(Out("bmp"), Val("dim")), block=(1, 1, 1), grid=(64, 64),
     check=_check_mostly_equal("bmp", _julia_ref, 0.01), tags=("fractal", "struct_methods"))


# ---- black_scholes.cu -------------------------------------------------------------------------

def _bs_make(r):
    n = 4000
    return dict(call=np.zeros(n, np.float32), put=np.zeros(n, np.float32),
                s=r.uniform(5, 30, n).astype(np.float32), x=r.uniform(1, 100, n).astype(np.float32),
                t=r.uniform(0.25, 10, n).astype(np.float32), rf=np.float32(0.02),
                v=np.float32(0.30), n=np.int32(n))


def _bs_ref(d):
    S, X, T = (d[k].astype(np.float64) for k in ("s", "x", "t"))
    R, V = float(d["rf"]), float(d["v"])

    def cnd(z):
        k = 1.0 / (1.0 + 0.2316419 * np.abs(z))
        c = 0.3989422804014327 * np.exp(-0.5 * z * z) * (
            k * (0.31938153 + k * (-0.356563782 + k * (1.781477937 + k * (-1.821255978 +
                                                                          k * 1.330274429)))))
        return np.where(z > 0, 1.0 - c, c)

    d1 = (np.log(S / X) + (R + 0.5 * V * V) * T) / (V * np.sqrt(T))
    d2 = d1 - V * np.sqrt(T)
    e = np.exp(-R * T)
    return {"call": S * cnd(d1) - X * e * cnd(d2),
            "put": X * e * (1.0 - cnd(d2)) - S * (1.0 - cnd(d1))}


case(id="BlackScholesGPU", src="black_scholes.cu", kernel="BlackScholesGPU", make=_bs_make,
     args=(Out("call"), Out("put"), In("s"), In("x"), In("t"), Val("rf"), Val("v"), Val("n")),
     block=(128, 1, 1), grid=(16, 1), expect=_bs_ref, rtol=1e-3, atol=2e-3,
     tags=("finance", "intrinsics"))


# ---- monte_carlo_pi.cu --------------------------------------------------------------------------

def _pi_ref(kind, nthreads, trials, seed):
    tid = np.arange(nthreads, dtype=np.uint64)
    m32 = np.uint64(0xffffffff)
    if kind == "lcg":
        s = (np.uint64(seed) ^ ((tid * np.uint64(2654435761)) & m32)) & m32
    else:
        s = (np.uint64(seed) + tid * np.uint64(747796405) + np.uint64(1)) & m32
    hits = np.zeros(nthreads, np.uint64)

    def step(s):
        if kind == "lcg":
            s = (np.uint64(1664525) * s + np.uint64(1013904223)) & m32
        else:
            s = s ^ ((s << np.uint64(13)) & m32)
            s = s ^ (s >> np.uint64(17))
            s = s ^ ((s << np.uint64(5)) & m32)
        return s

    for _ in range(trials):
        s = step(s)
        x = s >> np.uint64(20)
        s = step(s)
        y = s >> np.uint64(20)
        hits += (x * x + y * y < np.uint64(4096 * 4096))
    return int(hits.sum())


def _pi_check(kind):
    def check(d, before):
        count = int(d["total"][0])
        assert count == _pi_ref(kind, 8 * 256, int(before["trials"]), int(before["seed"]))
        assert abs(4.0 * count / (8 * 256 * int(before["trials"])) - math.pi) < 0.02
    return check


for _kind in ("lcg", "xorshift"):
    case(id=f"pi_{_kind}", src="monte_carlo_pi.cu", kernel=f"pi_{_kind}",
         make=lambda r: dict(total=np.zeros(1, np.uint64), trials=np.int32(64),
                             seed=np.uint32(12345)),
         args=(InOut("total"), Val("trials"), Val("seed")), block=(256, 1, 1), grid=(8, 1),
         check=_pi_check(_kind), tags=("monte_carlo", "atomics", "rng"))


# ---- vector_types.cu ------------------------------------------------------------------------------

case(id="device_copy_vector4_kernel", src="vector_types.cu", kernel="device_copy_vector4_kernel",
     make=lambda r: dict(o=np.zeros(1003, np.int32), i=r.integers(-10**9, 10**9, 1003).astype(np.int32),
                         n=np.int32(1003)),
     args=(Out("o"), In("i"), Val("n")), block=(128, 1, 1), grid=(2, 1),
     expect=lambda d: {"o": d["i"]}, tags=("int4", "vector_types"))


def _integrate_ref(d):
    p = d["pos"].copy()
    p[:, :3] = p[:, :3] + d["vel"][:, :3] * d["dt"]
    return {"pos": p}


case(id="integrate_float4", src="vector_types.cu", kernel="integrate_float4",
     make=lambda r: dict(pos=r.standard_normal((500, 4)).astype(np.float32),
                         vel=r.standard_normal((500, 4)).astype(np.float32),
                         dt=np.float32(0.01), n=np.int32(500)),
     args=(InOut("pos"), In("vel"), Val("dt"), Val("n")), block=(128, 1, 1), grid=(4, 1),
     expect=_integrate_ref, rtol=1e-6, atol=1e-6, tags=("float4", "vector_types"))


def _cmul_ref(d):
    a = d["a"][:, 0].astype(np.complex128) + 1j * d["a"][:, 1]
    b = d["b"][:, 0].astype(np.complex128) + 1j * d["b"][:, 1]
    c = a * b * float(d["s"])
    return {"c": np.stack([c.real, c.imag], axis=1)}


case(id="complex_pointwise_mul_float2", src="vector_types.cu", kernel="complex_pointwise_mul",
     make=lambda r: dict(a=r.standard_normal((777, 2)).astype(np.float32),
                         b=r.standard_normal((777, 2)).astype(np.float32),
                         c=np.zeros((777, 2), np.float32), s=np.float32(0.5), n=np.int32(777)),
     args=(In("a"), In("b"), Out("c"), Val("s"), Val("n")), block=(64, 1, 1), grid=(4, 1),
     expect=_cmul_ref, rtol=1e-5, atol=1e-5, tags=("float2", "vector_types"))


def _grey_ref(d):
    p = d["rgba"].astype(np.float32)
    g = np.float32(.299) * p[..., 0] + np.float32(.587) * p[..., 1] + np.float32(.114) * p[..., 2]
    return {"grey": g.astype(np.uint8)}


case(id="rgba_to_greyscale_uchar4", src="vector_types.cu", kernel="rgba_to_greyscale",
     make=lambda r: dict(rgba=r.integers(0, 256, (40, 50, 4)).astype(np.uint8),
                         grey=np.zeros((40, 50), np.uint8), rows=np.int32(40), cols=np.int32(50)),
     args=(In("rgba"), Out("grey"), Val("rows"), Val("cols")), block=(16, 16, 1), grid=(4, 3),
     expect=_grey_ref, atol=1, tags=("uchar4", "vector_types", "2d"))


def _cx(r, n):
    return (r.standard_normal(n) + 1j * r.standard_normal(n)).astype(np.complex64)


case(id="cuComplex_pointwise_mul_scale", src="cucomplex.cu", kernel="ComplexPointwiseMulAndScale",
     make=lambda r: dict(a=_cx(r, 1000), b=_cx(r, 1000), n=np.int32(1000), s=np.float32(0.25)),
     args=(InOut("a"), In("b"), Val("n"), Val("s")), block=(128, 1, 1), grid=(4, 1),
     expect=lambda d: {"a": d["a"].astype(np.complex128) * np.conj(d["b"]) * 0.25},
     rtol=1e-5, atol=1e-5, tags=("cuComplex",))

case(id="cuComplex_magnitude", src="cucomplex.cu", kernel="spectrum_magnitude",
     make=lambda r: dict(x=_cx(r, 500), off=np.array([0.5 - 0.25j], np.complex64),
                         m=np.zeros(500, np.float32), n=np.int32(500)),
     args=(In("x"), In("off"), Out("m"), Val("n")), block=(128, 1, 1), grid=(4, 1),
     expect=lambda d: {"m": np.abs(d["x"].astype(np.complex128) + d["off"][0])},
     rtol=1e-5, atol=1e-6, tags=("cuComplex",))


# ---- half_precision.cu, bfloat16.cu ----------------------------------------------------------------

case(id="haxpy_half2", src="half_precision.cu", kernel="haxpy",
     make=lambda r: dict(n=np.int32(1001), a=np.float16(0.5),
                         x=(r.standard_normal(1001) * 4).astype(np.float16),
                         y=(r.standard_normal(1001) * 4).astype(np.float16)),
     args=(Val("n"), Val("a"), In("x"), InOut("y")), block=(128, 1, 1), grid=(4, 1),
     expect=lambda d: {"y": (float(d["a"]) * d["x"].astype(np.float64) + d["y"]).astype(np.float16)},
     rtol=1e-3, atol=1e-3, tags=("fp16", "half2"))

case(id="hdot_half2", src="half_precision.cu", kernel="hdot",
     make=lambda r: dict(n2=np.int32(2048), x=r.standard_normal(4096).astype(np.float16),
                         y=r.standard_normal(4096).astype(np.float16),
                         out=np.zeros(1, np.float32)),
     args=(Val("n2"), In("x"), In("y"), InOut("out")), block=(256, 1, 1), grid=(4, 1),
     expect=lambda d: {"out": [np.dot(d["x"].astype(np.float64), d["y"].astype(np.float64))]},
     rtol=1e-4, atol=2e-3, tags=("fp16", "half2", "warp_shuffle", "atomics"))

case(id="half_clamp", src="half_precision.cu", kernel="half_clamp",
     make=lambda r: dict(i=(r.standard_normal(300) * 3).astype(np.float32),
                         o=np.zeros(300, np.float16), lo=np.float32(-1.5), hi=np.float32(2.0),
                         n=np.int32(300)),
     args=(In("i"), Out("o"), Val("lo"), Val("hi"), Val("n")), block=(128, 1, 1), grid=(3, 1),
     expect=lambda d: {"o": np.clip(d["i"].astype(np.float16), np.float16(-1.5), np.float16(2.0))},
     tags=("fp16",))


def _to_bf16(x):
    u = np.asarray(x, np.float32).view(np.uint32).astype(np.uint64)
    return ((u + 0x7fff + ((u >> 16) & 1)) >> 16).astype(np.uint16)


def _from_bf16(b):
    return (np.asarray(b, np.uint16).astype(np.uint32) << 16).view(np.float32)


case(id="bf16_axpy", src="bfloat16.cu", kernel="bf16_axpy",
     make=lambda r: dict(a=np.float32(1.75), x=_to_bf16(r.standard_normal(1000)),
                         y=_to_bf16(r.standard_normal(1000)), n=np.int32(1000)),
     args=(Val("a"), In("x"), InOut("y"), Val("n")), block=(256, 1, 1), grid=(4, 1),
     check=lambda d, b: np.testing.assert_allclose(
         _from_bf16(d["y"]),
         _from_bf16(_to_bf16(np.float32(b["a"]) * _from_bf16(b["x"]) + _from_bf16(b["y"]))),
         rtol=2 ** -7, atol=1e-6),
     tags=("bf16",))


# ---- warp_vote.cu -------------------------------------------------------------------------------------

def _vote_input(r):
    v = np.zeros(256, np.uint32)
    v[32:64] = 1                     # warp 1: all
    v[70] = 5                        # warp 2: one lane
    v[96:128] = r.integers(0, 2, 32)  # warp 3: mixed
    v[96] = 0
    v[100] = 1
    return v


def _per_warp(v, fn):
    return np.repeat([fn(w) for w in v.reshape(-1, 32)], 32).astype(np.uint32)


case(id="VoteAnyKernel1", src="warp_vote.cu", kernel="VoteAnyKernel1",
     make=lambda r: dict(i=_vote_input(r), o=np.zeros(256, np.uint32), n=np.int32(256)),
     args=(In("i"), Out("o"), Val("n")), block=(64, 1, 1), grid=(4, 1),
     expect=lambda d: {"o": _per_warp(d["i"], lambda w: int(np.any(w)))}, tags=("warp_vote",))

case(id="VoteAllKernel2", src="warp_vote.cu", kernel="VoteAllKernel2",
     make=lambda r: dict(i=_vote_input(r), o=np.zeros(256, np.uint32), n=np.int32(256)),
     args=(In("i"), Out("o"), Val("n")), block=(64, 1, 1), grid=(4, 1),
     expect=lambda d: {"o": _per_warp(d["i"], lambda w: int(np.all(w)))}, tags=("warp_vote",))


def _ballot_ref(d):
    out = []
    for w in d["v"].reshape(-1, 32):
        b = sum(1 << k for k in range(32) if w[k] > 0)
        ob = sum(1 << k for k in range(1, 32, 2) if w[k] & 1)
        out += [b, bin(b).count("1"), (b & -b).bit_length(), ob]
    return {"o": np.array(out, np.uint32)}


def _ballot_make(r):
    v = r.integers(-3, 4, 128).astype(np.int32)
    v[64:96] = -np.abs(v[64:96])  # warp 2: no positive lane, __ffs(0) == 0
    return dict(v=v, o=np.zeros(16, np.uint32))


case(id="ballot_popc_ffs", src="warp_vote.cu", kernel="ballot_popc_ffs", make=_ballot_make,
     args=(In("v"), Out("o")), block=(64, 1, 1), grid=(2, 1), expect=_ballot_ref,
     tags=("warp_vote", "popc", "ffs"))

case(id="activemask_branch", src="warp_vote.cu", kernel="active_lanes",
     make=lambda r: dict(o=np.zeros(64, np.uint32), k=np.int32(20)),
     args=(Out("o"), Val("k")), block=(64, 1, 1), grid=(1, 1),
     expect=lambda d: {"o": np.tile(np.where(np.arange(32) < 20, 20, 0xffffffff), 2)},
     tags=("warp_vote", "activemask"))

case(id="shfl_broadcast", src="warp_vote.cu", kernel="shfl_broadcast",
     make=lambda r: dict(i=r.standard_normal(128).astype(np.float32), b=np.zeros(128, np.float32),
                         rot=np.zeros(128, np.float32), src=np.int32(5)),
     args=(In("i"), Out("b"), Out("rot"), Val("src")), block=(64, 1, 1), grid=(2, 1),
     expect=lambda d: {"b": np.repeat(d["i"].reshape(4, 32)[:, 5], 32),
                       "rot": np.roll(d["i"].reshape(4, 32), -1, axis=1).ravel()},
     tags=("warp_shuffle",))


def _match_ref(d):
    k = d["k"].reshape(-1, 32)
    v = d["v"].reshape(-1, 32)
    same = (k[:, :, None] == k[:, None, :]).sum(axis=2)
    return {"same": same.ravel(), "s": np.repeat(v.sum(axis=1), 32),
            "m": np.repeat(v.max(axis=1), 32)}


case(id="match_any_reduce_add_max", src="warp_vote.cu", kernel="match_and_reduce",
     make=lambda r: dict(k=r.integers(0, 3, 64).astype(np.int32),
                         v=r.integers(0, 1000, 64).astype(np.int32), same=np.zeros(64, np.int32),
                         s=np.zeros(64, np.int32), m=np.zeros(64, np.uint32)),
     args=(In("k"), In("v"), Out("same"), Out("s"), Out("m")), block=(64, 1, 1), grid=(1, 1),
     expect=_match_ref, tags=("warp_match", "warp_reduce"))


# ---- cooperative groups ---------------------------------------------------------------------------------

case(id="cg_tile32_sum", src="cg_tiles.cu", kernel="tile32_sum",
     make=lambda r: dict(i=r.integers(-100, 100, 256).astype(np.int32), o=np.zeros(256, np.int32)),
     args=(In("i"), Out("o")), block=(128, 1, 1), grid=(2, 1),
     expect=lambda d: {"o": np.repeat(d["i"].reshape(8, 32).sum(axis=1), 32)},
     tags=("cooperative_groups", "thread_block_tile", "template"))


def _tile4_ref(d):
    out = []
    for t in (d["i"] > 0).reshape(-1, 4):
        out += [int(t.any()), int(t.all()), sum(1 << k for k in range(4) if t[k])]
    return {"v": np.array(out, np.uint32)}


def _tile4_make(r):
    i = r.integers(-1, 2, 128).astype(np.int32)
    i[0:4] = 1   # a tile where all hold
    i[4:8] = 0   # a tile where none holds
    return dict(i=i, v=np.zeros(96, np.uint32))


case(id="cg_tile4_votes", src="cg_tiles.cu", kernel="tile4_votes", make=_tile4_make,
     args=(In("i"), Out("v")), block=(64, 1, 1), grid=(2, 1), expect=_tile4_ref,
     tags=("cooperative_groups", "thread_block_tile"))

case(id="cg_thread_group_block_sum", src="cg_thread_group.cu", kernel="sum_kernel_block",
     make=lambda r: dict(s=np.zeros(1, np.int32), i=r.integers(-50, 50, 4096).astype(np.int32),
                         n=np.int32(4096)),
     args=(InOut("s"), In("i"), Val("n")), block=(128, 1, 1), grid=(4, 1), shared=128 * 4,
     expect=lambda d: {"s": [d["i"].sum()]},
     tags=("cooperative_groups", "thread_group", "int4"))

case(id="cg_thread_group_dynamic_tiles", src="cg_thread_group.cu", kernel="sum_kernel_tiles",
     make=lambda r: dict(o=np.zeros(8, np.int32), i=r.integers(-50, 50, 256).astype(np.int32)),
     args=(Out("o"), In("i")), block=(128, 1, 1), grid=(2, 1), shared=128 * 4,
     expect=lambda d: {"o": d["i"].reshape(8, 32).sum(axis=1)},
     tags=("cooperative_groups", "thread_group", "tiled_partition_dynamic"))

case(id="cg_coalesced_threads_filter", src="cg_coalesced.cu", kernel="filter_coalesced",
     make=lambda r: dict(x=r.integers(-5, 6, 3000).astype(np.int32),
                         dst=np.zeros(3000, np.int32), nres=np.zeros(1, np.int32),
                         n=np.int32(3000)),
     args=(Out("dst"), InOut("nres"), In("x"), Val("n")), block=(128, 1, 1),
     grid=(cdiv(3000, 128), 1), check=_check_filter,
     tags=("cooperative_groups", "coalesced_group", "atomics"))


def _label_ref(d):
    cnt, rank = [], []
    for w in d["k"].reshape(-1, 32):
        for lane in range(32):
            same = w == w[lane]
            cnt.append(int(same.sum()))
            rank.append(int(same[:lane].sum()))
    return {"c": np.array(cnt, np.int32), "r": np.array(rank, np.int32)}


case(id="cg_labeled_partition", src="cg_partition.cu", kernel="label_groups",
     make=lambda r: dict(k=r.integers(0, 4, 64).astype(np.int32), c=np.zeros(64, np.int32),
                         r=np.zeros(64, np.int32)),
     args=(In("k"), Out("c"), Out("r")), block=(64, 1, 1), grid=(1, 1), expect=_label_ref,
     tags=("cooperative_groups", "labeled_partition"))


def _split_ref(d):
    cnt, tot = [], []
    for w in d["v"].reshape(-1, 32):
        for lane in range(32):
            side = (w >= 0) == (w[lane] >= 0)
            cnt.append(int(side.sum()))
            tot.append(int(w[side].sum()))
    return {"c": np.array(cnt, np.int32), "s": np.array(tot, np.int32)}


case(id="cg_binary_partition", src="cg_partition.cu", kernel="split_sign",
     make=lambda r: dict(v=r.integers(-9, 10, 64).astype(np.int32), c=np.zeros(64, np.int32),
                         s=np.zeros(64, np.int32)),
     args=(In("v"), Out("c"), Out("s")), block=(64, 1, 1), grid=(1, 1), expect=_split_ref,
     tags=("cooperative_groups", "binary_partition"))

case(id="cg_reduce_plus_block_sum", src="cg_reduce.cu", kernel="cg_block_sum",
     make=lambda r: dict(i=r.integers(-100, 100, 1000).astype(np.int32), o=np.zeros(4, np.int32),
                         n=np.int32(1000)),
     args=(In("i"), Out("o"), Val("n")), block=(256, 1, 1), grid=(4, 1),
     expect=lambda d: {"o": chunk_sums(d["i"], 256)},
     tags=("cooperative_groups", "cg_reduce"))

case(id="cg_reduce_greater_warp_max", src="cg_reduce.cu", kernel="cg_warp_max",
     make=lambda r: dict(i=r.standard_normal(256).astype(np.float32), o=np.zeros(8, np.float32)),
     args=(In("i"), Out("o")), block=(128, 1, 1), grid=(2, 1),
     expect=lambda d: {"o": d["i"].reshape(8, 32).max(axis=1)},
     tags=("cooperative_groups", "cg_reduce"))

case(id="cg_this_grid_ordinary_launch", src="cg_grid.cu", kernel="grid_scale",
     make=lambda r: dict(x=r.standard_normal(5000).astype(np.float32), s=np.float32(3.0),
                         n=np.int32(5000)),
     args=(InOut("x"), Val("s"), Val("n")), block=(128, 1, 1), grid=(8, 1),
     expect=lambda d: {"x": d["x"] * np.float32(3.0)},
     tags=("cooperative_groups", "grid_group"))

case(id="cg_grid_sync_cooperative_launch", src="cg_grid_sync.cu", kernel="reduce_grid_sync",
     make=lambda r: dict(x=ints_as_floats(r, 10_000), p=np.zeros(8, np.float32),
                         t=np.zeros(1, np.float32), n=np.int32(10_000)),
     args=(In("x"), Out("p"), Out("t"), Val("n")), block=(128, 1, 1), grid=(8, 1),
     shared=128 * 4, launch_kw={"cooperative": True},
     expect=lambda d: {"p": grid_stride_block_sums(d["x"], 8, 128),
                       "t": [d["x"].sum(dtype=np.float64)]},
     tags=("cooperative_groups", "grid_group", "cooperative"))


# ---- atomics.cu, sync_count.cu ------------------------------------------------------------------------

case(id="atomicAdd_double_cas", src="atomics.cu", kernel="sum_double_cas",
     make=lambda r: dict(x=r.integers(-800, 800, 3000) / 8.0, s=np.zeros(2, np.float64),
                         n=np.int32(3000)),
     args=(In("x"), InOut("s"), Val("n")), block=(128, 1, 1), grid=(cdiv(3000, 128), 1),
     expect=lambda d: {"s": [d["x"].sum(), d["x"].sum()]}, tags=("atomics", "atomicCAS"))


def _int_atomics_make(r):
    return dict(v=r.integers(-1000, 1001, 1000).astype(np.int32), n=np.int32(1000),
                st=np.array([2**31 - 1, -2**31, 0, 2**31 - 1, 0], np.int32),
                head=np.zeros(1, np.uint32), ring=np.zeros(8, np.int32), rs=np.uint32(8))


def _int_atomics_check(d, b):
    v = b["v"]
    st = d["st"]
    assert st[0] == v.min() and st[1] == v.max() and st[2] == np.abs(v).max()
    assert st[3] in set(v.tolist()) and st[4] == v.size - 1
    assert d["head"][0] == v.size % 8
    np.testing.assert_array_equal(d["ring"], np.full(8, v.size // 8))


case(id="int_atomics_inc_exch_min_max", src="atomics.cu", kernel="int_atomics",
     make=_int_atomics_make,
     args=(In("v"), Val("n"), InOut("st"), InOut("head"), InOut("ring"), Val("rs")),
     block=(128, 1, 1), grid=(8, 1), check=_int_atomics_check,
     tags=("atomics", "atomicInc", "atomicExch", "atomicMin", "atomicMax", "atomicCAS"))


def _run_device_counter(mod, d, drv, ga):
    ptr, size = mod.get_global("d_matches")
    assert size == 4
    drv.memcpy_htod(ptr, np.array([1000], np.uint32))  # cudaMemcpyToSymbol
    mod.get_function("count_matches")(drv.In(d["v"]), np.int32(d["v"].size), np.int32(3),
                                      block=(256, 1, 1), grid=(cdiv(d["v"].size, 256), 1))
    got = np.zeros(1, np.uint32)
    drv.memcpy_dtoh(got, ptr)  # cudaMemcpyFromSymbol
    d["count"] = got


case(id="device_global_symbol_copies", src="atomics.cu", kernel="count_matches",
     make=lambda r: dict(v=r.integers(0, 10, 3000).astype(np.int32)),
     run=_run_device_counter, expect=lambda d: {"count": [1000 + np.count_nonzero(d["v"] == 3)]},
     tags=("device_global", "atomics", "get_global"))


def _pred_make(r):
    x = r.random(1000).astype(np.float32)
    x[256:512] = 0.9   # block 1: all above
    x[512:768] = 0.1   # block 2: none above
    return dict(x=x, t=np.float32(0.5), o=np.zeros(12, np.int32), n=np.int32(1000))


def _pred_ref(d):
    out = []
    for b in range(4):
        p = d["x"][256 * b:256 * (b + 1)] > 0.5
        full = np.zeros(256, bool)
        full[:p.size] = p
        out += [int(full.sum()), int(full.all()), int(full.any())]
    return {"o": np.array(out, np.int32)}


case(id="syncthreads_count_and_or", src="sync_count.cu", kernel="block_predicates",
     make=_pred_make, args=(In("x"), Val("t"), Out("o"), Val("n")), block=(256, 1, 1),
     grid=(4, 1), expect=_pred_ref, tags=("syncthreads_count",))


# ---- recursion.cu, printf.cu, malloc.cu ------------------------------------------------------------------

def _fib(k):
    a, b = 0, 1
    for _ in range(k):
        a, b = b, a + b
    return a


case(id="recursive_factorial_fib", src="recursion.cu", kernel="recursive_math",
     make=lambda r: dict(n=np.arange(21, dtype=np.int32), f=np.zeros(21, np.uint64),
                         fib=np.zeros(21, np.int32), c=np.int32(21)),
     args=(In("n"), Out("f"), Out("fib"), Val("c")), block=(32, 1, 1), grid=(1, 1),
     expect=lambda d: {"f": np.array([math.factorial(k) for k in range(21)], np.uint64),
                       "fib": [_fib(k) for k in range(21)]},
     tags=("recursion",))

case(id="recursive_quicksort_segments", src="recursion.cu", kernel="segment_quicksort",
     make=lambda r: dict(x=r.integers(-1000, 1000, 64 * 100).astype(np.int32), seg=np.int32(64),
                         nseg=np.int32(100)),
     args=(InOut("x"), Val("seg"), Val("nseg")), block=(32, 1, 1), grid=(4, 1),
     expect=lambda d: {"x": np.sort(d["x"].reshape(100, 64), axis=1).ravel()},
     tags=("recursion", "sort"))

case(id="simplePrintf", src="printf.cu", kernel="testKernel",
     make=lambda r: dict(v=np.int32(10)), args=(Val("v"),), block=(2, 2, 1), grid=(2, 2),
     stdout=lambda d: [f"[{b}, {t}]:\t\tValue is:10" for b in range(4) for t in range(4)],
     tags=("printf",))

case(id="printf_formats", src="printf.cu", kernel="print_mixed",
     make=lambda r: dict(f=np.float32(1.5), d=np.float64(2.5e-3), ll=np.int64(-1234567890123)),
     args=(Val("f"), Val("d"), Val("ll")), block=(32, 1, 1), grid=(2, 1),
     stdout=lambda d: ["f=1.500 d=2.500000e-03 ll=-1234567890123 u=4000000000 x=ff c=Z s=device"],
     tags=("printf",))

case(id="malloc_per_thread", src="malloc.cu", kernel="mallocPerThread",
     make=lambda r: dict(o=np.zeros(128, np.int32), c=np.int32(10)),
     args=(Out("o"), Val("c")), block=(64, 1, 1), grid=(2, 1),
     expect=lambda d: {"o": 10 * np.arange(128) + 45}, tags=("malloc",))

case(id="malloc_per_block", src="malloc.cu", kernel="mallocPerBlock",
     make=lambda r: dict(o=np.zeros(192, np.int32)),
     args=(Out("o"),), block=(64, 1, 1), grid=(3, 1),
     expect=lambda d: {"o": np.tile(16 * ((np.arange(64) + 1) % 64) + 120, 3)},
     tags=("malloc", "shared_pointer"))


# ---- struct_param.cu, dynamic_shared.cu, launch_bounds.cu -------------------------------------------------

SIM_PARAMS = np.dtype([("gain", np.float32), ("steps", np.int32), ("offset", np.float64)],
                      align=True)

case(id="struct_by_value", src="struct_param.cu", kernel="apply_params",
     make=lambda r: dict(x=r.standard_normal(500), y=np.zeros(500, np.float64),
                         p=np.array((1.5, 3, 0.25), SIM_PARAMS)[()], n=np.int32(500),
                         bias=np.float32(0.5)),
     args=(In("x"), Out("y"), Val("p"), Val("n"), Val("bias")), block=(128, 1, 1), grid=(4, 1),
     expect=lambda d: {"y": d["x"] * 1.5 * 1.5 * 1.5 + 0.25 + 0.5}, rtol=1e-15,
     tags=("struct_param",))

case(id="staticReverse", src="dynamic_shared.cu", kernel="staticReverse",
     make=lambda r: dict(d=r.integers(0, 1000, 64).astype(np.int32), n=np.int32(64)),
     args=(InOut("d"), Val("n")), block=(64, 1, 1), grid=(1, 1),
     expect=lambda d: {"d": d["d"][::-1]}, tags=("shared",))

case(id="dynamicReverse", src="dynamic_shared.cu", kernel="dynamicReverse",
     make=lambda r: dict(d=r.integers(0, 1000, 64).astype(np.int32), n=np.int32(64)),
     args=(InOut("d"), Val("n")), block=(64, 1, 1), grid=(1, 1), shared=64 * 4,
     expect=lambda d: {"d": d["d"][::-1]}, tags=("dynamic_shared",))


def _three_ref(d):
    t = np.arange(16)
    return {"o": d["dd"][(t + 1) % 5] + d["ff"][(t + 2) % 7].astype(np.float64) +
            d["cc"][(t + 3) % 9]}


case(id="dynamic_shared_three_arrays", src="dynamic_shared.cu", kernel="threeArrays",
     make=lambda r: dict(dd=r.standard_normal(5), ff=r.standard_normal(7).astype(np.float32),
                         cc=r.integers(-100, 100, 9).astype(np.int8), o=np.zeros(16),
                         nd=np.int32(5), nf=np.int32(7), ni=np.int32(9)),
     args=(In("dd"), In("ff"), In("cc"), Out("o"), Val("nd"), Val("nf"), Val("ni")),
     block=(16, 1, 1), grid=(1, 1), shared=5 * 8 + 7 * 4 + 9, expect=_three_ref,
     tags=("dynamic_shared",))


def _blend_ref(d):
    t = d["t"].astype(np.float64)
    s = t * t * (3 - 2 * t)
    return {"o": d["a"] + s * (d["b"].astype(np.float64) - d["a"])}


case(id="launch_bounds_blend", src="launch_bounds.cu", kernel="blend",
     make=lambda r: dict(a=r.random(1000).astype(np.float32), b=r.random(1000).astype(np.float32),
                         t=r.random(1000).astype(np.float32), o=np.zeros(1000, np.float32),
                         n=np.int32(1000)),
     args=(In("a"), In("b"), In("t"), Out("o"), Val("n")), block=(256, 1, 1), grid=(4, 1),
     expect=_blend_ref, rtol=1e-5, atol=1e-6,
     tags=("launch_bounds", "ldg", "restrict", "forceinline", "noinline"))

case(id="launch_bounds_scale_rows", src="launch_bounds.cu", kernel="scale_rows",
     make=lambda r: dict(m=r.standard_normal((20, 300)).astype(np.float32),
                         s=r.standard_normal(20).astype(np.float32), rows=np.int32(20),
                         cols=np.int32(300)),
     args=(InOut("m"), In("s"), Val("rows"), Val("cols")), block=(128, 1, 1), grid=(1, 20),
     expect=lambda d: {"m": d["m"] * d["s"][:, None]}, tags=("launch_bounds", "ldg", "2d"))


# ---- kernels named like C library functions ---------------------------------------------------------------

case(id="kernel_named_div", src="name_div.cu", kernel="div",
     make=lambda r: dict(o=np.zeros(1000, np.float32), a=r.standard_normal(1000).astype(np.float32),
                         b=(r.random(1000) + 0.5).astype(np.float32), n=np.int32(1000)),
     args=(Out("o"), In("a"), In("b"), Val("n")), block=(256, 1, 1), grid=(4, 1),
     expect=lambda d: {"o": d["a"] / d["b"]}, tags=("c_library_name",))

case(id="kernel_named_index", src="name_index.cu", kernel="index",
     make=lambda r: dict(o=np.zeros(1000, np.int32), n=np.int32(1000), s=np.int32(-7)),
     args=(Out("o"), Val("n"), Val("s")), block=(256, 1, 1), grid=(4, 1),
     expect=lambda d: {"o": np.arange(1000) - 7}, tags=("c_library_name",))

case(id="std_c_headers_popcount64", src="std_c_headers.cu", kernel="popcount64",
     make=lambda r: dict(x=r.integers(0, 2**63, 1000, dtype=np.uint64),
                         b=np.zeros(1000, np.uint32), n=np.int32(1000)),
     args=(In("x"), Out("b"), Val("n")), block=(128, 1, 1), grid=(8, 1),
     expect=lambda d: {"b": np.array([bin(int(v)).count("1") for v in d["x"]], np.uint32)})


def _wang(seed):
    s = seed.astype(np.uint64)
    m = np.uint64(0xffffffff)
    s = (s ^ np.uint64(61)) ^ (s >> np.uint64(16))
    s = (s * np.uint64(9)) & m
    s = s ^ (s >> np.uint64(4))
    s = (s * np.uint64(0x27d4eb2d)) & m
    s = s ^ (s >> np.uint64(15))
    return s.astype(np.uint32)


case(id="kernel_named_random", src="name_random.cu", kernel="random",
     make=lambda r: dict(o=np.zeros(1000, np.uint32), n=np.int32(1000), seed=np.uint32(2024)),
     args=(Out("o"), Val("n"), Val("seed")), block=(256, 1, 1), grid=(4, 1),
     expect=lambda d: {"o": _wang(np.uint32(2024) + np.arange(1000, dtype=np.uint32))},
     tags=("c_library_name",))


# ---- clock_timing.cu, cuda_std.cu ----------------------------------------------------------------------------

def _clock_check(d, b):
    np.testing.assert_array_equal(d["out"], np.full(4, b["x"].min()))
    t = d["timer"]
    assert (t[4:] >= t[:4]).all(), t


case(id="timedReduction_clock64", src="clock_timing.cu", kernel="timedReduction",
     make=lambda r: dict(x=r.standard_normal(256).astype(np.float32), out=np.zeros(4, np.float32),
                         timer=np.zeros(8, np.int64)),
     args=(In("x"), Out("out"), Out("timer")), block=(128, 1, 1), grid=(4, 1), shared=2 * 128 * 4,
     check=_clock_check, tags=("clock64",))

case(id="cuda_std_limits_type_traits", src="cuda_std.cu", kernel="block_min_clamp",
     make=lambda r: dict(i=r.integers(-500, 500, 1000).astype(np.int32), o=np.zeros(4, np.int32),
                         c=np.zeros(1000, np.int32), n=np.int32(1000)),
     args=(In("i"), Out("o"), Out("c"), Val("n")), block=(256, 1, 1), grid=(4, 1),
     expect=lambda d: {"o": [d["i"][256 * b:256 * (b + 1)].min() for b in range(4)],
                       "c": np.clip(d["i"], -100, 100)},
     tags=("cuda_std",))


def _sort4_make(r):
    x = (r.standard_normal(400) * 2).astype(np.float32)
    x[::37] = np.nan
    return dict(x=x, n4=np.int32(100))


case(id="cuda_std_pair_swap_array", src="cuda_std.cu", kernel="clamp_sort4",
     make=_sort4_make, args=(InOut("x"), Val("n4")), block=(64, 1, 1), grid=(2, 1),
     expect=lambda d: {"x": np.sort(np.clip(np.nan_to_num(d["x"], nan=-1.0), -1, 1).reshape(100, 4),
                                    axis=1).ravel()},
     tags=("cuda_std",))


# ---- intrinsics.cu -------------------------------------------------------------------------------------
# References from Python integers and exact fractions, not from the operations under test.

M32 = (1 << 32) - 1
M64 = (1 << 64) - 1
F32_MAX = np.finfo(np.float32).max


def _words(r, n, edges, bits):
    """n random words of `bits` bits, of every length (so clz/ffs vary), the edges first."""
    hi = np.uint64(M64 if bits == 64 else M32)
    w = r.integers(0, hi, n, dtype=np.uint64, endpoint=True)
    w = w >> r.integers(0, bits, n).astype(np.uint64)
    w[:len(edges)] = np.array(edges, np.uint64)
    return w.astype(np.uint32 if bits == 32 else np.uint64)


U32_EDGES = [0, 1, M32, 0x80000000, 0x7fffffff, 0x00010000, 0xaaaaaaaa, 0x00800000]
U64_EDGES = [0, 1, M64, 1 << 63, (1 << 63) - 1, 1 << 32, M32, 0x5555555555555555]


def _signed(v, bits=32):
    return ((v & ((1 << bits) - 1)) ^ (1 << (bits - 1))) - (1 << (bits - 1))


def _brev(v, bits):
    return int(format(v, f"0{bits}b")[::-1], 2)


def _bit_scan_ref(d):
    out = []
    for x, y in zip(d["x"].tolist(), d["y"].tolist()):
        out += [bin(x).count("1"), 32 - x.bit_length(), (x & -x).bit_length(),
                bin(y).count("1"), 64 - y.bit_length(), (y & -y).bit_length()]
    return {"o": np.array(out, np.int32)}


case(id="intrinsics_bit_scan_popc_clz_ffs", src="intrinsics.cu", kernel="bit_scan",
     make=lambda r: dict(x=_words(r, 1000, U32_EDGES, 32), y=_words(r, 1000, U64_EDGES, 64),
                         o=np.zeros(6000, np.int32), n=np.int32(1000)),
     args=(In("x"), In("y"), Out("o"), Val("n")), block=(128, 1, 1), grid=(8, 1),
     expect=_bit_scan_ref, tags=("intrinsics", "popc", "clz", "ffs"))


def _bit_reverse_ref(d):
    log2n = int(d["log2n"])
    perm = np.zeros_like(d["data"])
    perm[[_brev(i, log2n) for i in range(1 << log2n)]] = d["data"]
    return {"rx": np.array([_brev(v, 32) for v in d["x"].tolist()], np.uint32),
            "ry": np.array([_brev(v, 64) for v in d["y"].tolist()], np.uint64), "perm": perm}


case(id="intrinsics_bit_reverse_brev_fft_order", src="intrinsics.cu", kernel="bit_reverse",
     make=lambda r: dict(x=_words(r, 1024, U32_EDGES, 32), y=_words(r, 1024, U64_EDGES, 64),
                         rx=np.zeros(1024, np.uint32), ry=np.zeros(1024, np.uint64),
                         data=r.standard_normal(1024).astype(np.float32),
                         perm=np.zeros(1024, np.float32), log2n=np.int32(10)),
     args=(In("x"), In("y"), Out("rx"), Out("ry"), In("data"), Out("perm"), Val("log2n")),
     block=(256, 1, 1), grid=(4, 1), expect=_bit_reverse_ref, tags=("intrinsics", "brev"))


def _byte_perm(a, b, s):
    src = (a | b << 32).to_bytes(8, "little")
    return int.from_bytes(bytes(src[(s >> 4 * k) & 7] for k in range(4)), "little")


def _byte_funnel_ref(d):
    out = []
    for a, b, s in zip(d["a"].tolist(), d["b"].tolist(), d["s"].tolist()):
        v = b << 32 | a
        rot = s % 32
        out += [_byte_perm(a, b, s & 0xffff7777), _byte_perm(a, 0, 0x0123),
                (v << (s & 31)) >> 32 & M32, v >> (s & 31) & M32,
                (v << min(s, 32)) >> 32 & M32, v >> min(s, 32) & M32,
                (a << rot | a >> (32 - rot)) & M32, _byte_perm(a, b, 0x5140)]
    return {"o": np.array(out, np.uint32)}


def _byte_funnel_make(r):
    n = 1000
    s = r.integers(0, 70, n).astype(np.uint32)
    s[:10] = [0, 1, 31, 32, 33, 63, 64, M32, 0x80000020, 0x12345678]
    s[10:20] = r.integers(0, 2**32, 10, dtype=np.uint64)  # random selectors, upper half too
    return dict(a=_words(r, n, U32_EDGES, 32), b=_words(r, n, U32_EDGES[::-1], 32), s=s,
                o=np.zeros(8 * n, np.uint32), n=np.int32(n))


case(id="intrinsics_byte_perm_funnelshift", src="intrinsics.cu", kernel="byte_funnel",
     make=_byte_funnel_make, args=(In("a"), In("b"), In("s"), Out("o"), Val("n")),
     block=(128, 1, 1), grid=(8, 1), expect=_byte_funnel_ref,
     tags=("intrinsics", "byte_perm", "funnelshift"))


def _mul_hi_sad_ref(d):
    out, out64 = [], []
    for a, b, z, c, e in zip(d["a"].tolist(), d["b"].tolist(), d["z"].tolist(), d["c"].tolist(),
                             d["d"].tolist()):
        ua, ub = a & M32, b & M32
        out += [(a * b >> 32) & M32, ua * ub >> 32,
                _signed(a, 24) * _signed(b, 24) & M32, (ua & 0xffffff) * (ub & 0xffffff) & M32,
                (abs(a - b) + z) & M32, (abs(ua - ub) + z) & M32,
                (a + b) >> 1 & M32, (a + b + 1) >> 1 & M32, (ua + ub) >> 1, (ua + ub + 1) >> 1]
        out64 += [c * e >> 64, (_signed(c, 64) * _signed(e, 64) >> 64) & M64]
    return {"o": np.array(out, np.uint32), "o64": np.array(out64, np.uint64)}


def _mul_hi_sad_make(r):
    n = 1000
    a = _words(r, n, U32_EDGES, 32).view(np.int32)
    b = _words(r, n, U32_EDGES[::-1], 32).view(np.int32)
    b[8:12] = [-0x80000000, 0x7fffffff, -1, 0x00ffffff]
    a[8:12] = [0x7fffffff, -0x80000000, -0x80000000, 0x00800000]
    return dict(a=a, b=b, z=_words(r, n, [M32, 0, 1], 32), c=_words(r, n, U64_EDGES, 64),
                d=_words(r, n, U64_EDGES[::-1], 64), o=np.zeros(10 * n, np.uint32),
                o64=np.zeros(2 * n, np.uint64), n=np.int32(n))


case(id="intrinsics_mulhi_mul24_sad_hadd", src="intrinsics.cu", kernel="mul_hi_sad",
     make=_mul_hi_sad_make,
     args=(In("a"), In("b"), In("z"), In("c"), In("d"), Out("o"), Out("o64"), Val("n")),
     block=(128, 1, 1), grid=(8, 1), expect=_mul_hi_sad_ref,
     tags=("intrinsics", "mulhi", "mul24", "sad", "hadd"))


def _f32_neighbours(q):
    """The float32 values next to the exact q (a Fraction): (lo, hi), lo <= q <= hi."""
    with np.errstate(over="ignore"):  # past F32_MAX: the neighbours are F32_MAX and inf
        c = np.float32(float(q))
        if np.isinf(c):
            c = np.copysign(F32_MAX, c)
        fc = Fraction(float(c))
        if fc == q:
            return c, c
        if fc < q:
            return c, np.nextafter(c, np.float32(np.inf))
        return np.nextafter(c, np.float32(-np.inf)), c


def _f32_round(q, mode):
    """q (exact) rounded to float32: 'rn' (to nearest, ties to even), 'rz', 'ru', 'rd'."""
    lo, hi = _f32_neighbours(q)
    if lo == hi:
        return lo
    if mode == "rd" or (mode == "rz" and q > 0):
        return lo
    if mode == "ru" or mode == "rz":
        return hi
    if np.isinf(hi) or np.isinf(lo):  # past F32_MAX: infinity from F32_MAX + half an ulp
        return np.float32(np.copysign(np.inf, float(q))) \
            if abs(q) >= 2 ** 128 - 2 ** 103 else np.copysign(F32_MAX, np.float32(float(q)))
    dlo, dhi = q - Fraction(float(lo)), Fraction(float(hi)) - q
    if dlo != dhi:
        return lo if dlo < dhi else hi
    return lo if int(lo.view(np.uint32)) & 1 == 0 else hi


_EXACT = {"add": lambda a, b: a + b, "sub": lambda a, b: a - b, "mul": lambda a, b: a * b,
          "fma": lambda a, b, c: a * b + c, "rcp": lambda a: 1 / a}


def _rounded(op, mode, *xs):
    """One IEEE operation on float32 operands, correctly rounded in `mode`. Infinite or NaN
    operands and 1/0 give the same result in every mode: NumPy's."""
    xs = [np.float32(x) for x in xs]
    if all(np.isfinite(x) for x in xs) and not (op == "rcp" and xs[0] == 0):
        return _f32_round(_EXACT[op](*(Fraction(float(x)) for x in xs)), mode)
    w = [np.float64(x) for x in xs]
    with np.errstate(all="ignore"):
        return np.float32(_EXACT[op](*w) if op != "rcp" else 1.0 / w[0])


def _interval_ref(d):
    out = []
    for (alo, ahi), (blo, bhi) in zip(d["a"].tolist(), d["b"].tolist()):
        pairs = [(alo, blo), (alo, bhi), (ahi, blo), (ahi, bhi)]
        out += [_rounded("add", "rd", alo, blo), _rounded("add", "ru", ahi, bhi),
                min(_rounded("mul", "rd", x, y) for x, y in pairs),
                max(_rounded("mul", "ru", x, y) for x, y in pairs)]
    return {"o": np.array(out, np.float32)}


def _interval_make(r):
    n = 500
    lo = r.standard_normal((n, 2)) * 10.0 ** r.integers(-6, 7, (n, 2))
    a = np.stack([lo[:, 0], lo[:, 0] + np.abs(r.standard_normal(n)) * 3], axis=1)
    b = np.stack([lo[:, 1], lo[:, 1] + np.abs(r.standard_normal(n)) * 0.1], axis=1)
    edges = [([0, 0], [1, 2]), ([1, 1], [1, 1]), ([-1e-45, 1e-45], [3e-39, 5e-39]),
             ([1e38, 3e38], [2, 4]), ([-3e38, -1e38], [2, 4]), ([-F32_MAX, F32_MAX], [-1, 1]),
             ([0.1, 0.2], [0.3, 0.7]), ([16777216, 16777216], [1, 1]), ([-2, 3], [-5, 7])]
    for k, (x, y) in enumerate(edges):
        a[k], b[k] = x, y
    return dict(a=a.astype(np.float32), b=b.astype(np.float32), o=np.zeros(4 * n, np.float32),
                n=np.int32(n))


case(id="intrinsics_interval_fadd_fmul_rd_ru", src="intrinsics.cu", kernel="interval_ops",
     make=_interval_make, args=(In("a"), In("b"), Out("o"), Val("n")), block=(128, 1, 1),
     grid=(4, 1), expect=_interval_ref, tags=("intrinsics", "directed_rounding", "float2"))


def _ieee_ref(d):
    out = []
    for a, b, c in zip(d["a"], d["b"], d["c"]):
        sat = np.float32(0 if np.isnan(a) else min(max(a, 0), 1))
        with np.errstate(invalid="ignore"):
            sq = np.float32(np.sqrt(np.float64(a)))  # double, then float: correctly rounded
        out += [_rounded("add", "rd", a, b), _rounded("add", "ru", a, b),
                _rounded("mul", "rz", a, b), _rounded("fma", "rn", a, b, c),
                _rounded("rcp", "rn", a), sq, sat, _rounded("sub", "rz", a, c)]
    return {"o": np.array(out, np.float32)}


def _ieee_make(r):
    n = 2000
    a, b, c = (r.standard_normal(n) * 2.0 ** r.integers(-30, 31, n) for _ in range(3))
    b[100:200] = -a[100:200]                                   # cancellation
    c[200:300] = -(a[200:300].astype(np.float32) * b[200:300].astype(np.float32))  # error of a*b
    a[300:400] = r.random(100) * 1.5 - 0.25                    # __saturatef's range
    inf, nan, tiny = np.inf, np.nan, 1e-45
    edges = [(0, 0, 0), (-0.0, 0, -0.0), (1, -1, 0), (F32_MAX, F32_MAX, -F32_MAX),
             (-F32_MAX, -F32_MAX, 1), (F32_MAX, 2, -F32_MAX), (tiny, tiny, -tiny),
             (1.5e-39, -3e-39, tiny), (tiny, 0.5, 0), (3e-39, 3e-39, 1),
             (inf, -inf, 1), (inf, 1, -inf), (nan, 1, 1), (1, nan, 1), (-inf, 0, 2),
             (16777216, 1, 0), (1, 2 ** -24, 1), (1, 3 * 2 ** -25, -1), (3, 1 / 3, -1),
             (0.1, 0.2, 0.3), (-1, 2, 3), (2, 3e38, -1), (0.5, 1, 1), (1.25, -0.75, -2.5)]
    for k, e in enumerate(edges):
        a[k], b[k], c[k] = e
    return dict(a=a.astype(np.float32), b=b.astype(np.float32), c=c.astype(np.float32),
                o=np.zeros(8 * n, np.float32), n=np.int32(n))


case(id="intrinsics_ieee_rounding_rd_ru_rz_rn", src="intrinsics.cu", kernel="ieee_rounding",
     make=_ieee_make, args=(In("a"), In("b"), In("c"), Out("o"), Val("n")), block=(128, 1, 1),
     grid=(16, 1), expect=_ieee_ref,
     tags=("intrinsics", "directed_rounding", "fma", "saturate"))


def _f2i(x, fn, lo, hi):
    with np.errstate(invalid="ignore"):
        v = np.clip(fn(x.astype(np.float64)), lo, hi)
    return np.where(np.isnan(x), 0, v)


def _float_bits_check(d, b):
    x, dd = b["x"], b["d"]
    xb, db = x.view(np.uint32), dd.view(np.uint64)
    np.testing.assert_array_equal(d["ri"], _f2i(x, np.rint, -2 ** 31, 2 ** 31 - 1))
    np.testing.assert_array_equal(d["zi"], _f2i(x, np.trunc, -2 ** 31, 2 ** 31 - 1))
    np.testing.assert_array_equal(d["uu"], _f2i(x, np.ceil, 0, 2 ** 32 - 1))
    np.testing.assert_array_equal(d["e"], (xb >> 23) & 0xff)
    np.testing.assert_array_equal(d["neg"].view(np.uint32), xb ^ np.uint32(0x80000000))
    np.testing.assert_array_equal(d["hi"], (db >> np.uint64(32)).astype(np.uint32).view(np.int32))
    np.testing.assert_array_equal(d["lo"], db.astype(np.uint32).view(np.int32))
    np.testing.assert_array_equal(d["dabs"].view(np.uint64), db & np.uint64((1 << 63) - 1))


def _float_bits_make(r):
    n = 1000
    x = (r.standard_normal(n) * 10.0 ** r.integers(-3, 10, n)).astype(np.float32)
    x[20:60] = r.integers(-20, 20, 40) + 0.5                      # ties: to even
    x[:20] = [0, -0.0, np.nan, np.inf, -np.inf, 2 ** 31, -2 ** 31, -2 ** 31 - 256, 2 ** 32,
              4294967040.0, 2147483520.0, -0.25, -1.5, 1e-45, 0.1, -0.9, 0.5, 1.5, 2.5, -2.5]
    d = r.standard_normal(n) * 10.0 ** r.integers(-300, 300, n)
    d[:8] = [0, -0.0, np.nan, np.inf, -np.inf, 5e-324, -1.0, -np.finfo(np.float64).max]
    z = np.zeros(n, np.int32)
    return dict(x=x, d=d, ri=z.copy(), zi=z.copy(), uu=np.zeros(n, np.uint32), e=z.copy(),
                neg=np.zeros(n, np.float32), hi=z.copy(), lo=z.copy(), dabs=np.zeros(n),
                n=np.int32(n))


case(id="intrinsics_float2int_rounding_and_bit_casts", src="intrinsics.cu", kernel="float_bits",
     make=_float_bits_make,
     args=(In("x"), In("d"), Out("ri"), Out("zi"), Out("uu"), Out("e"), Out("neg"), Out("hi"),
           Out("lo"), Out("dabs"), Val("n")),
     block=(128, 1, 1), grid=(8, 1), check=_float_bits_check,
     tags=("intrinsics", "conversion", "bit_cast"))


def _sincospi(t):
    """sin(pi t), cos(pi t) in double: the argument reduced exactly (to the nearest quarter
    turn), so integers and half-integers give exact zeros and ones."""
    with np.errstate(invalid="ignore"):
        r = np.fmod(t.astype(np.float64), 2.0)
        k = np.rint(2 * r)
        f = r - k / 2
        q = np.where(np.isfinite(k), k, 0).astype(np.int64) & 3
    s, c = np.sin(np.pi * f), np.cos(np.pi * f)
    return (np.choose(q, [s, c, -s, -c]), np.choose(q, [c, -s, -c, s]))


def _within_ulps(key, got, want, ulps):
    """got within `ulps` units in the last place (of got's type) of the exact `want`
    (float64); where want is not finite, or is zero, got must be it."""
    exact = ~np.isfinite(want) | (want == 0)
    np.testing.assert_array_equal(got[exact], want[exact].astype(got.dtype), err_msg=key)
    w = want[~exact]
    err = np.abs(got[~exact] - w) / np.spacing(np.abs(w).astype(got.dtype)).astype(np.float64)
    worst = int(np.argmax(err))
    assert err[worst] <= ulps * (1 + 1e-9), (key, float(got[~exact][worst]), float(w[worst]),
                                             float(err[worst]))


def _fast_math_check(d, b):
    x, y = b["x"].astype(np.float64), b["y"].astype(np.float64)
    with np.errstate(all="ignore"):
        q = x / y
        rs = 1 / np.sqrt(y)
    # the Guide: for 2**126 < |y| < 2**128, __fdividef(x, y) is 0, and NaN for an infinite x
    huge = np.isfinite(y) & (np.abs(y) > 2.0 ** 126)
    with np.errstate(invalid="ignore"):
        q[huge] = x[huge] * 0.0
    _within_ulps("__fdividef", d["q"], q, 2)
    _within_ulps("rsqrtf", d["rs"], rs, 2)
    s, c = _sincospi(b["t"])
    _within_ulps("sincospif sin", d["s"], s, 1)
    _within_ulps("sincospif cos", d["c"], c, 1)
    # double: the Guide's 2 ulps, and 2 more for the reference's own rounding in double
    _within_ulps("sincospi sin", d["sd"], s, 4)
    _within_ulps("sincospi cos", d["cd"], c, 4)


def _fast_math_make(r):
    n = 1000
    x = (r.standard_normal(n) * 2.0 ** r.integers(-20, 21, n)).astype(np.float32)
    y = (r.standard_normal(n) * 2.0 ** r.integers(-20, 21, n)).astype(np.float32)
    y[500:600] = np.abs(y[500:600])
    x[:8] = [1, -5, np.inf, 0, 1e30, np.inf, 0, np.nan]
    y[:8] = [2 ** 127, -3e38, 2.5e38, 3, 1e-8, 2, np.inf, 1]
    y[8:12] = [0, -0.0, -1, np.inf]                  # rsqrtf: inf, -inf, NaN, 0
    t = (r.random(n) * 8 - 4).astype(np.float32)
    t[:24] = [0, -0.0, 1, -1, 0.5, -0.5, 1.5, 2, 3, 1000.5, -1000.25, 2 ** 23 + 1, 2 ** 24,
              2 ** 23 + 0.5, 12345.75, 1e30, np.inf, -np.inf, np.nan, 0.25, 1 / 3, 1e-30,
              -1e-40, 7.125]
    return dict(x=x, y=y, t=t, q=np.zeros(n, np.float32), rs=np.zeros(n, np.float32),
                s=np.zeros(n, np.float32), c=np.zeros(n, np.float32), sd=np.zeros(n),
                cd=np.zeros(n), n=np.int32(n))


case(id="intrinsics_fdividef_rsqrtf_sincospif", src="intrinsics.cu", kernel="fast_math",
     make=_fast_math_make,
     args=(In("x"), In("y"), In("t"), Out("q"), Out("rs"), Out("s"), Out("c"), Out("sd"),
           Out("cd"), Val("n")),
     block=(128, 1, 1), grid=(8, 1), check=_fast_math_check,
     tags=("intrinsics", "fast_math", "sinpi"))


def _warp_match_make(r):
    v = r.integers(-1000, 1000, 128).astype(np.int32)
    v[70] = -2 ** 31
    v[100] = 2 ** 31 - 1
    bits = r.integers(0, 2 ** 32, 128, dtype=np.uint64).astype(np.uint32)
    bits[32:64] |= np.uint32(0x00010001)
    bits[96:128] &= np.uint32(0x0000ffff)
    key = np.full(128, 7, np.int32)
    key[32:64] = r.integers(0, 100, 32)
    key[64:96] = 10
    key[68] = key[69] = 11                           # lane 4 (11 & ~1 == 10) and lane 5
    key[96:128] = 3
    key[102] = 9                                     # lane 6: 9 & ~1 != 3 & ~1
    z = np.zeros(128, np.int32)
    u = np.zeros(128, np.uint32)
    return dict(v=v, bits=bits, key=key, mn=z.copy(), umn=u.copy(), andr=u.copy(), orr=u.copy(),
                xorr=u.copy(), pred=z.copy(), allmask=u.copy(), evenmin=z.copy(),
                evenall=u.copy())


def _warp_match_ref(d):
    v, bits, key = (d[k].reshape(4, 32) for k in ("v", "bits", "key"))
    rep = lambda a: np.repeat(np.asarray(a), 32)  # noqa: E731
    same = np.array([(k == k[0]).all() for k in key])
    even = np.arange(32) % 2 == 0
    esame = np.array([((k[even] & ~1) == (k[0] & ~1)).all() for k in key])
    evenmin = np.where(even, v[:, ::2].min(axis=1)[:, None], 0x7fffffff).ravel()
    evenall = np.where(even, np.where(esame, 0x55555555, 0xffffffff)[:, None], 0xdeadbeef)
    return {"mn": rep(v.min(axis=1)), "umn": rep(v.view(np.uint32).min(axis=1)),
            "andr": rep(np.bitwise_and.reduce(bits, axis=1)),
            "orr": rep(np.bitwise_or.reduce(bits, axis=1)),
            "xorr": rep(np.bitwise_xor.reduce(bits, axis=1)), "pred": rep(same.astype(np.int32)),
            "allmask": rep(np.where(same, 0xffffffff, 0)), "evenmin": evenmin,
            "evenall": evenall.ravel()}


case(id="intrinsics_warp_reduce_min_and_or_xor_match_all", src="intrinsics.cu",
     kernel="warp_reduce_match",
     make=_warp_match_make,
     args=(In("v"), In("bits"), In("key"), Out("mn"), Out("umn"), Out("andr"), Out("orr"),
           Out("xorr"), Out("pred"), Out("allmask"), Out("evenmin"), Out("evenall")),
     block=(64, 1, 1), grid=(2, 1), expect=_warp_match_ref,
     tags=("intrinsics", "warp_reduce", "warp_match"))


# ---- math_api.cu -----------------------------------------------------------
# References independent of the host's libm where the bound is tight: decimal at 50
# digits for erfc and its inverses, square and cube roots, pow; Python's math (double)
# where float results are checked. Bounds: the Programming Guide's ulp tables.

def _dec_ctx():
    import decimal
    return decimal.Context(prec=50, Emax=10 ** 6, Emin=-10 ** 6)


_DPI = "3.14159265358979323846264338327950288419716939937510582097494"


def _dec_erfc(x):
    """erfc of the Decimal x, to about 45 digits: the Maclaurin series of erf below 4, the
    continued fraction exp(-x^2)/sqrt(pi) / (x + 1/2 / (x + 1 / (x + 3/2 / ...))) above."""
    from decimal import localcontext
    with localcontext(_dec_ctx()):
        if x < 0:
            return 2 - _dec_erfc(-x)
        if x < 4:
            return 1 - _dec_erf(x)
        return (-x * x).exp() * _dec_erfcx_cf(x)


def _dec_erf(x):
    """erf of the Decimal x (|x| < 4) by its Maclaurin series."""
    from decimal import Decimal, localcontext
    with localcontext(_dec_ctx()) as c:
        c.prec = 80                              # the series cancels e^(x^2) of its digits
        term, s, k, x2 = x, x, 0, x * x
        while abs(term) > abs(x) * Decimal(10) ** -70:
            k += 1
            term = -term * x2 / k
            s += term / (2 * k + 1)
        return 2 * s / Decimal(_DPI).sqrt()


def _dec_erfcx_cf(x):
    """exp(x^2) erfc(x) for x >= 4: the continued fraction."""
    from decimal import Decimal, localcontext
    with localcontext(_dec_ctx()):
        f = x
        for k in range(160, 0, -1):
            f = x + Decimal(k) / 2 / f
        return 1 / Decimal(_DPI).sqrt() / f


def _dec_erfcinv(y):
    """x with erfc(x) = y (0 < y < 2), Newton's method in decimal on log erfc (on erfc
    itself near y = 1), from the double estimate."""
    from decimal import Decimal, localcontext
    y = Decimal(y)
    if y > 1:
        return -_dec_erfcinv(2 - y)
    t = -math.log(float(y))
    x = Decimal(math.sqrt(max(t - 0.5 * math.log(math.pi * max(t, 1e-300)), 0.0)))
    if y > Decimal("0.3"):
        x = Decimal(0.8862269254527580 * float(1 - y))  # erf'(0) step from 0
    with localcontext(_dec_ctx()):
        c = 2 / Decimal(_DPI).sqrt()
        for _ in range(60):
            e = _dec_erfc(x)
            d = c * (-x * x).exp()
            step = (e.ln() - y.ln()) * e / d if y < Decimal("0.3") else (e - y) / d
            x += step
            if step == 0 or abs(step) < abs(x) * Decimal(10) ** -40:
                break
        return x


def _dec_norm(*xs):
    from decimal import Decimal, localcontext
    with localcontext(_dec_ctx()):
        return sum(Decimal(float(v)) ** 2 for v in xs).sqrt()


def _ordinals(v):
    """Each float's place in the ordered sequence of its type's values (+0 and -0 both 0),
    as Python ints: ulps between two values are the difference of their ordinals."""
    bits = v.view(np.int32 if v.dtype == np.float32 else np.int64).tolist()
    top = (1 << (31 if v.dtype == np.float32 else 63)) - 1
    return [i if i >= 0 else -(i & top) for i in bits]


def _ulps(key, got, want, ulps):
    """The Guide's measure: got within `ulps` units in the last place of the correctly
    rounded result (want: float64, or Decimals rounded here). Where that result is not
    finite, or zero, got must be it bit for bit (the sign of a zero included)."""
    want = np.array([float(w) for w in want]) if not isinstance(want, np.ndarray) else want
    got = np.asarray(got).ravel()
    with np.errstate(over="ignore"):
        w_t = want.astype(got.dtype)
    same = ~np.isfinite(w_t) | (w_t == 0)
    nan = np.isnan(got) & np.isnan(w_t)
    bits = np.uint32 if got.dtype == np.float32 else np.uint64
    bad = same & ~nan & (got.view(bits) != w_t.view(bits))
    assert not bad.any(), (key, "special values", got[bad][:6], w_t[bad][:6],
                           np.flatnonzero(bad)[:6])
    g, w = got[~same], w_t[~same]
    if not g.size:
        return
    err = [abs(x - y) if not np.isnan(gv) else math.inf
           for x, y, gv in zip(_ordinals(g), _ordinals(w), g)]
    worst = int(np.argmax(err))
    assert err[worst] <= ulps, (key, float(g[worst]), float(w[worst]), err[worst])


_SPECIAL_F = ["erfinvf", "erfcinvf", "normcdff", "normcdfinvf", "erfcxf", "lgammaf",
              "tgammaf", "cyl_bessel_i0f", "cyl_bessel_i1f", "rcbrtf", "exp10f", "expm1f",
              "log1pf"]
# the Guide's single-precision table (lgammaf: outside -10.001 .. -2.264)
_SPECIAL_F_ULPS = [2, 4, 5, 5, 4, 6, 5, 6, 6, 1, 2, 1, 1]


def _special_f_make(r):
    n = 256
    inf, nan = np.inf, np.nan
    u = r.random(n)
    cols = [
        u * 2 - 1,                                            # erfinvf
        10.0 ** -(u * 44),                                    # erfcinvf: deep tails
        -u * 14 + 2,                                          # normcdff: the lower tail
        10.0 ** -(u * 44),                                    # normcdfinvf
        r.standard_normal(n) * 10.0 ** r.integers(-2, 5, n),  # erfcxf
        u * 40 - 0.5,                                         # lgammaf
        u * 34 + 0.05,                                        # tgammaf
        u * 80 - 40,                                          # cyl_bessel_i0f
        u * 80 - 40,                                          # cyl_bessel_i1f
        r.standard_normal(n) * 10.0 ** r.integers(-40, 38, n),  # rcbrtf
        u * 70 - 40,                                          # exp10f
        r.standard_normal(n) * 10.0 ** r.integers(-8, 2, n),  # expm1f
        r.random(n) * 2.0 ** r.integers(-30, 30, n) - 1.0,    # log1pf
    ]
    x = np.array(cols)
    x[12, 100:140] = r.standard_normal(40) * 1e-5
    edges = [
        [0, -0.0, 1, -1, 1.5, nan, 1e-30, -0.9999999, 0.99999994, 5e-8],
        [0, 2, 1, 1e-45, 1.9999999, 3, nan, 0.5, 1e-38, 1.5],
        [0, -0.0, inf, -inf, nan, -14, 5, -9.3, 1e-40, 15],
        [0, 1, 0.5, 1e-45, -0.1, 1.5, nan, 0.99999994, 5.96e-8, 1e-38],
        [0, -0.0, inf, -inf, nan, 30, 1e20, 3e38, -9.3, 1e-40],
        [1, 2, 0, -0.0, inf, -inf, nan, -3e8, -12.5, 3e38],
        [0, -0.0, inf, -inf, nan, -1, -3.5, 1e-40, 0.5, -0.5],
        [0, -0.0, inf, -inf, nan, 1e-40, 80, -80, 0.5, 20],
        [0, -0.0, inf, -inf, nan, 1e-40, -1e-40, 80, -80, 0.5],
        [0, -0.0, inf, -inf, nan, 1e-45, -1e-45, 3e38, 8, -27],
        [0, -0.0, inf, -inf, nan, 38.5, -45, 1, -1, 1e-40],
        [0, -0.0, inf, -inf, nan, 1e-40, -1e-40, 88.5, -20, 100],
        [0, -0.0, inf, -inf, nan, -1, -1.5, 1e-40, -1e-40, 3e38],
    ]
    for k, e in enumerate(edges):
        x[k, :len(e)] = e
    return dict(x=x.astype(np.float32), o=np.zeros((13, n), np.float32), n=np.int32(n))


def _erfinv64(y):
    """Double reference for float checks: Newton's method on erf, or on log erfc for
    |y| > 0.5 (1 - |y| is exact there)."""
    if math.isnan(y) or abs(y) > 1:
        return math.nan
    if abs(y) == 1:
        return math.copysign(math.inf, y)
    if abs(y) > 0.5:
        return math.copysign(_erfcinv64(1 - abs(y)), y)
    x = 0.886226925452758 * y
    for _ in range(50):
        s = (math.erf(x) - y) / (1.1283791670955126 * math.exp(-x * x))
        x -= s
        if abs(s) <= abs(x) * 1e-17:
            break
    return x


def _erfcinv64(y):
    if math.isnan(y) or y < 0 or y > 2:
        return math.nan
    if y == 0 or y == 2:
        return math.inf if y == 0 else -math.inf
    if y > 0.5:
        return _erfinv64(1 - y) if y <= 1.5 else -_erfcinv64(2 - y)
    t = -math.log(y)
    x = math.sqrt(t - 0.5 * math.log(math.pi * t)) if t > 1 else 0.5
    for _ in range(50):
        e = math.erfc(x)
        s = (math.log(e) - math.log(y)) * e / (1.1283791670955126 * math.exp(-x * x))
        x += s
        if abs(s) <= abs(x) * 1e-17:
            break
    return x


def _erfcx64(x):
    if math.isnan(x):
        return x
    if x < 25:
        with np.errstate(over="ignore"):
            return float(np.exp(np.float64(x) * x) * math.erfc(x))
    f = x
    for k in range(60, 0, -1):
        f = x + k / 2 / f
    return 1 / math.sqrt(math.pi) / f


def _gamma64(x):
    if math.isnan(x) or x == -math.inf or (x < 0 and x == int(x)):
        return math.nan
    if x == 0:
        return math.copysign(math.inf, x)
    return math.gamma(x) if x < 171 else math.inf


def _bessel_i(nu, x):
    """I0, I1 of a double by their power series in decimal."""
    from decimal import Decimal, localcontext
    if not math.isfinite(x):
        return x if math.isnan(x) else (math.inf if nu == 0 else x)
    with localcontext(_dec_ctx()):
        h = Decimal(x) / 2
        t = h if nu else Decimal(1)
        s, k = t, 0
        while abs(t) > abs(s) * Decimal(10) ** -40 or k < 2:
            k += 1
            t = t * h * h / (k * (k + nu))
            s += t
        return float(s)


def _rcbrt64(x):
    from decimal import Decimal, localcontext
    if x == 0 or math.isnan(x):
        return math.copysign(math.inf, x) if x == 0 else x
    if math.isinf(x):
        return math.copysign(0.0, x)
    with localcontext(_dec_ctx()):
        return math.copysign(float(Decimal(abs(x)) ** (Decimal(-1) / 3)), x)


def _special_f_ref(x):
    x = x.astype(np.float64)
    sq2 = math.sqrt(2)
    with np.errstate(all="ignore"):
        lg = [abs(v) if not math.isfinite(v) else
              math.inf if v <= 0 and v == int(v) else math.lgamma(v) for v in x[5]]
        return [
            [_erfinv64(v) for v in x[0]],
            [_erfcinv64(v) for v in x[1]],
            [0.5 * math.erfc(-v / sq2) if not math.isnan(v) else v for v in x[2]],
            # + 0.0: normcdfinvf(0.5) is +0 on the H200, not -sqrt(2) * +0
            [-sq2 * _erfcinv64(2 * v) + 0.0 if not math.isnan(v) else v for v in x[3]],
            [_erfcx64(v) for v in x[4]],
            lg,
            [_gamma64(v) for v in x[6]],
            [_bessel_i(0, v) for v in x[7]],
            [_bessel_i(1, v) for v in x[8]],
            [_rcbrt64(v) for v in x[9]],
            list(np.power(10.0, x[10])),   # a float's power of 10 in double: 1 ulp of double
            [math.expm1(v) if math.isfinite(v) and v < 700 else
             (v if v == v and v > 0 else -1.0 if v == -math.inf else v) for v in x[11]],
            [math.log1p(v) if v > -1 and math.isfinite(v) else
             (-math.inf if v == -1 else v if v == math.inf else math.nan) for v in x[12]],
        ]


def _special_f_check(d, b):
    refs = _special_f_ref(b["x"])
    for k, name in enumerate(_SPECIAL_F):
        want = np.array(refs[k], np.float64)
        _ulps(name, d["o"][k], want, _SPECIAL_F_ULPS[k])
    # the Math API's special values, with the sign of zero
    o = d["o"]
    assert np.signbit(o[0, 1]) and np.signbit(o[11, 1]) and np.signbit(o[12, 1])
    assert o[5, 0] == 0 and not np.signbit(o[5, 0]) and o[5, 3] == np.inf   # lgammaf(1), (-0)
    assert o[6, 1] == -np.inf and np.isnan(o[6, 5]) and np.isnan(o[6, 3])   # tgammaf
    assert o[9, 1] == -np.inf and o[9, 3] == 0 and np.signbit(o[9, 3])      # rcbrtf(-0), (-inf)


case(id="math_api_special_functions_float", src="math_api.cu", kernel="special_f",
     make=_special_f_make, args=(In("x"), Out("o"), Val("n")), block=(128, 1, 1),
     grid=(2, 1), check=_special_f_check, tags=("math_api", "ulp", "special_values"))


_SPECIAL_D = ["erfinv", "erfcinv", "normcdf", "normcdfinv", "erfcx"]
_SPECIAL_D_ULPS = [5, 6, 5, 8, 4]   # the Guide's double-precision table


def _special_d_make(r):
    n = 96
    inf, nan = np.inf, np.nan
    u = r.random(n)
    x = np.array([
        np.where(u < 0.5, u * 2 - 1, np.sign(u - 0.75) * (1 - 10.0 ** -(u * 16))),  # erfinv
        10.0 ** -(u * 320),                                           # erfcinv: to subnormals
        -u * 38 + 3,                                                  # normcdf: the lower tail
        np.where(u < 0.8, 10.0 ** -(u * 380), u),                     # normcdfinv
        r.standard_normal(n) * 10.0 ** r.integers(-3, 6, n),          # erfcx
    ])
    edges = [[0, -0.0, 1, -1, nan, 1.5, 1e-300, -0.5, 0.5000000000000001, 1 - 2 ** -53],
             [0, 2, 1, 5e-324, nan, -1, 0.5, 1.5, 2 - 2 ** -52, 1e-310],
             [0, -0.0, inf, -inf, nan, -38.4, 8.3, -1e-300, 1e-310, -37.5],
             [0, 1, 0.5, 5e-324, nan, -0.1, 1 - 2 ** -53, 2 ** -1074 * 3, 0.975, 0.025],
             [0, -0.0, inf, -inf, nan, 1e300, 99.99, 100, -26.5, 26.7]]
    for k, e in enumerate(edges):
        x[k, :len(e)] = e
    return dict(x=x, o=np.zeros((5, n)), n=np.int32(n))


def _special_d_ref(x):
    from decimal import Decimal, localcontext

    def erfcinv(y):
        if math.isnan(y) or not 0 <= y <= 2:
            return math.nan
        return math.inf if y == 0 else -math.inf if y == 2 else _dec_erfcinv(y)

    def erfinv(y):
        if math.isnan(y) or abs(y) >= 1:
            return math.nan if math.isnan(y) or abs(y) > 1 else math.copysign(math.inf, y)
        if abs(y) > 0.5:
            with localcontext(_dec_ctx()):
                return -_dec_erfcinv(1 + Decimal(y))   # erfinv(y) = -erfcinv(1 + y)
        if y == 0:
            return y
        with localcontext(_dec_ctx()):                 # Newton's method on erf
            x, c, y = Decimal(_erfinv64(y)), 2 / Decimal(_DPI).sqrt(), Decimal(y)
            for _ in range(4):
                x -= (_dec_erf(x) - y) / (c * (-x * x).exp())
            return x

    def normcdf(v):
        if not math.isfinite(v):
            return v if math.isnan(v) else (1.0 if v > 0 else 0.0)
        with localcontext(_dec_ctx()):
            return _dec_erfc(-Decimal(v) / Decimal(2).sqrt()) / 2

    def normcdfinv(p):
        if math.isnan(p) or not 0 <= p <= 1:
            return math.nan
        if p in (0, 1):
            return -math.inf if p == 0 else math.inf
        if p == 0.5:
            return 0.0  # +0, as the H200 gives (not -sqrt(2) * +0)
        with localcontext(_dec_ctx()):
            return -Decimal(2).sqrt() * _dec_erfcinv(2 * Decimal(p))

    def erfcx(v):
        if not math.isfinite(v):
            return v if math.isnan(v) else (0.0 if v > 0 else math.inf)
        with localcontext(_dec_ctx()):
            x = Decimal(v)
            if x < -27:                         # 2 exp(x^2) is past DBL_MAX
                return math.inf
            return _dec_erfcx_cf(x) if x >= 4 else (x * x).exp() * _dec_erfc(x)

    return [[f(float(v)) for v in row] for f, row in
            zip((erfinv, erfcinv, normcdf, normcdfinv, erfcx), x)]


def _special_d_check(d, b):
    refs = _special_d_ref(b["x"])
    for k, name in enumerate(_SPECIAL_D):
        _ulps(name, d["o"][k], refs[k], _SPECIAL_D_ULPS[k])
    o = d["o"]
    # erfinv(-0) is -0, erfcinv(1) is +0
    assert np.signbit(o[0, 1]) and o[1, 2] == 0 and not np.signbit(o[1, 2])


case(id="math_api_erfinv_erfcinv_normcdf_erfcx_double", src="math_api.cu", kernel="special_d",
     make=_special_d_make, args=(In("x"), Out("o"), Val("n")), block=(128, 1, 1),
     grid=(1, 1), check=_special_d_check, tags=("math_api", "ulp", "tails"))


def _norms_make(r):
    n = 400
    inf, nan = np.inf, np.nan
    p = r.standard_normal((n, 4)) * 10.0 ** r.integers(-44, 38, (n, 1))
    q = r.standard_normal((n, 4)) * 10.0 ** r.integers(-320, 305, (n, 1))
    p[::7, 3] *= 1e-10                                 # unbalanced coordinates
    edges = [(0, 0, 0, 0), (-0.0, 0, -0.0, 0), (inf, nan, 1, 1), (nan, -inf, 0, 0),
             (nan, 1, 1, 1), (1, 1, nan, inf), (3, 4, 12, 84), (1e-45, 0, 0, 1e-45),
             (3e38, 3e38, 3e38, 3e38), (1e-30, 1e-30, 1e-30, 1e-30), (-3, 4, 0, 0)]
    dedges = [(0, 0, 0, 0), (inf, nan, 1, 1), (nan, -inf, 0, 0), (nan, 1, 1, 1),
              (1.7e308, 1.7e308, 1.7e308, 1.7e308), (5e-324, 5e-324, 0, 5e-324),
              (1e-300, 1e-300, 1e-300, 1e-300), (3, 4, 12, 84), (1, 1, nan, inf)]
    for k, e in enumerate(edges):
        p[k] = e
    for k, e in enumerate(dedges):
        q[k] = e
    with np.errstate(over="ignore"):
        return dict(p=p.astype(np.float32), q=q, of=np.zeros(5 * n, np.float32),
                    od=np.zeros(5 * n), n=np.int32(n))


def _norm_ref(rows, k, recip):
    """sqrt of the sum of squares of the first k coordinates (decimal), or its reciprocal:
    +inf (+0) where one is infinite, even beside a NaN."""
    out = []
    for row in rows:
        v = [float(t) for t in row[:k]]
        if any(math.isinf(t) for t in v):
            out.append(0.0 if recip else math.inf)
        elif any(math.isnan(t) for t in v):
            out.append(math.nan)
        else:
            s = _dec_norm(*v)
            out.append((math.inf if s == 0 else 1 / s) if recip else s)
    return out


def _norms_check(d, b):
    of, od = d["of"].reshape(-1, 5), d["od"].reshape(-1, 5)
    # (name, column, coordinates, reciprocal, float ulps, double ulps): the Guide's tables
    for name, col, k, recip, uf, ud in [("norm3d", 0, 3, False, 3, 2),
                                        ("rnorm3d", 1, 3, True, 2, 1),
                                        ("norm4d", 2, 4, False, 3, 2),
                                        ("rnorm4d", 3, 4, True, 2, 1),
                                        ("rhypot", 4, 2, True, 2, 1)]:
        _ulps(name + "f", of[:, col], np.array([float(v) for v in _norm_ref(b["p"], k, recip)]), uf)
        _ulps(name, od[:, col], _norm_ref(b["q"], k, recip), ud)


case(id="math_api_norm3d_rnorm3d_norm4d_rhypot_range", src="math_api.cu", kernel="norms",
     make=_norms_make, args=(In("p"), In("q"), Out("of"), Out("od"), Val("n")),
     block=(128, 1, 1), grid=(4, 1), check=_norms_check, tags=("math_api", "ulp", "overflow"))


def _exact_make(r):
    n = 300
    inf, nan = np.inf, np.nan
    a = r.standard_normal(n) * 2.0 ** r.integers(-1074, 1000, n)
    b = r.standard_normal(n) * 2.0 ** r.integers(-60, 60, n)
    a[100:200] = np.round(r.standard_normal(100) * 8, 1) + r.choice([0, 0.5], 100)  # ties
    b[100:150] = r.integers(-2000, 2000, 50)                       # ldexp's exponent
    b[150:200] = np.round(r.standard_normal(50) * 3, 2)
    edges = [(0, 1), (-0.0, 1), (inf, 2), (-inf, -2), (nan, 1), (1, nan), (5e-324, 1),
             (-5e-324, -inf), (2.5, -0.0), (-2.5, 0), (0.5, inf), (-4, 2), (4, -2), (-0.0, -0.0),
             (3, inf), (-3, -inf), (1, 0), (-1.5, 1e-320), (7, 2), (-7, 2), (5, 2), (1.7e308, 1000),
             (2.2250738585072014e-308, -1), (-0.49999999999999994, 3), (0.5, 0.5), (-0.5, -1),
             (1.5, 3), (-1.5, 3), (4503599627370497.0, 1), (-2.5, 0.5), (6, 4), (-6, 4), (1e16, 3),
             (0.0, -0.0), (-0.0, 0.0), (nan, nan), (inf, inf), (inf, 0), (1, 1), (2, 1.5)]
    for k, e in enumerate(edges):
        a[k], b[k] = e
    return dict(a=a, b=b, o=np.zeros(18 * n), e=np.zeros(6 * n, np.int64), n=np.int32(n))


def _round_away(x):
    t = np.trunc(x)
    with np.errstate(invalid="ignore"):
        return np.where(np.isfinite(x), t + np.copysign(np.abs(x - t) >= 0.5, x), x)


def _exact_check(d, b):
    """Bit for bit (the sign of a zero included) against C99 Annex F and the Math API."""
    a, y = b["a"], b["b"]
    o, e = d["o"].reshape(-1, 18), d["e"].reshape(-1, 6)
    fin = np.isfinite(a)
    INT_MIN, INT_MAX = -2 ** 31, 2 ** 31 - 1

    def same(key, got, want, mask=None):
        got, want = np.asarray(got, np.float64), np.asarray(want, np.float64)
        mask = np.ones(got.shape, bool) if mask is None else mask
        nan = np.isnan(got) & np.isnan(want)
        bad = mask & ~nan & (got.view(np.uint64) != want.view(np.uint64))
        assert not bad.any(), (key, a[bad][:4], y[bad][:4], got[bad][:4], want[bad][:4])

    def eq(key, got, want, mask):
        bad = mask & (np.asarray(got) != np.asarray(want))
        assert not bad.any(), (key, a[bad][:4], y[bad][:4], got[bad][:4], np.asarray(want)[bad][:4])

    with np.errstate(all="ignore"):
        m, ex = np.frexp(a)
        same("frexp", o[:, 0], m)
        eq("frexp exponent", e[:, 0], ex, fin)    # unspecified for inf and NaN
        k = np.trunc(np.fmin(np.fmax(y, -2000.0), 2000.0)).astype(np.int64)  # NaN: -2000
        same("ldexp", o[:, 1], np.ldexp(a, k))
        same("scalbn", o[:, 2], np.ldexp(a, -3))
        eq("ilogb", e[:, 1], np.where(a == 0, INT_MIN, np.where(np.isnan(a), INT_MIN,
                                      np.where(np.isinf(a), INT_MAX, ex - 1))),
           np.ones(a.size, bool))
        same("logb", o[:, 3], np.where(a == 0, -np.inf, np.where(fin, ex - 1.0, np.abs(a))))
        same("fmod", o[:, 4], np.fmod(a, y))
        rem = []
        quo = []
        for v, w in zip(a.tolist(), y.tolist()):
            if math.isnan(v) or math.isnan(w) or math.isinf(v) or w == 0:
                rem.append(math.nan)
                quo.append(None)
            elif math.isinf(w):
                rem.append(v)
                quo.append(None)
            else:
                q = Fraction(v) / Fraction(w)
                n_ = round(q)                     # Python rounds halves to even, as IEEE
                rv = float(Fraction(v) - n_ * Fraction(w))
                rem.append(math.copysign(0.0, v) if rv == 0 else rv)
                quo.append(n_ & 7)
        same("remainder", o[:, 5], rem)
        same("remquo", o[:, 6], rem)
        qm = np.array([q is not None for q in quo])
        eq("remquo quotient bits", e[:, 2], [q or 0 for q in quo], qm)
        same("nextafter", o[:, 7], np.nextafter(a, y))
        same("copysign", o[:, 8], np.copysign(a, y), ~np.isnan(a))
        same("fdim", o[:, 9], np.where(np.isnan(a) | np.isnan(y), np.nan,
                                       np.where(a > y, a - y, 0.0)))
        # fmax/fmin: the non-NaN operand where one is NaN (the sign of a zero result is
        # not specified when both are zeros)
        eq("fmax", np.nan_to_num(o[:, 10], nan=7.5), np.nan_to_num(np.fmax(a, y), nan=7.5),
           np.ones(a.size, bool))
        eq("fmin", np.nan_to_num(o[:, 11], nan=7.5), np.nan_to_num(np.fmin(a, y), nan=7.5),
           np.ones(a.size, bool))
        fr, ip = np.modf(a)
        same("modf", o[:, 12], fr)
        same("modf integral part", o[:, 13], ip)
        same("trunc", o[:, 14], np.trunc(a))
        same("round", o[:, 15], _round_away(a))
        same("rint", o[:, 16], np.rint(a))
        same("nearbyint", o[:, 17], np.rint(a))
        small = np.abs(a) < 1e15
        eq("llround", e[:, 3], np.where(small, _round_away(np.where(small, a, 0)), 0), small)
        eq("lrint", e[:, 4], np.where(small, np.rint(np.where(small, a, 0)), 0), small)
        f = a.astype(np.float32).astype(np.float64)
        eq("roundf", e[:, 5], np.where(small, _round_away(np.where(small, f, 0)), 0), small)


case(id="math_api_exact_functions_double", src="math_api.cu", kernel="exact_d",
     make=_exact_make, args=(In("a"), In("b"), Out("o"), Out("e"), Val("n")),
     block=(128, 1, 1), grid=(3, 1), check=_exact_check, tags=("math_api", "special_values"))


def _pow_ref(x, y, ftype):
    """pow(x, y) by C99 Annex F's special cases (as the Math API lists them), else the exact
    power in decimal rounded to `ftype`; x, y already of that type."""
    from decimal import Decimal, localcontext
    x, y = float(x), float(y)
    odd = math.isfinite(y) and y == int(y) and int(y) % 2 == 1
    if y == 0 or x == 1:
        return 1.0
    if math.isnan(x) or math.isnan(y):
        return math.nan
    if x == 0:
        return (math.copysign(math.inf, x) if odd else math.inf) if y < 0 else \
            (x if odd else 0.0)
    if math.isinf(y):
        if x == -1:
            return 1.0
        return (math.inf if abs(x) > 1 else 0.0) if y > 0 else (0.0 if abs(x) > 1 else math.inf)
    if math.isinf(x):
        s = -1.0 if x < 0 and odd else 1.0
        return s * (math.inf if y > 0 else 0.0)
    if x < 0 and y != int(y):
        return math.nan
    s = -1.0 if x < 0 and odd else 1.0
    with localcontext(_dec_ctx()):
        v = Decimal(abs(x)) ** Decimal(y)
    with np.errstate(over="ignore"):
        return s * float(ftype(float(v)) if abs(v) < Decimal("1e400") else math.inf)


def _pow_make(r):
    n = 200
    inf, nan = np.inf, np.nan
    a = np.abs(r.standard_normal(n)) * 2.0 ** r.integers(-60, 60, n)
    b = r.standard_normal(n) * 2.0 ** r.integers(-4, 4, n)
    a[60:100] *= -1
    b[60:100] = np.round(b[60:100] * 4)                 # negative bases: integer powers
    b[100:120] = 0.5                                    # pow(x, 0.5): sqrt, but -0 and -inf
    edges = [(-1, inf), (-1, -inf), (1, nan), (nan, 0), (nan, -0.0), (0, -1), (-0.0, -1),
             (-0.0, -2), (0, -0.5), (-0.0, -inf), (-0.0, 3), (-0.0, 2), (-0.0, 0.5), (0.5, inf),
             (2, inf), (0.5, -inf), (2, -inf), (-inf, -3), (-inf, -2), (-inf, 3), (-inf, 2),
             (-inf, 0.5), (inf, -1), (inf, 0.5), (-8, 1 / 3), (-2, 0.5), (2, 10), (-2, 11),
             (10, -3), (2, 1024), (2, -1075), (-2, -1074), (0.5, 1074), (-inf, 0.5), (-0.0, 0.5),
             (inf, nan), (nan, nan), (1, -inf), (-3, -3), (1e-300, 2), (7, 1 / 3)]
    for k, e in enumerate(edges):
        a[k], b[k] = e
    return dict(a=a, b=b, o=np.zeros(n), of=np.zeros(n, np.float32), n=np.int32(n))


def _pow_check(d, b):
    a, y = b["a"], b["b"]
    with np.errstate(over="ignore", under="ignore"):
        af, yf = a.astype(np.float32), y.astype(np.float32)
    _ulps("pow", d["o"], np.array([_pow_ref(u, v, np.float64) for u, v in zip(a, y)]), 2)
    _ulps("powf", d["of"], np.array([_pow_ref(u, v, np.float64) for u, v in zip(af, yf)]), 4)


case(id="math_api_pow_powf_special_cases", src="math_api.cu", kernel="pow_special",
     make=_pow_make, args=(In("a"), In("b"), Out("o"), Out("of"), Val("n")),
     block=(128, 1, 1), grid=(2, 1), check=_pow_check, tags=("math_api", "special_values", "ulp"))
