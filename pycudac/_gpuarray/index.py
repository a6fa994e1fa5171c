"""Indexing GPUArrays (part of pycudac.gpuarray): `a[index]` and
`a[index] = value`, with NumPy's rules.

Basic indices (ints, slices of any step, `...`, None) give views, no copy.
Advanced indices give a copy (read) or a scatter (write):
  - integer arrays (GPUArray, NumPy array, list; negative values wrap,
    out-of-range values raise IndexError);
  - boolean masks covering one or more axes (a GPUArray, NumPy array,
    list, or a bool scalar);
mixed with basic indices and broadcast together. The broadcast index
dimensions go where the advanced indices stand when those are adjacent
(an integer counts as one), first otherwise — NumPy's placement.

How it runs: the basic indices give a view V. Every advanced index becomes
int64 byte offsets into V over the broadcast index shape B:
  - host indices with NumPy (checked and wrapped before anything runs);
  - a device integer array by the `offsets` kernel, which wraps negative
    values and records an out-of-range one in a small error buffer;
  - a device mask by an inclusive scan of the mask (pycudac.scan) — the
    last prefix is the count, read back to size the result, the one
    host round-trip this path cannot avoid — then the `mask` kernel,
    where each selected element writes its offset at its rank.
Several advanced indices add their offsets (the `offsets` kernel can
accumulate). One `move` kernel then gathers V into a fresh array or
scatters a value into V. The error buffer is read back (one small copy)
before a scatter writes anything and after a gather, so a bad device index
is an IndexError and never an out-of-bounds access.

Repeated indices in an assignment: one of the values lands, which one is
unspecified (the writes run in parallel; NumPy's serial loop makes it the
last).
"""
import builtins
import math
import operator

import numpy as np

from pycudac import elementwise as _ew
from pycudac._gpuarray import array as _ga
from pycudac._gpuarray.create import to_gpu
from pycudac import tools
from pycudac._gpuarray.layout import c_strides, prod
from pycudac._gpuarray.ops import copy_into, same_memory, scalar_desc

_MAX_DIMS = _ew.MAX_DIMS
_I64 = np.dtype(np.int64)

# ======================================================================
# Kernel templates
# ======================================================================

# {dims}: the scalar parameters sh0..sh7 (shape) and one stride list per
# name; {arrays}: the same gathered into local arrays.

_OFFSETS_SRC = """
typedef {ctype} I;

/* off[i] = (accumulate ? off[i] : 0) + wrap(idx[i]) * stride over the index
   shape; idx is read through byte strides (broadcast: 0). m >= 0: idx holds
   indices into an axis of m elements: negative ones wrap, one outside
   [-m, m) records (axis + 1, its value) in err and counts as 0. m < 0: idx
   holds byte offsets already. */
extern "C" __global__ void {name}(long long *__restrict__ off, const char *__restrict__ idx,
    long long *err, long long n, long long m, long long stride, long long axis, int accumulate,
    int ndim, {dims})
{{
{arrays}    long long tid = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    long long nthreads = (long long)gridDim.x * blockDim.x;
    for (long long i = tid; i < n; i += nthreads) {{
        long long rem = i, o = 0;
        for (int d = ndim - 1; d >= 0; --d) {{
            o += (rem % sh[d]) * st_idx[d];
            rem /= sh[d];
        }}
        I v = *(const I *)(idx + o);
        long long j = (long long)v;
        if (m >= 0) {{
            /* an unsigned 64-bit index past LLONG_MAX is out of range too */
            int huge = (I)-1 > (I)0 && (unsigned long long)v > 0x7fffffffffffffffULL;
            if (j < 0) j += m;
            if (huge || j < 0 || j >= m) {{
                err[1] = (long long)v;
                err[0] = axis + 1;
                j = 0;
            }}
        }}
        off[i] = (accumulate ? off[i] : 0) + j * stride;
    }}
}}
"""

_MASK_SRC = """
/* pos: the inclusive scan of a mask in C order. Element i is selected when
   its prefix grows; it writes its byte offset in the view (unravelled
   over the mask's shape with the view's strides) at its rank pos[i] - 1. */
extern "C" __global__ void {name}(long long *__restrict__ off, const I *__restrict__ pos,
    long long n, int ndim, {dims})
{{
{arrays}    long long tid = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    long long nthreads = (long long)gridDim.x * blockDim.x;
    for (long long i = tid; i < n; i += nthreads) {{
        I p = pos[i];
        if (p == (i ? pos[i - 1] : (I)0)) continue;
        long long rem = i, o = 0;
        for (int d = ndim - 1; d >= 0; --d) {{
            o += (rem % sh[d]) * st_view[d];
            rem /= sh[d];
        }}
        off[p - 1] = o;
    }}
}}
"""

_MOVE_SRC = """
/* one element, moved as {count} words of {word_bytes} bytes */
struct {name}_elem {{ {word} w[{count}]; }};

/* dst[i] = src[i] over the result's shape, both addressed by byte strides;
   off[i] (read through element strides) displaces the destination
   (off_dst: a scatter) or the source (a gather). */
extern "C" __global__ void {name}(char *dst, const char *src, const long long *__restrict__ off,
    long long n, int off_dst, int ndim, {dims})
{{
    typedef struct {name}_elem E;
{arrays}    long long tid = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    long long nthreads = (long long)gridDim.x * blockDim.x;
    for (long long i = tid; i < n; i += nthreads) {{
        long long rem = i, od = 0, os = 0, oo = 0;
        for (int d = ndim - 1; d >= 0; --d) {{
            long long c = rem % sh[d];
            rem /= sh[d];
            od += c * st_dst[d];
            os += c * st_src[d];
            oo += c * st_off[d];
        }}
        if (off_dst)
            od += off[oo];
        else
            os += off[oo];
        *(E *)(dst + od) = *(const E *)(src + os);
    }}
}}
"""


def _dims(names):
    """({dims} parameters, {arrays} body lines) for shape + stride lists."""
    params = ", ".join(f"long long sh{d}" for d in range(_MAX_DIMS))
    arrays = (f"    const long long sh[{_MAX_DIMS}] = "
              f"{{{', '.join(f'sh{d}' for d in range(_MAX_DIMS))}}};\n")
    for s in names:
        params += ",\n    " + ", ".join(f"long long {s}{d}" for d in range(_MAX_DIMS))
        arrays += (f"    const long long st_{s}[{_MAX_DIMS}] = "
                   f"{{{', '.join(f'{s}{d}' for d in range(_MAX_DIMS))}}};\n")
    return params, arrays


def _compile(template, key, **fields):
    name = "pcc_" + key[0] + tools.unique_tag(key)
    dims, arrays = _dims(fields.pop("strides"))
    src = tools.KERNEL_PREAMBLE + template.format(name=name, dims=dims, arrays=arrays, **fields)
    fn = _ew.source_module(src).get_function(name)
    return fn, _ew.resident_blocks(fn, tools.current_context())


@tools.context_dependent_memoize
def _offsets_kernel(idx_dtype):
    return _compile(_OFFSETS_SRC, ("index_offsets", idx_dtype.str), strides=["idx"],
                    ctype=tools.dtype_to_ctype(idx_dtype))


@tools.context_dependent_memoize
def _mask_kernel(pos_dtype):
    src = f"typedef {tools.dtype_to_ctype(pos_dtype)} I;\n" + _MASK_SRC
    return _compile(src, ("index_mask", pos_dtype.str), strides=["view"])


@tools.context_dependent_memoize
def _move_kernel(itemsize, word_bytes):
    word = {1: "unsigned char", 2: "unsigned short", 4: "unsigned int",
            8: "unsigned long long"}[word_bytes]
    return _compile(_MOVE_SRC, ("index_move", itemsize, word_bytes),
                    strides=["dst", "src", "off"], word=word, word_bytes=word_bytes,
                    count=itemsize // word_bytes)


@tools.context_dependent_memoize
def _mask_scan(pos_dtype):
    from pycudac import scan
    return scan.InclusiveScanKernel(pos_dtype, "a+b", name_prefix="mask_scan")


def _launch(kernel, n, args, shape, stride_lists):
    """Run an index kernel over `n` elements of `shape` (collapsed)."""
    shape, stride_lists = _ew.collapse(shape, stride_lists)
    if len(shape) > _MAX_DIMS:
        raise ValueError(f"indexing: arrays with more than {_MAX_DIMS} non-mergeable "
                         f"dimensions are not supported (shape {shape})")
    pad = _MAX_DIMS - len(shape)
    args = list(args) + [len(shape)]
    fn, max_blocks = kernel
    args.extend(shape)
    args.extend([1] * pad)
    for st in stride_lists:
        args.extend(st)
        args.extend([0] * pad)
    fn(*args, block=_ew._BLOCK, grid=_ew._grid(n, max_blocks))


# ======================================================================
# Reading an index
# ======================================================================

_BASIC = (int, slice, type(None), type(Ellipsis))
_ADVANCED_TYPES = (list, tuple, np.ndarray)


def _is_basic(i):
    t = type(i)
    if t in _BASIC:
        return True
    if t is bool:
        return False
    if isinstance(i, np.ndarray):
        return i.ndim == 0 and i.dtype.kind in "iu"
    return not (isinstance(i, (_ga.GPUArray, _ADVANCED_TYPES)) or isinstance(i, np.bool_))


def _entry(i, a):
    """One index entry as (kind, value): "slice", "none", "ellipsis", "int",
    "bool0" (a bool scalar), "host" (NumPy int or bool array), "dev" (GPUArray)."""
    if i is None:
        return ("none", None)
    if i is Ellipsis:
        return ("ellipsis", None)
    if isinstance(i, slice):
        return ("slice", i)
    if type(i) is bool or isinstance(i, np.bool_):
        return ("bool0", bool(i))
    if isinstance(i, _ga.GPUArray):
        if i._ctx is not a._ctx:
            raise ValueError("indexing: the index GPUArray belongs to a different context "
                             "than the array it indexes")
        if i.dtype.kind not in "biu":
            raise IndexError(f"arrays used as indices must be of integer (or boolean) type, "
                             f"got a GPUArray of {i.dtype}")
        if i.ndim == 0 and i.dtype.kind == "b":
            return ("bool0", bool(i.get()))
        return ("dev", i)
    if isinstance(i, _ADVANCED_TYPES):
        if isinstance(i, np.ndarray):
            host = i
        else:
            try:
                host = np.asarray(i)
            except ValueError as exc:
                raise IndexError(f"indexing: cannot make an index array from {i!r}: "
                                 f"{exc}") from None
            if host.size == 0 and host.dtype.kind == "f":
                host = host.astype(np.intp)   # [] indexes nothing, as in NumPy
        if host.dtype.kind not in "biu":
            raise IndexError(f"arrays used as indices must be of integer (or boolean) type, "
                             f"got {host.dtype}")
        if host.ndim == 0:
            return ("bool0", bool(host)) if host.dtype.kind == "b" else ("int", int(host))
        return ("host", host)
    try:
        return ("int", operator.index(i))
    except TypeError:
        raise IndexError(f"only integers, slices (':'), ellipsis ('...'), numpy.newaxis "
                         f"('None'), integer or boolean arrays are valid indices, got "
                         f"{type(i).__name__}") from None


def _ndim_of(kind, value):
    if kind in ("slice", "int"):
        return 1
    if kind in ("host", "dev"):
        return value.ndim if value.dtype.kind == "b" else 1
    return 0


class _Plan:
    """An advanced index resolved against an array: the view V the basic
    indices give, the advanced parts (offsets into V), and the result."""
    __slots__ = ("view", "parts", "place", "shape", "view_strides", "off_strides")

    def __init__(self):
        self.parts = []   # (kind, value, view axes, axis of the original array)


def _plan(a, index):
    entries = [_entry(i, a) for i in index]
    n_real = builtins.sum(_ndim_of(k, v) for k, v in entries)
    _check_counts(a, n_real, builtins.sum(1 for k, _ in entries if k == "ellipsis"))
    plan = _Plan()
    shape, strides = [], []
    offset = 0
    d = 0
    adv_at = []        # positions in `entries` of the advanced entries (ints count)
    first_axis = None  # view axis where the first advanced entry stands
    for pos, (kind, v) in enumerate(entries):
        if kind in ("int", "host", "dev", "bool0"):
            adv_at.append(pos)
            if first_axis is None:
                first_axis = len(shape)
        if kind in _BASIC_KINDS:
            d, off = _basic_step(a, kind, v, d, n_real, shape, strides)
            offset += off
        elif kind == "bool0":
            plan.parts.append((kind, v, [len(shape)], None))
            shape.append(1)
            strides.append(0)
        else:
            k = v.ndim if v.dtype.kind == "b" else 1
            if v.dtype.kind == "b":
                for j in range(k):
                    if v.shape[j] != a.shape[d + j]:
                        raise IndexError(
                            f"boolean index did not match indexed array along axis {d + j}; "
                            f"size of axis is {a.shape[d + j]} but size of corresponding "
                            f"boolean axis is {v.shape[j]}")
            plan.parts.append((kind, v, list(range(len(shape), len(shape) + k)), d))
            shape.extend(a.shape[d:d + k])
            strides.extend(a.strides[d:d + k])
            d += k
    while d < a.ndim:
        shape.append(a.shape[d])
        strides.append(a.strides[d])
        d += 1
    plan.view = a._view(tuple(shape), tuple(strides), offset)
    adjacent = adv_at == list(range(adv_at[0], adv_at[0] + len(adv_at)))
    plan.place = first_axis if adjacent else 0
    return plan


def _host_offsets(kind, v, axes, axis, view):
    """int64 byte offsets into `view` of a host index (checked, wrapped)."""
    if kind == "bool0":
        return np.zeros(1 if v else 0, np.int64)
    if v.dtype.kind == "b":
        coords = np.nonzero(v)
        off = np.zeros(len(coords[0]), np.int64)
        for c, ax in zip(coords, axes):
            off += c.astype(np.int64) * view.strides[ax]
        return off
    n = view.shape[axes[0]]
    if v.size:
        bad = (v >= n) if v.dtype.kind == "u" else ((v < -n) | (v >= n))
        if bad.any():
            raise IndexError(f"index {v[bad].flat[0]} is out of bounds for axis {axis} "
                             f"with size {n}")
    idx = v.astype(np.int64)
    return np.where(idx < 0, idx + n, idx) * view.strides[axes[0]]


def _mask_offsets(mask, axes, view):
    """Device mask -> GPUArray of the byte offsets of its True elements."""
    if mask.size == 0:
        return _ga.GPUArray((0,), _I64)
    pos_dtype = np.dtype(np.int32 if mask.size < 2 ** 31 else np.int64)
    pos = _ga.GPUArray(mask.shape, pos_dtype)
    copy_into(pos, mask)
    flat = pos.reshape(-1)
    _mask_scan(pos_dtype)(flat)
    count = int(flat[-1].get())   # the result's size: the one read-back a mask needs
    off = _ga.GPUArray((count,), _I64)
    if count:
        _launch(_mask_kernel(pos_dtype), mask.size, [off.ptr, pos.ptr, mask.size],
                mask.shape, [[view.strides[ax] for ax in axes]])
    return off


def _resolve(a, index):
    """The plan of `a[index]` with its offsets GPUArray (shape = the
    broadcast index shape) and the error buffer to check (or None)."""
    if a._ctx is not tools.current_context():
        raise ValueError("indexing: the array belongs to a context that is not current; push "
                         "it (Context.push()) before indexing with arrays")
    plan = _plan(a, index)
    view = plan.view
    host, dev = [], []
    for kind, v, axes, axis in plan.parts:
        if kind == "dev" and v.dtype.kind == "b":
            dev.append(("raw", _mask_offsets(v, axes, view), None))
        elif kind == "dev":
            dev.append(("index", v, (axes[0], axis)))
        else:
            host.append(_host_offsets(kind, v, axes, axis, view))
    shapes = [h.shape for h in host] + [g.shape for _, g, _ in dev]
    try:
        bshape = np.broadcast_shapes(*shapes)
    except ValueError:
        raise IndexError("shape mismatch: indexing arrays could not be broadcast together "
                         f"with shapes {' '.join(str(s) for s in shapes)}") from None
    err = None
    if host:
        total = host[0]
        for h in host[1:]:
            total = total + h
        off = to_gpu(np.ascontiguousarray(np.broadcast_to(total, bshape)))
    elif len(dev) == 1 and dev[0][0] == "raw" and dev[0][1].shape == bshape:
        off, dev = dev[0][1], []     # a lone device mask: its offsets are the answer
    else:
        off = _ga.GPUArray(bshape, _I64)
    n = off.size
    for k, (kind, g, where) in enumerate(dev if n else ()):
        if kind == "index":
            if err is None:
                from pycudac import driver
                err = _ga.GPUArray((2,), _I64)
                driver.memset_d32(err.ptr, 0, 4)
            m, stride, axis = view.shape[where[0]], view.strides[where[0]], where[1]
        else:
            m, stride, axis = -1, 1, 0       # mask offsets: bytes already
        accumulate = 1 if host or k else 0
        _launch(_offsets_kernel(g.dtype), n,
                [off.ptr, g.ptr, err.ptr if err is not None else 0, n, m, stride, axis,
                 accumulate], bshape, [_ew.broadcast_strides(g, bshape)])
    adv_axes = {ax for _, _, axes, _ in plan.parts for ax in axes}
    basic = [(view.shape[ax], view.strides[ax]) for ax in range(view.ndim) if ax not in adv_axes]
    p = plan.place
    plan.shape = (tuple(n for n, _ in basic[:p]) + bshape + tuple(n for n, _ in basic[p:]))
    off_st = c_strides(bshape, 1)
    zeros = (0,) * len(bshape)
    # per result axis: its byte stride in the view, its element stride in off
    plan.view_strides = tuple(s for _, s in basic[:p]) + zeros + tuple(s for _, s in basic[p:])
    plan.off_strides = (0,) * p + off_st + (0,) * (len(basic) - p)
    # what an error report needs: original axis -> (index dtype, axis size)
    axes_info = {where[1]: (g.dtype, view.shape[where[0]])
                 for kind, g, where in dev if kind == "index"}
    return plan, off, err, axes_info


def _check_error(err, axes_info):
    """Raise the IndexError a device index recorded in `err`, if any."""
    if err is None:
        return
    axis_plus_1, value = (int(x) for x in err.get())
    if axis_plus_1:
        dtype, size = axes_info[axis_plus_1 - 1]
        if dtype == np.uint64:
            value &= (1 << 64) - 1
        raise IndexError(f"index {value} is out of bounds for axis {axis_plus_1 - 1} with "
                         f"size {size}")


def _word_bytes(itemsize, *arrays):
    """Widest word (<= 8 bytes) that every element address is aligned to."""
    g = itemsize
    for ary in arrays:
        g = math.gcd(g, ary.ptr, *ary.strides) if ary.ndim else math.gcd(g, ary.ptr)
    w = 8
    while g % w:
        w //= 2
    return w


# ======================================================================
# a[index]
# ======================================================================

def getitem(a, index):
    if not isinstance(index, tuple):
        index = (index,)
    for i in index:
        if not _is_basic(i):
            return _advanced_get(a, index)
    return _basic_view(a, index)


_BASIC_KINDS = ("ellipsis", "none", "slice", "int")


def _check_counts(a, n_real, n_ellipsis):
    if n_real > a.ndim:
        raise IndexError(f"too many indices for array: array is {a.ndim}-dimensional, "
                         f"but {n_real} were indexed")
    if n_ellipsis > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")


def _basic_step(a, kind, v, d, n_real, shape, strides):
    """One basic index (a kind of _BASIC_KINDS) at axis d of `a`: appends the
    view axes it makes to shape/strides; returns (next axis, byte offset)."""
    if kind == "ellipsis":
        for _ in range(a.ndim - n_real):
            shape.append(a.shape[d])
            strides.append(a.strides[d])
            d += 1
        return d, 0
    if kind == "none":
        shape.append(1)
        strides.append(0)
        return d, 0
    if kind == "slice":
        start, stop, step = v.indices(a.shape[d])
        n = len(range(start, stop, step))
        shape.append(n)
        strides.append(a.strides[d] * step)
        return d + 1, start * a.strides[d] if n else 0
    n = a.shape[d]
    if v < -n or v >= n:
        raise IndexError(f"index {v} is out of bounds for axis {d} with size {n}")
    return d + 1, (v % n) * a.strides[d]


def _basic_kind(i):
    """(kind, value) of a basic index."""
    if i is Ellipsis:
        return "ellipsis", i
    if i is None:
        return "none", i
    if isinstance(i, slice):
        return "slice", i
    try:
        return "int", operator.index(i)
    except TypeError:
        raise IndexError(f"only integers, slices (':'), ellipsis ('...'), "
                         f"numpy.newaxis ('None'), integer or boolean arrays are "
                         f"valid indices, got {type(i).__name__}") from None


def _basic_view(a, index):
    n_real = builtins.sum(1 for i in index if i is not None and i is not Ellipsis)
    _check_counts(a, n_real, builtins.sum(1 for i in index if i is Ellipsis))
    shape, strides = [], []
    offset = 0
    d = 0
    for i in index:
        kind, v = _basic_kind(i)
        d, off = _basic_step(a, kind, v, d, n_real, shape, strides)
        offset += off
    while d < a.ndim:
        shape.append(a.shape[d])
        strides.append(a.strides[d])
        d += 1
    return a._view(tuple(shape), tuple(strides), offset)


def _advanced_get(a, index):
    plan, off, err, axes_info = _resolve(a, index)
    out = _ga.GPUArray(plan.shape, a.dtype)
    if out.size:
        view = plan.view
        kernel = _move_kernel(a.dtype.itemsize, _word_bytes(a.dtype.itemsize, view))
        _launch(kernel, out.size, [out.ptr, view.ptr, off.ptr, out.size, 0], plan.shape,
                [out.strides, plan.view_strides, plan.off_strides])
    _check_error(err, axes_info)
    return out


# ======================================================================
# a[index] = value
# ======================================================================

def setitem(a, index, value):
    if not isinstance(index, tuple):
        index = (index,)
    for i in index:
        if not _is_basic(i):
            return _advanced_set(a, index, value)
    view = a if index == (slice(None),) else _basic_view(a, index)
    if isinstance(value, _ga.GPUArray):
        view._assign_array(value)
    elif scalar_desc(value) is not None and not isinstance(value, np.ndarray):
        view.fill(value)
    else:
        host = np.asarray(value)
        if host.ndim == 0:
            view.fill(host[()])
        else:
            tools.check_dtype(host.dtype, "setitem: value dtype")
            view._assign_array(to_gpu(host.astype(view.dtype, copy=False)))


def _value_array(value, dtype, ctx):
    """`value` as a GPUArray of `dtype` (NumPy's setitem conversions)."""
    if isinstance(value, _ga.GPUArray):
        if value._ctx is not ctx:
            raise ValueError("setitem: the value GPUArray belongs to a different context "
                             "than the array assigned to")
        if value.dtype != dtype:
            if value.dtype in tools.NUMERIC_DTYPES and dtype in tools.NUMERIC_DTYPES:
                return value.astype(dtype)
            raise TypeError(f"setitem: cannot assign a GPUArray of {value.dtype} to elements "
                            f"of {dtype}")
        return value
    host = np.asarray(value) if isinstance(value, (list, tuple, np.ndarray)) else None
    if host is None or host.ndim == 0:
        # NumPy's own scalar assignment: OverflowError, TypeError alike
        one = np.empty((), dtype)
        one[()] = value if host is None else host[()]
        return to_gpu(one)
    tools.check_dtype(host.dtype, "setitem: value dtype")
    if host.dtype != dtype:
        if host.dtype.fields is not None or dtype.fields is not None:
            raise TypeError(f"setitem: cannot assign an array of {host.dtype} to elements "
                            f"of {dtype}")
        host = host.astype(dtype)
    return to_gpu(host)


def _advanced_set(a, index, value):
    plan, off, err, axes_info = _resolve(a, index)
    src = _value_array(value, a.dtype, a._ctx)
    shape = plan.shape
    while src.ndim > len(shape) and src.shape[0] == 1:
        src = src[0]
    if src.ndim > len(shape) or builtins.any(
            m != n and m != 1 for m, n in zip(src.shape[::-1], shape[::-1])):
        raise ValueError(f"shape mismatch: value array of shape {src.shape} could not be "
                         f"broadcast to indexing result of shape {shape}")
    _check_error(err, axes_info)      # before anything is written
    n = prod(shape)
    if not n:
        return
    view = plan.view
    if same_memory(src, view):
        src = src.copy()
    kernel = _move_kernel(a.dtype.itemsize, _word_bytes(a.dtype.itemsize, view, src))
    _launch(kernel, n, [view.ptr, src.ptr, off.ptr, n, 1], shape,
            [plan.view_strides, _ew.broadcast_strides(src, shape), plan.off_strides])
