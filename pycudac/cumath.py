"""pycudac.cumath — elementwise math functions on GPUArrays (PyCUDA's names).

Each function takes (array, out=None, stream=None); dtypes follow NumPy's
ufunc loops (int8 -> float16, int32 -> float64 …; float16 is computed in
float32 and rounded once). All one-argument functions for one input dtype
share one compiled module. Complex arrays are not supported (TypeError).

    fabs ceil floor exp log log10 sqrt sin cos tan asin acos atan sinh cosh
    tanh                      y = f(x)
    fmod(a, b)                C fmod (sign of a)
    frexp(a) -> (m, e)        a = m * 2**e, 0.5 <= |m| < 1, e int32
    ldexp(a, e)               a * 2**e
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


def _cfunc(name, loop_dtype):
    return name + ("f" if compute_dtype(loop_dtype) == _F32 else "")


def _two_out_loop(ufunc, dtype):
    try:
        return ufunc.resolve_dtypes((dtype, None, None))
    except Exception as exc:
        raise TypeError(f"{ufunc.__name__}: {exc}") from None


def _check_real(dtype, what):
    if dtype.kind == "c":
        raise TypeError(f"cumath.{what}: complex arrays are not supported")
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
        loop = _two_out_loop(ufunc, dt)
        f = loop[0]
        parts = ("frexp_m", "frexp_e") if name == "frexp" else ("modf_f", "modf_i")
        for part, out in zip(parts, loop[1:]):
            specs.append(MapSpec(part, [Operand("a", dt, f)], out, f"pcc_{part}({{0}})"))
    return specs


def _binary_specs(descs, extra):
    name = extra
    (ka, da), (kb, db) = descs
    if name == "fmod":
        loop = _ew.resolve(np.fmod, [da, db])
        f = loop[0]
        if f.kind == "f":
            expr = f"{_cfunc('fmod', f)}({{0}}, {{1}})"
        elif f.kind == "u":
            expr = "({1} ? {0} % {1} : 0)"
        else:
            expr = "(({1} == 0 || {1} == -1) ? 0 : {0} % {1})"
        return [MapSpec("fmod", [Operand(ka, da if ka == "a" else f, f),
                                 Operand(kb, db if kb == "a" else f, f)], loop[-1], expr)]
    loop = _ew.resolve(np.ldexp, [da, db])
    return [MapSpec("ldexp", [Operand(ka, da if ka == "a" else loop[0], loop[0]),
                              Operand(kb, db if kb == "a" else loop[1], loop[1])], loop[-1],
                    f"{_cfunc('ldexp', loop[0])}({{0}}, (int){{1}})")]


_ew.register_group("cumath", _cumath_specs)
_ew.register_group("cumath2", _binary_specs)

_plans = {}


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
    from pycudac.gpuarray import GPUArray, _copy_into
    if out.dtype == dtype:
        return _ew.launch_map(group_key, kname, out, operands, sdts, stream)
    if not np.can_cast(dtype, out.dtype, "same_kind"):
        raise TypeError(f"cumath.{kname}: cannot write {dtype} results into an out array of "
                        f"dtype {out.dtype}")
    tmp = GPUArray(out.shape, dtype)
    _ew.launch_map(group_key, kname, tmp, operands, sdts, stream)
    _copy_into(out, tmp, stream)
    return out


def _check_array(a, what):
    from pycudac.gpuarray import GPUArray
    if not isinstance(a, GPUArray):
        raise TypeError(f"cumath.{what}: expected a GPUArray, got {type(a).__name__}")
    _check_real(a.dtype, what)


def _unary(name):
    ufunc = _UNARY[name]

    def func(array, out=None, stream=None):
        _check_array(array, name)
        key = (name, array.dtype)
        plan = _plans.get(key)
        if plan is None:
            loop = _ew.resolve(ufunc, [array.dtype])
            plan = _plans[key] = (("cumath", (("a", array.dtype),), None), loop[-1])
        group_key, dtype = plan
        out = _out_for(array, dtype, out, name)
        return _launch_into(group_key, name, out, [array], (None,), dtype, stream)

    func.__name__ = func.__qualname__ = name
    func.__doc__ = f"Elementwise {name} (numpy.{ufunc.__name__}); out= and stream= optional."
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
    from pycudac.gpuarray import GPUArray, _check_scalar, _scalar_desc
    operands, descs = [], []
    for what, x in (("a", a), ("b", b)):
        if isinstance(x, GPUArray):
            _check_real(x.dtype, name)
            descs.append(("a", x.dtype))
        elif _scalar_desc(x) is not None:
            descs.append(_scalar_desc(x))
        else:
            raise TypeError(f"cumath.{name}: {what} must be a GPUArray or a scalar, got "
                            f"{type(x).__name__}")
        operands.append(x)
    if descs[0][0] != "a":
        raise TypeError(f"cumath.{name}: the first argument must be a GPUArray")
    descs = tuple(descs)
    ufunc = np.fmod if name == "fmod" else np.ldexp
    loop = _ew.resolve(ufunc, [d for _, d in descs])
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
    """C fmod elementwise: the remainder has the sign of `arg`."""
    return _binary("fmod", arg, mod, out, stream)


def ldexp(significand, exponent, out=None, stream=None):
    """significand * 2**exponent elementwise."""
    return _binary("ldexp", significand, exponent, out, stream)


def _two_out(name, array, out1, out2, stream):
    _check_array(array, name)
    loop = _two_out_loop(np.frexp if name == "frexp" else np.modf, array.dtype)
    gk = ("cumath", (("a", array.dtype),), None)
    k1, k2 = ("frexp_m", "frexp_e") if name == "frexp" else ("modf_f", "modf_i")
    o1 = _out_for(array, loop[1], out1, name)
    o2 = _out_for(array, loop[2], out2, name)
    _launch_into(gk, k1, o1, [array], (None,), loop[1], stream)
    _launch_into(gk, k2, o2, [array], (None,), loop[2], stream)
    return o1, o2


def frexp(arg, out1=None, out2=None, stream=None):
    """(mantissa, exponent) with arg = mantissa * 2**exponent."""
    return _two_out("frexp", arg, out1, out2, stream)


def modf(arg, out1=None, out2=None, stream=None):
    """(fractional part, integral part), both with the sign of arg."""
    return _two_out("modf", arg, out1, out2, stream)
