"""The corpus's cases for async_copy.cu: cooperative_groups::memcpy_async with cg::wait and
cg::wait_prior (a tiled matrix product, two stages in flight, per-warp slices with element
counts) and <cuda_pipeline.h>'s primitives (16-byte copies with a zero-filled tail, 4- and
8-byte copies). References are NumPy's, exact: the values are small integers.

Each module appends its cases to registry.CASES when imported (cases.py imports them all).
"""
import numpy as np

from registry import In, Out, Val, case

# ---- matmul_memcpy_async ---------------------------------------------------------------

N_MM = 48


def _mm_make(r):
    a = r.integers(-4, 5, (N_MM, N_MM)).astype(np.float32)
    b = r.integers(-4, 5, (N_MM, N_MM)).astype(np.float32)
    return dict(a=a, b=b, c=np.full((N_MM, N_MM), np.nan, np.float32), n=np.int32(N_MM))


case(id="async_copy_matmul_cg_memcpy_async", src="async_copy.cu", kernel="matmul_memcpy_async",
     make=_mm_make, args=(In("a"), In("b"), Out("c"), Val("n")), block=(16, 16, 1),
     grid=(3, 3), expect=lambda d: {"c": (d["a"].astype(np.float64) @ d["b"]).astype(np.float32)},
     tags=("async_copy", "cg", "matmul", "shared"))


# ---- double_buffered_sum ---------------------------------------------------------------

def _dbl_make(r):
    x = r.integers(-8, 9, 3 * 5 * 128).astype(np.float32)
    return dict(x=x, out=np.full(3, np.nan, np.float32), chunks=np.int32(5))


case(id="async_copy_double_buffered_wait_prior", src="async_copy.cu",
     kernel="double_buffered_sum", make=_dbl_make, args=(In("x"), Out("out"), Val("chunks")),
     block=(128, 1, 1), grid=(3, 1), shared=2 * 128 * 4,
     expect=lambda d: {"out": (d["x"].astype(np.float64) ** 2).reshape(3, -1).sum(axis=1)
                       .astype(np.float32)},
     tags=("async_copy", "cg", "pipelining", "reduction"))


# ---- warp_slices -----------------------------------------------------------------------

N_WS = 3 * 4 * 40 - 37  # the last block's third warp copies 3 of 40, its fourth none


def _ws_make(r):
    return dict(x=r.integers(-1000, 1000, N_WS).astype(np.int32),
                out=np.full(3 * 160, 12345, np.int32), n=np.int32(N_WS))


def _ws_ref(d):
    out = np.full(3 * 160, -3, np.int64)
    out[:N_WS] = d["x"].astype(np.int64) * 3
    return {"out": out.astype(np.int32)}


case(id="async_copy_warp_tiles_element_counts", src="async_copy.cu", kernel="warp_slices",
     make=_ws_make, args=(In("x"), Out("out"), Val("n")), block=(128, 1, 1), grid=(3, 1),
     expect=_ws_ref, tags=("async_copy", "cg", "tiles"))


# ---- pipeline_stencil ------------------------------------------------------------------

N_PS = 3 * 128 - 5  # the last float4 of the last block is one float, zero-filled past it


def _ps_make(r):
    return dict(x=r.integers(-50, 50, N_PS).astype(np.float32),
                out=np.full(N_PS, np.nan, np.float32), n=np.int32(N_PS))


def _ps_ref(d):
    x = np.zeros(3 * 128, np.float64)
    x[:N_PS] = d["x"]
    f = x.reshape(3, 128)
    left = np.concatenate([np.zeros((3, 1)), f[:, :-1]], axis=1)
    right = np.concatenate([f[:, 1:], np.zeros((3, 1))], axis=1)
    return {"out": (left + 2 * f + right).ravel()[:N_PS].astype(np.float32)}


case(id="async_copy_pipeline_primitives_zfill_stencil", src="async_copy.cu",
     kernel="pipeline_stencil", make=_ps_make, args=(In("x"), Out("out"), Val("n")),
     block=(32, 1, 1), grid=(3, 1), expect=_ps_ref,
     tags=("async_copy", "pipeline_primitives", "zfill", "stencil"))


# ---- pipeline_small --------------------------------------------------------------------

def _small_make(r):
    return dict(a=r.integers(-2 ** 31, 2 ** 31, 256, dtype=np.int64).astype(np.int32),
                b=r.standard_normal(256), ra=np.zeros(256, np.int32), rb=np.zeros(256))


def _small_ref(d):
    rev = np.concatenate([np.arange(127, -1, -1), np.arange(255, 127, -1)])
    return {"ra": d["a"][rev], "rb": d["b"][rev] * 0.5}


case(id="async_copy_pipeline_4_and_8_bytes", src="async_copy.cu", kernel="pipeline_small",
     make=_small_make, args=(In("a"), In("b"), Out("ra"), Out("rb")), block=(128, 1, 1),
     grid=(2, 1), expect=_small_ref, tags=("async_copy", "pipeline_primitives"))
