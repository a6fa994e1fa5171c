"""pycudac.cumath — elementwise math functions on GPUArrays (PyCUDA's names).

Each function takes (array, out=None, stream=None); a Stream in out's place
is the stream, as in PyCUDA's f(array, stream). Dtypes follow NumPy's ufunc
loops (int8 -> float16, int32 -> float64 …; float16 is computed in float32
and rounded once). All one-argument functions for one input dtype
share one compiled module.

Complex arrays: exp log log10 sqrt sin cos tan asin acos atan sinh cosh
tanh give complex results with NumPy's branch cuts (the device code is
_COMPLEX_SRC below); fabs gives the real magnitude, like numpy.abs. ceil,
floor, fmod, frexp, ldexp and modf have no complex meaning in NumPy either:
TypeError. (Known limits: |z| past about 1e150, or 1e18 in complex64,
overflows inside asin/acos/atan/tan, where NumPy rescales.)

    fabs ceil floor exp log log10 sqrt sin cos tan asin acos atan sinh cosh
    tanh                      y = f(x)
    fmod(a, b)                C fmod (sign of a)
    frexp(a) -> (m, e)        a = m * 2**e, 0.5 <= |m| < 1, e in m's dtype (PyCUDA)
    ldexp(a, e)               a * 2**e; a float e is truncated to int (PyCUDA)
    modf(a) -> (frac, int)
"""
import numpy as np

from pycudac import elementwise as _ew
from pycudac.elementwise import MapSpec, Operand, compute_dtype

__all__ = ["fabs", "ceil", "floor", "exp", "log", "log10", "sqrt", "sin", "cos", "tan", "asin",
           "acos", "atan", "sinh", "cosh", "tanh", "fmod", "frexp", "ldexp", "modf"]

_UNARY = {
    "fabs": np.fabs, "ceil": np.ceil, "floor": np.floor, "exp": np.exp, "log": np.log,
    "log10": np.log10, "sqrt": np.sqrt, "sin": np.sin, "cos": np.cos, "tan": np.tan,
    "asin": np.arcsin, "acos": np.arccos, "atan": np.arctan, "sinh": np.sinh,
    "cosh": np.cosh, "tanh": np.tanh,
}

_F32 = np.dtype(np.float32)
_I32 = np.dtype(np.int32)

# Functions with a complex form, and the device function computing it.
_COMPLEX_FN = {
    "fabs": "pcc_abs", "exp": "pcc_exp", "log": "pcc_log", "log10": "pcc_log10",
    "sqrt": "pcc_sqrt", "sin": "pcc_sin", "cos": "pcc_cos", "tan": "pcc_tan",
    "asin": "pcc_asin", "acos": "pcc_acos", "atan": "pcc_atan", "sinh": "pcc_sinh",
    "cosh": "pcc_cosh", "tanh": "pcc_tanh",
}

# Complex elementary functions for pcc_complex64/128 (C: the complex type,
# R: its real type, S: the real math functions' suffix, "f" or empty;
# TANH_BIG: |x| past which tanh(x) rounds to +-1; MUL_RN: R's unfused
# multiply intrinsic). pcc_abs is in
# KERNEL_PREAMBLE. Formulas keep both parts accurate to a few ulp away from
# overflow: log1p near |z| = 1, Kahan's tanh, Hull-Fairgrieve-Tang asin/acos.
_COMPLEX_SRC = r"""
/* ---- complex elementary functions (pycudac/cumath.py) ---- */
#define PCC_CMATH(C, R, S, TANH_BIG, MUL_RN)                                         \
__device__ inline C pcc_exp(C z)                                                     \
{                                                                                    \
    if (z.y == 0) return pcc_make(z, exp##S(z.x), z.y);  /* exact real axis */      \
    const R m = exp##S(z.x);                                                         \
    return pcc_make(z, m * cos##S(z.y), m * sin##S(z.y));                            \
}                                                                                    \
/* Where |z|^2 is in (1/2, 2), log(hypot) would keep only the digits of       */  \
/* |z| - 1 that survive rounding: there |z|^2 - 1 is summed without error     */  \
/* from exact squares (fma yields each product's rounding error) with       */  \
/* Knuth's two-sum, and log|z| = log1p(|z|^2 - 1) / 2. MUL_RN: a product the */  \
/* compiler may not fuse into the sums (fused, they would lose their errors). */  \
__device__ inline C pcc_log(C z)                                                     \
{                                                                                    \
    const R ax = fabs##S(z.x), ay = fabs##S(z.y);                                    \
    const R big = ax > ay ? ax : ay, small = ax > ay ? ay : ax;                      \
    const R bh = MUL_RN(big, big), sh = MUL_RN(small, small);                        \
    R re;                                                                            \
    if (bh + sh > (R)0.5 && bh + sh < (R)2) {                                        \
        const R bl = fma##S(big, big, -bh), sl = fma##S(small, small, -sh);          \
        const R s1 = bh - 1, v1 = s1 - bh;                                           \
        const R e1 = (bh - (s1 - v1)) + (-1 - v1);                                   \
        const R s2 = s1 + sh, v2 = s2 - s1;                                          \
        const R e2 = (s1 - (s2 - v2)) + (sh - v2);                                   \
        re = (R)0.5 * log1p##S(s2 + (((e1 + e2) + bl) + sl));                        \
    } else {                                                                         \
        re = log##S(hypot##S(z.x, z.y));                                             \
    }                                                                                \
    return pcc_make(z, re, atan2##S(z.y, z.x));                                      \
}                                                                                    \
__device__ inline C pcc_log10(C z)                                                   \
{                                                                                    \
    const C l = pcc_log(z);                                                          \
    const R k = (R)0.434294481903251827651128918916605082;  /* log10(e) */          \
    return pcc_make(z, l.x * k, l.y * k);                                            \
}                                                                                    \
/* principal root: real part >= 0, imaginary part with the sign of z.y */          \
__device__ inline C pcc_sqrt(C z)                                                    \
{                                                                                    \
    const R x = z.x, y = z.y;                                                        \
    if (x == 0 && y == 0) return pcc_make(z, (R)0, y);                               \
    if (y == y && y - y != 0) return pcc_make(z, fabs##S(y), y);  /* y = +-inf */    \
    const R t = sqrt##S((R)0.5 * fabs##S(x) + (R)0.5 * hypot##S(x, y));              \
    if (x >= 0) return pcc_make(z, t, y / (2 * t));                                  \
    return pcc_make(z, fabs##S(y) / (2 * t), copysign##S(t, y));                     \
}                                                                                    \
/* On the real axis the imaginary part is an exact signed zero: cosh or     */  \
/* sinh may overflow to inf there, and inf * 0 would be NaN.                  */  \
__device__ inline C pcc_sinh(C z)                                                    \
{                                                                                    \
    if (z.y == 0) return pcc_make(z, sinh##S(z.x), z.y);                             \
    return pcc_make(z, sinh##S(z.x) * cos##S(z.y), cosh##S(z.x) * sin##S(z.y));      \
}                                                                                    \
__device__ inline C pcc_cosh(C z)                                                    \
{                                                                                    \
    if (z.y == 0) return pcc_make(z, cosh##S(z.x), copysign##S((R)0, z.x) * z.y);    \
    return pcc_make(z, cosh##S(z.x) * cos##S(z.y), sinh##S(z.x) * sin##S(z.y));      \
}                                                                                    \
/* sin z = -i sinh(i z), cos z = cosh(i z) */                                       \
__device__ inline C pcc_sin(C z)                                                     \
{                                                                                    \
    const C h = pcc_sinh(pcc_make(z, -z.y, z.x));                                    \
    return pcc_make(z, h.y, -h.x);                                                   \
}                                                                                    \
__device__ inline C pcc_cos(C z) { return pcc_cosh(pcc_make(z, -z.y, z.x)); }        \
/* Kahan: with t = tan y, s = sinh x, b = 1 + t^2, cosh x = sqrt(1 + s^2),       */ \
/* tanh z = (b s cosh x + i t) / (1 + b s^2); no overflow of cosh or sinh.       */ \
__device__ inline C pcc_tanh(C z)                                                    \
{                                                                                    \
    const R x = z.x, y = z.y;                                                        \
    if (fabs##S(x) > (R)TANH_BIG) {                                                  \
        const R e = exp##S(-fabs##S(x));                                             \
        return pcc_make(z, copysign##S((R)1, x), 4 * sin##S(y) * cos##S(y) * e * e); \
    }                                                                                \
    const R t = tan##S(y), b = 1 + t * t, s = sinh##S(x), c = sqrt##S(1 + s * s);     \
    const R d = 1 + b * s * s;                                                       \
    return pcc_make(z, b * c * s / d, t / d);                                        \
}                                                                                    \
/* tan z = -i tanh(i z) */                                                           \
__device__ inline C pcc_tan(C z)                                                     \
{                                                                                    \
    const C h = pcc_tanh(pcc_make(z, -z.y, z.x));                                    \
    return pcc_make(z, h.y, -h.x);                                                   \
}                                                                                    \
/* Hull, Fairgrieve, Tang (1997) for x, y >= 0: with A = (|z+1| + |z-1|) / 2,     */ \
/* asin z = asin(x / A) + i acosh(A); acos z = acos(x / A) - i acosh(A).          */ \
/* A - 1 and the real parts near x / A = 1 are formed without cancellation.       */ \
__device__ inline void pcc_asin_q(R x, R y, R *as, R *ac, R *im)                    \
{                                                                                    \
    const R r = hypot##S(x + 1, y), s = hypot##S(x - 1, y);                          \
    const R a = (R)0.5 * (r + s), b = x / a, y2 = y * y;                             \
    const R am1 = x < 1 ? (R)0.5 * (y2 / (r + (x + 1)) + y2 / (s + (1 - x)))         \
                        : (R)0.5 * (y2 / (r + (x + 1)) + (s + (x - 1)));             \
    *im = log1p##S(am1 + sqrt##S(am1 * (a + 1)));                                    \
    if (b <= (R)0.6417) {                                                            \
        *as = asin##S(b);                                                            \
        *ac = acos##S(b);                                                            \
        return;                                                                      \
    }                                                                                \
    const R d = x <= 1                                                               \
        ? sqrt##S((R)0.5 * (a + x) * (y2 / (r + (x + 1)) + (s + (1 - x))))           \
        : y * sqrt##S((R)0.5 * ((a + x) / (r + (x + 1)) + (a + x) / (s + (x - 1))));  \
    *as = atan##S(x / d);                                                            \
    *ac = atan##S(d / x);                                                            \
}                                                                                    \
__device__ inline C pcc_asin(C z)                                                    \
{                                                                                    \
    R as, ac, im;                                                                    \
    pcc_asin_q(fabs##S(z.x), fabs##S(z.y), &as, &ac, &im);                           \
    return pcc_make(z, copysign##S(as, z.x), copysign##S(im, z.y));                  \
}                                                                                    \
__device__ inline C pcc_acos(C z)                                                    \
{                                                                                    \
    R as, ac, im;                                                                    \
    pcc_asin_q(fabs##S(z.x), fabs##S(z.y), &as, &ac, &im);                           \
    const R pi = (R)3.14159265358979323846264338327950288;                           \
    return pcc_make(z, z.x >= 0 ? ac : pi - ac, -copysign##S(im, z.y));              \
}                                                                                    \
/* atan z = atan2(2x, 1 - |z|^2) / 2 + i log1p(4y / (x^2 + (1 - y)^2)) / 4,   */ \
/* the imaginary part from |y| (log1p near -1 would cancel), signed after.    */ \
__device__ inline C pcc_atan(C z)                                                    \
{                                                                                    \
    const R x = z.x, y = fabs##S(z.y);                                               \
    const R re = (R)0.5 * atan2##S(2 * x, (1 - y) * (1 + y) - x * x);                \
    const R im = (R)0.25 * log1p##S(4 * y / (x * x + (1 - y) * (1 - y)));            \
    return pcc_make(z, re, copysign##S(im, z.y));                                    \
}
PCC_CMATH(pcc_complex64, float, f, 9, __fmul_rn)
PCC_CMATH(pcc_complex128, double, , 22, __dmul_rn)
/* ---- end of complex elementary functions ---- */
"""


def _cfunc(name, loop_dtype):
    return name + ("f" if compute_dtype(loop_dtype) == _F32 else "")


def _two_out_loop(ufunc, dtype):
    """(compute dtype, dtype of both results): NumPy's loop, except that frexp's
    exponent comes in the mantissa's float type, as PyCUDA gives it."""
    try:
        return _ew.resolve(ufunc, [dtype])[:2]
    except Exception as exc:
        raise TypeError(f"{ufunc.__name__}: {exc}") from None


def _check_real(dtype, what):
    if dtype.kind == "c":
        raise TypeError(f"cumath.{what}: not defined for complex input (dtype {dtype}); "
                        f"NumPy has no complex {what} either")
    if dtype.kind not in "biuf":
        raise TypeError(f"cumath.{what}: unsupported dtype {dtype}")


def _cumath_specs(descs, extra):
    """Every one-argument function for one input dtype (one module)."""
    (_, dt), = descs
    specs = []
    for name, ufunc in _UNARY.items():
        loop = _ew.resolve(ufunc, [dt])
        expr = "{0}" if loop[0].kind in "biu" else f"{_cfunc(name, loop[0])}({{0}})"
        specs.append(MapSpec(name, [Operand("a", dt, loop[0])], loop[-1], expr))
    for name, ufunc in (("frexp", np.frexp), ("modf", np.modf)):
        f, out = _two_out_loop(ufunc, dt)
        parts = ("frexp_m", "frexp_e") if name == "frexp" else ("modf_f", "modf_i")
        for part in parts:  # pcc_frexp_e returns an int, stored in the float `out`
            specs.append(MapSpec(part, [Operand("a", dt, f)], out, f"pcc_{part}({{0}})",
                                 _I32 if part == "frexp_e" else None))
    return specs


def _complex_specs(descs, extra):
    """Every one-argument function with a complex form, for one complex dtype."""
    (_, dt), = descs
    specs = []
    for name, fn in _COMPLEX_FN.items():
        ufunc = np.absolute if name == "fabs" else _UNARY[name]  # fabs: |z| as np.abs
        loop = _ew.resolve(ufunc, [dt])
        specs.append(MapSpec(name, [Operand("a", dt, loop[0])], loop[-1], f"{fn}({{0}})"))
    return specs


def _binary_loop(name, descs):
    """NumPy's loop for fmod or ldexp; a float exponent array goes through
    int32, truncated as PyCUDA's ldexp kernel does."""
    types = [d for _, d in descs]
    if name == "fmod":
        return _ew.resolve(np.fmod, types)
    if descs[1][0] == "a" and types[1].kind == "f":
        types[1] = _I32
    try:
        return _ew.resolve(np.ldexp, types)
    except TypeError:  # uint64, or a float scalar (NumPy's ldexp has no float exponent)
        got = f"{'an array' if descs[1][0] == 'a' else 'a scalar'} of {np.dtype(types[1])}"
        raise TypeError(f"cumath.ldexp: exponent must be integers that fit int64 or a float "
                        f"array, got {got}") from None


def _binary_specs(descs, extra):
    name = extra
    (ka, da), (kb, db) = descs
    loop = _binary_loop(name, descs)
    if name == "fmod":
        f = loop[0]
        if f.kind == "f":
            expr = f"{_cfunc('fmod', f)}({{0}}, {{1}})"
        elif f.kind == "u":
            expr = "({1} ? {0} % {1} : 0)"
        else:
            expr = "(({1} == 0 || {1} == -1) ? 0 : {0} % {1})"
        return [MapSpec("fmod", [Operand(ka, da if ka == "a" else f, f),
                                 Operand(kb, db if kb == "a" else f, f)], loop[-1], expr)]
    return [MapSpec("ldexp", [Operand(ka, da if ka == "a" else loop[0], loop[0]),
                              Operand(kb, db if kb == "a" else loop[1], loop[1])], loop[-1],
                    f"{_cfunc('ldexp', loop[0])}({{0}}, (int){{1}})")]


_ew.register_group("cumath", _cumath_specs)
_ew.register_group("cumath_c", _complex_specs, _COMPLEX_SRC)
_ew.register_group("cumath2", _binary_specs)

_plans = {}


def _stream_or_out(what, slot, out, stream):
    """(out, stream): PyCUDA passes a Stream where pycudac takes an out
    array, so the positional slot is told apart by type."""
    from pycudac.driver import Stream
    from pycudac.gpuarray import GPUArray
    if isinstance(out, Stream):
        if stream is not None:
            raise TypeError(f"cumath.{what}: a Stream in place of {slot} and stream= too")
        return None, out
    if out is not None and not isinstance(out, GPUArray):
        raise TypeError(f"cumath.{what}: {slot} must be a GPUArray or a Stream (PyCUDA's "
                        f"positional stream), got {type(out).__name__}")
    return out, stream


def _out_for(a, dtype, out, what):
    from pycudac.gpuarray import GPUArray
    if out is None:
        return GPUArray(a.shape, dtype)
    if not isinstance(out, GPUArray):
        raise TypeError(f"cumath.{what}: out must be a GPUArray, got {type(out).__name__}")
    if out.shape != a.shape:
        raise ValueError(f"cumath.{what}: out has shape {out.shape}, expected {a.shape}")
    return out


def _launch_into(group_key, kname, out, operands, sdts, dtype, stream):
    """Run the map kernel; when `out` has another dtype go through a temporary."""
    from pycudac.gpuarray import GPUArray
    from pycudac._gpuarray.ops import copy_into as _copy_into
    if out.dtype == dtype:
        return _ew.launch_map(group_key, kname, out, operands, sdts, stream)
    if not np.can_cast(dtype, out.dtype, "same_kind"):
        raise TypeError(f"cumath.{kname}: cannot write {dtype} results into an out array of "
                        f"dtype {out.dtype}")
    tmp = GPUArray(out.shape, dtype)
    _ew.launch_map(group_key, kname, tmp, operands, sdts, stream)
    _copy_into(out, tmp, stream)
    return out


def _check_array(a, what, complex_ok=False):
    from pycudac.gpuarray import GPUArray
    if not isinstance(a, GPUArray):
        raise TypeError(f"cumath.{what}: expected a GPUArray, got {type(a).__name__}")
    if not (complex_ok and a.dtype.kind == "c"):
        _check_real(a.dtype, what)


def _unary(name):
    ufunc = _UNARY[name]
    complex_ok = name in _COMPLEX_FN

    def func(array, out=None, stream=None):
        _check_array(array, name, complex_ok)
        out, stream = _stream_or_out(name, "out", out, stream)
        key = (name, array.dtype)
        plan = _plans.get(key)
        if plan is None:
            descs = (("a", array.dtype),)
            if array.dtype.kind == "c":
                loop = _ew.resolve(np.absolute if name == "fabs" else ufunc, [array.dtype])
                plan = _plans[key] = (("cumath_c", descs, None), loop[-1])
            else:
                loop = _ew.resolve(ufunc, [array.dtype])
                plan = _plans[key] = (("cumath", descs, None), loop[-1])
        group_key, dtype = plan
        out = _out_for(array, dtype, out, name)
        return _launch_into(group_key, name, out, [array], (None,), dtype, stream)

    func.__name__ = func.__qualname__ = name
    func.__doc__ = (f"Elementwise {name} (numpy.{ufunc.__name__}"
                    + ("; numpy.abs on complex" if name == "fabs" else "")
                    + (", complex too" if complex_ok and name != "fabs" else "")
                    + "); out= and stream= optional, a Stream in out's place is the stream.")
    return func


fabs = _unary("fabs")
ceil = _unary("ceil")
floor = _unary("floor")
exp = _unary("exp")
log = _unary("log")
log10 = _unary("log10")
sqrt = _unary("sqrt")
sin = _unary("sin")
cos = _unary("cos")
tan = _unary("tan")
asin = _unary("asin")
acos = _unary("acos")
atan = _unary("atan")
sinh = _unary("sinh")
cosh = _unary("cosh")
tanh = _unary("tanh")


def _binary(name, a, b, out, stream):
    from pycudac.gpuarray import GPUArray
    from pycudac._gpuarray.ops import check_scalar as _check_scalar, scalar_desc as _scalar_desc
    out, stream = _stream_or_out(name, "out", out, stream)
    operands, descs = [], []
    for what, x in (("a", a), ("b", b)):
        if isinstance(x, GPUArray):
            _check_real(x.dtype, name)
            descs.append(("a", x.dtype))
        elif _scalar_desc(x) is not None:
            if isinstance(x, (complex, np.complexfloating)):
                raise TypeError(f"cumath.{name}: not defined for complex input ({what} is "
                                f"{type(x).__name__} {x!r}); NumPy has no complex {name} "
                                f"either")
            descs.append(_scalar_desc(x))
        else:
            raise TypeError(f"cumath.{name}: {what} must be a GPUArray or a scalar, got "
                            f"{type(x).__name__}")
        operands.append(x)
    if descs[0][0] != "a":
        raise TypeError(f"cumath.{name}: the first argument must be a GPUArray")
    descs = tuple(descs)
    loop = _binary_loop(name, descs)
    sdts = tuple(loop[j] if k == "s" else None for j, (k, _) in enumerate(descs))
    for j, sd in enumerate(sdts):
        if sd is not None:
            operands[j] = _check_scalar(operands[j], sd, f"cumath.{name}")
    shape = a.shape
    if isinstance(b, GPUArray) and b.shape != a.shape:
        shape = np.broadcast_shapes(a.shape, b.shape)
    if out is None:
        out = GPUArray(shape, loop[-1])
    elif out.shape != shape:
        raise ValueError(f"cumath.{name}: out has shape {out.shape}, expected {shape}")
    return _launch_into(("cumath2", descs, name), name, out, operands, sdts, loop[-1], stream)


def fmod(arg, mod, out=None, stream=None):
    """C fmod elementwise: the remainder has the sign of `arg`. `out` may be a
    Stream (PyCUDA's fmod(arg, mod, stream))."""
    return _binary("fmod", arg, mod, out, stream)


def ldexp(significand, exponent, out=None, stream=None):
    """significand * 2**exponent elementwise; a float exponent is truncated to
    int, as in PyCUDA. `out` may be a Stream (PyCUDA's third argument)."""
    return _binary("ldexp", significand, exponent, out, stream)


def _two_out(name, array, out1, out2, stream):
    _check_array(array, name)
    out1, stream = _stream_or_out(name, "out1", out1, stream)
    _, dtype = _two_out_loop(np.frexp if name == "frexp" else np.modf, array.dtype)
    gk = ("cumath", (("a", array.dtype),), None)
    k1, k2 = ("frexp_m", "frexp_e") if name == "frexp" else ("modf_f", "modf_i")
    o1 = _out_for(array, dtype, out1, name)
    o2 = _out_for(array, dtype, out2, name)
    _launch_into(gk, k1, o1, [array], (None,), dtype, stream)
    _launch_into(gk, k2, o2, [array], (None,), dtype, stream)
    return o1, o2


def frexp(arg, out1=None, out2=None, stream=None):
    """(mantissa, exponent) with arg = mantissa * 2**exponent, both in the
    mantissa's float dtype as in PyCUDA. `out1` may be a Stream (PyCUDA's
    frexp(arg, stream))."""
    return _two_out("frexp", arg, out1, out2, stream)


def modf(arg, out1=None, out2=None, stream=None):
    """(fractional part, integral part), both with the sign of arg. `out1` may
    be a Stream (PyCUDA's modf(arg, stream))."""
    return _two_out("modf", arg, out1, out2, stream)
