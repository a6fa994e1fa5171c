"""nvcuda::wmma (<mma.h>, the warp matrix functions) at its edges: every shape and type of
the Programming Guide's table, row_major and col_major fragments, accumulators loaded and
stored mem_row_major and mem_col_major, leading dimensions wider than the tile, element-wise
loops over fragments, the numerics (products exact, float accumulation, __half results,
__float_to_tf32's rounding, tf32 truncation, double's fused multiply-adds, int32 wrapping),
and on the simulator the errors a GPU leaves undefined: a call from part of a warp, lanes at
different calls, a load past an allocation, the sub-byte types it does not run. The
kernels written the way public code writes them are the corpus's (tests/corpus/wmma_*.cu).

Tests without a `sim` in their fixture run on the backend in use (the GPU's too): their
data are small integers where the answer must be exact in any order of summation."""
import fractions
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

drv = pytest.importorskip("pycudac.driver")

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(HERE, "corpus"))
from cases_wmma import tf32_rna  # noqa: E402


@pytest.fixture(scope="module")
def ctx(backend):
    import pycudac.autoinit  # noqa: F401
    return drv.Context.get_current()


@pytest.fixture(scope="module")
def sim(ctx, backend):
    if backend != "sim":
        pytest.skip("the simulator's own model and checks (a GPU leaves these undefined)")
    return ctx


def module(src):
    from pycudac.compiler import SourceModule
    return SourceModule("#include <mma.h>\nusing namespace nvcuda;\n" + textwrap.dedent(src))


# ---- shapes, types, layouts, leading dimensions -------------------------------------------

C_TYPE = {"half": "half", "bf16": "__nv_bfloat16", "s8": "signed char", "u8": "unsigned char",
          "tf32": "wmma::precision::tf32", "float": "float", "int": "int", "double": "double"}
PTR_TYPE = dict(C_TYPE, tf32="float")
NP = {"half": np.float16, "bf16": np.uint16, "s8": np.int8, "u8": np.uint8, "tf32": np.float32,
      "float": np.float32, "int": np.int32, "double": np.float64}

# (m, n, k, A/B type, A layout, B layout, C type, D type, C's mem layout, D's mem layout)
COMBOS = []
for _m, _n, _k in ((16, 16, 16), (32, 8, 16), (8, 32, 16)):
    for _i, (_la, _lb) in enumerate((("row", "col"), ("col", "col"), ("row", "row"),
                                     ("col", "row"))):
        COMBOS.append((_m, _n, _k, "half", _la, _lb, "float", "float",
                       ("row", "col")[_i % 2], ("col", "row")[_i // 2]))
    for _tc, _td in (("half", "half"), ("half", "float"), ("float", "half")):
        COMBOS.append((_m, _n, _k, "half", "row", "col", _tc, _td, "col", "row"))
COMBOS += [(32, 8, 16, "bf16", "col", "row", "float", "float", "row", "col"),
           (8, 32, 16, "bf16", "row", "col", "float", "float", "col", "col"),
           (16, 16, 16, "s8", "col", "row", "int", "int", "col", "row"),
           (32, 8, 16, "s8", "row", "row", "int", "int", "row", "col"),
           (8, 32, 16, "u8", "col", "col", "int", "int", "col", "col"),
           (16, 16, 8, "tf32", "col", "row", "float", "float", "col", "col"),
           (8, 8, 4, "double", "col", "row", "double", "double", "col", "row")]


def combo_name(c):
    return "mma_%dx%dx%d_%s_%s%s_%s_%s_%s%s" % c


def combo_kernel(c):
    m, n, k, ta, la, lb, tc, td, lc, ld = c
    return f"""
    __global__ void {combo_name(c)}(const {PTR_TYPE[ta]} *a, const {PTR_TYPE[ta]} *b,
                                    const {C_TYPE[tc]} *c, {C_TYPE[td]} *d,
                                    int lda, int ldb, int ldc, int ldd)
    {{
        wmma::fragment<wmma::matrix_a, {m}, {n}, {k}, {C_TYPE[ta]}, wmma::{la}_major> fa;
        wmma::fragment<wmma::matrix_b, {m}, {n}, {k}, {C_TYPE[ta]}, wmma::{lb}_major> fb;
        wmma::fragment<wmma::accumulator, {m}, {n}, {k}, {C_TYPE[tc]}> fc;
        wmma::fragment<wmma::accumulator, {m}, {n}, {k}, {C_TYPE[td]}> fd;
        wmma::load_matrix_sync(fa, a, lda);
        wmma::load_matrix_sync(fb, b, ldb);
        wmma::load_matrix_sync(fc, c, ldc, wmma::mem_{lc}_major);
        wmma::mma_sync(fd, fa, fb, fc);
        wmma::store_matrix_sync(d, fd, ldd, wmma::mem_{ld}_major);
    }}"""


@pytest.fixture(scope="module")
def combos(ctx):
    return module("".join(combo_kernel(c) for c in COMBOS))


def leading(dim, itemsize):
    """A leading dimension past the tile (8 or more spare elements), a multiple of 32
    bytes as the Programming Guide asks (16)."""
    ld = dim + 8
    while ld * itemsize % 32:
        ld += 1
    return ld


def in_memory(x, layout, ld, fill):
    """Matrix x in a buffer of leading dimension ld: rows (row) or columns (col) ld apart,
    the spare elements `fill`."""
    x = x if layout == "row" else x.T
    buf = np.full((x.shape[0], ld), fill, x.dtype)
    buf[:, :x.shape[1]] = x
    return buf


def as_type(x, t):
    if t == "bf16":  # small integers: exact in bfloat16, whose bits are a float32's top half
        return (x.astype(np.float32).view(np.uint32) >> 16).astype(np.uint16)
    return x.astype(NP[t])


@pytest.mark.parametrize("c", COMBOS, ids=combo_name)
def test_shape_type_and_layout(combos, c):
    """D = A B + C for each combination, every operand in its own layout with a leading
    dimension wider than the tile: exact (small integers), the spare elements untouched."""
    m, n, k, ta, la, lb, tc, td, lc, ld = c
    r = np.random.default_rng(abs(hash(combo_name(c))) % 2 ** 32)
    a, b = r.integers(-3, 4, (m, k)), r.integers(-3, 4, (k, n))
    cm = r.integers(-20, 21, (m, n))
    if ta == "u8":
        a, b = r.integers(0, 7, (m, k)), r.integers(0, 7, (k, n))
    item = np.dtype(NP[ta]).itemsize
    lda = leading(k if la == "row" else m, item)
    ldb = leading(n if lb == "row" else k, item)
    ldc = leading(n if lc == "row" else m, np.dtype(NP[tc]).itemsize)
    ldd = leading(n if ld == "row" else m, np.dtype(NP[td]).itemsize)
    sentinel = 77
    d = in_memory(np.zeros((m, n), NP[td]), ld, ldd, sentinel)
    combos.get_function(combo_name(c))(
        drv.In(in_memory(as_type(a, ta), la, lda, 99)),
        drv.In(in_memory(as_type(b, ta), lb, ldb, 99)),
        drv.In(in_memory(cm.astype(NP[tc]), lc, ldc, 99)), drv.InOut(d),
        np.int32(lda), np.int32(ldb), np.int32(ldc), np.int32(ldd), block=(32, 1, 1))
    want = a @ b + cm
    tile = d[:, :n] if ld == "row" else d[:, :m].T
    np.testing.assert_array_equal(tile.astype(np.float64), want)
    spare = d[:, n:] if ld == "row" else d[:, m:]
    assert (spare == sentinel).all()


# ---- element-wise loops over fragments ----------------------------------------------------

ELEMENTS = """
__global__ void owners(float *d, int *ne)
{
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> f;
    for (int i = 0; i < f.num_elements; i++)
        f.x[i] = threadIdx.x * f.num_elements + i;
    wmma::store_matrix_sync(d, f, 16, wmma::mem_col_major);
    if (threadIdx.x == 0)
        *ne = f.num_elements;
}

__global__ void scale_a(const half *a, const half *b, float *d)
{
    wmma::fragment<wmma::matrix_a, 32, 8, 16, half, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 32, 8, 16, half, wmma::col_major> fb;
    wmma::fragment<wmma::accumulator, 32, 8, 16, float> fc;
    wmma::load_matrix_sync(fa, a, 16);
    wmma::load_matrix_sync(fb, b, 16);
    for (int i = 0; i < fa.num_elements; i++)
        fa.x[i] = __float2half(3.0f * __half2float(fa.x[i]) - 1.0f);
    wmma::fill_fragment(fc, 0.5f);
    wmma::mma_sync(fc, fa, fb, fc);
    wmma::store_matrix_sync(d, fc, 8, wmma::mem_row_major);
}
"""


def test_each_accumulator_element_lives_in_one_lane(ctx):
    m = module(ELEMENTS)
    d, ne = np.zeros(256, np.float32), np.zeros(1, np.int32)
    m.get_function("owners")(drv.Out(d), drv.Out(ne), block=(32, 1, 1))
    assert ne[0] * 32 == 256
    assert sorted(d) == list(range(256))   # each value written by one lane, none twice


def test_element_loop_over_a_multiplicand(ctx):
    """fa.x[i] = 3 a - 1 for every element of A, then A' (32x16) times B (16x8) plus 0.5."""
    r = np.random.default_rng(5)
    a = r.integers(-4, 5, (32, 16)).astype(np.float16)
    b = r.integers(-4, 5, (16, 8)).astype(np.float16)
    d = np.zeros((32, 8), np.float32)
    module(ELEMENTS).get_function("scale_a")(drv.In(a), drv.In(np.ascontiguousarray(b.T)),
                                             drv.Out(d), block=(32, 1, 1))
    np.testing.assert_array_equal(d, (3 * a.astype(np.float64) - 1) @ b + 0.5)


def test_fragment_sizes_are_the_tile_over_the_warp(sim):
    """On the simulator every element is in exactly one lane: num_elements is the tile's
    size / 32 for every fragment (a GPU holds some __half elements twice)."""
    frags = [("matrix_a", 16, 16, 16, "half", ", wmma::row_major", 8),
             ("matrix_b", 32, 8, 16, "signed char", ", wmma::col_major", 4),
             ("matrix_a", 8, 32, 16, "__nv_bfloat16", ", wmma::col_major", 4),
             ("matrix_a", 16, 16, 8, "wmma::precision::tf32", ", wmma::row_major", 4),
             ("matrix_b", 8, 8, 4, "double", ", wmma::col_major", 1),
             ("accumulator", 8, 8, 4, "double", "", 2),
             ("accumulator", 32, 8, 16, "half", "", 8)]
    body = "".join(
        f"{{ wmma::fragment<wmma::{u}, {m_}, {n}, {k}, {t}{lay}> f; out[{i}] = f.num_elements; }}\n"
        for i, (u, m_, n, k, t, lay, _) in enumerate(frags))
    out = np.zeros(len(frags), np.int32)
    module(f"__global__ void sizes(int *out) {{ {body} }}").get_function("sizes")(
        drv.Out(out), block=(1, 1, 1))
    assert list(out) == [f[-1] for f in frags]


# ---- numerics -------------------------------------------------------------------------------

NUMERICS = """
__global__ void half_gemm(const half *a, const half *b, const float *c, float *d, half *dh)
{
    wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::row_major> fb;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> fc, fd;
    wmma::fragment<wmma::accumulator, 16, 16, 16, half> fh;
    wmma::load_matrix_sync(fa, a, 16);
    wmma::load_matrix_sync(fb, b, 16);
    wmma::load_matrix_sync(fc, c, 16, wmma::mem_row_major);
    wmma::mma_sync(fd, fa, fb, fc);
    wmma::mma_sync(fh, fa, fb, fc);
    wmma::store_matrix_sync(d, fd, 16, wmma::mem_row_major);
    wmma::store_matrix_sync(dh, fh, 16, wmma::mem_row_major);
}

__global__ void to_tf32(const float *x, float *y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = wmma::__float_to_tf32(x[i]);
}

// A's floats as they are (no __float_to_tf32), times the identity
__global__ void tf32_raw(const float *a, const float *eye, float *d)
{
    wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, 8, wmma::precision::tf32, wmma::row_major> fb;
    wmma::fragment<wmma::accumulator, 16, 16, 8, float> fc;
    wmma::load_matrix_sync(fa, a, 8);
    wmma::load_matrix_sync(fb, eye, 16);
    wmma::fill_fragment(fc, 0.0f);
    wmma::mma_sync(fc, fa, fb, fc);
    wmma::store_matrix_sync(d, fc, 16, wmma::mem_row_major);
}

__global__ void dgemm(const double *a, const double *b, const double *c, double *d)
{
    wmma::fragment<wmma::matrix_a, 8, 8, 4, double, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 8, 8, 4, double, wmma::row_major> fb;
    wmma::fragment<wmma::accumulator, 8, 8, 4, double> fc;
    wmma::load_matrix_sync(fa, a, 4);
    wmma::load_matrix_sync(fb, b, 8);
    wmma::load_matrix_sync(fc, c, 8, wmma::mem_row_major);
    wmma::mma_sync(fc, fa, fb, fc);
    wmma::store_matrix_sync(d, fc, 8, wmma::mem_row_major);
}

__global__ void imma_wrap(const signed char *a, const signed char *b, int *d, int satf)
{
    wmma::fragment<wmma::matrix_a, 16, 16, 16, signed char, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, signed char, wmma::row_major> fb;
    wmma::fragment<wmma::accumulator, 16, 16, 16, int> fc;
    wmma::load_matrix_sync(fa, a, 16);
    wmma::load_matrix_sync(fb, b, 16);
    wmma::load_matrix_sync(fc, d, 16, wmma::mem_row_major);
    wmma::mma_sync(fc, fa, fb, fc, satf != 0);
    wmma::store_matrix_sync(d, fc, 16, wmma::mem_row_major);
}
"""


@pytest.fixture(scope="module")
def numerics(ctx):
    return module(NUMERICS)


def test_half_products_are_summed_in_float(numerics, backend):
    """Random __half inputs: the products are exact in float, so D (float) differs from the
    exact sum only by the float additions; a __half D is that sum rounded to __half."""
    r = np.random.default_rng(11)
    a = r.standard_normal((16, 16)).astype(np.float16)
    b = r.standard_normal((16, 16)).astype(np.float16)
    c = r.standard_normal((16, 16)).astype(np.float32)
    d, dh = np.zeros((16, 16), np.float32), np.zeros((16, 16), np.float16)
    numerics.get_function("half_gemm")(drv.In(a), drv.In(b), drv.In(c), drv.Out(d),
                                       drv.Out(dh), block=(32, 1, 1))
    exact = a.astype(np.float64) @ b.astype(np.float64) + c
    scale = np.abs(a).astype(np.float64) @ np.abs(b).astype(np.float64) + np.abs(c)
    ulps = 17 if backend == "sim" else 4 * 17  # 16 additions rounded; a GPU's own order
    assert (np.abs(d - exact) <= ulps * 2.0 ** -24 * scale).all()
    assert (np.abs(dh.astype(np.float64) - exact) <= 2.0 ** -11 * np.abs(exact) +
            ulps * 2.0 ** -24 * scale + 2.0 ** -24).all()
    if backend == "sim":  # the simulator's model: the float D rounded once
        np.testing.assert_array_equal(dh, d.astype(np.float16))


SPECIALS = np.array([0.0, -0.0, 1.0, 1 + 2 ** -11, 1 + 2 ** -10 + 2 ** -11, -(1 + 2 ** -11),
                     1 + 2 ** -11 - 2 ** -23, 3.4028235e38, 1.1754944e-38, 1e-40, -7e-39,
                     np.inf, -np.inf, 1234.5678, -0.1], np.float32)


def test_float_to_tf32_rounds_to_nearest_ties_away(numerics):
    """wmma::__float_to_tf32 is cvt.rna.tf32.f32: 10 mantissa bits kept, to nearest, ties
    away from zero (1 + 2^-11 goes up to 1 + 2^-10, as does 1 + 2^-10 + 2^-11 to 1 + 2^-9);
    FLT_MAX rounds to infinity, subnormals keep their top bits."""
    r = np.random.default_rng(3)
    x = np.concatenate([SPECIALS, r.standard_normal(500).astype(np.float32) * 100,
                        (r.integers(0, 2 ** 32, 500, dtype=np.uint64).astype(np.uint32)
                         .view(np.float32))])
    x = x[~np.isnan(x)]
    y = np.zeros_like(x)
    numerics.get_function("to_tf32")(drv.In(x), drv.Out(y), np.int32(x.size),
                                     block=(128, 1, 1), grid=((x.size + 127) // 128, 1))
    np.testing.assert_array_equal(y.view(np.uint32), tf32_rna(x).view(np.uint32))
    assert y[3] == 1 + 2 ** -10 and y[4] == 1 + 2 ** -9 and y[5] == -(1 + 2 ** -10)
    assert y[7] == np.inf


def test_tf32_inputs_keep_only_tf32_bits(numerics, sim):
    """Inputs not rounded with __float_to_tf32: mma_sync uses their top 19 bits only (the
    low 13 mantissa bits dropped, towards zero), as the simulator models a GPU."""
    r = np.random.default_rng(4)
    a = r.standard_normal((16, 8)).astype(np.float32)
    eye = np.eye(8, 16, dtype=np.float32)
    d = np.zeros((16, 16), np.float32)
    numerics.get_function("tf32_raw")(drv.In(a), drv.In(eye), drv.Out(d), block=(32, 1, 1))
    trunc = (a.view(np.uint32) & np.uint32(0xffffe000)).view(np.float32)
    np.testing.assert_array_equal(d[:, :8], trunc)
    assert (d[:, :8] != a).any() and (d[:, 8:] == 0).all()


def _fma_sequence(c, products):
    s = fractions.Fraction(float(c))
    for x, y in products:
        s = fractions.Fraction(float(s + fractions.Fraction(float(x)) * fractions.Fraction(float(y))))
    return float(s)


def test_double_is_a_chain_of_fused_multiply_adds(numerics, backend):
    """Each element is C, then fma(A[r][q], B[q][c], .) for q = 0..3 (each step rounded
    once): bit for bit on the simulator, within a few ulps on a GPU."""
    r = np.random.default_rng(9)
    a, b, c = r.standard_normal((8, 4)), r.standard_normal((4, 8)), r.standard_normal((8, 8))
    a[0, 0], b[0, 0], c[0, 0] = 1 + 2 ** -30, 1 - 2 ** -30, -1.0   # fma keeps the -2^-60
    d = np.zeros((8, 8))
    numerics.get_function("dgemm")(drv.In(a), drv.In(b), drv.In(c), drv.Out(d), block=(32, 1, 1))
    want = np.array([[_fma_sequence(c[i, j], zip(a[i], b[:, j])) for j in range(8)]
                     for i in range(8)])
    if backend == "sim":
        np.testing.assert_array_equal(d, want)
    else:
        np.testing.assert_allclose(d, want, rtol=1e-14, atol=1e-15)


def test_int32_accumulation_wraps_without_satf(numerics, sim):
    a = np.full((16, 16), 100, np.int8)
    b = np.full((16, 16), 100, np.int8)
    d0 = np.full((16, 16), 2 ** 31 - 1000, np.int32)
    for satf, want in ((0, (int(d0[0, 0]) + 160000 + 2 ** 31) % 2 ** 32 - 2 ** 31), (1, 2 ** 31 - 1)):
        d = d0.copy()
        numerics.get_function("imma_wrap")(drv.In(a), drv.In(b), drv.InOut(d), np.int32(satf),
                                           block=(32, 1, 1))
        assert (d == want).all(), (satf, d[0, 0], want)


# ---- what a GPU leaves undefined: errors on the simulator -----------------------------------

PARTIAL = """
#include <mma.h>
using namespace nvcuda;
__global__ void partial(const half *a, float *d, int mode)
{
    if (mode == 1 && threadIdx.x % 32 >= 16)
        return;                                   // half of each warp leaves
    wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> fb;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> fc;
    if (mode == 2 && threadIdx.x % 32 < 8)
        wmma::load_matrix_sync(fa, a + 256, 16);  // eight lanes at another call
    else
        wmma::load_matrix_sync(fa, a, 16);
    wmma::load_matrix_sync(fb, a, 16);
    wmma::fill_fragment(fc, 0.0f);
    wmma::mma_sync(fc, fa, fb, fc);
    wmma::store_matrix_sync(d + blockIdx.x * 256, fc, 16, wmma::mem_row_major);
}
"""


@pytest.fixture(scope="module")
def partial_checked(sim):
    from pycudac.compiler import SourceModule
    with drv.sim_check("all"):
        return SourceModule(PARTIAL).get_function("partial")


@pytest.mark.parametrize("mode, block, schedule, fragments", [
    (0, 48, None, ("wmma::load_matrix_sync (line 14) is warp-wide and needs all 32 lanes",
                   "warp 1 of the block has 16 threads")),
    # lanes 0..15 wait at the call when lane 16 exits ...
    (1, 64, None, ("wmma::load_matrix_sync (line 14) not reached by every lane of the warp",
                   "lane 16 of warp 0 exited while lanes 0x0000ffff wait there")),
    # ... or, the threads run in reverse, lane 15 comes when 16..31 have gone
    (1, 64, "reverse", ("wmma::load_matrix_sync (line 14) not reached by every lane",
                        "lanes 0xffff0000 of warp 1 have already exited")),
    (2, 32, None, ("the lanes of warp 0 are at different calls",
                   "wmma::load_matrix_sync (line 12)", "wmma::load_matrix_sync (line 14)")),
])
def test_a_partial_warp_is_a_synccheck_error(partial_checked, mode, block, schedule,
                                             fragments):
    """wmma's calls are warp-wide: in check mode a call from part of a warp (a block that
    is no multiple of 32, lanes that returned, lanes at another call) is synccheck's error,
    reported and raised as CheckError, and the process goes on."""
    a = drv.to_device(np.ones(512, np.float16))
    d = drv.mem_alloc(4 * 256 * 2)
    with drv.sim_check("all", schedule=schedule) as chk:
        with pytest.raises(drv.CheckError) as ei:
            partial_checked(a, d, np.int32(mode), block=(block, 1, 1), grid=(1, 1))
    (r,) = [r for r in chk.reports if r["tool"] == "synccheck"]
    assert r["error"] and r["kernel"] == "partial"
    for frag in fragments:
        assert frag in r["message"], (frag, r["message"])
        assert frag in str(ei.value)
    assert not drv.is_poisoned()
    partial_checked(a, d, np.int32(0), block=(64, 1, 1), grid=(2, 1))  # a whole warp: fine
    drv.Context.synchronize()


def test_a_partial_warp_outside_check_mode_is_a_launch_failure(sim):
    """Without check mode the same call fails the launch (sticky, as a barrier that not
    every thread reaches does), in a child process."""
    code = textwrap.dedent(f"""
        import numpy as np
        import pycudac.autoinit
        import pycudac.driver as drv
        from pycudac.compiler import SourceModule
        f = SourceModule({PARTIAL!r}).get_function("partial")
        a = drv.to_device(np.ones(512, np.float16))
        f(a, drv.mem_alloc(4096), np.int32(1), block=(64, 1, 1))
        try:
            drv.Context.synchronize()
        except drv.LaunchError as e:
            print("ERROR:", e)
        print("POISONED:", drv.is_poisoned())
    """)
    env = dict(os.environ, PYCUDAC_BACKEND="sim", PYTHONPATH=ROOT)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=300, env=env, cwd=ROOT).stdout
    assert "CUDA_ERROR_LAUNCH_FAILED" in out and "kernel 'partial'" in out, out
    assert "not reached by every lane of the warp" in out and "POISONED: True" in out


def test_a_load_past_the_allocation_is_memcheck_error(sim):
    """load_matrix_sync reads through the simulator's checked accesses: a 16x16 tile from
    an allocation of 15 rows is an out-of-bounds read at the call's line."""
    from pycudac.compiler import SourceModule
    src = textwrap.dedent("""
        #include <mma.h>
        using namespace nvcuda;
        __global__ void short_tile(const half *a, float *d)
        {
            wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa;
            wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> fb;
            wmma::fragment<wmma::accumulator, 16, 16, 16, float> fc;
            wmma::load_matrix_sync(fa, a, 16);
            wmma::fill_fragment(fb, 1.0f);
            wmma::fill_fragment(fc, 0.0f);
            wmma::mma_sync(fc, fa, fb, fc);
            wmma::store_matrix_sync(d, fc, 16, wmma::mem_row_major);
        }""")
    with drv.sim_check("memcheck", raise_errors=False) as chk:
        f = SourceModule(src).get_function("short_tile")
        a = drv.to_device(np.ones(15 * 16, np.float16))
        f(a, drv.mem_alloc(4 * 256), block=(32, 1, 1))
    assert chk.reports, "no report"
    (r,) = {(r["kind"], r["line"], r["is_write"], r["alloc_size"]): r
            for r in chk.reports}.values()
    assert (r["tool"], r["kind"], r["space"]) == ("memcheck", "out-of-bounds", "global")
    assert r["line"] == 9 and not r["is_write"] and r["alloc_size"] == 480
    assert r["offset"] >= 480 and r["kernel"] == "short_tile"
    assert r["count"] == 1    # the block stops at the first bad access
    assert not drv.is_poisoned()


SUBBYTE = """
#include <mma.h>
using namespace nvcuda;
__global__ void s4(const void *a, const void *b, int *d)
{
    wmma::fragment<wmma::matrix_a, 8, 8, 32, wmma::experimental::precision::s4,
                   wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 8, 8, 32, wmma::experimental::precision::s4,
                   wmma::col_major> fb;
    wmma::fragment<wmma::accumulator, 8, 8, 32, int> fc;
    wmma::load_matrix_sync(fa, a, 32);
    wmma::load_matrix_sync(fb, b, 32);
    wmma::fill_fragment(fc, 0);
    wmma::mma_sync(fc, fa, fb, fc);
    wmma::store_matrix_sync(d, fc, 8, wmma::mem_row_major);
}
"""


def _nvrtc_available():
    from pycudac import _driver
    try:
        _driver._nvrtc_path()
        return True
    except Exception:
        return False


def _verdict(src, target):
    from pycudac.compiler import CompileError, compile as cuda_compile
    kw = dict(arch="sm_90") if target == "nvrtc" else dict(target="sim")
    try:
        cuda_compile(src, **kw)
        return True, ""
    except CompileError as exc:
        return False, str(exc)


def test_sub_byte_types_are_refused_by_name(ctx):
    """The experimental sub-byte types (u4, s4, b1) are the simulator's documented limit
    (docs/simulator.md): a CompileError naming them, though NVRTC takes the source."""
    ok, text = _verdict(SUBBYTE, "sim")
    assert not ok
    assert "sub-byte tensor-core type" in text and "precision::s4" in text
    assert "cannot run on the pycudac CPU simulator" in text and ":6:" in text
    if _nvrtc_available():
        assert _verdict(SUBBYTE, "nvrtc") == (True, "")


MISUSES = {
    "accumulator_load_without_layout": """
        wmma::fragment<wmma::accumulator, 16, 16, 16, float> c;
        wmma::load_matrix_sync(c, p, 16);""",
    "multiplicand_load_with_layout": """
        wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> a;
        wmma::load_matrix_sync(a, h, 16, wmma::mem_row_major);""",
    "store_of_a_multiplicand": """
        wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> b;
        wmma::store_matrix_sync(h, b, 16, wmma::mem_row_major);""",
    "bf16_with_half_accumulator": """
        wmma::fragment<wmma::matrix_a, 16, 16, 16, __nv_bfloat16, wmma::row_major> a;
        wmma::fragment<wmma::matrix_b, 16, 16, 16, __nv_bfloat16, wmma::col_major> b;
        wmma::fragment<wmma::accumulator, 16, 16, 16, half> c;
        wmma::mma_sync(c, a, b, c);""",
    "satf_on_half": """
        wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> a;
        wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> b;
        wmma::fragment<wmma::accumulator, 16, 16, 16, float> c;
        wmma::mma_sync(c, a, b, c, true);""",
    "half_at_the_tf32_shape": """
        wmma::fragment<wmma::matrix_a, 16, 16, 8, half, wmma::row_major> a;
        a.x[0] = h[0];""",
    "accumulator_with_a_layout": """
        wmma::fragment<wmma::accumulator, 16, 16, 16, float, wmma::row_major> c;
        c.x[0] = p[0];""",
    "tf32_from_a_half_pointer": """
        wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, wmma::row_major> a;
        wmma::load_matrix_sync(a, h, 8);""",
}


@pytest.mark.parametrize("name", sorted(MISUSES))
def test_misuse_is_refused_as_nvrtc_refuses_it(ctx, name):
    """What CUDA's <mma.h> has no overload or fragment for, the simulator refuses too."""
    src = ("#include <mma.h>\nusing namespace nvcuda;\n"
           "__global__ void k(float *p, half *h)\n{" + MISUSES[name] + "\n}\n")
    ok, text = _verdict(src, "sim")
    assert not ok and any(w in text for w in ("matrix_sync", "mma_sync", "wmma::fragment"))
    if _nvrtc_available():
        assert not _verdict(src, "nvrtc")[0]
