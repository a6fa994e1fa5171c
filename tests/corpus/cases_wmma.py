"""The corpus's cases for wmma_gemm.cu and wmma_types.cu: nvcuda::wmma, the warp matrix
functions (tensor cores), as the Programming Guide's example and cuda-samples'
cudaTensorCoreGemm, bf16TensorCoreGemm, tf32TensorCoreGemm, dmmaTensorCoreGemm and
immaTensorCoreGemm use them. References are NumPy's: exact where the inputs are small
integers (any order of summation gives the same sum, on a GPU too), else within the error
that float accumulation of K products allows.

Each module appends its cases to registry.CASES when imported (cases.py imports them all).
"""
import numpy as np

from registry import In, InOut, Out, Val, case

# ---- wmma_ker: the Programming Guide's example -------------------------------------------


def _ker_make(r):
    a = r.standard_normal((16, 16)).astype(np.float16)
    b = r.standard_normal((16, 16)).astype(np.float16)
    # a is read as a col_major fragment: its memory holds A column by column
    return dict(A=a, a=np.ascontiguousarray(a.T), b=b, c=np.full((16, 16), np.nan, np.float32))


# half x half products are exact in float: what remains is 16 float additions
case(id="wmma_guide_example_16x16x16", src="wmma_gemm.cu", kernel="wmma_ker", make=_ker_make,
     args=(In("a"), In("b"), Out("c")), block=(32, 1, 1),
     expect=lambda d: {"c": d["A"].astype(np.float64) @ d["b"].astype(np.float64)},
     rtol=1e-5, atol=1e-5, tags=("wmma", "fp16", "tensor_core"))


# ---- simple_wmma_gemm and compute_gemm: cudaTensorCoreGemm ---------------------------------

def _gemm_make(m, n, k, in_dtype=np.float16, b_col_major=True):
    def make(r):
        a = r.integers(-8, 9, (m, k)).astype(in_dtype)
        b = r.integers(-8, 9, (k, n)).astype(in_dtype)
        c = r.integers(-50, 51, (m, n)).astype(np.float32)
        return dict(a=a, b=b, bmem=np.ascontiguousarray(b.T) if b_col_major else b, c=c,
                    d=np.full((m, n), np.nan, np.float32), m=np.int32(m), n=np.int32(n),
                    k=np.int32(k), alpha=np.float32(0.5), beta=np.float32(-2.0))
    return make


def _gemm_ref(d):
    ab = d["a"].astype(np.float64) @ d["b"].astype(np.float64)
    return {"d": float(d["alpha"]) * ab + float(d["beta"]) * d["c"]}


GEMM_ARGS = (In("a"), In("bmem"), In("c"), Out("d"), Val("m"), Val("n"), Val("k"),
             Val("alpha"), Val("beta"))

# 4 x 4 warps a block; the grid's last warps along y have no tile (N = 80: 5 tiles of 8)
case(id="wmma_simple_gemm_alpha_beta", src="wmma_gemm.cu", kernel="simple_wmma_gemm",
     make=_gemm_make(64, 80, 48), args=GEMM_ARGS, block=(128, 4, 1), grid=(1, 2),
     expect=_gemm_ref, tags=("wmma", "fp16", "tensor_core", "matmul"))

case(id="wmma_compute_gemm_shared_tiles", src="wmma_gemm.cu", kernel="compute_gemm",
     make=_gemm_make(128, 128, 96, b_col_major=False), args=GEMM_ARGS, block=(256, 1, 1),
     grid=(2, 2), shared=(64 * 48 + 32 * 80) * 2 + 64 * 68 * 4, expect=_gemm_ref, tags=("wmma", "fp16", "tensor_core", "matmul", "shared"))


# ---- wmma_types.cu ------------------------------------------------------------------------

def _to_bf16(x):
    u = np.asarray(x, np.float32).view(np.uint32).astype(np.uint64)
    return ((u + 0x7fff + ((u >> 16) & 1)) >> 16).astype(np.uint16)


def _bf16_make(r):
    d = _gemm_make(32, 48, 32, in_dtype=np.float32)(r)
    d["abits"], d["bbits"] = _to_bf16(d["a"]), _to_bf16(d["bmem"])  # small integers: exact
    return d


case(id="wmma_bf16_gemm", src="wmma_types.cu", kernel="simple_wmma_bf16gemm", make=_bf16_make,
     args=(In("abits"), In("bbits"), In("c"), Out("d"), Val("m"), Val("n"), Val("k"),
           Val("alpha"), Val("beta")), block=(128, 4, 1), grid=(1, 1), expect=_gemm_ref,
     tags=("wmma", "bf16", "tensor_core", "matmul"))


def tf32_rna(x):
    """float32 to tf32 as cvt.rna.tf32.f32 (wmma::__float_to_tf32): the low 13 mantissa bits
    dropped after adding half their weight to the magnitude (to nearest, ties away from
    zero)."""
    u = np.asarray(x, np.float32).view(np.uint32).astype(np.uint64)
    finite = (u & 0x7f800000) != 0x7f800000
    r = np.where(finite, (u + 0x1000) & 0xffffe000, u)
    return r.astype(np.uint32).view(np.float32)


def _tf32_make(r):
    m = n = k = 32
    a = r.uniform(-2, 2, (m, k)).astype(np.float32)   # not tf32 values: the rounding shows
    b = r.uniform(-2, 2, (k, n)).astype(np.float32)
    return dict(a=a, b=b, bmem=np.ascontiguousarray(b.T),
                c=r.uniform(-2, 2, (m, n)).astype(np.float32),
                d=np.full((m, n), np.nan, np.float32), m=np.int32(m), n=np.int32(n),
                k=np.int32(k), alpha=np.float32(1.5), beta=np.float32(0.5))


def _tf32_ref(d):
    ab = tf32_rna(d["a"]).astype(np.float64) @ tf32_rna(d["b"]).astype(np.float64)
    return {"d": float(d["alpha"]) * ab + float(d["beta"]) * d["c"]}


# |A||B| summed over K = 32 stays below ~40: float accumulation errs by < 1e-5, while
# truncating instead of rounding to tf32 would move results by ~1e-3
case(id="wmma_tf32_gemm_float_to_tf32", src="wmma_types.cu", kernel="simple_wmma_tf32gemm",
     make=_tf32_make, args=GEMM_ARGS, block=(128, 4, 1), grid=(1, 1), expect=_tf32_ref,
     rtol=0, atol=1e-4, tags=("wmma", "tf32", "tensor_core", "matmul"))


def _dgemm_make(r):
    m, n, k = 16, 24, 16
    a, b = r.standard_normal((m, k)), r.standard_normal((k, n))
    return dict(a=a, b=b, bmem=np.ascontiguousarray(b.T), c=r.standard_normal((m, n)),
                d=np.full((m, n), np.nan), m=np.int32(m), n=np.int32(n), k=np.int32(k),
                alpha=np.float64(0.75), beta=np.float64(-1.25))


case(id="wmma_dmma_gemm_m8n8k4", src="wmma_types.cu", kernel="simple_wmma_dgemm",
     make=_dgemm_make, args=GEMM_ARGS, block=(128, 4, 1), grid=(1, 1), expect=_gemm_ref,
     rtol=1e-13, atol=1e-13, tags=("wmma", "fp64", "tensor_core", "matmul"))


def _imma_make(r):
    m, n, k = 32, 32, 48
    a = r.integers(0, 256, (m, k)).astype(np.uint8)
    b = r.integers(0, 256, (k, n)).astype(np.uint8)
    return dict(a=a, b=b, bmem=np.ascontiguousarray(b.T),
                c=r.integers(-10 ** 6, 10 ** 6, (m, n)).astype(np.int32),
                d=np.zeros((m, n), np.int32), m=np.int32(m), n=np.int32(n), k=np.int32(k),
                alpha=np.int32(3), beta=np.int32(-2))


def _imma_ref(d):
    ab = d["a"].astype(np.int64) @ d["b"].astype(np.int64)
    return {"d": (3 * ab - 2 * d["c"].astype(np.int64)).astype(np.int32)}


case(id="wmma_imma_gemm_uint8", src="wmma_types.cu", kernel="simple_wmma_imma",
     make=_imma_make, args=GEMM_ARGS, block=(128, 4, 1), grid=(1, 1), expect=_imma_ref,
     tags=("wmma", "int8", "tensor_core", "matmul"))


INT_MAX, INT_MIN = 2 ** 31 - 1, -2 ** 31


def _satf_make(r):
    a = r.integers(-128, 128, (16, 16)).astype(np.int8)
    a[0:4] = r.integers(1, 128, (4, 16))        # these rows' sums pass INT_MAX ...
    a[4:8] = r.integers(-128, 0, (4, 16))       # ... and these INT_MIN
    b = r.integers(1, 128, (16, 16)).astype(np.int8)
    d = r.integers(-1000, 1000, (16, 24)).astype(np.int32)   # ldm 24: wider than the tile
    d[0:4, :16] = INT_MAX - 1000
    d[4:8, :16] = INT_MIN + 1000
    return dict(a=a, b=b, d=d, ld=np.int32(24))


def _satf_ref(d):
    out = d["d"].astype(np.int64)
    out[:, :16] += d["a"].astype(np.int64) @ d["b"].astype(np.int64)
    return {"d": np.clip(out, INT_MIN, INT_MAX).astype(np.int32)}


case(id="wmma_imma_satf_saturates", src="wmma_types.cu", kernel="wmma_imma_satf",
     make=_satf_make, args=(In("a"), In("b"), InOut("d"), Val("ld")), block=(32, 1, 1),
     expect=_satf_ref, tags=("wmma", "int8", "tensor_core", "satf"))
