"""The corpus's cases for intrinsics.cu: bit scans and reversal, byte permute and
funnel shifts, mulhi/mul24/sad/hadd, directed rounding, conversions and bit
casts, the fast float intrinsics, and warp reduce and match.

Each module appends its cases to registry.CASES when imported (cases.py
imports them all)."""
from fractions import Fraction

import numpy as np

from registry import In, Out, Val, case


# ---- intrinsics.cu -------------------------------------------------------------------------------------
# References from Python integers and exact fractions, not from the operations under test.

M32 = (1 << 32) - 1
M64 = (1 << 64) - 1
F32_MAX = np.finfo(np.float32).max


def _words(r, n, edges, bits):
    """n random words of `bits` bits, of every length (so clz/ffs vary), the edges first."""
    hi = np.uint64(M64 if bits == 64 else M32)
    w = r.integers(0, hi, n, dtype=np.uint64, endpoint=True)
    w = w >> r.integers(0, bits, n).astype(np.uint64)
    w[:len(edges)] = np.array(edges, np.uint64)
    return w.astype(np.uint32 if bits == 32 else np.uint64)


U32_EDGES = [0, 1, M32, 0x80000000, 0x7fffffff, 0x00010000, 0xaaaaaaaa, 0x00800000]
U64_EDGES = [0, 1, M64, 1 << 63, (1 << 63) - 1, 1 << 32, M32, 0x5555555555555555]


def _signed(v, bits=32):
    return ((v & ((1 << bits) - 1)) ^ (1 << (bits - 1))) - (1 << (bits - 1))


def _brev(v, bits):
    return int(format(v, f"0{bits}b")[::-1], 2)


def _bit_scan_ref(d):
    out = []
    for x, y in zip(d["x"].tolist(), d["y"].tolist()):
        out += [bin(x).count("1"), 32 - x.bit_length(), (x & -x).bit_length(),
                bin(y).count("1"), 64 - y.bit_length(), (y & -y).bit_length()]
    return {"o": np.array(out, np.int32)}


case(id="intrinsics_bit_scan_popc_clz_ffs", src="intrinsics.cu", kernel="bit_scan",
     make=lambda r: dict(x=_words(r, 1000, U32_EDGES, 32), y=_words(r, 1000, U64_EDGES, 64),
                         o=np.zeros(6000, np.int32), n=np.int32(1000)),
     args=(In("x"), In("y"), Out("o"), Val("n")), block=(128, 1, 1), grid=(8, 1),
     expect=_bit_scan_ref, tags=("intrinsics", "popc", "clz", "ffs"))


def _bit_reverse_ref(d):
    log2n = int(d["log2n"])
    perm = np.zeros_like(d["data"])
    perm[[_brev(i, log2n) for i in range(1 << log2n)]] = d["data"]
    return {"rx": np.array([_brev(v, 32) for v in d["x"].tolist()], np.uint32),
            "ry": np.array([_brev(v, 64) for v in d["y"].tolist()], np.uint64), "perm": perm}


case(id="intrinsics_bit_reverse_brev_fft_order", src="intrinsics.cu", kernel="bit_reverse",
     make=lambda r: dict(x=_words(r, 1024, U32_EDGES, 32), y=_words(r, 1024, U64_EDGES, 64),
                         rx=np.zeros(1024, np.uint32), ry=np.zeros(1024, np.uint64),
                         data=r.standard_normal(1024).astype(np.float32),
                         perm=np.zeros(1024, np.float32), log2n=np.int32(10)),
     args=(In("x"), In("y"), Out("rx"), Out("ry"), In("data"), Out("perm"), Val("log2n")),
     block=(256, 1, 1), grid=(4, 1), expect=_bit_reverse_ref, tags=("intrinsics", "brev"))


def _byte_perm(a, b, s):
    src = (a | b << 32).to_bytes(8, "little")
    return int.from_bytes(bytes(src[(s >> 4 * k) & 7] for k in range(4)), "little")


def _byte_funnel_ref(d):
    out = []
    for a, b, s in zip(d["a"].tolist(), d["b"].tolist(), d["s"].tolist()):
        v = b << 32 | a
        rot = s % 32
        out += [_byte_perm(a, b, s & 0xffff7777), _byte_perm(a, 0, 0x0123),
                (v << (s & 31)) >> 32 & M32, v >> (s & 31) & M32,
                (v << min(s, 32)) >> 32 & M32, v >> min(s, 32) & M32,
                (a << rot | a >> (32 - rot)) & M32, _byte_perm(a, b, 0x5140)]
    return {"o": np.array(out, np.uint32)}


def _byte_funnel_make(r):
    n = 1000
    s = r.integers(0, 70, n).astype(np.uint32)
    s[:10] = [0, 1, 31, 32, 33, 63, 64, M32, 0x80000020, 0x12345678]
    s[10:20] = r.integers(0, 2**32, 10, dtype=np.uint64)  # random selectors, upper half too
    return dict(a=_words(r, n, U32_EDGES, 32), b=_words(r, n, U32_EDGES[::-1], 32), s=s,
                o=np.zeros(8 * n, np.uint32), n=np.int32(n))


case(id="intrinsics_byte_perm_funnelshift", src="intrinsics.cu", kernel="byte_funnel",
     make=_byte_funnel_make, args=(In("a"), In("b"), In("s"), Out("o"), Val("n")),
     block=(128, 1, 1), grid=(8, 1), expect=_byte_funnel_ref,
     tags=("intrinsics", "byte_perm", "funnelshift"))


def _mul_hi_sad_ref(d):
    out, out64 = [], []
    for a, b, z, c, e in zip(d["a"].tolist(), d["b"].tolist(), d["z"].tolist(), d["c"].tolist(),
                             d["d"].tolist()):
        ua, ub = a & M32, b & M32
        out += [(a * b >> 32) & M32, ua * ub >> 32,
                _signed(a, 24) * _signed(b, 24) & M32, (ua & 0xffffff) * (ub & 0xffffff) & M32,
                (abs(a - b) + z) & M32, (abs(ua - ub) + z) & M32,
                (a + b) >> 1 & M32, (a + b + 1) >> 1 & M32, (ua + ub) >> 1, (ua + ub + 1) >> 1]
        out64 += [c * e >> 64, (_signed(c, 64) * _signed(e, 64) >> 64) & M64]
    return {"o": np.array(out, np.uint32), "o64": np.array(out64, np.uint64)}


def _mul_hi_sad_make(r):
    n = 1000
    a = _words(r, n, U32_EDGES, 32).view(np.int32)
    b = _words(r, n, U32_EDGES[::-1], 32).view(np.int32)
    b[8:12] = [-0x80000000, 0x7fffffff, -1, 0x00ffffff]
    a[8:12] = [0x7fffffff, -0x80000000, -0x80000000, 0x00800000]
    return dict(a=a, b=b, z=_words(r, n, [M32, 0, 1], 32), c=_words(r, n, U64_EDGES, 64),
                d=_words(r, n, U64_EDGES[::-1], 64), o=np.zeros(10 * n, np.uint32),
                o64=np.zeros(2 * n, np.uint64), n=np.int32(n))


case(id="intrinsics_mulhi_mul24_sad_hadd", src="intrinsics.cu", kernel="mul_hi_sad",
     make=_mul_hi_sad_make,
     args=(In("a"), In("b"), In("z"), In("c"), In("d"), Out("o"), Out("o64"), Val("n")),
     block=(128, 1, 1), grid=(8, 1), expect=_mul_hi_sad_ref,
     tags=("intrinsics", "mulhi", "mul24", "sad", "hadd"))


def _f32_neighbours(q):
    """The float32 values next to the exact q (a Fraction): (lo, hi), lo <= q <= hi."""
    with np.errstate(over="ignore"):  # past F32_MAX: the neighbours are F32_MAX and inf
        c = np.float32(float(q))
        if np.isinf(c):
            c = np.copysign(F32_MAX, c)
        fc = Fraction(float(c))
        if fc == q:
            return c, c
        if fc < q:
            return c, np.nextafter(c, np.float32(np.inf))
        return np.nextafter(c, np.float32(-np.inf)), c


def _f32_round(q, mode):
    """q (exact) rounded to float32: 'rn' (to nearest, ties to even), 'rz', 'ru', 'rd'."""
    lo, hi = _f32_neighbours(q)
    if lo == hi:
        return lo
    if mode == "rd" or (mode == "rz" and q > 0):
        return lo
    if mode == "ru" or mode == "rz":
        return hi
    if np.isinf(hi) or np.isinf(lo):  # past F32_MAX: infinity from F32_MAX + half an ulp
        return np.float32(np.copysign(np.inf, float(q))) \
            if abs(q) >= 2 ** 128 - 2 ** 103 else np.copysign(F32_MAX, np.float32(float(q)))
    dlo, dhi = q - Fraction(float(lo)), Fraction(float(hi)) - q
    if dlo != dhi:
        return lo if dlo < dhi else hi
    return lo if int(lo.view(np.uint32)) & 1 == 0 else hi


_EXACT = {"add": lambda a, b: a + b, "sub": lambda a, b: a - b, "mul": lambda a, b: a * b,
          "fma": lambda a, b, c: a * b + c, "rcp": lambda a: 1 / a}


def _rounded(op, mode, *xs):
    """One IEEE operation on float32 operands, correctly rounded in `mode`. Infinite or NaN
    operands and 1/0 give the same result in every mode: NumPy's."""
    xs = [np.float32(x) for x in xs]
    if all(np.isfinite(x) for x in xs) and not (op == "rcp" and xs[0] == 0):
        return _f32_round(_EXACT[op](*(Fraction(float(x)) for x in xs)), mode)
    w = [np.float64(x) for x in xs]
    with np.errstate(all="ignore"):
        return np.float32(_EXACT[op](*w) if op != "rcp" else 1.0 / w[0])


def _interval_ref(d):
    out = []
    for (alo, ahi), (blo, bhi) in zip(d["a"].tolist(), d["b"].tolist()):
        pairs = [(alo, blo), (alo, bhi), (ahi, blo), (ahi, bhi)]
        out += [_rounded("add", "rd", alo, blo), _rounded("add", "ru", ahi, bhi),
                min(_rounded("mul", "rd", x, y) for x, y in pairs),
                max(_rounded("mul", "ru", x, y) for x, y in pairs)]
    return {"o": np.array(out, np.float32)}


def _interval_make(r):
    n = 500
    lo = r.standard_normal((n, 2)) * 10.0 ** r.integers(-6, 7, (n, 2))
    a = np.stack([lo[:, 0], lo[:, 0] + np.abs(r.standard_normal(n)) * 3], axis=1)
    b = np.stack([lo[:, 1], lo[:, 1] + np.abs(r.standard_normal(n)) * 0.1], axis=1)
    edges = [([0, 0], [1, 2]), ([1, 1], [1, 1]), ([-1e-45, 1e-45], [3e-39, 5e-39]),
             ([1e38, 3e38], [2, 4]), ([-3e38, -1e38], [2, 4]), ([-F32_MAX, F32_MAX], [-1, 1]),
             ([0.1, 0.2], [0.3, 0.7]), ([16777216, 16777216], [1, 1]), ([-2, 3], [-5, 7])]
    for k, (x, y) in enumerate(edges):
        a[k], b[k] = x, y
    return dict(a=a.astype(np.float32), b=b.astype(np.float32), o=np.zeros(4 * n, np.float32),
                n=np.int32(n))


case(id="intrinsics_interval_fadd_fmul_rd_ru", src="intrinsics.cu", kernel="interval_ops",
     make=_interval_make, args=(In("a"), In("b"), Out("o"), Val("n")), block=(128, 1, 1),
     grid=(4, 1), expect=_interval_ref, tags=("intrinsics", "directed_rounding", "float2"))


def _ieee_ref(d):
    out = []
    for a, b, c in zip(d["a"], d["b"], d["c"]):
        sat = np.float32(0 if np.isnan(a) else min(max(a, 0), 1))
        with np.errstate(invalid="ignore"):
            sq = np.float32(np.sqrt(np.float64(a)))  # double, then float: correctly rounded
        out += [_rounded("add", "rd", a, b), _rounded("add", "ru", a, b),
                _rounded("mul", "rz", a, b), _rounded("fma", "rn", a, b, c),
                _rounded("rcp", "rn", a), sq, sat, _rounded("sub", "rz", a, c)]
    return {"o": np.array(out, np.float32)}


def _ieee_make(r):
    n = 2000
    a, b, c = (r.standard_normal(n) * 2.0 ** r.integers(-30, 31, n) for _ in range(3))
    b[100:200] = -a[100:200]                                   # cancellation
    c[200:300] = -(a[200:300].astype(np.float32) * b[200:300].astype(np.float32))  # error of a*b
    a[300:400] = r.random(100) * 1.5 - 0.25                    # __saturatef's range
    inf, nan, tiny = np.inf, np.nan, 1e-45
    edges = [(0, 0, 0), (-0.0, 0, -0.0), (1, -1, 0), (F32_MAX, F32_MAX, -F32_MAX),
             (-F32_MAX, -F32_MAX, 1), (F32_MAX, 2, -F32_MAX), (tiny, tiny, -tiny),
             (1.5e-39, -3e-39, tiny), (tiny, 0.5, 0), (3e-39, 3e-39, 1),
             (inf, -inf, 1), (inf, 1, -inf), (nan, 1, 1), (1, nan, 1), (-inf, 0, 2),
             (16777216, 1, 0), (1, 2 ** -24, 1), (1, 3 * 2 ** -25, -1), (3, 1 / 3, -1),
             (0.1, 0.2, 0.3), (-1, 2, 3), (2, 3e38, -1), (0.5, 1, 1), (1.25, -0.75, -2.5)]
    for k, e in enumerate(edges):
        a[k], b[k], c[k] = e
    return dict(a=a.astype(np.float32), b=b.astype(np.float32), c=c.astype(np.float32),
                o=np.zeros(8 * n, np.float32), n=np.int32(n))


case(id="intrinsics_ieee_rounding_rd_ru_rz_rn", src="intrinsics.cu", kernel="ieee_rounding",
     make=_ieee_make, args=(In("a"), In("b"), In("c"), Out("o"), Val("n")), block=(128, 1, 1),
     grid=(16, 1), expect=_ieee_ref,
     tags=("intrinsics", "directed_rounding", "fma", "saturate"))


def _f2i(x, fn, lo, hi):
    with np.errstate(invalid="ignore"):
        v = np.clip(fn(x.astype(np.float64)), lo, hi)
    return np.where(np.isnan(x), 0, v)


def _float_bits_check(d, b):
    x, dd = b["x"], b["d"]
    xb, db = x.view(np.uint32), dd.view(np.uint64)
    np.testing.assert_array_equal(d["ri"], _f2i(x, np.rint, -2 ** 31, 2 ** 31 - 1))
    np.testing.assert_array_equal(d["zi"], _f2i(x, np.trunc, -2 ** 31, 2 ** 31 - 1))
    np.testing.assert_array_equal(d["uu"], _f2i(x, np.ceil, 0, 2 ** 32 - 1))
    np.testing.assert_array_equal(d["e"], (xb >> 23) & 0xff)
    np.testing.assert_array_equal(d["neg"].view(np.uint32), xb ^ np.uint32(0x80000000))
    np.testing.assert_array_equal(d["hi"], (db >> np.uint64(32)).astype(np.uint32).view(np.int32))
    np.testing.assert_array_equal(d["lo"], db.astype(np.uint32).view(np.int32))
    np.testing.assert_array_equal(d["dabs"].view(np.uint64), db & np.uint64((1 << 63) - 1))


def _float_bits_make(r):
    n = 1000
    x = (r.standard_normal(n) * 10.0 ** r.integers(-3, 10, n)).astype(np.float32)
    x[20:60] = r.integers(-20, 20, 40) + 0.5                      # ties: to even
    x[:20] = [0, -0.0, np.nan, np.inf, -np.inf, 2 ** 31, -2 ** 31, -2 ** 31 - 256, 2 ** 32,
              4294967040.0, 2147483520.0, -0.25, -1.5, 1e-45, 0.1, -0.9, 0.5, 1.5, 2.5, -2.5]
    d = r.standard_normal(n) * 10.0 ** r.integers(-300, 300, n)
    d[:8] = [0, -0.0, np.nan, np.inf, -np.inf, 5e-324, -1.0, -np.finfo(np.float64).max]
    z = np.zeros(n, np.int32)
    return dict(x=x, d=d, ri=z.copy(), zi=z.copy(), uu=np.zeros(n, np.uint32), e=z.copy(),
                neg=np.zeros(n, np.float32), hi=z.copy(), lo=z.copy(), dabs=np.zeros(n),
                n=np.int32(n))


case(id="intrinsics_float2int_rounding_and_bit_casts", src="intrinsics.cu", kernel="float_bits",
     make=_float_bits_make,
     args=(In("x"), In("d"), Out("ri"), Out("zi"), Out("uu"), Out("e"), Out("neg"), Out("hi"),
           Out("lo"), Out("dabs"), Val("n")),
     block=(128, 1, 1), grid=(8, 1), check=_float_bits_check,
     tags=("intrinsics", "conversion", "bit_cast"))


def _sincospi(t):
    """sin(pi t), cos(pi t) in double: the argument reduced exactly (to the nearest quarter
    turn), so integers and half-integers give exact zeros and ones."""
    with np.errstate(invalid="ignore"):
        r = np.fmod(t.astype(np.float64), 2.0)
        k = np.rint(2 * r)
        f = r - k / 2
        q = np.where(np.isfinite(k), k, 0).astype(np.int64) & 3
    s, c = np.sin(np.pi * f), np.cos(np.pi * f)
    return (np.choose(q, [s, c, -s, -c]), np.choose(q, [c, -s, -c, s]))


def _within_ulps(key, got, want, ulps):
    """got within `ulps` units in the last place (of got's type) of the exact `want`
    (float64); where want is not finite, or is zero, got must be it."""
    exact = ~np.isfinite(want) | (want == 0)
    np.testing.assert_array_equal(got[exact], want[exact].astype(got.dtype), err_msg=key)
    w = want[~exact]
    err = np.abs(got[~exact] - w) / np.spacing(np.abs(w).astype(got.dtype)).astype(np.float64)
    worst = int(np.argmax(err))
    assert err[worst] <= ulps * (1 + 1e-9), (key, float(got[~exact][worst]), float(w[worst]),
                                             float(err[worst]))


def _fast_math_check(d, b):
    x, y = b["x"].astype(np.float64), b["y"].astype(np.float64)
    with np.errstate(all="ignore"):
        q = x / y
        rs = 1 / np.sqrt(y)
    # the Guide: for 2**126 < |y| < 2**128, __fdividef(x, y) is 0, and NaN for an infinite x
    huge = np.isfinite(y) & (np.abs(y) > 2.0 ** 126)
    with np.errstate(invalid="ignore"):
        q[huge] = x[huge] * 0.0
    _within_ulps("__fdividef", d["q"], q, 2)
    _within_ulps("rsqrtf", d["rs"], rs, 2)
    s, c = _sincospi(b["t"])
    _within_ulps("sincospif sin", d["s"], s, 1)
    _within_ulps("sincospif cos", d["c"], c, 1)
    # double: the Guide's 2 ulps, and 2 more for the reference's own rounding in double
    _within_ulps("sincospi sin", d["sd"], s, 4)
    _within_ulps("sincospi cos", d["cd"], c, 4)


def _fast_math_make(r):
    n = 1000
    x = (r.standard_normal(n) * 2.0 ** r.integers(-20, 21, n)).astype(np.float32)
    y = (r.standard_normal(n) * 2.0 ** r.integers(-20, 21, n)).astype(np.float32)
    y[500:600] = np.abs(y[500:600])
    x[:8] = [1, -5, np.inf, 0, 1e30, np.inf, 0, np.nan]
    y[:8] = [2 ** 127, -3e38, 2.5e38, 3, 1e-8, 2, np.inf, 1]
    y[8:12] = [0, -0.0, -1, np.inf]                  # rsqrtf: inf, -inf, NaN, 0
    t = (r.random(n) * 8 - 4).astype(np.float32)
    t[:24] = [0, -0.0, 1, -1, 0.5, -0.5, 1.5, 2, 3, 1000.5, -1000.25, 2 ** 23 + 1, 2 ** 24,
              2 ** 23 + 0.5, 12345.75, 1e30, np.inf, -np.inf, np.nan, 0.25, 1 / 3, 1e-30,
              -1e-40, 7.125]
    return dict(x=x, y=y, t=t, q=np.zeros(n, np.float32), rs=np.zeros(n, np.float32),
                s=np.zeros(n, np.float32), c=np.zeros(n, np.float32), sd=np.zeros(n),
                cd=np.zeros(n), n=np.int32(n))


case(id="intrinsics_fdividef_rsqrtf_sincospif", src="intrinsics.cu", kernel="fast_math",
     make=_fast_math_make,
     args=(In("x"), In("y"), In("t"), Out("q"), Out("rs"), Out("s"), Out("c"), Out("sd"),
           Out("cd"), Val("n")),
     block=(128, 1, 1), grid=(8, 1), check=_fast_math_check,
     tags=("intrinsics", "fast_math", "sinpi"))


def _warp_match_make(r):
    v = r.integers(-1000, 1000, 128).astype(np.int32)
    v[70] = -2 ** 31
    v[100] = 2 ** 31 - 1
    bits = r.integers(0, 2 ** 32, 128, dtype=np.uint64).astype(np.uint32)
    bits[32:64] |= np.uint32(0x00010001)
    bits[96:128] &= np.uint32(0x0000ffff)
    key = np.full(128, 7, np.int32)
    key[32:64] = r.integers(0, 100, 32)
    key[64:96] = 10
    key[68] = key[69] = 11                           # lane 4 (11 & ~1 == 10) and lane 5
    key[96:128] = 3
    key[102] = 9                                     # lane 6: 9 & ~1 != 3 & ~1
    z = np.zeros(128, np.int32)
    u = np.zeros(128, np.uint32)
    return dict(v=v, bits=bits, key=key, mn=z.copy(), umn=u.copy(), andr=u.copy(), orr=u.copy(),
                xorr=u.copy(), pred=z.copy(), allmask=u.copy(), evenmin=z.copy(),
                evenall=u.copy())


def _warp_match_ref(d):
    v, bits, key = (d[k].reshape(4, 32) for k in ("v", "bits", "key"))
    rep = lambda a: np.repeat(np.asarray(a), 32)  # noqa: E731
    same = np.array([(k == k[0]).all() for k in key])
    even = np.arange(32) % 2 == 0
    esame = np.array([((k[even] & ~1) == (k[0] & ~1)).all() for k in key])
    evenmin = np.where(even, v[:, ::2].min(axis=1)[:, None], 0x7fffffff).ravel()
    evenall = np.where(even, np.where(esame, 0x55555555, 0xffffffff)[:, None], 0xdeadbeef)
    return {"mn": rep(v.min(axis=1)), "umn": rep(v.view(np.uint32).min(axis=1)),
            "andr": rep(np.bitwise_and.reduce(bits, axis=1)),
            "orr": rep(np.bitwise_or.reduce(bits, axis=1)),
            "xorr": rep(np.bitwise_xor.reduce(bits, axis=1)), "pred": rep(same.astype(np.int32)),
            "allmask": rep(np.where(same, 0xffffffff, 0)), "evenmin": evenmin,
            "evenall": evenall.ravel()}


case(id="intrinsics_warp_reduce_min_and_or_xor_match_all", src="intrinsics.cu",
     kernel="warp_reduce_match",
     make=_warp_match_make,
     args=(In("v"), In("bits"), In("key"), Out("mn"), Out("umn"), Out("andr"), Out("orr"),
           Out("xorr"), Out("pred"), Out("allmask"), Out("evenmin"), Out("evenall")),
     block=(64, 1, 1), grid=(2, 1), expect=_warp_match_ref,
     tags=("intrinsics", "warp_reduce", "warp_match"))
