"""cumath functions against NumPy, with out= and stream=."""
import numpy as np
import pytest

FUNCS = {"fabs": np.fabs, "ceil": np.ceil, "floor": np.floor, "exp": np.exp, "log": np.log,
         "log10": np.log10, "sqrt": np.sqrt, "sin": np.sin, "cos": np.cos, "tan": np.tan,
         "asin": np.arcsin, "acos": np.arccos, "atan": np.arctan, "sinh": np.sinh,
         "cosh": np.cosh, "tanh": np.tanh}
DOMAIN = {"log": (0.1, 5), "log10": (0.1, 5), "sqrt": (0, 5), "asin": (-0.9, 0.9),
          "acos": (-0.9, 0.9)}


pytestmark = pytest.mark.usefixtures("autoinit")  # ga and autoinit: conftest.py


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
    assert e.dtype == dtype  # PyCUDA's exponent dtype, not NumPy's int32
    np.testing.assert_array_equal(cumath.ldexp(m, e).get(), x)
    np.testing.assert_array_equal(cumath.ldexp(a, 3).get(), np.ldexp(x, 3))
    f, i = cumath.modf(a)
    ef, ei = np.modf(x)
    np.testing.assert_array_equal(f.get(), ef)
    np.testing.assert_array_equal(i.get(), ei)



def test_stream_in_out_position(ga):
    """PyCUDA's f(array, stream), fmod(arg, mod, stream), ldexp(sig, expt,
    stream), modf(arg, stream), frexp(arg, stream); pycudac's positional out
    still works."""
    from pycudac import cumath, driver
    x = np.linspace(-3, 3, 40).astype(np.float32)
    y = np.linspace(1, 2, 40).astype(np.float32)
    k = np.arange(-20, 20, dtype=np.int32)
    a, b, e = ga.to_gpu(x), ga.to_gpu(y), ga.to_gpu(k)
    s = driver.Stream()
    got_exp = cumath.exp(a, s)
    got_fmod = cumath.fmod(a, b, s)
    got_ldexp = cumath.ldexp(a, e, s)
    f, i = cumath.modf(a, s)
    m, ex = cumath.frexp(a, s)
    s.synchronize()
    np.testing.assert_allclose(got_exp.get(), np.exp(x), rtol=2e-6)
    np.testing.assert_array_equal(got_fmod.get(), np.fmod(x, y))
    np.testing.assert_array_equal(got_ldexp.get(), np.ldexp(x, k))
    np.testing.assert_array_equal(f.get(), np.modf(x)[0])
    np.testing.assert_array_equal(i.get(), np.modf(x)[1])
    np.testing.assert_array_equal(m.get(), np.frexp(x)[0])
    np.testing.assert_array_equal(ex.get(), np.frexp(x)[1])
    out = ga.empty_like(a)
    assert cumath.sin(a, out) is out
    assert cumath.fmod(a, b, out, s) is out
    s.synchronize()
    np.testing.assert_array_equal(out.get(), np.fmod(x, y))


def test_bad_stream_or_out(ga):
    """Anything but a GPUArray or a Stream after the inputs is a TypeError
    naming the function and the argument."""
    from pycudac import cumath, driver
    x = np.ones(4, np.float32)
    a = ga.to_gpu(x)
    for what, call in (("exp", lambda: cumath.exp(a, x)),
                       ("fmod", lambda: cumath.fmod(a, a, x)),
                       ("ldexp", lambda: cumath.ldexp(a, 2, "s")),
                       ("modf", lambda: cumath.modf(a, 0))):
        with pytest.raises(TypeError, match=f"cumath.{what}: out1? must be a GPUArray or a "
                                            f"Stream"):
            call()
    with pytest.raises(TypeError, match="cumath.frexp: out1 must be a GPUArray or a Stream "
                                        r"\(PyCUDA's positional stream\), got ndarray"):
        cumath.frexp(a, x)
    with pytest.raises(TypeError, match="cumath.sqrt: a Stream in place of out and stream="):
        cumath.sqrt(a, driver.Stream(), stream=driver.Stream())


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_ldexp_float_exponent(ga, dtype):
    """PyCUDA's ldexp takes a float exponent array, truncated toward zero."""
    from pycudac import cumath
    rng = np.random.default_rng(2)
    x = rng.uniform(-4, 4, 300).astype(dtype)
    k = rng.uniform(-40, 40, 300).astype(dtype)
    got = cumath.ldexp(ga.to_gpu(x), ga.to_gpu(k))
    assert got.dtype == dtype
    np.testing.assert_array_equal(got.get(), np.ldexp(x, np.trunc(k).astype(np.int32)))
    got = cumath.ldexp(ga.to_gpu(x), ga.to_gpu(k.astype(np.float16)))
    np.testing.assert_array_equal(
        got.get(), np.ldexp(x, np.trunc(k.astype(np.float16)).astype(np.int32)))
    with pytest.raises(TypeError, match="cumath.ldexp: exponent must be integers that fit "
                                        "int64 or a float array, got a scalar of float64"):
        cumath.ldexp(ga.to_gpu(x), 2.5)  # NumPy has no float exponent either
    with pytest.raises(TypeError, match="got an array of uint64"):
        cumath.ldexp(ga.to_gpu(x), ga.to_gpu(np.arange(300, dtype=np.uint64)))
    for int_dtype in (np.int32, np.int64):
        ki = np.trunc(k).astype(int_dtype)
        np.testing.assert_array_equal(cumath.ldexp(ga.to_gpu(x), ga.to_gpu(ki)).get(),
                                      np.ldexp(x, ki))


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64, np.int32])
def test_frexp_exponent_dtype(ga, dtype):
    """PyCUDA gives frexp's exponent in the argument's float dtype (NumPy: int32)."""
    from pycudac import cumath
    x = np.array([0, 1, -1, 0.375, 3, -5, 100, 1000], dtype)
    m, e = cumath.frexp(ga.to_gpu(x))
    em, ee = np.frexp(x)
    assert m.dtype == e.dtype == em.dtype
    np.testing.assert_array_equal(m.get(), em)
    np.testing.assert_array_equal(e.get(), ee.astype(em.dtype))
    out2 = ga.empty(x.shape, np.float64)
    assert cumath.frexp(ga.to_gpu(x), out2=out2)[1] is out2
    np.testing.assert_array_equal(out2.get(), ee)
    with pytest.raises(TypeError, match="cannot write"):
        cumath.frexp(ga.to_gpu(x), out2=ga.empty(x.shape, np.int32))


# ------------------------------------------------- complex inputs

COMPLEX_FUNCS = {"fabs": np.abs, "exp": np.exp, "log": np.log, "log10": np.log10,
                 "sqrt": np.sqrt, "sin": np.sin, "cos": np.cos, "tan": np.tan,
                 "asin": np.arcsin, "acos": np.arccos, "atan": np.arctan, "sinh": np.sinh,
                 "cosh": np.cosh, "tanh": np.tanh}


def complex_sample(dtype, seed=0):
    """Random points, the axes and branch cuts (signed zeros included), |z|
    near 1 (log's cancellation), tiny |z|, large |z| (overflowing
    cosh/sinh/exp, tanh's saturated branch)."""
    rng = np.random.default_rng(seed)
    vals = [0.0, -0.0, 0.5, -0.5, 1.0, -1.0, 2.0, -2.0, 30.0, -30.0, 800.0, -800.0]
    special = [complex(a, b) for a in vals for b in vals]
    near1 = np.exp(1j * rng.uniform(-4, 4, 300)) * (1 + rng.uniform(-1e-3, 1e-3, 300))
    tiny = rng.uniform(-1e-4, 1e-4, 200) + 1j * rng.uniform(-1e-4, 1e-4, 200)
    wide = rng.uniform(-3, 3, 1500) + 1j * rng.uniform(-3, 3, 1500)
    return np.concatenate([wide, special, near1, tiny]).astype(dtype)


def assert_complex_close(got, ref, ulps, err_msg):
    """Each part within `ulps` of its own magnitude, or of |ref| for a part
    that is tiny next to the other (where the reference's own rounding is
    that large too)."""
    assert got.dtype == ref.dtype, (err_msg, got.dtype, ref.dtype)
    eps = np.finfo(ref.real.dtype).eps
    g = got.astype(np.complex128)
    r = ref.astype(np.complex128)
    both_nan = np.isnan(g) & np.isnan(r)
    assert not np.any(np.isnan(g) != np.isnan(r)), err_msg
    for part in (np.real, np.imag):
        gp, rp = part(g), part(r)
        same_inf = np.isinf(rp) & (gp == rp)
        tol = ulps * eps * np.maximum(np.abs(rp), 1e-3 * np.abs(r)) + 1e-300
        with np.errstate(invalid="ignore"):  # inf - inf where both are inf
            near = np.abs(gp - rp) <= tol
        bad = ~(both_nan | same_inf | near)
        assert not np.any(bad), (err_msg, g[bad][:4], r[bad][:4])


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_complex_functions(ga, dtype):
    from pycudac import cumath
    z = complex_sample(dtype)
    a = ga.to_gpu(z)
    for name, ref in COMPLEX_FUNCS.items():
        with np.errstate(all="ignore"):
            expected = ref(z)
        got = getattr(cumath, name)(a)
        assert got.dtype == expected.dtype, name
        if name == "fabs":
            # |z| is real, like numpy.abs
            assert got.dtype == np.dtype(dtype).type(0).real.dtype
        assert_complex_close(got.get().astype(expected.dtype), expected, 8, name)


def test_complex_views_and_out(ga):
    from pycudac import cumath
    z = complex_sample(np.complex128, 1)[:1500].reshape(50, 30)  # the finite-result part
    a = ga.to_gpu(z)
    assert_complex_close(cumath.exp(a[::2, 1:]).get(), np.exp(z[::2, 1:]), 8, "exp view")
    assert_complex_close(cumath.sqrt(a.T).get(), np.sqrt(z.T), 8, "sqrt of .T")
    out = ga.empty((50, 30), np.complex128)
    assert cumath.log(a, out=out) is out
    assert_complex_close(out.get(), np.log(z), 8, "log out=")
    mag = ga.empty((50, 30), np.float64)
    cumath.fabs(a, out=mag)
    np.testing.assert_allclose(mag.get(), np.abs(z), rtol=4e-16)
    with pytest.raises(TypeError, match="cannot write complex128 results"):
        cumath.sin(a, out=ga.empty((50, 30), np.float64))


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_complex_undefined_functions(ga, dtype):
    """NumPy defines no complex ceil/floor/fmod/frexp/ldexp/modf; neither do we."""
    from pycudac import cumath
    a = ga.to_gpu(np.ones(4, dtype))
    r = ga.to_gpu(np.ones(4, np.float32))
    name = np.dtype(dtype).name
    for what, call in (("ceil", lambda: cumath.ceil(a)), ("floor", lambda: cumath.floor(a)),
                       ("fmod", lambda: cumath.fmod(a, 2.0)),
                       ("fmod", lambda: cumath.fmod(r, a)),
                       ("frexp", lambda: cumath.frexp(a)), ("ldexp", lambda: cumath.ldexp(a, 1)),
                       ("modf", lambda: cumath.modf(a))):
        with pytest.raises(TypeError, match=f"cumath.{what}: not defined for complex input "
                                            f"\\(dtype {name}\\)"):
            call()
    with pytest.raises(TypeError, match="cumath.fmod: not defined for complex input"):
        cumath.fmod(r, 2j)
    with pytest.raises(TypeError, match="cumath.ldexp: not defined for complex input"):
        cumath.ldexp(r, np.complex64(1))


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_complex_kernels_compile_for_the_gpu(dtype):
    """NVRTC takes the complex math (no GPU needed; skipped without NVRTC)."""
    from pycudac import compiler, cumath
    from pycudac import elementwise as ew
    try:
        compiler.compile('extern "C" __global__ void k() {}', arch="sm_90", target="ptx")
    except Exception as exc:  # no NVRTC library on this machine
        pytest.skip(f"NVRTC unavailable: {exc}")
    specs = cumath._complex_specs((("a", np.dtype(dtype)),), None)
    for variant in ("contig", "strided"):
        src = ew.render_map_module(specs, variant, "_t", cumath._COMPLEX_SRC)
        ptx = compiler.compile(src, arch="sm_90", target="ptx", no_extern_c=True).decode()
        assert ptx.count(".entry") == len(cumath._COMPLEX_FN)
