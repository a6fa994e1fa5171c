"""cumath functions against NumPy, with out= and stream=."""
import numpy as np
import pytest

FUNCS = {"fabs": np.fabs, "ceil": np.ceil, "floor": np.floor, "exp": np.exp, "log": np.log,
         "log10": np.log10, "sqrt": np.sqrt, "sin": np.sin, "cos": np.cos, "tan": np.tan,
         "asin": np.arcsin, "acos": np.arccos, "atan": np.arctan, "sinh": np.sinh,
         "cosh": np.cosh, "tanh": np.tanh}
DOMAIN = {"log": (0.1, 5), "log10": (0.1, 5), "sqrt": (0, 5), "asin": (-0.9, 0.9),
          "acos": (-0.9, 0.9)}


@pytest.fixture(scope="module", autouse=True)
def ctx():
    import pycudac.autoinit  # noqa: F401


@pytest.fixture(scope="module")
def ga():
    from pycudac import gpuarray
    return gpuarray


def tol(dtype):
    return {2: 2e-3, 4: 2e-6, 8: 1e-13}[np.dtype(dtype).itemsize]


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16])
def test_every_function(ga, dtype):
    from pycudac import cumath
    rng = np.random.default_rng(0)
    for name, ref in FUNCS.items():
        lo, hi = DOMAIN.get(name, (-3, 3))
        x = rng.uniform(lo, hi, (4, 9)).astype(dtype)
        got = getattr(cumath, name)(ga.to_gpu(x))
        assert got.dtype == ref(x).dtype, name
        np.testing.assert_allclose(got.get(), ref(x), rtol=tol(dtype), atol=tol(dtype),
                                   err_msg=name)


def test_int_input_and_views(ga):
    from pycudac import cumath
    x = np.arange(1, 13, dtype=np.int32).reshape(3, 4)
    a = ga.to_gpu(x)
    got = cumath.sqrt(a)
    assert got.dtype == np.float64
    np.testing.assert_allclose(got.get(), np.sqrt(x), rtol=1e-13)
    np.testing.assert_allclose(cumath.exp(ga.to_gpu(x.astype(np.float32)).T).get(),
                               np.exp(x.astype(np.float32)).T, rtol=2e-6)
    np.testing.assert_array_equal(cumath.floor(a).get(), np.floor(x))


def test_out_and_stream(ga):
    from pycudac import cumath, driver
    x = np.linspace(0, 2, 50).astype(np.float32)
    a = ga.to_gpu(x)
    out = ga.empty_like(a)
    s = driver.Stream()
    assert cumath.sin(a, out=out, stream=s) is out
    s.synchronize()
    np.testing.assert_allclose(out.get(), np.sin(x), rtol=2e-6, atol=1e-7)
    out64 = ga.empty((50,), np.float64)
    cumath.cos(a, out=out64)
    np.testing.assert_allclose(out64.get(), np.cos(x), rtol=2e-6)
    with pytest.raises(ValueError, match="shape"):
        cumath.exp(a, out=ga.empty((3,), np.float32))
    with pytest.raises(TypeError, match="complex"):
        cumath.exp(ga.to_gpu(np.zeros(3, np.complex64)))
    with pytest.raises(TypeError, match="GPUArray"):
        cumath.exp(x)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_fmod_frexp_ldexp_modf(ga, dtype):
    from pycudac import cumath
    rng = np.random.default_rng(1)
    x = rng.uniform(-20, 20, 64).astype(dtype)
    y = rng.uniform(1, 5, 64).astype(dtype)
    a, b = ga.to_gpu(x), ga.to_gpu(y)
    np.testing.assert_allclose(cumath.fmod(a, b).get(), np.fmod(x, y), rtol=tol(dtype))
    np.testing.assert_allclose(cumath.fmod(a, 3.0).get(), np.fmod(x, dtype(3.0)),
                               rtol=tol(dtype))
    m, e = cumath.frexp(a)
    em, ee = np.frexp(x)
    np.testing.assert_array_equal(m.get(), em)
    np.testing.assert_array_equal(e.get(), ee)
    assert e.dtype == np.int32
    np.testing.assert_array_equal(cumath.ldexp(m, e).get(), x)
    np.testing.assert_array_equal(cumath.ldexp(a, 3).get(), np.ldexp(x, 3))
    f, i = cumath.modf(a)
    ef, ei = np.modf(x)
    np.testing.assert_array_equal(f.get(), ef)
    np.testing.assert_array_equal(i.get(), ei)
