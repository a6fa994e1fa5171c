"""Bad input to pycudac.curandom's generators: a Python exception of the
right type that names the argument and what was expected, before any
launch (never a silent garbage fill)."""
import numpy as np
import pytest

pytestmark = pytest.mark.usefixtures("autoinit")

ALL = ("XORWOWRandomNumberGenerator", "MRG32k3aRandomNumberGenerator",
       "Sobol32RandomNumberGenerator", "ScrambledSobol32RandomNumberGenerator",
       "Sobol64RandomNumberGenerator", "ScrambledSobol64RandomNumberGenerator")


@pytest.fixture(scope="module")
def gens():
    from pycudac import curandom
    return {name: getattr(curandom, name)() for name in ALL}


@pytest.mark.parametrize("name", ALL)
def test_wrong_arrays(gens, name):
    from pycudac import gpuarray
    gen = gens[name]
    cases = [
        ("fill_uniform", (gpuarray.empty(8, np.int16),), TypeError, "dtype int16.*float32"),
        ("fill_uniform", (gpuarray.empty(8, np.complex64),), TypeError, "data has dtype complex64"),
        ("fill_normal", (gpuarray.empty(8, np.uint32),), TypeError, "fill_normal: data has dtype uint32"),
        ("fill_log_normal", (gpuarray.empty(8, np.int32), 0.0, 1.0), TypeError, "dtype int32"),
        ("fill_poisson", (gpuarray.empty(8, np.float32), 3.0), TypeError, "float32.*expected uint32"),
        ("fill_poisson", (gpuarray.empty(8, np.int32),), TypeError, "int32"),
        ("fill_uniform", (np.zeros(8, np.float32),), TypeError, "data must be a GPUArray.*host array"),
        ("fill_normal", ([0.0] * 8,), TypeError, "data must be a GPUArray, got list"),
        ("fill_uniform", (gpuarray.empty((8, 8), np.float32)[:, ::2],), ValueError,
         "data must be contiguous"),
        ("fill_poisson", (gpuarray.empty((6, 4), np.uint32)[::2],), ValueError, "contiguous"),
    ]
    for method, args, exc, match in cases:
        with pytest.raises(exc, match=match):
            getattr(gen, method)(*args)
    with pytest.raises(TypeError, match=name + r"\.fill_uniform"):
        gen.fill_uniform(gpuarray.empty(2, np.float16))
    if "64" not in name or "Sobol" not in name:
        with pytest.raises(TypeError, match="uint64"):
            gen.gen_uniform(4, np.uint64)


@pytest.mark.parametrize("name", ("XORWOWRandomNumberGenerator", "Sobol32RandomNumberGenerator"))
def test_wrong_parameters(gens, name):
    from pycudac import gpuarray
    gen = gens[name]
    u32 = gpuarray.empty(8, np.uint32)
    f32 = gpuarray.empty(8, np.float32)
    cases = [
        (lambda: gen.fill_poisson(u32, -1.0), ValueError, r"lambda_value must be in \[0.0, "),
        (lambda: gen.fill_poisson(u32, float("nan")), ValueError, "lambda_value must be finite"),
        (lambda: gen.fill_poisson(u32, float("inf")), ValueError, "lambda_value must be finite"),
        (lambda: gen.fill_poisson(u32, 2.0 ** 32), ValueError, "lambda_value"),
        (lambda: gen.fill_poisson(u32, "3"), TypeError, "lambda_value must be a real number, got str"),
        (lambda: gen.gen_poisson(8, np.uint32, -0.5), ValueError, "lambda_value"),
        (lambda: gen.fill_log_normal(f32, 0.0, -1.0), ValueError, "stddev must be in"),
        (lambda: gen.fill_log_normal(f32, "0", 1.0), TypeError, "mean must be a real number"),
        (lambda: gen.fill_log_normal(f32, 0.0, float("nan")), ValueError, "stddev must be finite"),
        (lambda: gen.gen_log_normal(8, np.float64, np.inf, 1.0), ValueError, "mean must be finite"),
        (lambda: gen.call_skip_ahead(-1), ValueError, r"i must be in 0..2\*\*64-1"),
        (lambda: gen.call_skip_ahead(2 ** 64), ValueError, "i must be in"),
        (lambda: gen.call_skip_ahead(1.5), TypeError, "i must be an int, got float"),
        (lambda: gen.call_skip_ahead_array(gpuarray.empty(3, np.uint64)), ValueError,
         "i must have .* elements .one per generator., got 3"),
        (lambda: gen.call_skip_ahead_array(gpuarray.empty(gen.generator_count, np.int32)),
         TypeError, "i has dtype int32; expected uint32, uint64"),
        (lambda: gen.call_skip_ahead_array(np.zeros(gen.generator_count, np.uint32)),
         TypeError, "i must be a GPUArray"),
    ]
    for call, exc, match in cases:
        with pytest.raises(exc, match=match):
            call()
    # the generator still works after the refusals
    assert gen.gen_uniform(8, np.float32).get().min() > 0


def test_pseudo_constructor_arguments():
    from pycudac import curandom, gpuarray
    cls = curandom.XORWOWRandomNumberGenerator
    with pytest.raises(ValueError, match="offset must be in 0..2"):
        cls(offset=-1)
    with pytest.raises(TypeError, match="offset must be an int, got str"):
        curandom.MRG32k3aRandomNumberGenerator(offset="0")
    with pytest.raises(TypeError, match="seed_getter must be a callable"):
        cls(seed_getter=12345)
    with pytest.raises(ValueError, match="the array seed_getter returned must have .* elements"):
        cls(seed_getter=lambda n: gpuarray.zeros(n - 1, np.int32))
    with pytest.raises(TypeError, match="seed_getter returned has dtype int64; expected int32"):
        cls(seed_getter=lambda n: gpuarray.zeros(n, np.int64))
    with pytest.raises(TypeError, match="seed_getter returned must be a GPUArray, got list"):
        cls(seed_getter=lambda n: [0] * n)
    # a host int32 array is taken (copied to the device)
    g = cls(seed_getter=lambda n: np.arange(n, dtype=np.int32))
    assert g.gen_uniform(4, np.float32).get().min() > 0
    for getter in (curandom.seed_getter_uniform, curandom.seed_getter_unique):
        with pytest.raises(ValueError, match="n must be in"):
            getter(-3)


def test_sobol_constructor_arguments():
    from pycudac import curandom, gpuarray
    n = curandom.Sobol32RandomNumberGenerator().generator_count
    sets = curandom.direction_vector_set
    cases = [
        (lambda: curandom.Sobol32RandomNumberGenerator(
            dir_vector=gpuarray.zeros((n, 31), np.uint32)), ValueError,
         rf"dir_vector must have shape \({n}, 32\).*got \({n}, 31\)"),
        (lambda: curandom.Sobol32RandomNumberGenerator(
            dir_vector=gpuarray.zeros((n + 1, 32), np.uint32)), ValueError, "dir_vector must have shape"),
        (lambda: curandom.Sobol32RandomNumberGenerator(
            dir_vector=gpuarray.zeros((n, 32), np.uint64)), TypeError,
         "dir_vector has dtype uint64; expected uint32"),
        (lambda: curandom.Sobol64RandomNumberGenerator(
            dir_vector=curandom.generate_direction_vectors(n, sets.VECTOR_32)), TypeError,
         "dir_vector has dtype uint32; expected uint64"),
        (lambda: curandom.Sobol32RandomNumberGenerator(dir_vector="x"), TypeError,
         "dir_vector must be a GPUArray, got str"),
        (lambda: curandom.ScrambledSobol32RandomNumberGenerator(
            scramble_vector=gpuarray.zeros(n - 1, np.uint32)), ValueError,
         "scramble_vector must have"),
        (lambda: curandom.ScrambledSobol64RandomNumberGenerator(
            scramble_vector=gpuarray.zeros(n, np.uint32)), TypeError,
         "scramble_vector has dtype uint32; expected uint64"),
        (lambda: curandom.Sobol64RandomNumberGenerator(offset=-2), ValueError, "offset"),
        (lambda: curandom.generate_direction_vectors(4, 7), ValueError,
         "direction must be one of direction_vector_set.VECTOR_32"),
        (lambda: curandom.generate_direction_vectors(-4), ValueError, "count must be in"),
        (lambda: curandom.generate_direction_vectors(2.5), TypeError, "count must be an int"),
        (lambda: curandom.generate_scramble_constants32(-1), ValueError, "count"),
        (lambda: curandom.generate_scramble_constants64(None), TypeError, "count"),
    ]
    for call, exc, match in cases:
        with pytest.raises(exc, match=match):
            call()
    # host arrays of the right shape and dtype are taken
    dv = curandom.generate_direction_vectors(n, sets.SCRAMBLED_VECTOR_32).get()
    sc = curandom.generate_scramble_constants32(n).get()
    a = curandom.ScrambledSobol32RandomNumberGenerator(dv, sc).gen_uniform(n, np.uint32).get()
    np.testing.assert_array_equal(a, sc)      # the first point is the scramble constant


def test_empty_arrays_are_left_alone():
    from pycudac import curandom, gpuarray
    for cls in (curandom.XORWOWRandomNumberGenerator, curandom.Sobol64RandomNumberGenerator):
        gen = cls()
        for fill in (gen.fill_uniform, gen.fill_normal):
            assert fill(gpuarray.empty(0, np.float32)).size == 0
        assert gen.gen_poisson((0, 3), np.uint32, 2.0).shape == (0, 3)
