"""The distributions of pycudac.curandom's generators against the exact
ones: Kolmogorov-Smirnov for uniform, normal and log-normal (float32 and
float64, every generator), chi-square for Poisson at small and large
lambdas (scalar and in place), and for the quasi-random generators the
stronger property that the first 2**k points of one dimension put the
empirical CDF within 2**-k of the exact one (inversion is exact up to the
point's own cell). The statistics are in tests/_rng_stats.py."""
import math
import statistics

import numpy as np
import pytest

import _rng_stats as st
from pycudac._curand import joe_kuo

pytestmark = pytest.mark.usefixtures("autoinit")

ALL = ("XORWOWRandomNumberGenerator", "MRG32k3aRandomNumberGenerator",
       "Sobol32RandomNumberGenerator", "ScrambledSobol32RandomNumberGenerator",
       "Sobol64RandomNumberGenerator", "ScrambledSobol64RandomNumberGenerator")
PSEUDO = ALL[:2]
QUASI = ALL[2:]
N = 1 << 17


def make(name, seed=2024, offset=None):
    """A generator with known seeds; the quasi-random ones start at point
    2**20 + 12345 unless told: the first 2**k points of every plain Sobol
    dimension are the same 2**k cell corners, so a sample pooled over the
    dimensions would be a lattice, not a sample of the uniform."""
    from pycudac import curandom, gpuarray
    cls = getattr(curandom, name)
    if name in PSEUDO:
        return cls(lambda n: gpuarray.to_gpu((np.arange(n) * 104729 + seed).astype(np.int32)))
    return cls(offset=(1 << 20) + 12345 if offset is None else offset)


def sample(gen, n):
    """Elements to fill for n values: whole points (a multiple of the
    streams), and for a quasi-random generator enough points that its
    distinct dimensions alone give n values (past Joe and Kuo's 1024 the
    dimensions repeat: a GPU's tens of thousands of streams are copies)."""
    t = gen.generator_count
    per_point = t if gen._FAMILY == "pseudo" else min(t, joe_kuo.DIMENSIONS)
    return -(-n // per_point) * t


def distinct(gen, values):
    """The values of a fill that come from distinct dimensions (all of a
    pseudo-random generator's; the first 1024 columns of a quasi-random one's)."""
    if gen._FAMILY == "pseudo":
        return values
    t = gen.generator_count
    return values.reshape(-1, t)[:, :min(t, joe_kuo.DIMENSIONS)].ravel()


# ----------------------------------------------------------------------
# uniform, normal, log-normal: Kolmogorov-Smirnov
# ----------------------------------------------------------------------

@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name", ALL)
def test_uniform_normal_lognormal_ks(name, dtype):
    gen = make(name)
    n = sample(gen, N)
    u = distinct(gen, gen.gen_uniform(n, dtype).get())
    assert u.dtype == dtype and u.min() > 0 and u.max() <= 1
    st.ks_check(u, st.uniform_cdf, f"{name} uniform {np.dtype(dtype)}")
    z = distinct(gen, gen.gen_normal(n, dtype).get())
    assert z.dtype == dtype and np.isfinite(z).all()
    st.ks_check(z, st.normal_cdf, f"{name} normal {np.dtype(dtype)}")
    x = distinct(gen, gen.gen_log_normal(n, dtype, 0.75, 0.5).get())
    assert x.dtype == dtype and (x > 0).all()
    st.ks_check(x, lambda v: st.lognormal_cdf(v, 0.75, 0.5), f"{name} log-normal")


@pytest.mark.parametrize("name", PSEUDO)
def test_odd_sizes_and_views_fill_every_element(name):
    """Odd sizes (Box-Muller's last pair half used), an offset view and an
    F-ordered array: every element written, none outside."""
    from pycudac import gpuarray
    gen = make(name)
    for n in (1, 7, gen.generator_count * 2 + 1):
        z = gpuarray.empty(n + 2, np.float32)
        z.fill(np.float32(np.nan))
        gen.fill_normal(z[1:-1])
        v = z.get()
        assert np.isnan(v[0]) and np.isnan(v[-1]) and np.isfinite(v[1:-1]).all()
    f = gpuarray.empty((64, 33), np.float64, order="F")
    gen.fill_uniform(f)
    v = f.get()
    assert (v > 0).all() and (v <= 1).all() and len(np.unique(v)) == v.size


def cells(name, bits_log2=16):
    """A scrambled Sobol generator whose every dimension is van der Corput's,
    shifted by its stream number below the cells it fills: the first P
    streams (P the largest power of two, 2**p, up to generator_count) and
    K = 2**k points each, p + k = bits_log2, put one point in every cell of
    width 2**-bits_log2. Returns (generator, P, K)."""
    from pycudac import curandom, gpuarray
    cls = getattr(curandom, name)
    probe = curandom.ScrambledSobol32RandomNumberGenerator()
    t = probe.generator_count
    p = t.bit_length() - 1
    k = max(0, bits_log2 - p)
    width = 64 if "64" in name else 32
    dt = np.uint64 if width == 64 else np.uint32
    vdc = np.array([1 << (width - 1 - j) for j in range(width)], dtype=dt)
    shift = width - k - min(p, bits_log2)
    streams = np.arange(t, dtype=np.uint64) % (1 << min(p, bits_log2))
    scramble = (streams << np.uint64(shift)).astype(dt)
    gen = cls(dir_vector=gpuarray.to_gpu(np.tile(vdc, (t, 1))),
              scramble_vector=gpuarray.to_gpu(scramble))
    return gen, 1 << min(p, bits_log2), 1 << k


def pooled(gen, values, streams, points):
    return values.reshape(points, gen.generator_count)[:, :streams].ravel()


@pytest.mark.parametrize("name", ("ScrambledSobol32RandomNumberGenerator",
                                  "ScrambledSobol64RandomNumberGenerator"))
def test_quasi_inversion_is_exact_per_cell(name):
    """One point in every cell of width 2**-16 through the uniform, normal
    and log-normal kernels (float64 and float32): the empirical CDFs are
    within 2**-16 (and a float32 rounding) of the exact ones everywhere."""
    for dtype, slack in ((np.float64, 1e-12), (np.float32, 1e-6)):
        for what, cdf in (("uniform", st.uniform_cdf), ("normal", st.normal_cdf),
                          ("log_normal", lambda v: st.lognormal_cdf(v, -1.0, 2.0))):
            gen, streams, points = cells(name)
            args = (dtype, -1.0, 2.0) if what == "log_normal" else (dtype,)
            v = getattr(gen, f"gen_{what}")(points * gen.generator_count, *args).get()
            d = st.ks_statistic(pooled(gen, v, streams, points), cdf)
            assert d <= 2.0 ** -16 + slack, (what, np.dtype(dtype), d)


@pytest.mark.parametrize("name", ("ScrambledSobol32RandomNumberGenerator",
                                  "ScrambledSobol64RandomNumberGenerator"))
def test_normal_icdf_matches_as241(name):
    """The kernels' inverse normal CDF against Python's statistics.NormalDist
    .inv_cdf (AS 241 too) at each stream's first point: random points and
    the extremes (the tails' own branch of AS 241 beyond 1 - 1e-11)."""
    from pycudac import curandom, gpuarray
    cls = getattr(curandom, name)
    t = curandom.ScrambledSobol32RandomNumberGenerator().generator_count
    width = 64 if "64" in name else 32
    dt = np.uint64 if width == 64 else np.uint32
    rng = np.random.default_rng(5)
    scramble = rng.integers(0, 2 ** width - 1, t, dtype=dt, endpoint=True)
    scramble[:4] = [0, np.iinfo(dt).max, 1 << (width - 30), np.iinfo(dt).max - (1 << (width - 30))]
    gen = cls(dir_vector=gpuarray.zeros((t, width), dt), scramble_vector=gpuarray.to_gpu(scramble))
    z = gen.gen_normal(t, np.float64).get()
    u = gen.gen_uniform(t, np.float64).get()      # the same points again (every v is 0)
    nd = statistics.NormalDist()
    want = np.array([nd.inv_cdf(p) for p in u])
    np.testing.assert_allclose(z, want, rtol=1e-13, atol=1e-14)
    if width == 64:
        assert z.min() < -8 and z.max() > 8


# ----------------------------------------------------------------------
# Poisson
# ----------------------------------------------------------------------

LAMBDAS = (0.5, 4.0, 11.9, 12.0, 30.0, 1000.0)


@pytest.mark.parametrize("lam", LAMBDAS)
@pytest.mark.parametrize("name", ("XORWOWRandomNumberGenerator", "MRG32k3aRandomNumberGenerator",
                                  "ScrambledSobol32RandomNumberGenerator"))
def test_poisson_chi_square(name, lam):
    """Inversion below 12, PTRS (pseudo-random) or inversion from the mode
    (quasi-random) from 12 on: chi-square against the exact pmf."""
    gen = make(name)
    k = distinct(gen, gen.gen_poisson(sample(gen, N), np.uint32, lam).get())
    assert k.dtype == np.uint32
    st.poisson_chi2_check(k, lam, f"{name} Poisson({lam})")
    assert abs(k.mean() - lam) < 6 * math.sqrt(lam / k.size)


@pytest.mark.parametrize("name", ("XORWOWRandomNumberGenerator", "Sobol32RandomNumberGenerator"))
def test_poisson_huge_lambda(name):
    """lambda = 2e4 (PTRS; for the quasi-random ones the Cornish-Fisher
    quantile) and 2**31, the largest lambda_value taken."""
    gen = make(name)
    k = distinct(gen, gen.gen_poisson(sample(gen, N), np.uint32, 2e4).get())
    st.poisson_chi2_check(k, 2e4, f"{name} Poisson(2e4)")
    big = distinct(gen, gen.gen_poisson(sample(gen, 1 << 14), np.uint32, float(2 ** 31)).get())
    big = big.astype(np.float64)
    z = (big - 2 ** 31) / math.sqrt(2 ** 31)
    st.ks_check(z, st.normal_cdf, f"{name} Poisson(2**31) standardized")


@pytest.mark.parametrize("lam", (3.0, 40.0, 5e3, 5e4, 1e6))
def test_quasi_poisson_inversion_is_exact_per_cell(lam):
    """One point in every cell of width 2**-16 through the Poisson
    inversion: the empirical CDF is within 2**-16 of the exact one at every
    k, below 1e4 (search from the mode) and above (Cornish-Fisher)."""
    gen, streams, points = cells("ScrambledSobol32RandomNumberGenerator")
    draws = gen.gen_poisson(points * gen.generator_count, np.uint32, lam).get()
    k = pooled(gen, draws, streams, points).astype(np.int64)
    s = math.sqrt(lam)
    ks = np.arange(max(0, int(lam - 8 * s)), int(lam + 8 * s) + 1)
    exact = st.poisson_cdf(ks, lam)
    empirical = np.searchsorted(np.sort(k), ks, side="right") / k.size
    assert np.abs(empirical - exact).max() <= 2.0 ** -16 + 1e-8, np.abs(empirical - exact).max()


def fed(u):
    """A ScrambledSobol64 generator whose stream t draws u[t] first (zero
    direction vectors: every point is the stream's scramble constant, read
    back as ((c >> 12) + 0.5) 2**-52); the last value fills the spare streams."""
    from pycudac import curandom, gpuarray
    t = curandom.ScrambledSobol32RandomNumberGenerator().generator_count
    u = np.asarray(u, dtype=np.float64)
    u = np.concatenate([u, np.full(t - len(u), u[-1])])
    c = np.floor(u * 2.0 ** 52).astype(np.uint64) << np.uint64(12)
    return curandom.ScrambledSobol64RandomNumberGenerator(
        dir_vector=gpuarray.zeros((t, 64), np.uint64), scramble_vector=gpuarray.to_gpu(c))


@pytest.mark.parametrize("lam, eps", [(3.0, 1e-12), (40.0, 1e-10), (5e3, 1e-10),
                                      (2e4, 3e-8), (1e6, 3e-8)])
def test_quasi_poisson_inversion_at_the_cdf_steps(lam, eps):
    """u just below F(k) must give k, just above it k + 1: the inversion is
    exact up to rounding below lambda 1e4 (eps 1e-10) and the Cornish-Fisher
    quantile above it off by less than 3e-8 in the CDF (5e-9 at 1e4)."""
    from pycudac import curandom
    t = curandom.ScrambledSobol32RandomNumberGenerator().generator_count
    s = math.sqrt(lam)
    ks = np.arange(max(0, int(lam - 6 * s)), int(lam + 6 * s) + 1)
    ks = ks[np.linspace(0, len(ks) - 1, min(len(ks), t // 2)).astype(int)]
    f = st.poisson_cdf(ks, lam)
    gap_below = f - st.poisson_cdf(np.maximum(ks - 1, 0), lam)
    gap_above = st.poisson_cdf(ks + 1, lam) - f
    keep = (gap_below > 4 * eps) & (gap_above > 4 * eps) & (f + eps < 1)
    ks, f = ks[keep], f[keep]
    u = np.concatenate([f - eps, f + eps])
    want = np.concatenate([ks, ks + 1])
    got = fed(u).gen_poisson(t, np.uint32, lam).get()[:len(u)]
    bad = np.nonzero(got != want)[0]
    assert not len(bad), [(u[i], want[i], got[i]) for i in bad[:5]]


@pytest.mark.parametrize("name", ("MRG32k3aRandomNumberGenerator",
                                  "ScrambledSobol64RandomNumberGenerator"))
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.uint32])
def test_poisson_in_place(name, dtype):
    """fill_poisson(data) without lambda: each element is the mean of its own
    draw (PyCUDA's in-place form): two means interleaved, each checked."""
    from pycudac import gpuarray
    gen = make(name)
    n = sample(gen, N)
    lam = np.where(np.arange(n) % 3 == 0, 3, 60).astype(dtype)
    a = gpuarray.to_gpu(lam)
    gen.fill_poisson(a)
    k, lam = distinct(gen, a.get()), distinct(gen, lam)
    assert k.dtype == dtype and (k == np.floor(k)).all()
    st.poisson_chi2_check(k[lam == 3], 3.0, f"{name} in place, {np.dtype(dtype)}, 3")
    st.poisson_chi2_check(k[lam == 60], 60.0, f"{name} in place, {np.dtype(dtype)}, 60")


def test_poisson_zero_and_bad_means_in_place():
    """lambda 0 gives 0; a negative or NaN mean in a float array gives NaN
    (device code cannot raise; NumPy would)."""
    from pycudac import gpuarray
    gen = make("XORWOWRandomNumberGenerator")
    assert (gen.gen_poisson(1000, np.uint32, 0.0).get() == 0).all()
    a = gpuarray.to_gpu(np.array([0.0, -1.0, np.nan, 5.0] * 8, dtype=np.float32))
    gen.fill_poisson(a)
    v = a.get().reshape(8, 4)
    assert (v[:, 0] == 0).all() and np.isnan(v[:, 1]).all() and np.isnan(v[:, 2]).all()
    assert (v[:, 3] >= 0).all()


def test_poisson_pycuda_statistic():
    """PyCUDA's test_curand_wrappers' commented-out check, with its 1e6
    values: P(X = 9) for lambda 10 is 0.12511."""
    from pycudac import gpuarray
    gen = make("XORWOWRandomNumberGenerator")
    a = gpuarray.empty(1000000, np.float32)
    a.fill(10)
    gen.fill_poisson(a)
    frac = (a.get() == 9).mean()
    assert abs(frac - 0.12511) < 0.002, frac
