"""Exact distributions and goodness-of-fit tests for the curandom tests
(test_curandom_*), in NumPy and the standard library (no SciPy): the
Kolmogorov-Smirnov statistic with its asymptotic critical value, Pearson's
chi-square with the Wilson-Hilferty critical value, the normal, log-normal
and Poisson CDFs. Every test uses ALPHA: a correct generator fails one
check in a million (the seeds are fixed, so a run's verdict is repeatable)."""
import math
import statistics

import numpy as np

ALPHA = 1e-6
_NORMAL = statistics.NormalDist()
_erfc = np.vectorize(math.erfc, otypes=[np.float64])


def normal_cdf(x):
    return 0.5 * _erfc(-np.asarray(x, dtype=np.float64) / math.sqrt(2.0))


def lognormal_cdf(x, mean, stddev):
    x = np.asarray(x, dtype=np.float64)
    with np.errstate(divide="ignore"):
        return normal_cdf((np.log(x) - mean) / stddev)


def uniform_cdf(x):
    return np.clip(np.asarray(x, dtype=np.float64), 0.0, 1.0)


def ks_statistic(sample, cdf):
    """sup |F_n - F| of a sample against a continuous CDF."""
    x = np.sort(np.asarray(sample, dtype=np.float64).ravel())
    n = len(x)
    f = cdf(x)
    i = np.arange(1, n + 1)
    return max(float(np.max(i / n - f)), float(np.max(f - (i - 1) / n)))


def ks_critical(n, alpha=ALPHA):
    """D above which a sample of n from F is rejected at level alpha
    (Kolmogorov's limit, sqrt(-log(alpha / 2) / 2), with Stephens' finite-n
    scaling)."""
    lam = math.sqrt(-math.log(alpha / 2) / 2)
    return lam / (math.sqrt(n) + 0.12 + 0.11 / math.sqrt(n))


def ks_check(sample, cdf, what):
    d, crit = ks_statistic(sample, cdf), ks_critical(np.size(sample))
    assert d < crit, f"{what}: KS statistic {d:.5f} >= {crit:.5f} (n = {np.size(sample)})"
    return d


def poisson_pmf(k, lam):
    k = np.asarray(k, dtype=np.float64)
    if lam == 0:
        return (k == 0).astype(np.float64)
    logp = k * math.log(lam) - lam - np.array([math.lgamma(j + 1) for j in k.ravel()]).reshape(k.shape)
    return np.exp(logp)


def poisson_cdf(k, lam):
    """P(X <= k) for integers k >= 0, to about 1e-12: the pmf by its ratio
    recurrence out from the mode over lam +- 40 sd (what lies beyond is
    below 1e-300), normalized to sum 1, then summed from the low end (no
    lgamma of large numbers, whose rounding would be 1e-8 at lam = 1e6)."""
    k = np.asarray(k)
    if lam == 0:
        return np.ones(k.shape)
    s = math.sqrt(lam)
    lo = max(0, int(lam - 40 * s - 40))
    hi = max(int(k.max()), int(lam + 40 * s + 40))
    m = int(lam)
    pmf = np.empty(hi - lo + 1)
    pmf[m - lo] = 1.0
    for j in range(m + 1, hi + 1):
        pmf[j - lo] = pmf[j - 1 - lo] * lam / j
    for j in range(m - 1, lo - 1, -1):
        pmf[j - lo] = pmf[j + 1 - lo] * (j + 1) / lam
    cdf = np.cumsum(pmf / pmf.sum())
    return np.where(k < lo, 0.0, cdf[np.clip(k - lo, 0, None)])


def chi2_critical(df, alpha=ALPHA):
    """The chi-square quantile 1 - alpha (Wilson and Hilferty's cube)."""
    z = _NORMAL.inv_cdf(1 - alpha)
    h = 2.0 / (9.0 * df)
    return df * (1 - h + z * math.sqrt(h)) ** 3


def poisson_chi2_check(sample, lam, what):
    """Pearson's chi-square of integer samples against Poisson(lam), the
    cells merged from the tails in until each expects at least 20."""
    sample = np.asarray(sample).ravel().astype(np.int64)
    n = sample.size
    assert sample.min() >= 0, f"{what}: negative Poisson numbers"
    top = max(int(sample.max()), int(lam + 20 * math.sqrt(lam) + 20))
    counts = np.bincount(sample, minlength=top + 1).astype(np.float64)
    expected = n * poisson_pmf(np.arange(top + 1), lam)
    expected[-1] += n - expected.sum()          # the upper tail into the last cell
    cells_o, cells_e, acc_o, acc_e = [], [], 0.0, 0.0
    for o, e in zip(counts, expected):
        acc_o, acc_e = acc_o + o, acc_e + e
        if acc_e >= 20:
            cells_o.append(acc_o)
            cells_e.append(acc_e)
            acc_o = acc_e = 0.0
    cells_o[-1] += acc_o
    cells_e[-1] += acc_e
    o, e = np.array(cells_o), np.array(cells_e)
    stat = float(((o - e) ** 2 / e).sum())
    df = len(o) - 1
    crit = chi2_critical(df)
    assert stat < crit, f"{what}: chi-square {stat:.1f} >= {crit:.1f} ({df} degrees of freedom)"
    return stat
