"""Operator plumbing for GPUArray (part of pycudac.gpuarray): scalar
operands (NEP 50 weak Python scalars), the binary and unary map-kernel
plans behind every operator, result allocation on the hot path, and
converting copies (`copy_into`) and memset fills.

The kernels themselves come from pycudac.elementwise; this module only
picks the NumPy loop, allocates the output and launches.
"""
import builtins
import numbers

import numpy as np

from pycudac import elementwise as _ew
from pycudac._gpuarray import array as _ga
from pycudac._gpuarray.create import to_gpu
from pycudac import tools
from pycudac._gpuarray.layout import c_strides, default_pool, layout_of, pools, prod
from pycudac._gpuarray.vec import components, vec_components, vec_name, vec_of

PY_SCALARS = (int, float, complex, bool)
BOOL_DT = np.dtype(np.bool_)

def scalar_desc(value):
    """('s', weak Python type or strong dtype) for a scalar operand, or None."""
    t = type(value)
    if t is bool:
        return ("s", BOOL_DT)
    if t in PY_SCALARS:
        return ("s", t)
    if isinstance(value, np.generic):
        return ("s", value.dtype)
    if isinstance(value, np.ndarray) and value.ndim == 0:
        return ("s", value.dtype)
    if isinstance(value, numbers.Number) and not isinstance(value, np.ndarray):
        if isinstance(value, numbers.Integral):
            return ("s", int)
        if isinstance(value, numbers.Real):
            return ("s", float)
        return ("s", complex)
    return None


_INT_BOUNDS = {}


def check_scalar(value, dtype, what):
    """Python value for a scalar kernel parameter of `dtype`; NumPy's
    OverflowError for an out-of-range Python int."""
    if isinstance(value, np.ndarray):
        value = value[()]
    if dtype.kind in "iu":
        if isinstance(value, (float, np.floating, complex, np.complexfloating)):
            value = dtype.type(value)
        v = int(value)
        bounds = _INT_BOUNDS.get(dtype)
        if bounds is None:
            info = np.iinfo(dtype)
            bounds = _INT_BOUNDS[dtype] = (int(info.min), int(info.max))
        if not bounds[0] <= v <= bounds[1]:
            raise OverflowError(f"{what}: Python integer {v} out of bounds for {dtype}")
        return v
    return value


def same_memory(a, b):
    """True when a and b may overlap in device memory (conservative)."""
    if a.size * a.dtype.itemsize == 0 or b.size * b.dtype.itemsize == 0:
        return False
    a_lo, a_hi = a._extent()
    b_lo, b_hi = b._extent()
    return a_lo < b_hi and b_lo < a_hi


def fill_memset(ary, bits):
    """Fill a contiguous array with a memset when the element's bytes are
    a repeated 1-, 2- or 4-byte pattern. Returns False when they are not."""
    from pycudac import driver
    raw = bits.tobytes()
    n = ary.size * ary.dtype.itemsize
    for width, fn in ((1, driver.memset_d8), (2, driver.memset_d16), (4, driver.memset_d32)):
        if len(raw) % width == 0 and raw == raw[:width] * (len(raw) // width):
            fn(ary.ptr, int.from_bytes(raw[:width], "little"), n // width)
            return True
    return False


def copy_into(dst, src, stream=None):
    """dst[...] = src with dtype conversion and broadcasting (any strides)."""
    if src.dtype != dst.dtype and (src.dtype not in tools.NUMERIC_DTYPES or
                                   dst.dtype not in tools.NUMERIC_DTYPES):
        raise TypeError(f"cannot convert {src.dtype} to {dst.dtype} (only numeric dtypes "
                        f"convert; use view() to reinterpret)")
    return _ew.launch_map(("astype", (("a", src.dtype),), dst.dtype), "astype", dst, [src],
                          [None], stream)


# ======================================================================
# operator plumbing
# ======================================================================

_binary_plans = {}


_cstride_cache = {}


def like_out(a, shape, dtype, order):
    """An operator's result for operand `a`: a subclass's own _new_like_me
    (PyCUDA makes every result through it, and code built on PyCUDA keeps
    its array type so: reikna's cluda Array), where it gives the shape and
    dtype wanted, contiguous; else new_out's."""
    if type(a) is not _ga.GPUArray:
        make = getattr(a, "_new_like_me", None)
        if make is not None:
            out = make(dtype)
            if (isinstance(out, _ga.GPUArray) and out.shape == shape and out.dtype == dtype
                    and out._layout in ("C", "F")):
                return out
    return new_out(shape, dtype, order, a._ctx)


def new_out(shape, dtype, order, ctx):
    """A fresh contiguous result array (the hot path of every operator)."""
    if order != "C" and len(shape) > 1:
        return _ga.GPUArray(shape, dtype, order=order)
    key = (shape, dtype.itemsize)
    entry = _cstride_cache.get(key)
    if entry is None:
        size = prod(shape)
        entry = (c_strides(shape, dtype.itemsize), size * dtype.itemsize)
        if len(_cstride_cache) < 1024:
            _cstride_cache[key] = entry
    strides, nbytes = entry
    pool = pools.get(ctx)
    if pool is None:
        pool = default_pool(ctx)
    gpudata = pool.allocate(nbytes)
    return _ga.GPUArray._make(shape, dtype, strides, "C", gpudata, int(gpudata), None, ctx)


def binary_plan(op, descs):
    key = (op, descs)
    plan = _binary_plans.get(key)
    if plan is None:
        ufunc = _ew.BINARY_OPS[op][0]
        loop = _ew.resolve(ufunc, [d for _, d in descs])
        if loop[0].kind == "c" and op in _ew._NO_COMPLEX:
            raise TypeError(f"{op} is not supported for complex arrays in pycudac")
        scalar_dtypes = tuple(loop[j] if k == "s" else None for j, (k, _) in enumerate(descs))
        fcache = {}
        tools._context_caches.append(fcache)
        plan = _binary_plans[key] = (("binary", descs, None), loop[-1], scalar_dtypes, fcache)
    return plan


def operand(x, what):
    if isinstance(x, _ga.GPUArray):
        return ("a", x.dtype)
    desc = scalar_desc(x)
    if desc is None:
        return None
    if isinstance(desc[1], np.dtype):
        tools.check_dtype(desc[1], what)
    return desc


def binary(op, a, b, out=None, reflected=False, stream=None):
    """a (op) b, or b (op) a when reflected; `a` is a GPUArray."""
    db = operand(b, f"{op}: operand")
    if db is None:
        if isinstance(b, np.ndarray):
            raise TypeError(f"{op}: cannot combine a GPUArray with a host numpy.ndarray; "
                            f"upload it with gpuarray.to_gpu() first")
        if isinstance(b, (list, tuple, str, bytes, bytearray)):
            # not NotImplemented: Python would then repeat or concatenate the
            # sequence, taking a size-1 integer GPUArray for the count
            raise TypeError(f"{op}: cannot combine a GPUArray with a {type(b).__name__}; "
                            f"for an array operand use gpuarray.to_gpu(numpy.asarray(...))")
        return NotImplemented
    da = ("a", a.dtype)
    if reflected:
        descs, operands = (db, da), [b, a]
    else:
        descs, operands = (da, db), [a, b]
    plan = _binary_plans.get((op, descs))
    if plan is None:
        if _has_struct(descs):
            return _vec_binary(op, a, b, out, reflected, stream)
        plan = binary_plan(op, descs)
    group_key, out_dtype, scalar_dtypes, fcache = plan
    if op == "power" and out_dtype.kind in "iu":
        # NumPy's rule for integer powers: a negative exponent raises (0 ** -1
        # gave 0); a scalar is checked here, an array exponent is not
        exponent = a if reflected else b
        if not isinstance(exponent, _ga.GPUArray) and int(exponent) < 0:
            raise ValueError("Integers to negative integer powers are not allowed.")
    shape = a.shape
    if db[0] == "a":
        if b._ctx is not a._ctx:
            raise ValueError(f"{op}: operands belong to different contexts")
        if b.shape != shape:
            try:
                shape = np.broadcast_shapes(a.shape, b.shape)
            except ValueError:
                raise ValueError(f"{op}: operands could not be broadcast together with "
                                 f"shapes {a.shape} {b.shape}") from None
    else:
        sd = scalar_dtypes[0 if reflected else 1]
        v = check_scalar(b, sd, f"{op}: scalar operand")
        operands[0 if reflected else 1] = v
    if out is None:
        out = like_out(a, shape, out_dtype, "F" if a._layout == "F" else "C")
    else:
        if check_out(op, out, shape, out_dtype):
            return copy_into(out, binary(op, a, b, reflected=reflected, stream=stream),
                              stream)
        unalias(operands, out)
    return _ew.launch_map(group_key, op, out, operands, scalar_dtypes, stream, fcache)


def check_out(op, out, shape, dtype):
    """Raise unless `out` can take a result of `shape` and `dtype` (NumPy's
    same_kind casting); True when the result must be cast into it."""
    if not isinstance(out, _ga.GPUArray):
        raise TypeError(f"{op}: out must be a GPUArray, got {type(out).__name__}")
    if out.shape != shape:
        raise ValueError(f"{op}: output of shape {out.shape} cannot hold the broadcast "
                         f"result of shape {shape}")
    if dtype == out.dtype:
        return False
    if not np.can_cast(dtype, out.dtype, "same_kind"):
        raise TypeError(f"{op}: cannot cast ufunc '{op}' output from {dtype} to "
                        f"{out.dtype} with casting rule 'same_kind'")
    return True


def unalias(operands, out):
    """Copy the array operands that overlap `out` other than element for
    element (an elementwise kernel may write before it reads them)."""
    for k, x in enumerate(operands):
        if isinstance(x, _ga.GPUArray) and x is not out and same_memory(x, out) and not (
                x.ptr == out.ptr and x.strides == out.strides and x.shape == out.shape):
            operands[k] = x.copy()


_unary_plans = {}


def unary(op, a, out=None, stream=None):
    key = (op, a.dtype)
    plan = _unary_plans.get(key)
    if plan is None:
        if a.dtype.kind == "V":
            return _vec_unary(op, a, out, stream)
        loop = _ew.resolve(_ew.UNARY_OPS[op][0], [a.dtype])
        fcache = {}
        tools._context_caches.append(fcache)
        plan = _unary_plans[key] = (("unary", (("a", a.dtype),), None), loop[-1], fcache)
    group_key, out_dtype, fcache = plan
    operands = [a]
    if out is None:
        out = like_out(a, a.shape, out_dtype, "F" if a._layout == "F" else "C")
    else:
        if check_out(op, out, a.shape, out_dtype):
            return copy_into(out, unary(op, a, stream=stream), stream)
        unalias(operands, out)
    return _ew.launch_map(group_key, op, out, operands, (None,), stream, fcache)



# ======================================================================
# vec types (float4 ...): componentwise arithmetic
# ======================================================================
# A vec array is computed on as its component view (shape + (count,)), so
# the ordinary map kernels, promotion and broadcasting do the work: a real
# scalar applies to every component, a vec scalar (make_float4(...))
# broadcasts along the component axis. The result is the vec type of the
# promoted components (int4 / int4 -> double4, as int32 / int32 -> float64).

_VEC_OPS = {"add": "+", "subtract": "-", "multiply": "*", "true_divide": "/"}
_VEC_SUPPORT = "vec types support + - * / and unary - (componentwise)"


def _has_struct(descs):
    return builtins.any(isinstance(d, np.dtype) and d.kind == "V" for _, d in descs)


def _vec_dtype_name(dtype):
    return vec_name(dtype) or str(dtype)


def _vec_info(op, dtype):
    info = vec_components(dtype)
    if info is None:
        raise TypeError(f"{op}: arrays of dtype {dtype} support no arithmetic; "
                        f"{_VEC_SUPPORT} of gpuarray.vec types only")
    return info


def _vec_operand(op, x, vdt, what):
    """`x` in component form: a component view, an uploaded vec scalar, or
    a real scalar."""
    name = vec_name(vdt)
    if isinstance(x, _ga.GPUArray):
        if x.dtype != vdt:
            raise TypeError(f"{op}: cannot combine {name} with {_vec_dtype_name(x.dtype)} "
                            f"arrays; vec arithmetic takes two {name} arrays, or a {name} "
                            f"array and a real or {name} scalar")
        return components(x)
    dtype = getattr(x, "dtype", None)
    if dtype is not None and dtype.kind == "V":
        if dtype != vdt:
            raise TypeError(f"{op}: cannot combine a {name} array with a "
                            f"{_vec_dtype_name(dtype)} scalar")
        base, _ = vec_components(vdt)
        return to_gpu(np.frombuffer(np.asarray(x).tobytes(), base))
    desc = scalar_desc(x)
    kind = getattr(desc[1], "kind", None) if desc else None
    if desc is None or desc[1] is complex or kind == "c":
        raise TypeError(f"{op}: {what} must be a {name} GPUArray, a {name} scalar or a real "
                        f"number, got {type(x).__name__}")
    return x


def _vec_result(op, comp_dtype, n, vdt):
    rdt = vec_of(comp_dtype, n)
    if rdt is None:
        raise TypeError(f"{op} on {vec_name(vdt)} arrays gives {comp_dtype} components, "
                        f"which no gpuarray.vec type of {n} holds")
    return rdt


def _as_vec(comp, rdt):
    """A fresh vec array over the C-contiguous component array `comp`."""
    if comp._layout != "C":
        comp = comp.copy()
    shape, strides = comp.shape[:-1], comp.strides[:-1]
    return _ga.GPUArray._make(shape, rdt, strides, layout_of(shape, strides, rdt.itemsize),
                              comp.gpudata, comp.ptr, None, comp._ctx)


def _vec_binary(op, a, b, out, reflected, stream):
    """a (op) b (b (op) a when reflected) where a vec type is involved."""
    if a.dtype.kind == "V":
        vdt = a.dtype
    else:
        vdt = b.dtype
    base, n = _vec_info(op, vdt)
    if op not in _VEC_OPS:
        raise TypeError(f"{op} is not supported for {vec_name(vdt)} arrays: {_VEC_SUPPORT}")
    if isinstance(b, _ga.GPUArray) and b.dtype == a.dtype:
        try:
            np.broadcast_shapes(a.shape, b.shape)
        except ValueError:
            raise ValueError(f"{op}: operands could not be broadcast together with shapes "
                             f"{a.shape} {b.shape}") from None
    ca = _vec_operand(op, a, vdt, "the array operand")
    cb = _vec_operand(op, b, vdt, "the other operand")
    if out is not None:
        info = vec_components(out.dtype) if isinstance(out, _ga.GPUArray) else None
        if info is None or info[1] != n:
            raise TypeError(f"{op}: out must be a GPUArray of a vec type of {n} components, "
                            f"got {getattr(out, 'dtype', type(out).__name__)}")
        binary(op, ca, cb, out=components(out), reflected=reflected, stream=stream)
        return out
    descs = (operand(ca, op), operand(cb, op))
    comp_dtype = binary_plan(op, descs[::-1] if reflected else descs)[1]
    rdt = _vec_result(op, comp_dtype, n, vdt)
    return _as_vec(binary(op, ca, cb, reflected=reflected, stream=stream), rdt)


def _vec_unary(op, a, out, stream):
    base, n = _vec_info(op, a.dtype)
    if op != "negative":
        raise TypeError(f"{op} is not supported for {vec_name(a.dtype)} arrays: "
                        f"{_VEC_SUPPORT}")
    if out is not None:
        unary(op, components(a), out=components(out), stream=stream)
        return out
    return _as_vec(unary(op, components(a), stream=stream), a.dtype)


def vec_fill(ary, value, stream=None):
    """ary[...] = value for a vec array: a real number (every component), a
    tuple of components or a value of the same vec type."""
    dtype = ary.dtype
    name = vec_name(dtype)
    if name is None:
        raise TypeError(f"fill: dtype {dtype} can only be filled from a GPUArray")
    base, n = vec_components(dtype)
    vdt = getattr(value, "dtype", None)
    desc = scalar_desc(value) if vdt is None or vdt.kind != "V" else ("s", vdt)
    ok = (isinstance(value, tuple) and len(value) == n) or (
        desc is not None and desc[1] is not complex and getattr(desc[1], "kind", "") != "c")
    if vdt is not None and vdt.kind == "V" and vdt != dtype:
        ok = False
    one = np.zeros((), dtype)
    if ok:
        try:
            one[()] = value
        except (TypeError, ValueError, OverflowError):
            ok = False
    if not ok:
        raise TypeError(f"fill: a {name} array is filled with a real number, a tuple of {n} "
                        f"components or a {name} value, got {value!r}")
    if ary._layout is not None and stream is None and fill_memset(ary, one):
        return ary
    copy_into(components(ary), to_gpu(one.reshape(1).view(base)), stream)
    return ary
