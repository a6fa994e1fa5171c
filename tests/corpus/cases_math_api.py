"""The corpus's cases for math_api.cu: the CUDA Math API's special functions, norms,
exact functions and pow's special cases, against 50-digit references and the
Programming Guide's ulp bounds.

Each module appends its cases to registry.CASES when imported (cases.py
imports them all)."""
import math
from fractions import Fraction

import numpy as np

from registry import In, Out, Val, case


# ---- math_api.cu -----------------------------------------------------------
# References independent of the host's libm where the bound is tight: decimal at 50
# digits for erfc and its inverses, square and cube roots, pow; Python's math (double)
# where float results are checked. Bounds: the Programming Guide's ulp tables.

def _dec_ctx():
    import decimal
    return decimal.Context(prec=50, Emax=10 ** 6, Emin=-10 ** 6)


_DPI = "3.14159265358979323846264338327950288419716939937510582097494"


def _dec_erfc(x):
    """erfc of the Decimal x, to about 45 digits: the Maclaurin series of erf below 4, the
    continued fraction exp(-x^2)/sqrt(pi) / (x + 1/2 / (x + 1 / (x + 3/2 / ...))) above."""
    from decimal import localcontext
    with localcontext(_dec_ctx()):
        if x < 0:
            return 2 - _dec_erfc(-x)
        if x < 4:
            return 1 - _dec_erf(x)
        return (-x * x).exp() * _dec_erfcx_cf(x)


def _dec_erf(x):
    """erf of the Decimal x (|x| < 4) by its Maclaurin series."""
    from decimal import Decimal, localcontext
    with localcontext(_dec_ctx()) as c:
        c.prec = 80                              # the series cancels e^(x^2) of its digits
        term, s, k, x2 = x, x, 0, x * x
        while abs(term) > abs(x) * Decimal(10) ** -70:
            k += 1
            term = -term * x2 / k
            s += term / (2 * k + 1)
        return 2 * s / Decimal(_DPI).sqrt()


def _dec_erfcx_cf(x):
    """exp(x^2) erfc(x) for x >= 4: the continued fraction."""
    from decimal import Decimal, localcontext
    with localcontext(_dec_ctx()):
        f = x
        for k in range(160, 0, -1):
            f = x + Decimal(k) / 2 / f
        return 1 / Decimal(_DPI).sqrt() / f


def _dec_erfcinv(y):
    """x with erfc(x) = y (0 < y < 2), Newton's method in decimal on log erfc (on erfc
    itself near y = 1), from the double estimate."""
    from decimal import Decimal, localcontext
    y = Decimal(y)
    if y > 1:
        return -_dec_erfcinv(2 - y)
    t = -math.log(float(y))
    x = Decimal(math.sqrt(max(t - 0.5 * math.log(math.pi * max(t, 1e-300)), 0.0)))
    if y > Decimal("0.3"):
        x = Decimal(0.8862269254527580 * float(1 - y))  # erf'(0) step from 0
    with localcontext(_dec_ctx()):
        c = 2 / Decimal(_DPI).sqrt()
        for _ in range(60):
            e = _dec_erfc(x)
            d = c * (-x * x).exp()
            step = (e.ln() - y.ln()) * e / d if y < Decimal("0.3") else (e - y) / d
            x += step
            if step == 0 or abs(step) < abs(x) * Decimal(10) ** -40:
                break
        return x


def _dec_norm(*xs):
    from decimal import Decimal, localcontext
    with localcontext(_dec_ctx()):
        return sum(Decimal(float(v)) ** 2 for v in xs).sqrt()


def _ordinals(v):
    """Each float's place in the ordered sequence of its type's values (+0 and -0 both 0),
    as Python ints: ulps between two values are the difference of their ordinals."""
    bits = v.view(np.int32 if v.dtype == np.float32 else np.int64).tolist()
    top = (1 << (31 if v.dtype == np.float32 else 63)) - 1
    return [i if i >= 0 else -(i & top) for i in bits]


def _ulps(key, got, want, ulps):
    """The Guide's measure: got within `ulps` units in the last place of the correctly
    rounded result (want: float64, or Decimals rounded here). Where that result is not
    finite, or zero, got must be it bit for bit (the sign of a zero included)."""
    want = np.array([float(w) for w in want]) if not isinstance(want, np.ndarray) else want
    got = np.asarray(got).ravel()
    with np.errstate(over="ignore"):
        w_t = want.astype(got.dtype)
    same = ~np.isfinite(w_t) | (w_t == 0)
    nan = np.isnan(got) & np.isnan(w_t)
    bits = np.uint32 if got.dtype == np.float32 else np.uint64
    bad = same & ~nan & (got.view(bits) != w_t.view(bits))
    assert not bad.any(), (key, "special values", got[bad][:6], w_t[bad][:6],
                           np.flatnonzero(bad)[:6])
    g, w = got[~same], w_t[~same]
    if not g.size:
        return
    err = [abs(x - y) if not np.isnan(gv) else math.inf
           for x, y, gv in zip(_ordinals(g), _ordinals(w), g)]
    worst = int(np.argmax(err))
    assert err[worst] <= ulps, (key, float(g[worst]), float(w[worst]), err[worst])


_SPECIAL_F = ["erfinvf", "erfcinvf", "normcdff", "normcdfinvf", "erfcxf", "lgammaf",
              "tgammaf", "cyl_bessel_i0f", "cyl_bessel_i1f", "rcbrtf", "exp10f", "expm1f",
              "log1pf"]
# the Guide's single-precision table (lgammaf: outside -10.001 .. -2.264)
_SPECIAL_F_ULPS = [2, 4, 5, 5, 4, 6, 5, 6, 6, 1, 2, 1, 1]


def _special_f_make(r):
    n = 256
    inf, nan = np.inf, np.nan
    u = r.random(n)
    cols = [
        u * 2 - 1,                                            # erfinvf
        10.0 ** -(u * 44),                                    # erfcinvf: deep tails
        -u * 14 + 2,                                          # normcdff: the lower tail
        10.0 ** -(u * 44),                                    # normcdfinvf
        r.standard_normal(n) * 10.0 ** r.integers(-2, 5, n),  # erfcxf
        u * 40 - 0.5,                                         # lgammaf
        u * 34 + 0.05,                                        # tgammaf
        u * 80 - 40,                                          # cyl_bessel_i0f
        u * 80 - 40,                                          # cyl_bessel_i1f
        r.standard_normal(n) * 10.0 ** r.integers(-40, 38, n),  # rcbrtf
        u * 70 - 40,                                          # exp10f
        r.standard_normal(n) * 10.0 ** r.integers(-8, 2, n),  # expm1f
        r.random(n) * 2.0 ** r.integers(-30, 30, n) - 1.0,    # log1pf
    ]
    x = np.array(cols)
    x[12, 100:140] = r.standard_normal(40) * 1e-5
    edges = [
        [0, -0.0, 1, -1, 1.5, nan, 1e-30, -0.9999999, 0.99999994, 5e-8],
        [0, 2, 1, 1e-45, 1.9999999, 3, nan, 0.5, 1e-38, 1.5],
        [0, -0.0, inf, -inf, nan, -14, 5, -9.3, 1e-40, 15],
        [0, 1, 0.5, 1e-45, -0.1, 1.5, nan, 0.99999994, 5.96e-8, 1e-38],
        [0, -0.0, inf, -inf, nan, 30, 1e20, 3e38, -9.3, 1e-40],
        [1, 2, 0, -0.0, inf, -inf, nan, -3e8, -12.5, 3e38],
        [0, -0.0, inf, -inf, nan, -1, -3.5, 1e-40, 0.5, -0.5],
        [0, -0.0, inf, -inf, nan, 1e-40, 80, -80, 0.5, 20],
        [0, -0.0, inf, -inf, nan, 1e-40, -1e-40, 80, -80, 0.5],
        [0, -0.0, inf, -inf, nan, 1e-45, -1e-45, 3e38, 8, -27],
        [0, -0.0, inf, -inf, nan, 38.5, -45, 1, -1, 1e-40],
        [0, -0.0, inf, -inf, nan, 1e-40, -1e-40, 88.5, -20, 100],
        [0, -0.0, inf, -inf, nan, -1, -1.5, 1e-40, -1e-40, 3e38],
    ]
    for k, e in enumerate(edges):
        x[k, :len(e)] = e
    return dict(x=x.astype(np.float32), o=np.zeros((13, n), np.float32), n=np.int32(n))


def _erfinv64(y):
    """Double reference for float checks: Newton's method on erf, or on log erfc for
    |y| > 0.5 (1 - |y| is exact there)."""
    if math.isnan(y) or abs(y) > 1:
        return math.nan
    if abs(y) == 1:
        return math.copysign(math.inf, y)
    if abs(y) > 0.5:
        return math.copysign(_erfcinv64(1 - abs(y)), y)
    x = 0.886226925452758 * y
    for _ in range(50):
        s = (math.erf(x) - y) / (1.1283791670955126 * math.exp(-x * x))
        x -= s
        if abs(s) <= abs(x) * 1e-17:
            break
    return x


def _erfcinv64(y):
    if math.isnan(y) or y < 0 or y > 2:
        return math.nan
    if y == 0 or y == 2:
        return math.inf if y == 0 else -math.inf
    if y > 0.5:
        return _erfinv64(1 - y) if y <= 1.5 else -_erfcinv64(2 - y)
    t = -math.log(y)
    x = math.sqrt(t - 0.5 * math.log(math.pi * t)) if t > 1 else 0.5
    for _ in range(50):
        e = math.erfc(x)
        s = (math.log(e) - math.log(y)) * e / (1.1283791670955126 * math.exp(-x * x))
        x += s
        if abs(s) <= abs(x) * 1e-17:
            break
    return x


def _erfcx64(x):
    if math.isnan(x):
        return x
    if x < 25:
        with np.errstate(over="ignore"):
            return float(np.exp(np.float64(x) * x) * math.erfc(x))
    f = x
    for k in range(60, 0, -1):
        f = x + k / 2 / f
    return 1 / math.sqrt(math.pi) / f


def _gamma64(x):
    if math.isnan(x) or x == -math.inf or (x < 0 and x == int(x)):
        return math.nan
    if x == 0:
        return math.copysign(math.inf, x)
    return math.gamma(x) if x < 171 else math.inf


def _bessel_i(nu, x):
    """I0, I1 of a double by their power series in decimal."""
    from decimal import Decimal, localcontext
    if not math.isfinite(x):
        return x if math.isnan(x) else (math.inf if nu == 0 else x)
    with localcontext(_dec_ctx()):
        h = Decimal(x) / 2
        t = h if nu else Decimal(1)
        s, k = t, 0
        while abs(t) > abs(s) * Decimal(10) ** -40 or k < 2:
            k += 1
            t = t * h * h / (k * (k + nu))
            s += t
        return float(s)


def _rcbrt64(x):
    from decimal import Decimal, localcontext
    if x == 0 or math.isnan(x):
        return math.copysign(math.inf, x) if x == 0 else x
    if math.isinf(x):
        return math.copysign(0.0, x)
    with localcontext(_dec_ctx()):
        return math.copysign(float(Decimal(abs(x)) ** (Decimal(-1) / 3)), x)


def _special_f_ref(x):
    x = x.astype(np.float64)
    sq2 = math.sqrt(2)
    with np.errstate(all="ignore"):
        lg = [abs(v) if not math.isfinite(v) else
              math.inf if v <= 0 and v == int(v) else math.lgamma(v) for v in x[5]]
        return [
            [_erfinv64(v) for v in x[0]],
            [_erfcinv64(v) for v in x[1]],
            [0.5 * math.erfc(-v / sq2) if not math.isnan(v) else v for v in x[2]],
            # + 0.0: normcdfinvf(0.5) is +0 on the H200, not -sqrt(2) * +0
            [-sq2 * _erfcinv64(2 * v) + 0.0 if not math.isnan(v) else v for v in x[3]],
            [_erfcx64(v) for v in x[4]],
            lg,
            [_gamma64(v) for v in x[6]],
            [_bessel_i(0, v) for v in x[7]],
            [_bessel_i(1, v) for v in x[8]],
            [_rcbrt64(v) for v in x[9]],
            list(np.power(10.0, x[10])),   # a float's power of 10 in double: 1 ulp of double
            [math.expm1(v) if math.isfinite(v) and v < 700 else
             (v if v == v and v > 0 else -1.0 if v == -math.inf else v) for v in x[11]],
            [math.log1p(v) if v > -1 and math.isfinite(v) else
             (-math.inf if v == -1 else v if v == math.inf else math.nan) for v in x[12]],
        ]


def _special_f_check(d, b):
    refs = _special_f_ref(b["x"])
    for k, name in enumerate(_SPECIAL_F):
        want = np.array(refs[k], np.float64)
        _ulps(name, d["o"][k], want, _SPECIAL_F_ULPS[k])
    # the Math API's special values, with the sign of zero
    o = d["o"]
    assert np.signbit(o[0, 1]) and np.signbit(o[11, 1]) and np.signbit(o[12, 1])
    assert o[5, 0] == 0 and not np.signbit(o[5, 0]) and o[5, 3] == np.inf   # lgammaf(1), (-0)
    assert o[6, 1] == -np.inf and np.isnan(o[6, 5]) and np.isnan(o[6, 3])   # tgammaf
    assert o[9, 1] == -np.inf and o[9, 3] == 0 and np.signbit(o[9, 3])      # rcbrtf(-0), (-inf)


case(id="math_api_special_functions_float", src="math_api.cu", kernel="special_f",
     make=_special_f_make, args=(In("x"), Out("o"), Val("n")), block=(128, 1, 1),
     grid=(2, 1), check=_special_f_check, tags=("math_api", "ulp", "special_values"))


_SPECIAL_D = ["erfinv", "erfcinv", "normcdf", "normcdfinv", "erfcx"]
_SPECIAL_D_ULPS = [5, 6, 5, 8, 4]   # the Guide's double-precision table


def _special_d_make(r):
    n = 96
    inf, nan = np.inf, np.nan
    u = r.random(n)
    x = np.array([
        np.where(u < 0.5, u * 2 - 1, np.sign(u - 0.75) * (1 - 10.0 ** -(u * 16))),  # erfinv
        10.0 ** -(u * 320),                                           # erfcinv: to subnormals
        -u * 38 + 3,                                                  # normcdf: the lower tail
        np.where(u < 0.8, 10.0 ** -(u * 380), u),                     # normcdfinv
        r.standard_normal(n) * 10.0 ** r.integers(-3, 6, n),          # erfcx
    ])
    edges = [[0, -0.0, 1, -1, nan, 1.5, 1e-300, -0.5, 0.5000000000000001, 1 - 2 ** -53],
             [0, 2, 1, 5e-324, nan, -1, 0.5, 1.5, 2 - 2 ** -52, 1e-310],
             [0, -0.0, inf, -inf, nan, -38.4, 8.3, -1e-300, 1e-310, -37.5],
             [0, 1, 0.5, 5e-324, nan, -0.1, 1 - 2 ** -53, 2 ** -1074 * 3, 0.975, 0.025],
             [0, -0.0, inf, -inf, nan, 1e300, 99.99, 100, -26.5, 26.7]]
    for k, e in enumerate(edges):
        x[k, :len(e)] = e
    return dict(x=x, o=np.zeros((5, n)), n=np.int32(n))


def _special_d_ref(x):
    from decimal import Decimal, localcontext

    def erfcinv(y):
        if math.isnan(y) or not 0 <= y <= 2:
            return math.nan
        return math.inf if y == 0 else -math.inf if y == 2 else _dec_erfcinv(y)

    def erfinv(y):
        if math.isnan(y) or abs(y) >= 1:
            return math.nan if math.isnan(y) or abs(y) > 1 else math.copysign(math.inf, y)
        if abs(y) > 0.5:
            with localcontext(_dec_ctx()):
                return -_dec_erfcinv(1 + Decimal(y))   # erfinv(y) = -erfcinv(1 + y)
        if y == 0:
            return y
        with localcontext(_dec_ctx()):                 # Newton's method on erf
            x, c, y = Decimal(_erfinv64(y)), 2 / Decimal(_DPI).sqrt(), Decimal(y)
            for _ in range(4):
                x -= (_dec_erf(x) - y) / (c * (-x * x).exp())
            return x

    def normcdf(v):
        if not math.isfinite(v):
            return v if math.isnan(v) else (1.0 if v > 0 else 0.0)
        with localcontext(_dec_ctx()):
            return _dec_erfc(-Decimal(v) / Decimal(2).sqrt()) / 2

    def normcdfinv(p):
        if math.isnan(p) or not 0 <= p <= 1:
            return math.nan
        if p in (0, 1):
            return -math.inf if p == 0 else math.inf
        if p == 0.5:
            return 0.0  # +0, as the H200 gives (not -sqrt(2) * +0)
        with localcontext(_dec_ctx()):
            return -Decimal(2).sqrt() * _dec_erfcinv(2 * Decimal(p))

    def erfcx(v):
        if not math.isfinite(v):
            return v if math.isnan(v) else (0.0 if v > 0 else math.inf)
        with localcontext(_dec_ctx()):
            x = Decimal(v)
            if x < -27:                         # 2 exp(x^2) is past DBL_MAX
                return math.inf
            return _dec_erfcx_cf(x) if x >= 4 else (x * x).exp() * _dec_erfc(x)

    return [[f(float(v)) for v in row] for f, row in
            zip((erfinv, erfcinv, normcdf, normcdfinv, erfcx), x)]


def _special_d_check(d, b):
    refs = _special_d_ref(b["x"])
    for k, name in enumerate(_SPECIAL_D):
        _ulps(name, d["o"][k], refs[k], _SPECIAL_D_ULPS[k])
    o = d["o"]
    # erfinv(-0) is -0, erfcinv(1) is +0
    assert np.signbit(o[0, 1]) and o[1, 2] == 0 and not np.signbit(o[1, 2])


case(id="math_api_erfinv_erfcinv_normcdf_erfcx_double", src="math_api.cu", kernel="special_d",
     make=_special_d_make, args=(In("x"), Out("o"), Val("n")), block=(128, 1, 1),
     grid=(1, 1), check=_special_d_check, tags=("math_api", "ulp", "tails"))


def _norms_make(r):
    n = 400
    inf, nan = np.inf, np.nan
    p = r.standard_normal((n, 4)) * 10.0 ** r.integers(-44, 38, (n, 1))
    q = r.standard_normal((n, 4)) * 10.0 ** r.integers(-320, 305, (n, 1))
    p[::7, 3] *= 1e-10                                 # unbalanced coordinates
    edges = [(0, 0, 0, 0), (-0.0, 0, -0.0, 0), (inf, nan, 1, 1), (nan, -inf, 0, 0),
             (nan, 1, 1, 1), (1, 1, nan, inf), (3, 4, 12, 84), (1e-45, 0, 0, 1e-45),
             (3e38, 3e38, 3e38, 3e38), (1e-30, 1e-30, 1e-30, 1e-30), (-3, 4, 0, 0)]
    dedges = [(0, 0, 0, 0), (inf, nan, 1, 1), (nan, -inf, 0, 0), (nan, 1, 1, 1),
              (1.7e308, 1.7e308, 1.7e308, 1.7e308), (5e-324, 5e-324, 0, 5e-324),
              (1e-300, 1e-300, 1e-300, 1e-300), (3, 4, 12, 84), (1, 1, nan, inf)]
    for k, e in enumerate(edges):
        p[k] = e
    for k, e in enumerate(dedges):
        q[k] = e
    with np.errstate(over="ignore"):
        return dict(p=p.astype(np.float32), q=q, of=np.zeros(5 * n, np.float32),
                    od=np.zeros(5 * n), n=np.int32(n))


def _norm_ref(rows, k, recip):
    """sqrt of the sum of squares of the first k coordinates (decimal), or its reciprocal:
    +inf (+0) where one is infinite, even beside a NaN."""
    out = []
    for row in rows:
        v = [float(t) for t in row[:k]]
        if any(math.isinf(t) for t in v):
            out.append(0.0 if recip else math.inf)
        elif any(math.isnan(t) for t in v):
            out.append(math.nan)
        else:
            s = _dec_norm(*v)
            out.append((math.inf if s == 0 else 1 / s) if recip else s)
    return out


def _norms_check(d, b):
    of, od = d["of"].reshape(-1, 5), d["od"].reshape(-1, 5)
    # (name, column, coordinates, reciprocal, float ulps, double ulps): the Guide's tables
    for name, col, k, recip, uf, ud in [("norm3d", 0, 3, False, 3, 2),
                                        ("rnorm3d", 1, 3, True, 2, 1),
                                        ("norm4d", 2, 4, False, 3, 2),
                                        ("rnorm4d", 3, 4, True, 2, 1),
                                        ("rhypot", 4, 2, True, 2, 1)]:
        _ulps(name + "f", of[:, col], np.array([float(v) for v in _norm_ref(b["p"], k, recip)]), uf)
        _ulps(name, od[:, col], _norm_ref(b["q"], k, recip), ud)


case(id="math_api_norm3d_rnorm3d_norm4d_rhypot_range", src="math_api.cu", kernel="norms",
     make=_norms_make, args=(In("p"), In("q"), Out("of"), Out("od"), Val("n")),
     block=(128, 1, 1), grid=(4, 1), check=_norms_check, tags=("math_api", "ulp", "overflow"))


def _exact_make(r):
    n = 300
    inf, nan = np.inf, np.nan
    a = r.standard_normal(n) * 2.0 ** r.integers(-1074, 1000, n)
    b = r.standard_normal(n) * 2.0 ** r.integers(-60, 60, n)
    a[100:200] = np.round(r.standard_normal(100) * 8, 1) + r.choice([0, 0.5], 100)  # ties
    b[100:150] = r.integers(-2000, 2000, 50)                       # ldexp's exponent
    b[150:200] = np.round(r.standard_normal(50) * 3, 2)
    edges = [(0, 1), (-0.0, 1), (inf, 2), (-inf, -2), (nan, 1), (1, nan), (5e-324, 1),
             (-5e-324, -inf), (2.5, -0.0), (-2.5, 0), (0.5, inf), (-4, 2), (4, -2), (-0.0, -0.0),
             (3, inf), (-3, -inf), (1, 0), (-1.5, 1e-320), (7, 2), (-7, 2), (5, 2), (1.7e308, 1000),
             (2.2250738585072014e-308, -1), (-0.49999999999999994, 3), (0.5, 0.5), (-0.5, -1),
             (1.5, 3), (-1.5, 3), (4503599627370497.0, 1), (-2.5, 0.5), (6, 4), (-6, 4), (1e16, 3),
             (0.0, -0.0), (-0.0, 0.0), (nan, nan), (inf, inf), (inf, 0), (1, 1), (2, 1.5)]
    for k, e in enumerate(edges):
        a[k], b[k] = e
    return dict(a=a, b=b, o=np.zeros(18 * n), e=np.zeros(6 * n, np.int64), n=np.int32(n))


def _round_away(x):
    t = np.trunc(x)
    with np.errstate(invalid="ignore"):
        return np.where(np.isfinite(x), t + np.copysign(np.abs(x - t) >= 0.5, x), x)


def _exact_check(d, b):
    """Bit for bit (the sign of a zero included) against C99 Annex F and the Math API."""
    a, y = b["a"], b["b"]
    o, e = d["o"].reshape(-1, 18), d["e"].reshape(-1, 6)
    fin = np.isfinite(a)
    INT_MIN, INT_MAX = -2 ** 31, 2 ** 31 - 1

    def same(key, got, want, mask=None):
        got, want = np.asarray(got, np.float64), np.asarray(want, np.float64)
        mask = np.ones(got.shape, bool) if mask is None else mask
        nan = np.isnan(got) & np.isnan(want)
        bad = mask & ~nan & (got.view(np.uint64) != want.view(np.uint64))
        assert not bad.any(), (key, a[bad][:4], y[bad][:4], got[bad][:4], want[bad][:4])

    def eq(key, got, want, mask):
        bad = mask & (np.asarray(got) != np.asarray(want))
        assert not bad.any(), (key, a[bad][:4], y[bad][:4], got[bad][:4], np.asarray(want)[bad][:4])

    with np.errstate(all="ignore"):
        m, ex = np.frexp(a)
        same("frexp", o[:, 0], m)
        eq("frexp exponent", e[:, 0], ex, fin)    # unspecified for inf and NaN
        k = np.trunc(np.fmin(np.fmax(y, -2000.0), 2000.0)).astype(np.int64)  # NaN: -2000
        same("ldexp", o[:, 1], np.ldexp(a, k))
        same("scalbn", o[:, 2], np.ldexp(a, -3))
        eq("ilogb", e[:, 1], np.where(a == 0, INT_MIN, np.where(np.isnan(a), INT_MIN,
                                      np.where(np.isinf(a), INT_MAX, ex - 1))),
           np.ones(a.size, bool))
        same("logb", o[:, 3], np.where(a == 0, -np.inf, np.where(fin, ex - 1.0, np.abs(a))))
        same("fmod", o[:, 4], np.fmod(a, y))
        rem = []
        quo = []
        for v, w in zip(a.tolist(), y.tolist()):
            if math.isnan(v) or math.isnan(w) or math.isinf(v) or w == 0:
                rem.append(math.nan)
                quo.append(None)
            elif math.isinf(w):
                rem.append(v)
                quo.append(None)
            else:
                q = Fraction(v) / Fraction(w)
                n_ = round(q)                     # Python rounds halves to even, as IEEE
                rv = float(Fraction(v) - n_ * Fraction(w))
                rem.append(math.copysign(0.0, v) if rv == 0 else rv)
                quo.append(n_ & 7)
        same("remainder", o[:, 5], rem)
        same("remquo", o[:, 6], rem)
        qm = np.array([q is not None for q in quo])
        eq("remquo quotient bits", e[:, 2], [q or 0 for q in quo], qm)
        same("nextafter", o[:, 7], np.nextafter(a, y))
        same("copysign", o[:, 8], np.copysign(a, y), ~np.isnan(a))
        same("fdim", o[:, 9], np.where(np.isnan(a) | np.isnan(y), np.nan,
                                       np.where(a > y, a - y, 0.0)))
        # fmax/fmin: the non-NaN operand where one is NaN (the sign of a zero result is
        # not specified when both are zeros)
        eq("fmax", np.nan_to_num(o[:, 10], nan=7.5), np.nan_to_num(np.fmax(a, y), nan=7.5),
           np.ones(a.size, bool))
        eq("fmin", np.nan_to_num(o[:, 11], nan=7.5), np.nan_to_num(np.fmin(a, y), nan=7.5),
           np.ones(a.size, bool))
        fr, ip = np.modf(a)
        same("modf", o[:, 12], fr)
        same("modf integral part", o[:, 13], ip)
        same("trunc", o[:, 14], np.trunc(a))
        same("round", o[:, 15], _round_away(a))
        same("rint", o[:, 16], np.rint(a))
        same("nearbyint", o[:, 17], np.rint(a))
        small = np.abs(a) < 1e15
        eq("llround", e[:, 3], np.where(small, _round_away(np.where(small, a, 0)), 0), small)
        eq("lrint", e[:, 4], np.where(small, np.rint(np.where(small, a, 0)), 0), small)
        f = a.astype(np.float32).astype(np.float64)
        eq("roundf", e[:, 5], np.where(small, _round_away(np.where(small, f, 0)), 0), small)


case(id="math_api_exact_functions_double", src="math_api.cu", kernel="exact_d",
     make=_exact_make, args=(In("a"), In("b"), Out("o"), Out("e"), Val("n")),
     block=(128, 1, 1), grid=(3, 1), check=_exact_check, tags=("math_api", "special_values"))


def _pow_ref(x, y, ftype):
    """pow(x, y) by C99 Annex F's special cases (as the Math API lists them), else the exact
    power in decimal rounded to `ftype`; x, y already of that type."""
    from decimal import Decimal, localcontext
    x, y = float(x), float(y)
    odd = math.isfinite(y) and y == int(y) and int(y) % 2 == 1
    if y == 0 or x == 1:
        return 1.0
    if math.isnan(x) or math.isnan(y):
        return math.nan
    if x == 0:
        return (math.copysign(math.inf, x) if odd else math.inf) if y < 0 else \
            (x if odd else 0.0)
    if math.isinf(y):
        if x == -1:
            return 1.0
        return (math.inf if abs(x) > 1 else 0.0) if y > 0 else (0.0 if abs(x) > 1 else math.inf)
    if math.isinf(x):
        s = -1.0 if x < 0 and odd else 1.0
        return s * (math.inf if y > 0 else 0.0)
    if x < 0 and y != int(y):
        return math.nan
    s = -1.0 if x < 0 and odd else 1.0
    with localcontext(_dec_ctx()):
        v = Decimal(abs(x)) ** Decimal(y)
    with np.errstate(over="ignore"):
        return s * float(ftype(float(v)) if abs(v) < Decimal("1e400") else math.inf)


def _pow_make(r):
    n = 200
    inf, nan = np.inf, np.nan
    a = np.abs(r.standard_normal(n)) * 2.0 ** r.integers(-60, 60, n)
    b = r.standard_normal(n) * 2.0 ** r.integers(-4, 4, n)
    a[60:100] *= -1
    b[60:100] = np.round(b[60:100] * 4)                 # negative bases: integer powers
    b[100:120] = 0.5                                    # pow(x, 0.5): sqrt, but -0 and -inf
    edges = [(-1, inf), (-1, -inf), (1, nan), (nan, 0), (nan, -0.0), (0, -1), (-0.0, -1),
             (-0.0, -2), (0, -0.5), (-0.0, -inf), (-0.0, 3), (-0.0, 2), (-0.0, 0.5), (0.5, inf),
             (2, inf), (0.5, -inf), (2, -inf), (-inf, -3), (-inf, -2), (-inf, 3), (-inf, 2),
             (-inf, 0.5), (inf, -1), (inf, 0.5), (-8, 1 / 3), (-2, 0.5), (2, 10), (-2, 11),
             (10, -3), (2, 1024), (2, -1075), (-2, -1074), (0.5, 1074), (-inf, 0.5), (-0.0, 0.5),
             (inf, nan), (nan, nan), (1, -inf), (-3, -3), (1e-300, 2), (7, 1 / 3)]
    for k, e in enumerate(edges):
        a[k], b[k] = e
    return dict(a=a, b=b, o=np.zeros(n), of=np.zeros(n, np.float32), n=np.int32(n))


def _pow_check(d, b):
    a, y = b["a"], b["b"]
    with np.errstate(over="ignore", under="ignore"):
        af, yf = a.astype(np.float32), y.astype(np.float32)
    _ulps("pow", d["o"], np.array([_pow_ref(u, v, np.float64) for u, v in zip(a, y)]), 2)
    _ulps("powf", d["of"], np.array([_pow_ref(u, v, np.float64) for u, v in zip(af, yf)]), 4)


case(id="math_api_pow_powf_special_cases", src="math_api.cu", kernel="pow_special",
     make=_pow_make, args=(In("a"), In("b"), Out("o"), Out("of"), Val("n")),
     block=(128, 1, 1), grid=(2, 1), check=_pow_check, tags=("math_api", "special_values", "ulp"))
