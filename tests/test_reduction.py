"""Reductions (sum/min/max/any/all/dot, sum along an axis) and PyCUDA's
ReductionKernel, checked against NumPy."""
import numpy as np
import pytest

DTYPES = [np.bool_, np.int8, np.uint16, np.int32, np.uint64, np.float16, np.float32, np.float64,
          np.complex64, np.complex128]


@pytest.fixture(scope="module", autouse=True)
def ctx():
    import pycudac.autoinit  # noqa: F401


@pytest.fixture(scope="module")
def ga():
    from pycudac import gpuarray
    return gpuarray


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
    if np.dtype(dtype).kind != "c":
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
    with pytest.raises(TypeError, match="complex"):
        ga.to_gpu(np.zeros(3, np.complex64)).max()
