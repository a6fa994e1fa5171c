"""Elementwise arithmetic on GPUArrays (NumPy promotion, broadcasting,
strided operands) and PyCUDA's ElementwiseKernel, checked against NumPy."""
import warnings

import numpy as np
import pytest

ALL_DTYPES = [np.bool_, np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64,
              np.uint64, np.float16, np.float32, np.float64, np.complex64, np.complex128]


pytestmark = pytest.mark.usefixtures("autoinit")  # ga and autoinit: conftest.py


def sample(dtype, shape=(6, 5), seed=0, nonzero=False, positive=False):
    rng = np.random.default_rng(seed)
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        x = rng.integers(0, 2, shape).astype(bool)
        return np.ones(shape, bool) if nonzero else x
    if dtype.kind in "iu":
        lo = 1 if positive or dtype.kind == "u" else -20
        x = rng.integers(lo, 20, shape).astype(dtype)
        if nonzero:
            x[x == 0] = 3
        return x
    if dtype.kind == "c":
        x = (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dtype)
    else:
        x = (rng.standard_normal(shape) * 4).astype(dtype)
    if positive:
        x = abs(x) + 1
    return x


def check(got, expected):
    expected = np.asarray(expected)
    assert got.dtype == expected.dtype, (got.dtype, expected.dtype)
    assert got.shape == expected.shape
    if expected.dtype.kind in "fc":
        tol = {2: 2e-3, 4: 1e-5, 8: 1e-12, 16: 1e-12}[expected.dtype.itemsize]
        if expected.dtype == np.complex64:
            tol = 1e-5
        np.testing.assert_allclose(got, expected, rtol=tol, atol=tol)
    else:
        np.testing.assert_array_equal(got, expected)


OPS = {
    "add": lambda a, b: a + b, "sub": lambda a, b: a - b, "mul": lambda a, b: a * b,
    "truediv": lambda a, b: a / b, "floordiv": lambda a, b: a // b,
    "mod": lambda a, b: a % b, "pow": lambda a, b: a ** b,
    "eq": lambda a, b: a == b, "ne": lambda a, b: a != b, "lt": lambda a, b: a < b,
    "le": lambda a, b: a <= b, "gt": lambda a, b: a > b, "ge": lambda a, b: a >= b,
    "and": lambda a, b: a & b, "or": lambda a, b: a | b, "xor": lambda a, b: a ^ b,
}


NUMPY2 = int(np.__version__.split(".")[0]) >= 2
with np.errstate(all="ignore"):  # NumPy 1.23 answered 0 ** (2+1j) with nan
    OLD_COMPLEX_ZERO_POWER = bool(np.isnan(np.power(np.complex128(0), np.complex128(2 + 1j))))


def nep50(v):
    """`v` as NumPy 2 promotes it (NEP 50), which pycudac follows whatever
    NumPy is installed: a NumPy scalar keeps its dtype. NumPy 1.x promotes a
    scalar by its value (np.float64(3) + float32 array is float32 there); a
    one-element array of the scalar's dtype promotes by type on both."""
    if not NUMPY2 and isinstance(v, np.generic):
        return np.array([v])
    return v


def _np(op, x, y):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with np.errstate(all="ignore"):
            return OPS[op](nep50(x), nep50(y))


@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_binary_ops_every_dtype(ga, dtype):
    """Every operator NumPy has for the dtype (one compiled module per dtype)."""
    x = sample(dtype, seed=1)
    y = sample(dtype, seed=2, nonzero=True, positive=np.dtype(dtype).kind in "iu")
    if np.dtype(dtype).kind in "iu":
        y = np.minimum(y, 5).astype(dtype)  # small exponents for pow
    if np.dtype(dtype).kind == "c":
        x[0, :2] = [0, 0]                     # 0**b
        y[0, 1] = 0
    a, b = ga.to_gpu(x), ga.to_gpu(y)
    tested = 0
    for op in OPS:
        try:
            expected = _np(op, x, y)
        except TypeError:
            with pytest.raises(TypeError):
                OPS[op](a, b)
            continue
        got = OPS[op](a, b).get()
        if op == "pow" and np.dtype(dtype).kind == "c" and OLD_COMPLEX_ZERO_POWER:
            # pycudac gives what NumPy 2 gives: 0 ** z = 0 where Re(z) > 0
            expected = np.where((x == 0) & (y.real > 0), 0, expected).astype(expected.dtype)
        if np.dtype(dtype) == np.float16 and op in ("floordiv", "mod"):
            np.testing.assert_allclose(got.astype(np.float32), expected.astype(np.float32),
                                       atol=0.02, rtol=0.02)
            continue
        check(got, expected)
        tested += 1
    assert tested >= 5


@pytest.mark.parametrize("dtype", [np.int8, np.uint32, np.float16, np.float64, np.complex64,
                                   np.bool_])
def test_unary_ops(ga, dtype):
    x = sample(dtype, seed=3)
    a = ga.to_gpu(x)
    check(abs(a).get(), np.abs(x))
    if np.dtype(dtype) != np.bool_:
        with np.errstate(all="ignore"):
            check((-a).get(), -x)
    else:
        with pytest.raises(TypeError):
            -a
    if np.dtype(dtype).kind in "biu":
        check((~a).get(), ~x)
    if np.dtype(dtype) != np.bool_:
        check((+a).get(), +x)
    else:
        with pytest.raises(TypeError):
            +a


@pytest.mark.parametrize("x_dtype,scalar", [
    (np.float32, 2.5), (np.int8, 3), (np.int8, 1.5), (np.float16, 3), (np.int32, 2 ** 40),
    (np.float32, np.float64(2.0)), (np.uint8, True), (np.float32, 1 + 2j)])
def test_scalar_promotion_nep50(ga, x_dtype, scalar):
    x = sample(x_dtype, seed=4, nonzero=True)
    a = ga.to_gpu(x)
    if isinstance(scalar, int) and not isinstance(scalar, bool) and \
            np.dtype(x_dtype).kind in "iu" and scalar > np.iinfo(x_dtype).max:
        with pytest.raises(OverflowError):
            a + scalar
        return
    check((a * scalar).get(), _np("mul", x, scalar))
    check((scalar - a).get(), _np("sub", scalar, x))
    check((a + scalar).get(), _np("add", x, scalar))


def test_scalar_ops_float32(ga):
    x = sample(np.float32, seed=5, positive=True)
    a = ga.to_gpu(x)
    check((2 * a).get(), 2 * x)
    check((a / 3).get(), x / np.float32(3))
    check((1 / a).get(), np.float32(1) / x)
    check((a ** 2).get(), x ** 2)
    check((2 ** a).get(), np.float32(2) ** x)
    check((a // 0.7).get(), _np("floordiv", x, 0.7))
    check((a % 0.7).get(), _np("mod", x, 0.7))
    check((a > 1.5).get(), x > 1.5)
    check((7.0 % a).get(), _np("mod", 7.0, x))


def test_int_division_semantics(ga):
    x = np.array([7, -7, 7, -7, 0, -128, 5], np.int32)
    y = np.array([2, 2, -2, -2, 3, -1, 0], np.int32)
    a, b = ga.to_gpu(x), ga.to_gpu(y)
    check((a // b).get(), _np("floordiv", x, y))
    check((a % b).get(), _np("mod", x, y))
    xf, yf = x.astype(np.float64), np.array([2, 2, -2, -2, 3, -1, 0.5])
    check((ga.to_gpu(xf) // ga.to_gpu(yf)).get(), _np("floordiv", xf, yf))
    check((ga.to_gpu(xf) % ga.to_gpu(yf)).get(), _np("mod", xf, yf))


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_complex_division_as_numpy(ga, dtype):
    """Smith's division, and x / 0 gives (re/0, im/0) as NumPy does (a naive
    or unguarded formula gives nan+nanj for every zero divisor)."""
    rng = np.random.default_rng(5)
    a = (rng.standard_normal(40) + 1j * rng.standard_normal(40)).astype(dtype)
    b = (rng.standard_normal(40) + 1j * rng.standard_normal(40)).astype(dtype)
    a[:5] = [1 + 2j, 1, 0, -3 - 1j, 2 + 2j]
    b[:5] = [0, 0, 0, 0, 1e30 + 1e30j]  # inf+infj, inf+nanj, nan+nanj, -inf-infj
    with np.errstate(all="ignore"):
        want = a / b
        got = (ga.to_gpu(a) / ga.to_gpu(b)).get()
        by_int = (ga.to_gpu(a[:2]) / ga.to_gpu(np.zeros(2, np.int32))).get()
    np.testing.assert_array_equal(got[:4], want[:4])
    np.testing.assert_allclose(got[4:], want[4:], rtol=4 * np.finfo(dtype).eps)
    np.testing.assert_array_equal(by_int, [complex(np.inf, np.inf), complex(np.inf, np.nan)])


def test_mixed_dtypes_promote(ga):
    x, y = sample(np.int16, seed=6), sample(np.float32, seed=7)
    a, b = ga.to_gpu(x), ga.to_gpu(y)
    check((a + b).get(), x + y)
    check((b * a).get(), y * x)
    check((a / ga.to_gpu(x.astype(np.uint8))).dtype and
          (ga.to_gpu(x) < b).get(), x < y)
    u, i = sample(np.uint64, seed=8), sample(np.int64, seed=9)
    check((ga.to_gpu(u) + ga.to_gpu(i)).get(), u + i)


def test_broadcasting(ga):
    x = sample(np.float32, (4, 5), seed=10)
    r = sample(np.float32, (5,), seed=11)
    c = sample(np.float32, (4, 1), seed=12)
    a = ga.to_gpu(x)
    check((a + ga.to_gpu(r)).get(), x + r)
    check((ga.to_gpu(c) * ga.to_gpu(r)).get(), c * r)
    check((ga.to_gpu(r) - a).get(), r - x)
    z = ga.to_gpu(np.array(2.0, np.float32))
    check((a * z).get(), x * np.float32(2))
    x3 = sample(np.float64, (2, 3, 4), seed=13)
    y3 = sample(np.float64, (3, 1), seed=14)
    check((ga.to_gpu(x3) + ga.to_gpu(y3)).get(), x3 + y3)


def test_strided_operands(ga):
    x = sample(np.float64, (8, 9), seed=15)
    y = sample(np.float64, (9, 8), seed=16)
    a, b = ga.to_gpu(x), ga.to_gpu(y)
    check((a + b.T).get(), x + y.T)
    check((a[::2, 1::3] * b[1::2, ::-3]).get(), x[::2, 1::3] * y[1::2, ::-3])
    check((a.T * 2).get(), x.T * 2)
    f = ga.to_gpu(np.asfortranarray(x))
    check((f + f).get(), x + x)
    check((f + a).get(), x + x)
    # complex views: real/imag parts are strided float views
    xc = sample(np.complex128, (5,), seed=17)
    cc = ga.to_gpu(xc)
    check((cc.real + cc.imag).get(), xc.real + xc.imag)


@pytest.mark.parametrize("n", [1, 3, 4, 5, 1001])
def test_vector_path_sizes_and_alignment(ga, n):
    x = np.arange(n + 3, dtype=np.float32)
    a = ga.to_gpu(x)
    check((a[:n] * 2).get(), x[:n] * 2)          # aligned, with a tail
    check((a[1:n + 1] + a[:n]).get(), x[1:n + 1] + x[:n])  # misaligned operand


def test_inplace_ops(ga):
    x = sample(np.float32, seed=18)
    a = ga.to_gpu(x)
    a += 1
    x += 1
    a *= ga.to_gpu(x)
    x *= x.copy()
    a[::2] -= 0.5
    x[::2] -= 0.5
    check(a.get(), x)
    i = ga.to_gpu(np.arange(10, dtype=np.int32))
    with pytest.raises(TypeError, match="same_kind"):
        i += 1.5
    i //= 3
    check(i.get(), np.arange(10, dtype=np.int32) // 3)
    b = ga.to_gpu(np.arange(10.0))
    b[1:] += b[:-1]          # overlapping in-place operand
    y = np.arange(10.0)
    y[1:] += y[:-1].copy()
    check(b.get(), y)


def test_numpy_scalar_on_left(ga):
    x = sample(np.float32, seed=19)
    a = ga.to_gpu(x)
    check((np.float32(3) * a).get(), nep50(np.float32(3)) * x)
    check((np.float64(3) + a).get(), nep50(np.float64(3)) + x)


# ------------------------------------------------------------------ ElementwiseKernel

def test_elementwise_kernel_lin_comb(ga):
    from pycudac.elementwise import ElementwiseKernel
    lin_comb = ElementwiseKernel(
        "float a, float *x, float b, float *y, float *z",
        "z[i] = my_f(a*x[i], b*y[i])",
        "linear_combination",
        preamble="__device__ float my_f(float x, float y) { return x + y; }")
    x, y = sample(np.float32, (50,), 1), sample(np.float32, (50,), 2)
    gx, gy = ga.to_gpu(x), ga.to_gpu(y)
    gz = ga.empty_like(gx)
    lin_comb(5, gx, 6, gy, gz)
    check(gz.get(), 5 * x + 6 * y)
    gz.fill(0)
    lin_comb(5, gx, 6, gy, gz, range=slice(10, 40, 3))
    expected = np.zeros(50, np.float32)
    expected[10:40:3] = (5 * x + 6 * y)[10:40:3]
    check(gz.get(), expected)
    gz.fill(0)
    lin_comb(5, gx, 6, gy, gz, slice=slice(None, None, -2))
    expected = np.zeros(50, np.float32)
    expected[::-2] = (5 * x + 6 * y)[::-2]
    check(gz.get(), expected)
    # range= is taken as it is, but never outside the array arguments
    for r in (slice(-64, 0, 1), slice(45, 51, 1), slice(2 ** 62, 2 ** 62 + 2, 1),
              slice(60, 40, -1)):
        with pytest.raises(ValueError, match="outside the array arguments"):
            lin_comb(5, gx, 6, gy, gz, range=r)
    for r, exc in ((3, TypeError), (slice(0, None), ValueError), (slice(0, 2.5), TypeError),
                   (slice(0, 10, 0), ValueError)):
        with pytest.raises(exc, match="range="):
            lin_comb(5, gx, 6, gy, gz, range=r)
    # an array of another element type than the pointer's (issue 21: of the
    # same size too: int32 through 'float *' reads garbage)
    with pytest.raises(TypeError, match=r"'x' \(float \*\): got a GPUArray of float64"):
        lin_comb(5, ga.to_gpu(x.astype(np.float64)), 6, gy, gz)
    with pytest.raises(TypeError, match=r"'y' \(float \*\): got a GPUArray of int32"):
        lin_comb(5, gx, 6, ga.to_gpu(y.astype(np.int32)), gz)
    # a view of the right dtype reinterprets on purpose
    lin_comb(5, gx, 6, ga.to_gpu(y.view(np.int32)).view(np.float32), gz)


def test_elementwise_kernel_stream_n_and_types(ga):
    from pycudac import driver
    from pycudac.elementwise import ElementwiseKernel
    k = ElementwiseKernel("double *out, const int *idx", "out[i] = idx[i] * 0.5 + n",
                          name="kernel")
    k2 = ElementwiseKernel("double *out", "out[i] = -1", name="kernel")  # same name, new module
    idx = ga.to_gpu(np.arange(7, dtype=np.int32))
    out = ga.empty((7,), np.float64)
    s = driver.Stream()
    k(out, idx, stream=s)
    s.synchronize()
    check(out.get(), np.arange(7) * 0.5 + 7)
    k2(out)
    check(out.get(), np.full(7, -1.0))


def test_elementwise_kernel_bad_input(ga):
    from pycudac.elementwise import ElementwiseKernel
    k = ElementwiseKernel("float a, float *x", "x[i] = a", name="setter")
    x = ga.zeros((6, 6), np.float32)
    with pytest.raises(TypeError, match="expected 2 arguments"):
        k(x)
    with pytest.raises(TypeError, match="'a'"):
        k(x, x)
    with pytest.raises(ValueError, match="non-contiguous"):
        k(1.0, x[:, ::2])
    # the pieces of C code, the argument list and the names are checked up front
    for kw, exc, match in ((dict(arguments=None), TypeError, "arguments must be"),
                           (dict(preamble=5), TypeError, "preamble must be a str"),
                           (dict(loop_prep=None), TypeError, "loop_prep"),
                           (dict(operation=b"x[i] = 1"), TypeError, "operation")):
        args = dict(dict(arguments="float *x", operation="x[i] = 1"), **kw)
        with pytest.raises(exc, match=match):
            ElementwiseKernel(**args)
    from pycudac.reduction import ReductionKernel
    with pytest.raises(ValueError, match="C identifier"):
        ReductionKernel(np.float32, "0", "a+b", "x[i]", "float *x", name="a b")
    with pytest.raises(TypeError, match="neutral must be a str"):
        ReductionKernel(np.float32, None, "a+b", "x[i]", "float *x")
    # PyCUDA pastes a number given as neutral: so does pycudac
    total = ReductionKernel(np.float32, 0, "a+b", "x[i]", "const float *x")
    assert total(ga.to_gpu(np.arange(10, dtype=np.float32))).get() == 45
    with pytest.raises(ValueError, match="name"):
        ElementwiseKernel("float *x", "x[i] = 0", name="not valid")
    with pytest.raises(ValueError, match="pointer"):
        ElementwiseKernel("float a", "a = 0")


@pytest.mark.parametrize("dtype, ct", [(np.complex64, "float"), (np.complex128, "double")])
def test_pycuda_complex_class(ga, dtype, ct):
    """PyCUDA's pycuda::complex<T> in ElementwiseKernel arguments and code,
    with no #include (PyCUDA's ElementwiseKernel adds it for complex
    arguments): GPUArrays of complex64/128 pass as its pointers, and its
    functions match NumPy's."""
    from pycudac.elementwise import ElementwiseKernel
    rng = np.random.default_rng(9)
    x = (rng.standard_normal(64) + 1j * rng.standard_normal(64)).astype(dtype)
    y = (rng.standard_normal(64) + 1j * rng.standard_normal(64)).astype(dtype)
    c = f"pycuda::complex<{ct}>"
    k = ElementwiseKernel(
        f"{c} *x, {c} *y, {c} *z, {ct} s",
        "z[i] = pycuda::exp(x[i]) * y[i] / (s + pycuda::sqrt(x[i]))"
        " - pycuda::conj(y[i]) * pycuda::abs(x[i]) + pycuda::pow(x[i], 3)"
        " + pycuda::log(y[i]) + pycuda::sin(x[i]) * pycuda::cosh(y[i]) + pycuda::tanh(x[i])"
        " + pycuda::log10(x[i]) * pycuda::arg(y[i]) + pycuda::pow(x[i], y[i])", "pycuda_cx")
    gz = ga.empty(64, dtype)
    k(ga.to_gpu(x), ga.to_gpu(y), gz, 1.5)
    want = (np.exp(x) * y / (1.5 + np.sqrt(x)) - np.conj(y) * np.abs(x) + x ** 3 + np.log(y)
            + np.sin(x) * np.cosh(y) + np.tanh(x) + np.log10(x) * np.angle(y) + x ** y)
    np.testing.assert_allclose(gz.get(), want, rtol=2e-4 if dtype == np.complex64 else 1e-11)


def test_pycuda_elwise_module_and_prepared_kernel(ga):
    """PyCUDA's lower-level pieces: get_elwise_module over the caller's own
    arguments (n among them), struct_char for prepare(), GPUArray._grid /
    _block for prepared_call, get_elwise_kernel (n appended) and its
    use_range form."""
    from pycudac.elementwise import (ScalarArg, VectorArg, get_elwise_kernel,
                                     get_elwise_kernel_and_types, get_elwise_module)
    x = ga.to_gpu(np.arange(3000, dtype=np.float32))
    z = ga.empty_like(x)
    args = [VectorArg(np.float32, "x"), VectorArg(np.float32, "z"), ScalarArg(np.float32, "a"),
            ScalarArg(np.uintp, "n")]
    assert "".join(a.struct_char for a in args) == "PPf" + np.dtype(np.uintp).char
    f = get_elwise_module(args, "z[i] = a * x[i] + b", "scal_b",
                          loop_prep="const float b = 0.5f").get_function("scal_b")
    f.prepare("".join(a.struct_char for a in args))
    f.prepared_call(x._grid, x._block, x.gpudata, z.gpudata, np.float32(3), x.size)
    np.testing.assert_array_equal(z.get(), 3 * np.arange(3000) + 0.5)
    k = get_elwise_kernel("float *x, float *z", "z[i] = x[i] + 1", "plus_one")
    k.prepared_call((3, 1), (32, 1, 1), x.gpudata, z.gpudata, x.size)  # any grid covers n
    np.testing.assert_array_equal(z.get(), np.arange(3000) + 1)
    _, kr, rargs = get_elwise_kernel_and_types("float *z", "z[i] = -1", "minus_one",
                                                use_range=True)
    assert [a.name for a in rargs] == ["z", "start", "stop", "step"]
    want = np.arange(3000) + 1.0
    for start, stop, step in ((10, 2000, 3), (2999, -1, -7)):
        kr.prepared_call((2, 1), (64, 1, 1), z.gpudata, start, stop, step)
        want[start:stop if stop >= 0 else None:step] = -1
    np.testing.assert_array_equal(z.get(), want)
    assert x._block == (256, 1, 1) and x._grid[0] >= 1
    with pytest.raises(TypeError, match="prepare"):
        from pycudac import elementwise
        elementwise.parse_arguments("mystery_t *p, mystery_t q")[1].struct_char


def test_broadcast_strides_follow_numpy_and_refuse_what_does_not_broadcast():
    """The map kernels' strides: aligned on the right, 0 where an operand is
    broadcast, and a ValueError (never stride 0) where a dimension neither
    matches nor is 1 (tools/mutate.py B1: the refusal could go unseen, every
    public path checks the shapes first)."""
    from pycudac.elementwise import broadcast_strides
    x = np.zeros((3, 1, 4), np.float32)
    shape = (2, 3, 5, 4)
    want = np.broadcast_to(x, shape).strides
    assert tuple(broadcast_strides(x, shape)) == want
    assert tuple(broadcast_strides(np.zeros(4, np.float32), (3, 4))) == (0, 4)
    for bad_shape, to in (((3,), (5,)), ((2, 3), (3, 3)), ((4, 2), (2, 4, 3))):
        with pytest.raises(ValueError, match="broadcast"):
            broadcast_strides(np.zeros(bad_shape, np.float32), to)


def test_collapse_merges_exactly_the_contiguous_dims():
    """collapse(shape, strides) merges a dim into the one before it only
    where every operand is contiguous across the two (tools/mutate.py B2)."""
    from pycudac.elementwise import collapse
    assert collapse((2, 3, 4), [(48, 16, 4), (48, 16, 4)]) == ((24,), [(4,), (4,)])
    # the second operand is a column slice: dims 0 and 1 cannot merge
    assert collapse((2, 3), [(12, 4), (24, 4)]) == ((2, 3), [(12, 4), (24, 4)])
    # equal strides are not contiguity (an operand broadcast along one dim)
    assert collapse((2, 3), [(12, 4), (4, 4)]) == ((2, 3), [(12, 4), (4, 4)])
    assert collapse((4, 4), [(4, 4), (0, 4)]) == ((4, 4), [(4, 4), (0, 4)])
    assert collapse((1, 5, 1), [(20, 4, 4)]) == ((5,), [(4,)])
    assert collapse((1, 1), [(0, 0)]) == ((1,), [(0,)])


# ---- the grid of a contiguous map (the CUDA backend, on the stub driver) ---------------

def test_a_contiguous_map_launches_a_thread_per_vector_on_the_cuda_backend(stub_driver, on_stub):
    """On the CUDA backend a contiguous map launches one thread per aligned
    4-element vector (per element where it is not aligned), up to the
    grid's x limit: a grid-stride loop over 4 waves of resident blocks read
    0.933x of the D2D copy for y = 2*x on an H100, the whole grid 0.990x
    (2026-11-28). The simulator keeps 4 waves (the other tests here: its results)."""
    import textwrap
    code = textwrap.dedent(f"""
        import ctypes, numpy as np
        import pycudac.autoinit
        from pycudac import gpuarray
        stub = ctypes.CDLL({stub_driver!r})
        dims = (ctypes.c_uint * 7)()
        s, fn = ctypes.c_void_p(), ctypes.c_void_p()
        buf = (ctypes.c_ubyte * 64)()
        for n in (1 << 24, (1 << 24) + 1, 1000):
            x = gpuarray.empty(n, np.float32)
            y = 2 * x
            stub.stub_last_launch(dims, ctypes.byref(s), ctypes.byref(fn), buf, 64)
            print("G", n, dims[0], dims[3])
    """)
    grids = [tuple(int(v) for v in ln.split()[1:]) for ln in on_stub(code, 300).splitlines()
             if ln.startswith("G ")]
    # 2^24 floats, aligned: 2^22 vectors of 4 in blocks of 256; 2^24 + 1 the
    # same plus the tail's elements, which the vector threads finish; 1000
    # elements: 250 vectors, one block
    assert grids == [(1 << 24, 1 << 14, 256), ((1 << 24) + 1, 1 << 14, 256), (1000, 1, 256)]


def test_a_kernel_name_that_is_no_str_is_a_type_error():
    from pycudac.elementwise import ElementwiseKernel
    with pytest.raises(TypeError, match="name must be a str"):  # was a ValueError
        ElementwiseKernel("float *x", "x[i] = 0", name=5)
    with pytest.raises(ValueError, match="name must be a C identifier"):
        ElementwiseKernel("float *x", "x[i] = 0", name="no good")
