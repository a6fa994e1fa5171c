"""Reductions (sum/min/max/any/all/dot, sum along an axis) and PyCUDA's
ReductionKernel (with range=/slice=/out=), checked against NumPy on every
dtype and around the kernel's warp and block sizes; complex min/max in
NumPy's order; the generated CUDA compiled by NVRTC where it is installed."""
import re

import numpy as np
import pytest

DTYPES = [np.bool_, np.int8, np.uint16, np.int32, np.uint64, np.float16, np.float32, np.float64,
          np.complex64, np.complex128]


pytestmark = pytest.mark.usefixtures("autoinit")  # ga and autoinit: conftest.py


def sample(dtype, n, seed=0):
    rng = np.random.default_rng(seed)
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        return rng.integers(0, 2, n).astype(bool)
    if dtype.kind in "iu":
        return rng.integers(0 if dtype.kind == "u" else -50, 50, n).astype(dtype)
    if dtype.kind == "c":
        return (rng.standard_normal(n) + 1j * rng.standard_normal(n)).astype(dtype)
    return rng.standard_normal(n).astype(dtype)


def close(got, expected, n=1):
    expected = np.asarray(expected)
    assert got.dtype == expected.dtype, (got.dtype, expected.dtype)
    if expected.dtype.kind in "fc":
        rtol = {2: 1e-2, 4: 1e-4, 8: 1e-10, 16: 1e-10}[expected.dtype.itemsize]
        if expected.dtype == np.complex64:
            rtol = 1e-4
        np.testing.assert_allclose(got, expected, rtol=rtol, atol=rtol * np.sqrt(n) * 4)
    else:
        np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n", [1, 37, 20000])
def test_reductions_every_dtype(ga, dtype, n):
    x = sample(dtype, n, seed=n)
    a = ga.to_gpu(x)
    s = a.sum()
    assert s.shape == ()
    close(s.get(), np.sum(x), n)
    close(a.max().get(), np.max(x))
    close(a.min().get(), np.min(x))
    close(a.any().get(), np.any(x))
    close(a.all().get(), np.all(x))
    close(ga.all(a).get(), np.all(x))


@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.complex128, np.bool_])
def test_dot(ga, dtype):
    x, y = sample(dtype, 5000, 1), sample(dtype, 5000, 2)
    close(ga.dot(ga.to_gpu(x), ga.to_gpu(y)).get(), np.dot(x, y), 5000)


def test_dot_mixed_and_2d(ga):
    x, y = sample(np.float32, (30, 20), 1), sample(np.int16, (30, 20), 2)
    a, b = ga.to_gpu(x), ga.to_gpu(y)
    close(a.dot(b).get(), np.sum(x * y).astype(np.float32), 600)


def test_strided_and_unaligned_inputs(ga):
    x = sample(np.float32, 10001, 3)
    a = ga.to_gpu(x)
    close(a[1:].sum().get(), x[1:].sum(), 10000)
    close(a[::3].max().get(), x[::3].max())
    m = ga.to_gpu(x[:10000].reshape(100, 100))
    close(m.T.sum().get(), x[:10000].sum(), 10000)


def test_nan_propagates_in_max_min(ga):
    x = np.arange(1000, dtype=np.float64)
    x[500] = np.nan
    a = ga.to_gpu(x)
    assert np.isnan(a.max().get()) and np.isnan(a.min().get())


def test_empty(ga):
    e = ga.to_gpu(np.zeros(0, np.float32))
    assert e.sum().get() == 0 and e.sum().dtype == np.float32
    assert bool(e.all().get()) is True and bool(e.any().get()) is False
    with pytest.raises(ValueError, match="zero-size"):
        e.max()


@pytest.mark.parametrize("shape,axis", [((7, 9), 0), ((7, 9), 1), ((3, 4, 5), 1),
                                        ((3, 4, 5), -1), ((3, 4, 5), (0, 2)), ((6, 0), 1)])
def test_sum_axis(ga, shape, axis):
    x = sample(np.float64, int(np.prod(shape)), 4).reshape(shape)
    close(ga.to_gpu(x).sum(axis=axis).get(), x.sum(axis=axis), 100)
    xi = sample(np.int8, int(np.prod(shape)), 5).reshape(shape)
    close(ga.sum(ga.to_gpu(xi), axis=axis).get(), xi.sum(axis=axis))


@pytest.mark.parametrize("axis", [0, 1, (0, 1)])
def test_max_min_any_all_axis(ga, axis):
    x = sample(np.float32, 6 * 50, 10).reshape(6, 50)
    x[2, 3] = np.nan
    a = ga.to_gpu(x)
    close(a.max(axis=axis).get(), x.max(axis=axis))
    close(ga.min(a, axis=axis).get(), x.min(axis=axis))
    xi = sample(np.int16, 6 * 50, 11).reshape(6, 50) > 40
    b = ga.to_gpu(xi)
    close(b.any(axis=axis).get(), xi.any(axis=axis))
    close(ga.all(b.T, axis=axis).get(), xi.T.all(axis=axis))
    e = ga.to_gpu(np.zeros((3, 0), np.float32))
    close(e.any(axis=1).get(), np.zeros(3, bool))
    close(e.all(axis=1).get(), np.ones(3, bool))
    with pytest.raises(ValueError, match="zero-size"):
        e.max(axis=1)


def test_axis_reduction_column_kernel(ga):
    """Outputs adjacent in memory (axis=0 of a C array) take the
    thread-per-output kernel."""
    x = sample(np.float32, 40 * 300, 12).reshape(40, 300)
    a = ga.to_gpu(x)
    close(a.sum(axis=0).get(), x.sum(axis=0), 40)
    close(a.max(axis=0).get(), x.max(axis=0))
    close(a[:, ::2].min(axis=0).get(), x[:, ::2].min(axis=0))
    close((a > 0).all(axis=0).get(), (x > 0).all(axis=0))


def test_sum_axis_of_view(ga):
    x = sample(np.float32, 24 * 10, 6).reshape(24, 10)
    a = ga.to_gpu(x)
    close(a[::2, 1:].sum(axis=0).get(), x[::2, 1:].sum(axis=0), 20)
    close(a.T.sum(axis=1).get(), x.T.sum(axis=1), 20)


def test_reduction_kernel(ga):
    from pycudac.reduction import ReductionKernel
    dot = ReductionKernel(np.float64, neutral="0", reduce_expr="a+b",
                          map_expr="x[i]*y[i]", arguments="const double *x, const double *y")
    x, y = sample(np.float64, 3000, 7), sample(np.float64, 3000, 8)
    close(dot(ga.to_gpu(x), ga.to_gpu(y)).get(), np.dot(x, y), 3000)
    mx = ReductionKernel(np.int32, neutral="-2147483647-1", reduce_expr="a > b ? a : b",
                         arguments="const int *v")
    v = sample(np.int32, 777, 9)
    assert mx(ga.to_gpu(v)).get() == v.max()
    with pytest.raises(TypeError, match="expected 2 arguments"):
        dot(ga.to_gpu(x))


def test_bad_input(ga):
    a = ga.to_gpu(np.zeros(4, np.float32))
    with pytest.raises(ValueError, match="shapes"):
        ga.dot(a, ga.to_gpu(np.zeros(5, np.float32)))
    with pytest.raises(TypeError, match="GPUArray"):
        ga.dot(a, np.zeros(4))
    with pytest.raises(ValueError, match="zero-size"):
        ga.to_gpu(np.zeros(0, np.complex64)).max()


# ------------------------------------------------- every dtype, every size class
# Sizes around the kernel's shapes: one warp (31/32/33), one block (255..257
# threads' worth with 4-element vector loads: 1023/1025), several blocks and
# pass 2 (large), and the empty array.
SIZES = [0, 1, 2, 31, 32, 33, 255, 1023, 1025, 4097, 262147]
ALL_DTYPES = [np.bool_, np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64,
              np.uint64, np.float16, np.float32, np.float64, np.complex64, np.complex128]


def extremes(x):
    """Put the dtype's extreme values into x (min/max must not rely on a
    neutral element that could beat them)."""
    dtype = x.dtype
    if dtype.kind in "iu" and x.size >= 3:
        info = np.iinfo(dtype)
        x[x.size // 3] = info.max
        x[2 * x.size // 3] = info.min
    return x


def sum_close(got, x):
    expected = np.sum(x)
    assert got.dtype == expected.dtype, (got.dtype, expected.dtype)
    if x.dtype.kind in "fc":
        # against an exact-ish reference: NumPy's own float16/32 sums round too
        exact = np.sum(x.astype(np.complex128 if x.dtype.kind == "c" else np.float64))
        eps = np.finfo(x.dtype).eps
        scale = np.sum(np.abs(x.astype(np.complex128))) + 1
        assert abs(complex(got) - complex(exact)) <= 4 * eps * scale, (got, exact)
    else:
        assert got == expected, (got, expected)


@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_sum_min_max_any_all_sizes(ga, dtype):
    for n in SIZES:
        x = extremes(sample(dtype, n, seed=n + 1))
        a = ga.to_gpu(x)
        sum_close(a.sum().get(), x)
        if n:
            # exact: min/max only pick elements
            for got, ref in ((a.max(), np.max(x)), (a.min(), np.min(x))):
                assert got.dtype == ref.dtype and got.get() == ref, (n, got.get(), ref)
        assert bool(a.any().get()) == np.any(x), n
        assert bool(a.all().get()) == np.all(x), n


@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_dot_sizes(ga, dtype):
    for n in SIZES:
        x, y = sample(dtype, n, 2 * n + 1), sample(dtype, n, 2 * n + 2)
        got = ga.dot(ga.to_gpu(x), ga.to_gpu(y)).get()
        expected = np.dot(x, y) if n else np.dot(x, y).astype(np.result_type(x, y))
        assert got.dtype == expected.dtype, (got.dtype, expected.dtype)
        if expected.dtype.kind in "fc":
            wide = np.complex128 if expected.dtype.kind == "c" else np.float64
            exact = np.dot(x.astype(wide), y.astype(wide))
            scale = np.sum(np.abs(x.astype(np.complex128) * y)) + 1
            assert abs(complex(got) - complex(exact)) <= 4 * np.finfo(expected.dtype).eps * \
                scale, (n, got, exact)
        else:
            assert got == expected, (n, got, expected)


def test_dot_unaligned_views(ga):
    x, y = sample(np.float32, 5003, 21), sample(np.float32, 5003, 22)
    a, b = ga.to_gpu(x), ga.to_gpu(y)
    close(ga.dot(a[1:], b[:-1]).get(), np.dot(x[1:], y[:-1]), 5000)
    close(ga.dot(a[3:], b[3:]).get(), np.dot(x[3:], y[3:]), 5000)


# ------------------------------------------------- complex min/max

@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_complex_min_max_lexicographic(ga, dtype):
    rng = np.random.default_rng(30)
    # few distinct real parts: the imaginary part decides between equal ones
    for n in (1, 33, 1025, 70001):
        x = (rng.integers(-3, 4, n) + 1j * rng.standard_normal(n)).astype(dtype)
        a = ga.to_gpu(x)
        assert a.max().get() == np.max(x) and a.max().dtype == dtype
        assert a.min().get() == np.min(x) and ga.min(a).dtype == dtype
    x = np.array([1 + 5j, 1 + 2j, 0 + 9j, -1 - 9j, 1 + 5j, -1 - 10j], dtype)
    a = ga.to_gpu(x)
    assert a.max().get() == 1 + 5j and a.min().get() == -1 - 10j


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_complex_min_max_nan(ga, dtype):
    n = 3000
    for pos, bad in ((0, complex(np.nan, 0)), (1500, complex(2, np.nan)),
                     (n - 1, complex(np.nan, np.nan))):
        x = sample(dtype, n, 31)
        x[pos] = bad
        a = ga.to_gpu(x)
        for got, ref in ((a.max().get(), np.max(x)), (a.min().get(), np.min(x))):
            # one NaN element: it is the result, as in NumPy
            np.testing.assert_array_equal(got, ref)
            assert np.isnan(got)


@pytest.mark.parametrize("axis", [0, 1])
def test_complex_min_max_axis(ga, axis):
    rng = np.random.default_rng(32)
    x = (rng.integers(-2, 3, (70, 90)) + 1j * rng.integers(-5, 5, (70, 90))).astype(np.complex64)
    x[5, 7] = complex(np.nan, 1)
    a = ga.to_gpu(x)
    np.testing.assert_array_equal(a.max(axis=axis).get(), x.max(axis=axis))
    np.testing.assert_array_equal(a.min(axis=axis).get(), x.min(axis=axis))
    np.testing.assert_array_equal(a.T.max(axis=axis).get(), x.T.max(axis=axis))


# ------------------------------------------------- ReductionKernel: range=, slice=, out=

@pytest.fixture(scope="module")
def weighted():
    """sum(x[i] * i): the map expression sees the real index."""
    from pycudac.reduction import ReductionKernel
    return ReductionKernel(np.float64, neutral="0", reduce_expr="a+b",
                           map_expr="x[i] * (double)i", arguments="const double *x")


@pytest.mark.parametrize("sl", [slice(None), slice(3, 900, 7), slice(-5, None),
                                slice(None, -3), slice(None, None, -1), slice(900, 3, -13),
                                slice(-2, -900, -5), slice(5, 5), slice(10, 2),
                                slice(-10**9, 10**9), slice(None, None, 2)])
@pytest.mark.parametrize("n", [1, 1000, 100003])
def test_reduction_kernel_slice(ga, weighted, sl, n):
    x = sample(np.float64, n, 40)
    a = ga.to_gpu(x)
    expected = (x * np.arange(n))[sl].sum()
    np.testing.assert_allclose(weighted(a, slice=sl).get(), expected, rtol=1e-12,
                               atol=1e-9 * n)


@pytest.mark.parametrize("rng_", [slice(0, 1000), slice(10, 0, -1), slice(999, -1, -1),
                                  slice(4, 1000, 3), slice(7, 7), slice(0, 1000, None),
                                  slice(None, 500), range(1, 1000, 2), range(998, 0, -4)])
def test_reduction_kernel_range(ga, weighted, rng_):
    x = sample(np.float64, 1000, 41)
    idx = list(range(0 if rng_.start is None else rng_.start, rng_.stop,
                     1 if rng_.step is None else rng_.step))
    expected = float(np.sum(x[idx] * np.array(idx, np.float64))) if idx else 0.0
    np.testing.assert_allclose(weighted(ga.to_gpu(x), range=rng_).get(), expected,
                               rtol=1e-12, atol=1e-9)


def test_reduction_kernel_range_bad(ga, weighted):
    a = ga.to_gpu(np.zeros(10))
    with pytest.raises(TypeError, match="not both"):
        weighted(a, range=slice(0, 5), slice=slice(0, 5))
    with pytest.raises(ValueError, match="step must not be 0"):
        weighted(a, range=slice(0, 5, 0))
    with pytest.raises(ValueError, match="stop"):
        weighted(a, range=slice(2, None))
    with pytest.raises(TypeError, match="slice"):
        weighted(a, slice=(0, 5))
    with pytest.raises(ValueError, match="step cannot be zero"):
        weighted(a, slice=slice(0, 5, 0))
    # indices outside every array argument, or arrays of another element size
    for r in (slice(-50, 2, 1), slice(0, 11, 1), slice(2 ** 62, 2 ** 62 + 2, 1)):
        with pytest.raises(ValueError, match="outside the array arguments"):
            weighted(a, range=r)
    with pytest.raises(TypeError, match="GPUArray of float32.*reads float64"):
        weighted(ga.to_gpu(np.zeros(10, np.float32)))


def test_reduction_kernel_neutral_on_empty(ga):
    from pycudac.reduction import ReductionKernel
    mn = ReductionKernel(np.float32, neutral="3.5f", reduce_expr="fminf(a, b)",
                         arguments="const float *x")
    a = ga.to_gpu(np.arange(100, dtype=np.float32) + 10)
    assert mn(a, slice=slice(50, 50)).get() == np.float32(3.5)
    assert mn(a, slice=slice(50, 60)).get() == np.float32(3.5)
    assert mn(a - 100, slice=slice(50, 60)).get() == np.float32(-40)
    assert mn(ga.to_gpu(np.zeros(0, np.float32))).get() == np.float32(3.5)


def test_reduction_kernel_out_and_stream(ga, weighted):
    from pycudac import driver
    x = sample(np.float64, 50000, 42)
    a = ga.to_gpu(x)
    out = ga.empty((), np.float64)
    s = driver.Stream()
    assert weighted(a, out=out, stream=s) is out
    s.synchronize()
    np.testing.assert_allclose(out.get(), np.sum(x * np.arange(50000)), rtol=1e-11)
    out1 = ga.empty((1,), np.float64)
    weighted(a, slice=slice(0, 10), out=out1)
    np.testing.assert_allclose(out1.get()[0], np.sum(x[:10] * np.arange(10)), rtol=1e-12)
    with pytest.raises(ValueError, match="one element of dtype float64"):
        weighted(a, out=ga.empty((), np.float32))
    with pytest.raises(ValueError, match="one element"):
        weighted(a, out=ga.empty((2,), np.float64))
    with pytest.raises(TypeError, match="out= must be a GPUArray"):
        weighted(a, out=np.zeros(()))


@pytest.mark.parametrize("dtype,ctype", [(np.int8, "signed char"), (np.uint16, "unsigned short"),
                                         (np.float16, None), (np.complex64, "pcc_complex64"),
                                         (np.complex128, "pcc_complex128"), (np.bool_, "bool"),
                                         (np.uint64, "unsigned long long")])
def test_reduction_kernel_small_and_wide_types(ga, dtype, ctype):
    """Values of 1, 2, 8 and 16 bytes through the in-block shuffles."""
    from pycudac.reduction import ReductionKernel
    if dtype == np.float16:
        # sum in half storage, one rounding per combine: compare with a max instead
        k = ReductionKernel(np.float16, neutral="pcc_f2h(-1e4f)",
                            reduce_expr="pcc_h2f(a) > pcc_h2f(b) ? a : b",
                            arguments="const pcc_half *x")
        for n in (1, 31, 33, 1025, 70001):
            x = sample(np.float16, n, n)
            assert k(ga.to_gpu(x)).get() == x.max()
        return
    op = "a || b" if dtype == np.bool_ else "a + b"
    neutral = "pcc_c64(0, 0)" if dtype == np.complex64 else (
        "pcc_c128(0, 0)" if dtype == np.complex128 else "0")
    k = ReductionKernel(dtype, neutral=neutral, reduce_expr=op,
                        arguments=f"const {ctype} *x")
    for n in (1, 31, 32, 33, 1025, 70001):
        x = sample(dtype, n, n)
        got = k(ga.to_gpu(x)).get()
        if dtype == np.bool_:
            assert bool(got) == x.any()
        elif np.dtype(dtype).kind == "c":
            np.testing.assert_allclose(got, x.astype(np.complex128).sum(), rtol=1e-4)
        else:
            # modular sum in the type, as C does
            assert got == x.sum(dtype=dtype), (n, got)


def test_reduction_kernel_struct_type(ga):
    """A user struct (float2) through the 4-byte shuffle pieces."""
    from pycudac.reduction import ReductionKernel
    k = ReductionKernel(ga.vec.float2, neutral="make_float2(0, 0)",
                        reduce_expr="make_float2(a.x + b.x, fmaxf(a.y, b.y))",
                        map_expr="make_float2(x[i], x[i])", arguments="const float *x")
    x = (np.arange(70001) % 13).astype(np.float32)
    got = k(ga.to_gpu(x)).get()
    assert got["x"] == x.sum() and got["y"] == 12


# ------------------------------------------------- the CUDA side (NVRTC, no GPU needed)

@pytest.fixture(scope="module")
def ptx_of():
    """PTX for sm_90 of generated source, through NVRTC (skipped without it)."""
    from pycudac import compiler
    try:
        compiler.compile('extern "C" __global__ void k() {}', arch="sm_90", target="ptx")
    except Exception as exc:  # no NVRTC library on this machine
        pytest.skip(f"NVRTC unavailable: {exc}")
    return lambda src: compiler.compile(src, arch="sm_90", target="ptx",
                                        no_extern_c=True).decode()


def kernel_bodies(ptx):
    return {m.group(1): m.group(0)
            for m in re.finditer(r"\.entry (\w+)\(.*?\n}\n", ptx, re.S)}


@pytest.mark.parametrize("dtype", [np.bool_, np.int8, np.float16, np.float32, np.float64,
                                   np.complex128])
def test_builtin_kernels_compile_for_the_gpu(ptx_of, dtype):
    """NVRTC takes the generated reductions; the block combine is shuffles
    and one barrier (not a shared-memory tree), with no local-memory
    spill of the shuffled pieces, and pass 1 keeps its 16-byte loads."""
    from pycudac import reduction
    dtype = np.dtype(dtype)
    src = reduction._render_unary_module(dtype, reduction._sum_dtype(dtype))
    bodies = kernel_bodies(ptx_of(src))
    words = -(-reduction.compute_dtype(reduction._sum_dtype(dtype)).itemsize // 4)
    s1 = bodies["sum_s1"]
    assert s1.count("shfl.sync.down") == 8 * words  # 5 in-warp + 3 cross-warp steps
    assert s1.count("bar.sync") == 1
    assert ".local" not in s1
    assert re.search(r"ld\.global(\.nc)?\.v[24]\.", s1)  # 16-byte vector loads
    assert bodies["sum_axis"].count("bar.sync") == 2  # + one between rows


def test_user_kernels_compile_for_the_gpu(ptx_of, ga):
    from pycudac.reduction import ReductionKernel
    k = ReductionKernel(np.float64, "0", "a+b", "x[i] * (double)i", "const double *x")
    k2 = ReductionKernel(ga.vec.float2, "make_float2(0, 0)", "make_float2(a.x+b.x, a.y+b.y)",
                         "make_float2(x[i], x[i])", "const float *x")
    for kern in (k, k2):
        bodies = kernel_bodies(ptx_of(kern.source))
        assert len(bodies) == 2
        assert all("shfl.sync.down" in b and ".local" not in b for b in bodies.values())


_MINMAX_PREAMBLE = """
struct minmax_pair {
    float lo, hi;
    __device__ minmax_pair() {}
    __device__ minmax_pair(float v) : lo(v), hi(v) {}
    __device__ minmax_pair(float a, float b) : lo(a), hi(b) {}
};
__device__ minmax_pair join_pairs(minmax_pair a, minmax_pair b)
{ return minmax_pair(fminf(a.lo, b.lo), fmaxf(a.hi, b.hi)); }
"""


def test_struct_reduction_with_registered_dtype(ga):
    """PyCUDA's register_dtype: a struct from the preamble as the reduction's
    value type, named for a structured dtype of the same layout."""
    from pycudac import tools
    from pycudac.elementwise import ElementwiseKernel
    from pycudac.reduction import ReductionKernel
    pair = np.dtype([("lo", np.float32), ("hi", np.float32)])
    tools.register_dtype(pair, "minmax_pair")
    assert tools.dtype_to_ctype(pair) == "minmax_pair"
    assert tools.get_or_register_dtype("minmax_pair") == pair
    x = np.random.default_rng(8).standard_normal(30001).astype(np.float32)
    red = ReductionKernel(pair, neutral="minmax_pair(1e30f, -1e30f)",
                          reduce_expr="join_pairs(a, b)", map_expr="minmax_pair(x[i])",
                          arguments="const float *x", preamble=_MINMAX_PREAMBLE)
    r = red(ga.to_gpu(x)).get()
    assert r.dtype == pair and (r["lo"], r["hi"]) == (x.min(), x.max())
    # the name also types ElementwiseKernel arguments
    out = ga.empty(5, pair)
    ElementwiseKernel("minmax_pair *out, const float *x", "out[i] = minmax_pair(x[i], -x[i])",
                      preamble=_MINMAX_PREAMBLE)(out, ga.to_gpu(x[:5]))
    got = out.get()
    assert (got["lo"] == x[:5]).all() and (got["hi"] == -x[:5]).all()


def test_register_dtype_bad_input():
    from pycudac import tools
    pair = np.dtype([("a", np.int32), ("b", np.int32)])
    tools.register_dtype(pair, "int_pair_t")
    tools.register_dtype(pair, "int_pair_t")  # the same again is fine
    with pytest.raises(RuntimeError, match="already named 'int_pair_t'"):
        tools.register_dtype(pair, "other_pair_t")
    tools.register_dtype(pair, ["other_pair_t"], alias_ok=True)
    assert tools.dtype_to_ctype(pair) == "int_pair_t"
    with pytest.raises(RuntimeError, match="the name 'int_pair_t' is already"):
        tools.register_dtype(np.dtype([("c", np.float64)]), "int_pair_t")
    with pytest.raises(TypeError, match="structured dtype"):
        tools.register_dtype(np.float32, "my_float")
    with pytest.raises(TypeError, match="c_names"):
        tools.register_dtype(pair, 5)
    with pytest.raises(TypeError, match="no dtype is registered as 'never_named'"):
        tools.get_or_register_dtype("never_named")
    with pytest.raises(TypeError, match="register_dtype"):
        tools.dtype_to_ctype(np.dtype([("q", np.int8), ("r", np.int64)]))
