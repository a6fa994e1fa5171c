"""Which loop NumPy's ufunc would run (its input and output dtypes), and
the map kernels' specs built from it: the operators' tables (binary,
unary, astype, fill, where, a custom expression) that pycudac.elementwise
renders into CUDA C. Plain NumPy; nothing here compiles or launches."""
from __future__ import annotations

import numpy as np

_F16 = np.dtype(np.float16)
_F32 = np.dtype(np.float32)


def compute_dtype(dtype):
    """The type a kernel does arithmetic in for elements of `dtype`."""
    return _F32 if dtype == _F16 else dtype


class Operand:
    """One input of a map kernel: an array element ("a") or a scalar
    parameter ("s"), stored as `dtype`, converted to `cast` for the math."""
    __slots__ = ("kind", "dtype", "cast")

    def __init__(self, kind, dtype, cast):
        self.kind, self.dtype, self.cast = kind, np.dtype(dtype), np.dtype(cast)


class MapSpec:
    """out = expr(x0, x1, ...) — `expr` is a format string over {0}, {1}…
    whose value has type `expr_dtype` (in compute types)."""
    __slots__ = ("name", "operands", "out_dtype", "expr", "expr_dtype")

    def __init__(self, name, operands, out_dtype, expr, expr_dtype=None):
        self.name = name
        self.operands = operands
        self.out_dtype = np.dtype(out_dtype)
        self.expr = expr
        self.expr_dtype = compute_dtype(self.out_dtype if expr_dtype is None
                                        else np.dtype(expr_dtype))


# ======================================================================
# Operation tables (NumPy ufunc -> C expression)
# ======================================================================

BINARY_OPS = {
    # name: (numpy ufunc, C expression)
    "add": (np.add, "{0} + {1}"),
    "subtract": (np.subtract, "{0} - {1}"),
    "multiply": (np.multiply, "{0} * {1}"),
    "true_divide": (np.true_divide, "{0} / {1}"),
    "floor_divide": (np.floor_divide, "pcc_floordiv({0}, {1})"),
    "remainder": (np.remainder, "pcc_mod({0}, {1})"),
    "power": (np.power, "pcc_pow({0}, {1})"),
    "equal": (np.equal, "{0} == {1}"),
    "not_equal": (np.not_equal, "{0} != {1}"),
    "less": (np.less, "{0} < {1}"),
    "less_equal": (np.less_equal, "{0} <= {1}"),
    "greater": (np.greater, "{0} > {1}"),
    "greater_equal": (np.greater_equal, "{0} >= {1}"),
    "maximum": (np.maximum, "pcc_maximum({0}, {1})"),
    "minimum": (np.minimum, "pcc_minimum({0}, {1})"),
    "bitwise_and": (np.bitwise_and, "{0} & {1}"),
    "bitwise_or": (np.bitwise_or, "{0} | {1}"),
    "bitwise_xor": (np.bitwise_xor, "{0} ^ {1}"),
}
_NO_COMPLEX = set()  # every binary op above has a complex form

UNARY_OPS = {
    "negative": (np.negative, "-{0}"),
    "absolute": (np.absolute, "pcc_abs({0})"),
    "invert": (np.invert, "~{0}"),
    "conjugate": (np.conjugate, "pcc_conj({0})"),
}


def resolve(ufunc, in_types):
    """NumPy's loop dtypes for `ufunc` on `in_types` (dtypes, or Python
    scalar types for weak scalars, NEP 50): the inputs' then the outputs'.
    TypeError if NumPy has none."""
    if not hasattr(ufunc, "resolve_dtypes"):  # NumPy 1.23
        return _resolve_without_resolve_dtypes(ufunc, in_types)
    try:
        return ufunc.resolve_dtypes(tuple(in_types) + (None,) * ufunc.nout)
    except TypeError:
        raise
    except Exception as exc:  # numpy's _UFuncNoLoopError is a TypeError; others too
        raise TypeError(str(exc)) from None


# ---- NumPy 1.23, which has no ufunc.resolve_dtypes (1.24 added it) ----------
_WEAK_DEFAULT = {bool: np.dtype(np.bool_), int: np.dtype(np.int64),
                 float: np.dtype(np.float64), complex: np.dtype(np.complex128)}
_COMPLEX_OF = {np.dtype(np.float16): np.dtype(np.complex64),
               np.dtype(np.float32): np.dtype(np.complex64),
               np.dtype(np.float64): np.dtype(np.complex128)}


def _weak_as_dtype(kind, strong):
    """NEP 50: a Python scalar takes the arrays' dtype when its kind fits."""
    if not strong:
        return _WEAK_DEFAULT[kind]
    r = np.result_type(*strong)
    if kind is bool or (kind is int and r.kind in "iufc") or (kind is float and r.kind in "fc") \
            or (kind is complex and r.kind == "c"):
        return r
    if kind is complex and r.kind == "f":
        return _COMPLEX_OF.get(r, np.dtype(np.clongdouble))
    return _WEAK_DEFAULT[kind]


def _resolve_without_resolve_dtypes(ufunc, in_types):
    """What resolve_dtypes answers, found by running the ufunc on one element
    of each input dtype (arrays promote by type, never by value) and taking
    the first loop whose outputs are the result's and that takes the inputs
    by safe casting — the order NumPy's own search uses."""
    strong = [np.dtype(t) for t in in_types if t not in _WEAK_DEFAULT]
    dtypes = [_weak_as_dtype(t, strong) if t in _WEAK_DEFAULT else np.dtype(t)
              for t in in_types]
    if ufunc.__name__.startswith("logical_"):  # one dtype's own loop, else bools
        same = all(d == dtypes[0] for d in dtypes) and dtypes[0].kind in "biufc"
        return tuple(dtypes if same else [np.dtype(np.bool_)] * len(dtypes)) \
            + (np.dtype(np.bool_),) * ufunc.nout
    if ufunc is np.ldexp and len(in_types) == 2 and in_types[1] is int:
        dtypes[1] = np.dtype(np.int32)          # a Python int exponent: the 'fi->f' loops
    import warnings
    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            res = ufunc(*[np.ones(1, d) for d in dtypes])
    except Exception as exc:
        raise TypeError(f"ufunc '{ufunc.__name__}' has no loop for {dtypes}: {exc}") from None
    outs = [r.dtype for r in (res if isinstance(res, tuple) else (res,))]
    for loop in ufunc.types:
        ins, out = loop.split("->")
        if "O" in loop or [np.dtype(c) for c in out] != outs:
            continue
        loop_in = [np.dtype(c) for c in ins]
        if all(np.can_cast(d, L, "safe") for d, L in zip(dtypes, loop_in)):
            return tuple(loop_in + outs)
    return tuple(dtypes + outs)


def _binary_specs(descs):
    specs = []
    for name, (ufunc, expr) in BINARY_OPS.items():
        try:
            loop = resolve(ufunc, [_weak(d) for d in descs])
        except TypeError:
            continue
        if loop[0].kind == "c" and name in _NO_COMPLEX:
            continue
        if loop[0].kind == "b" and name in ("true_divide",):
            continue
        ops = [Operand(k, d if k == "a" else loop[j], loop[j]) for j, (k, d) in enumerate(descs)]
        e = expr
        if loop[0].kind == "b" and ufunc in (np.add, np.multiply, np.maximum, np.minimum):
            e = {"add": "{0} || {1}", "multiply": "{0} && {1}",
                 "maximum": "{0} || {1}", "minimum": "{0} && {1}"}[name]
        specs.append(MapSpec(name, ops, loop[-1], e))
    return specs


def _unary_specs(descs):
    specs = []
    for name, (ufunc, expr) in UNARY_OPS.items():
        try:
            loop = resolve(ufunc, [_weak(descs[0])])
        except TypeError:
            continue
        e = expr
        if name == "invert" and loop[0].kind == "b":
            e = "!{0}"
        if name == "conjugate" and loop[0].kind != "c":
            e = "{0}"
        if name == "absolute" and loop[0].kind == "b":
            e = "{0}"
        specs.append(MapSpec(name, [Operand("a", descs[0][1], loop[0])], loop[-1], e))
    return specs


def _weak(desc):
    kind, d = desc
    return d


# group name -> function(descs, extra) -> [MapSpec]
def _astype_specs(descs, extra):
    (_, src), = descs
    dst = np.dtype(extra)
    return [MapSpec("astype", [Operand("a", src, src)], dst, "{0}", expr_dtype=src)]


def _fill_specs(descs, extra):
    (_, d), = descs
    return [MapSpec("fill", [Operand("s", d, d)], d, "{0}")]


def _where_specs(descs, extra):
    (_, dc), (ka, da), (kb, db) = descs
    out = np.dtype(extra)
    return [MapSpec("where", [Operand("a", dc, dc), Operand(ka, da if ka == "a" else out, out),
                              Operand(kb, db if kb == "a" else out, out)], out,
                    "pcc_nonzero({0}) ? {1} : {2}")]


def _expr_specs(descs, extra):
    """A single custom expression: extra = (name, out dtype, expr, casts)."""
    name, out, expr, casts = extra
    ops = [Operand(k, d, c) for (k, d), c in zip(descs, casts)]
    return [MapSpec(name, ops, np.dtype(out), expr)]


GROUPS = {
    "binary": lambda descs, extra: _binary_specs(descs),
    "unary": lambda descs, extra: _unary_specs(descs),
    "astype": _astype_specs,
    "fill": _fill_specs,
    "where": _where_specs,
    "expr": _expr_specs,
}
