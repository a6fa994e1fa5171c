"""Philox4x32-10 in kernel source: known-answer vectors, bit-exact
agreement with the NumPy reference, distributions, reproducibility."""
import numpy as np
import pytest

# Random123 kat_vectors (philox4x32_10): counter, key -> output
KAT = [
    ((0, 0, 0, 0), (0, 0), (0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8)),
    ((0xffffffff,) * 4, (0xffffffff,) * 2, (0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd)),
    ((0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344), (0xa4093822, 0x299f31d0),
     (0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1)),
]


@pytest.fixture(scope="module", autouse=True)
def ctx():
    import pycudac.autoinit  # noqa: F401


def test_reference_matches_published_vectors():
    from pycudac.curandom import philox4x32_reference
    for counter, key, expected in KAT:
        np.testing.assert_array_equal(philox4x32_reference(counter, key),
                                      np.array(expected, np.uint32))


def test_kernel_matches_published_vectors():
    from pycudac.curandom import philox_raw
    for counter, key, expected in KAT:
        np.testing.assert_array_equal(philox_raw(counter, key), np.array(expected, np.uint32))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_uniform_bit_exact_with_reference(dtype):
    from pycudac.curandom import PhiloxGenerator, reference_uniform
    seed = 0x1234_5678_9abc_def0
    gen = PhiloxGenerator(seed)
    a = gen.gen_uniform((1001,), dtype).get()
    b = gen.gen_uniform((1001,), dtype).get()    # next offset: different numbers
    np.testing.assert_array_equal(a, reference_uniform(1001, seed, 0, dtype))
    np.testing.assert_array_equal(b, reference_uniform(1001, seed, 1, dtype))
    assert a.dtype == dtype and 0 <= a.min() and a.max() < 1
    assert not np.array_equal(a, b)


def test_reproducible_and_seed_dependent():
    from pycudac.curandom import PhiloxGenerator
    a = PhiloxGenerator(7).gen_normal((4000,), np.float32).get()
    b = PhiloxGenerator(7).gen_normal((4000,), np.float32).get()
    c = PhiloxGenerator(8).gen_normal((4000,), np.float32).get()
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, c)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_distributions(dtype):
    from pycudac import gpuarray
    from pycudac.curandom import PhiloxGenerator
    gen = PhiloxGenerator(42)
    n = 200001
    u = gen.fill_uniform(gpuarray.empty((n,), dtype)).get()
    assert abs(u.mean() - 0.5) < 0.005 and abs(u.var() - 1 / 12) < 0.002
    z = gen.gen_normal((n,), dtype).get()
    assert np.isfinite(z).all()
    assert abs(z.mean()) < 0.01 and abs(z.std() - 1) < 0.01


def test_rand_and_bad_input():
    from pycudac import curandom, gpuarray
    r = curandom.rand((10, 10))
    assert r.shape == (10, 10) and r.dtype == np.float32
    v = r.get()
    assert (v >= 0).all() and (v < 1).all()
    assert curandom.rand(5, np.float64).dtype == np.float64
    with pytest.raises(TypeError, match="dtype must be float32, float64, int32 or uint32"):
        curandom.rand(5, np.int16)
    with pytest.raises(TypeError, match="float32"):
        curandom.PhiloxGenerator(1).fill_uniform(gpuarray.empty(4, np.int32))
    # the API level of PyCUDA's cuRAND wrapper that pycudac's own generators
    # stand in for (PyCUDA code gates on it); no cuRAND is used
    assert curandom.get_curand_version() == (5, 0, 0)


@pytest.mark.parametrize("dtype", [np.int32, np.uint32])
def test_rand_integers_cover_the_range(dtype):
    """PyCUDA's rand of int32 / uint32: raw 32-bit words, so both halves of
    the range and every bit turn up, and nothing repeats in a short draw."""
    from pycudac import curandom
    v = curandom.rand((3, 5000), dtype).get()
    assert v.dtype == dtype and v.shape == (3, 5000)
    u = v.view(np.uint32).astype(np.uint64)
    assert abs(u.mean() / 2.0 ** 32 - 0.5) < 0.01
    assert (u >= 2 ** 31).any() and (u < 2 ** 31).any()
    assert np.bitwise_or.reduce(v.view(np.uint32).ravel()) == 0xFFFFFFFF
    assert len(np.unique(v)) > 14990
    with pytest.raises(TypeError, match="seed"):
        curandom.PhiloxGenerator("x")
    # 64-bit key and counter: nothing wraps silently onto another stream
    for kw, exc in ((dict(seed=2 ** 64), ValueError), (dict(seed=-1), ValueError),
                    (dict(seed=1, offset=-1), ValueError), (dict(seed=1, offset=1.7), TypeError),
                    (dict(seed=1, offset=2 ** 70), ValueError), (dict(seed=True), TypeError)):
        with pytest.raises(exc, match="seed|offset"):
            curandom.PhiloxGenerator(**kw)
    g = curandom.PhiloxGenerator(1, offset=5)
    with pytest.raises(ValueError, match="n must be in"):
        g.skip_ahead(-5)
    assert g.offset == 5
    g.skip_ahead(3)
    assert g.offset == 8
