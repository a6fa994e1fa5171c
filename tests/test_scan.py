"""Inclusive and exclusive scans (multi-block), checked against NumPy."""
import numpy as np
import pytest


@pytest.fixture(scope="module", autouse=True)
def ctx():
    import pycudac.autoinit  # noqa: F401


@pytest.fixture(scope="module")
def ga():
    from pycudac import gpuarray
    return gpuarray


@pytest.fixture(scope="module")
def int_sum():
    from pycudac.scan import InclusiveScanKernel
    return InclusiveScanKernel(np.int32, "a+b")


@pytest.mark.parametrize("n", [1, 5, 256 * 7, 256 * 7 + 1, 50000])
def test_inclusive_int32(ga, int_sum, n):
    x = np.random.default_rng(n).integers(-100, 100, n).astype(np.int32)
    a = ga.to_gpu(x)
    out = ga.empty_like(a)
    int_sum(a, out)
    np.testing.assert_array_equal(out.get(), np.cumsum(x, dtype=np.int32))
    np.testing.assert_array_equal(a.get(), x)      # input untouched
    int_sum(a)                                      # in place
    np.testing.assert_array_equal(a.get(), np.cumsum(x, dtype=np.int32))


@pytest.mark.parametrize("n", [1, 1000, 30001])
def test_exclusive_float64(ga, n):
    from pycudac.scan import ExclusiveScanKernel
    knl = ExclusiveScanKernel(np.float64, "a+b", "0")
    x = np.random.default_rng(1).standard_normal(n)
    a = ga.to_gpu(x)
    knl(a)
    expected = np.concatenate([[0.0], np.cumsum(x)[:-1]])
    np.testing.assert_allclose(a.get(), expected, rtol=1e-10, atol=1e-9)


def test_custom_operator_max(ga):
    from pycudac.scan import InclusiveScanKernel
    knl = InclusiveScanKernel(np.int64, "a > b ? a : b", neutral="-9223372036854775807LL")
    x = np.random.default_rng(2).integers(-10**12, 10**12, 20000)
    a = ga.to_gpu(x)
    knl(a)
    np.testing.assert_array_equal(a.get(), np.maximum.accumulate(x))


def test_empty_and_bad_input(ga, int_sum):
    from pycudac.scan import ExclusiveScanKernel
    e = ga.to_gpu(np.zeros(0, np.int32))
    assert int_sum(e).size == 0
    with pytest.raises(TypeError, match="dtype"):
        int_sum(ga.to_gpu(np.zeros(4, np.float32)))
    with pytest.raises(ValueError, match="contiguous"):
        int_sum(ga.to_gpu(np.zeros(8, np.int32))[::2])
    with pytest.raises(ValueError, match="neutral"):
        ExclusiveScanKernel(np.int32, "a+b")
    with pytest.raises(TypeError, match="GPUArray"):
        int_sum(np.zeros(3, np.int32))


def test_non_commutative_operator(ga):
    """Affine maps x -> m*x + c composed left to right (associative, not
    commutative): a linear recurrence, multi-block."""
    from pycudac.scan import InclusiveScanKernel
    knl = InclusiveScanKernel(np.complex128, "pcc_c128(a.x * b.x, a.y * b.x + b.y)",
                              neutral="pcc_c128(1, 0)")
    rng = np.random.default_rng(3)
    n = 20000
    m = rng.choice([-1.0, 1.0], n)
    c = rng.integers(-3, 4, n).astype(np.float64)
    a = ga.to_gpu(m + 1j * c)
    knl(a)
    got = a.get()
    em, ec = np.empty(n), np.empty(n)
    pm, pc = 1.0, 0.0
    for i in range(n):
        pm, pc = pm * m[i], pc * m[i] + c[i]
        em[i], ec[i] = pm, pc
    np.testing.assert_array_equal(got.real, em)
    np.testing.assert_array_equal(got.imag, ec)
