"""The corpus's cases for kernels in the idioms of NVIDIA's samples: vector add,
the reductions, scan, compaction, histogram, matrix products, transpose,
stencils, __constant__ convolution, n-body and bitonic sort.

Each module appends its cases to registry.CASES when imported (cases.py
imports them all)."""
import math

import numpy as np

from registry import Gpu, In, InOut, Out, Val, case, cdiv, chunk_sums, grid_stride_block_sums, \
    ints_as_floats, segmented_cumsum, set_constant


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
