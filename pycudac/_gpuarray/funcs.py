"""Module-level array functions of pycudac.gpuarray: maximum/minimum,
where, logical_and/or/not, concatenate/stack, take and multi_take/put,
and the reductions PyCUDA exposes here (sum, min, max, any, all, dot and
their subset_ forms — computed by pycudac.reduction)."""
import builtins
import contextlib

import numpy as np

from pycudac import elementwise as _ew
from pycudac._gpuarray import array as _ga
from pycudac._gpuarray.create import to_gpu, zeros
from pycudac import tools
from pycudac._gpuarray.layout import norm_axis, prod
from pycudac._gpuarray.ops import (
    BOOL_DT, binary, check_out, check_scalar, copy_into, operand, scalar_desc, unalias)


def _as_operand(x, what):
    if isinstance(x, _ga.GPUArray):
        return x
    if scalar_desc(x) is not None:
        return x
    raise TypeError(f"{what}: expected a GPUArray or a scalar, got {type(x).__name__}")


def maximum(a, b, out=None, stream=None):
    a, b = _as_operand(a, "maximum: a"), _as_operand(b, "maximum: b")
    if not isinstance(a, _ga.GPUArray):
        return binary("maximum", b, a, out=out, reflected=True, stream=stream)
    return binary("maximum", a, b, out=out, stream=stream)


def minimum(a, b, out=None, stream=None):
    a, b = _as_operand(a, "minimum: a"), _as_operand(b, "minimum: b")
    if not isinstance(a, _ga.GPUArray):
        return binary("minimum", b, a, out=out, reflected=True, stream=stream)
    return binary("minimum", a, b, out=out, stream=stream)


def where(condition, x, y, stream=None):
    """condition ? x : y elementwise, with broadcasting and promotion."""
    if not isinstance(condition, _ga.GPUArray):
        raise TypeError(f"where: condition must be a GPUArray, got {type(condition).__name__}")
    x, y = _as_operand(x, "where: x"), _as_operand(y, "where: y")
    dx, dy = operand(x, "where: x"), operand(y, "where: y")
    out_dtype = np.result_type(*[d if k == "a" or isinstance(d, np.dtype)
                                 else {int: 0, float: 0.0, complex: 0j, bool: False}[d]
                                 for k, d in (dx, dy)])
    shapes = [condition.shape] + [v.shape for v in (x, y) if isinstance(v, _ga.GPUArray)]
    try:
        shape = np.broadcast_shapes(*shapes)
    except ValueError:
        raise ValueError(f"where: shapes {shapes} could not be broadcast together") from None
    descs = (("a", condition.dtype), dx, dy)
    out = _ga.GPUArray(shape, out_dtype)
    vals = [condition]
    sds = [None]
    for v, (k, d) in zip((x, y), (dx, dy)):
        if k == "a":
            vals.append(v)
            sds.append(None)
        else:
            vals.append(check_scalar(v, out_dtype, "where: scalar"))
            sds.append(out_dtype)
    return _ew.launch_map(("where", descs, out_dtype), "where", out, vals, sds, stream)


def if_positive(criterion, then_, else_, out=None, stream=None):
    """PyCUDA: criterion > 0 ? then_ : else_."""
    return where(criterion > 0, then_, else_, stream=stream)


_LOGICAL = {"logical_and": "{0} && {1}", "logical_or": "{0} || {1}", "logical_not": "!{0}"}


def _logical(name, xs, out, allocator, stream):
    """NumPy's logical_and/or/not: a bool array of the operands' truth values
    (arrays broadcast; a scalar is reduced to a bool on the host). Scalars
    only give a 0-d array, as in PyCUDA."""
    for k, x in enumerate(xs):
        _as_operand(x, f"{name}: x{k + 1}" if len(xs) > 1 else f"{name}: x")
    xs = list(xs)
    if not builtins.any(isinstance(x, _ga.GPUArray) for x in xs):
        xs[0] = to_gpu(np.asarray(xs[0]))
    arrays = [x for x in xs if isinstance(x, _ga.GPUArray)]
    try:
        shape = np.broadcast_shapes(*[a.shape for a in arrays])
    except ValueError:
        raise ValueError(f"{name}: operands could not be broadcast together with shapes "
                         f"{[a.shape for a in arrays]}") from None
    if out is not None and check_out(name, out, shape, BOOL_DT):
        return copy_into(out, _logical(name, xs, None, None, stream), stream)
    if out is None:
        out = _ga.GPUArray(shape, BOOL_DT, allocator=allocator)
    descs = tuple(("a", x.dtype) if isinstance(x, _ga.GPUArray) else ("s", BOOL_DT)
                  for x in xs)
    operands = [x if isinstance(x, _ga.GPUArray) else bool(x) for x in xs]
    unalias(operands, out)
    extra = (name, BOOL_DT, _LOGICAL[name], (BOOL_DT,) * len(xs))
    return _ew.launch_map(("expr", descs, extra), name, out, operands,
                          [None if k == "a" else BOOL_DT for k, _ in descs], stream)


def logical_and(x1, x2, /, out=None, *, allocator=None, stream=None):
    return _logical("logical_and", (x1, x2), out, allocator, stream)


def logical_or(x1, x2, /, out=None, *, allocator=None, stream=None):
    return _logical("logical_or", (x1, x2), out, allocator, stream)


def logical_not(x, /, out=None, *, allocator=None, stream=None):
    return _logical("logical_not", (x,), out, allocator, stream)


def concatenate(arrays, axis=0, allocator=None):
    arrays = list(arrays)
    if not arrays:
        raise ValueError("concatenate: need at least one array")
    for k, a in enumerate(arrays):
        if not isinstance(a, _ga.GPUArray):
            raise TypeError(f"concatenate: arrays[{k}] is a {type(a).__name__}, not a GPUArray")
    nd = arrays[0].ndim
    if nd == 0:
        raise ValueError("concatenate: zero-dimensional arrays cannot be concatenated")
    axis = norm_axis(axis, nd)
    for k, a in enumerate(arrays):
        if a.ndim != nd or builtins.any(a.shape[d] != arrays[0].shape[d]
                                        for d in range(nd) if d != axis):
            raise ValueError(f"concatenate: arrays[{k}] has shape {a.shape}, which does not "
                             f"match {arrays[0].shape} except along axis {axis}")
    dtype = np.result_type(*[a.dtype for a in arrays])
    shape = list(arrays[0].shape)
    shape[axis] = builtins.sum(a.shape[axis] for a in arrays)
    out = _ga.GPUArray(tuple(shape), dtype, allocator=allocator)
    pos = 0
    for a in arrays:
        n = a.shape[axis]
        if n:
            idx = (slice(None),) * axis + (slice(pos, pos + n),)
            out[idx] = a
        pos += n
    return out


def stack(arrays, axis=0, allocator=None):
    arrays = list(arrays)
    if not arrays:
        raise ValueError("stack: need at least one array")
    for k, a in enumerate(arrays):  # before any is read (stack("ab") read str.shape)
        if not isinstance(a, _ga.GPUArray):
            raise TypeError(f"stack: arrays[{k}] is a {type(a).__name__}, not a GPUArray")
    shape = arrays[0].shape
    for k, a in enumerate(arrays):
        if a.shape != shape:
            raise ValueError(f"stack: all input arrays must have the same shape; arrays[{k}] "
                             f"has {a.shape}, arrays[0] has {shape}")
    axis = norm_axis(axis, len(shape) + 1)
    idx = (slice(None),) * axis + (None,)
    return concatenate([a[idx] for a in arrays], axis=axis, allocator=allocator)


_TAKE_SRC = """
extern "C" __global__ void take(T *__restrict__ out, const T *__restrict__ a,
                                const I *__restrict__ idx, long long n, long long m,
                                long long row)
{
    long long tid = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    long long nthreads = (long long)gridDim.x * blockDim.x;
    for (long long i = tid; i < n; i += nthreads) {
        long long r = i / row;
        long long j = (long long)idx[r];
        if (j < 0) j += m;
        j = j < 0 ? 0 : (j >= m ? m - 1 : j);   /* mode="clip" */
        out[i] = a[j * row + (i - r * row)];
    }
}
"""


@tools.context_dependent_memoize
def _take_kernel(dtype, idx_dtype):
    # elements are moved as raw bytes of their size
    t = {1: "unsigned char", 2: "unsigned short", 4: "unsigned int", 8: "unsigned long long",
         16: "pcc_complex128"}.get(dtype.itemsize)
    if t is None:
        raise TypeError(f"take: dtype {dtype} (itemsize {dtype.itemsize}) is not supported")
    src = (tools.KERNEL_PREAMBLE + f"typedef {t} T;\ntypedef {tools.dtype_to_ctype(idx_dtype)} I;\n"
           + _TAKE_SRC)
    mod = _ew.source_module(src)
    return mod.get_function("take"), _ew._max_blocks(tools.current_context())


def take(a, indices, axis=None, out=None, stream=None):
    """a.flat[indices] (axis=None) or rows a[indices] (axis=0); indices
    outside the range are clipped (device code cannot raise)."""
    if not isinstance(a, _ga.GPUArray):
        raise TypeError(f"take: a must be a GPUArray, got {type(a).__name__}")
    if not isinstance(indices, _ga.GPUArray):
        indices = to_gpu(np.asarray(indices))
    if indices.dtype.kind not in "iu":
        raise TypeError(f"take: indices must be an integer array, got {indices.dtype}")
    if axis is None:
        src = a if a._layout == "C" else a.copy()
        src = src.reshape(-1)
        row, m, rest = 1, src.size, ()
    else:
        axis = norm_axis(axis, a.ndim)
        if axis != 0:
            raise ValueError("take: only axis=None and axis=0 are supported")
        src = a if a._layout == "C" else a.copy()
        m, rest = a.shape[0], a.shape[1:]
        row = prod(rest)
    idx = indices if indices._layout == "C" else indices.copy()
    shape = indices.shape + rest
    if out is None:
        out = _ga.GPUArray(shape, a.dtype)
    elif out.shape != shape or out.dtype != a.dtype or out._layout != "C":
        raise ValueError(f"take: out must be a contiguous {a.dtype} array of shape {shape}")
    n = out.size
    if n == 0:
        return out
    if m == 0:
        raise IndexError("take: cannot take from an empty axis")
    fn, max_blocks = _take_kernel(a.dtype, idx.dtype)
    fn(out.ptr, src.ptr, idx.ptr, n, m, row, block=_ew._BLOCK,
       grid=_ew._grid(n, max_blocks), stream=stream)
    return out


def dot(a, b, dtype=None, stream=None):
    from pycudac import reduction
    return reduction.dot(a, b, dtype=dtype, stream=stream)


def sum(a, axis=None, dtype=None, stream=None):  # noqa: A001
    from pycudac import reduction
    return reduction.sum(a, axis=axis, dtype=dtype, stream=stream)


def min(a, axis=None, stream=None):  # noqa: A001
    from pycudac import reduction
    return reduction.min(a, axis=axis, stream=stream)


def max(a, axis=None, stream=None):  # noqa: A001
    from pycudac import reduction
    return reduction.max(a, axis=axis, stream=stream)


def any(a, axis=None, stream=None):  # noqa: A001
    from pycudac import reduction
    return reduction.any(a, axis=axis, stream=stream)


def all(a, axis=None, stream=None):  # noqa: A001
    from pycudac import reduction
    return reduction.all(a, axis=axis, stream=stream)


def _index_array(what, name, idx, one_d=False):
    if not isinstance(idx, _ga.GPUArray):
        raise TypeError(f"{what}: {name} must be an integer GPUArray, got "
                        f"{type(idx).__name__}")
    if idx.dtype.kind not in "iu":
        raise TypeError(f"{what}: {name} must be an integer GPUArray, got dtype {idx.dtype}")
    if one_d and idx.ndim != 1:
        raise ValueError(f"{what}: {name} must be 1-d, got shape {idx.shape}")
    return idx


@contextlib.contextmanager
def _default_stream_work(stream):
    """The gathers and scatters below run on the default stream; with a
    `stream` given, that work comes after what the stream holds and before
    what is queued on it next (a non-blocking stream would not wait)."""
    if stream is not None:
        stream.synchronize()
    yield
    if stream is not None:
        from pycudac import driver
        done = driver.Event()
        done.record()
        stream.wait_for_event(done)


def _subset(what, subset, arrays, stream):
    """arrays[k].flat[subset] for each array (PyCUDA's subset_ reductions
    run over these elements); an index out of range is an IndexError."""
    _index_array(what, "subset", subset)
    for name, a in zip("ab", arrays):
        if not isinstance(a, _ga.GPUArray):
            raise TypeError(f"{what}: {name} must be a GPUArray, got {type(a).__name__}")
    with _default_stream_work(stream):
        return [a.reshape(-1)[subset] for a in arrays]


# `allocator` (PyCUDA's): the 0-d result's memory comes from it.

def subset_dot(subset, a, b, dtype=None, stream=None, allocator=None):
    return _allocated(dot(*_subset("subset_dot", subset, (a, b), stream), dtype=dtype,
                          stream=stream), allocator, stream)


def subset_sum(subset, a, dtype=None, stream=None, allocator=None):
    return _allocated(sum(*_subset("subset_sum", subset, (a,), stream), dtype=dtype,
                          stream=stream), allocator, stream)


def subset_min(subset, a, stream=None, allocator=None):
    return _allocated(min(*_subset("subset_min", subset, (a,), stream), stream=stream),
                      allocator, stream)


def subset_max(subset, a, stream=None, allocator=None):
    return _allocated(max(*_subset("subset_max", subset, (a,), stream), stream=stream),
                      allocator, stream)


def _allocated(result, allocator, stream):
    """`result` in memory from `allocator` (one allocation), or as it is."""
    if allocator is None:
        return result
    out = _ga.GPUArray(result.shape, result.dtype, allocator=allocator)
    copy_into(out, result, stream=stream)
    return out


# multi_take/put: PyCUDA's gathers and scatters over several arrays of one
# dtype with one index array, each array taken flat (NumPy's a.flat, C
# order). Built on a[idx] and a[idx] = v: an index out of range is an
# IndexError, never a stray access. A put writes into C-contiguous `out`
# arrays (new ones are zero-filled); of repeated indices one value lands.
# The work runs on the default stream, ordered with `stream` when given.

def _multi_arrays(what, arrays):
    arrays = list(arrays)
    for k, a in enumerate(arrays):
        if not isinstance(a, _ga.GPUArray):
            raise TypeError(f"{what}: arrays[{k}] is a {type(a).__name__}, not a GPUArray")
        if a.dtype != arrays[0].dtype:
            raise TypeError(f"{what}: arrays must share one dtype; arrays[{k}] is {a.dtype}, "
                            f"arrays[0] is {arrays[0].dtype}")
    return arrays


def _multi_out(what, arrays, out, shape):
    """`out` checked (one C-contiguous GPUArray per array, of its dtype, of
    `shape` unless None) as a list."""
    out = list(out)
    if len(out) != len(arrays):
        raise ValueError(f"{what}: out has {len(out)} arrays for {len(arrays)} in arrays")
    for k, (o, a) in enumerate(zip(out, arrays)):
        if not isinstance(o, _ga.GPUArray) or o.dtype != a.dtype:
            raise TypeError(f"{what}: out[{k}] must be a GPUArray of {a.dtype}, got "
                            f"{getattr(o, 'dtype', type(o).__name__)}")
        if o._layout != "C" or (shape is not None and o.shape != shape):
            raise ValueError(f"{what}: out[{k}] must be C-contiguous"
                             + ("" if shape is None else f" of shape {shape}"))
    return out


def multi_take(arrays, indices, out=None, stream=None):
    """[a.flat[indices] for a in arrays], or written into the arrays of `out`."""
    indices = _index_array("multi_take", "indices", indices, True)
    arrays = _multi_arrays("multi_take", arrays)
    if out is not None:
        out = _multi_out("multi_take", arrays, out, indices.shape)
    with _default_stream_work(stream):
        if out is None:
            return [a.reshape(-1)[indices] for a in arrays]
        for a, o in zip(arrays, out):
            o[...] = a.reshape(-1)[indices]
    return out


def multi_put(arrays, dest_indices, dest_shape=None, out=None, stream=None):
    """out[k].flat[dest_indices] = arrays[k] (of dest_indices.size elements)."""
    return _take_put("multi_put", arrays, dest_indices, None, dest_shape, out, None, stream)


def multi_take_put(arrays, dest_indices, src_indices, dest_shape=None, out=None, stream=None,
                   src_offsets=None):
    """out[k].flat[dest_indices] = arrays[k].flat[src_indices + src_offsets[k]]."""
    src_indices = _index_array("multi_take_put", "src_indices", src_indices, True)
    return _take_put("multi_take_put", arrays, dest_indices, src_indices, dest_shape, out,
                     src_offsets, stream)


def _take_put(what, arrays, dest_indices, src_indices, dest_shape, out, src_offsets, stream):
    """multi_put (src_indices None: arrays[k] whole) and multi_take_put."""
    n = _index_array(what, "dest_indices", dest_indices, True).size
    arrays = _multi_arrays(what, arrays)
    if src_indices is not None and src_indices.size != n:
        raise ValueError(f"{what}: src_indices has {src_indices.size} elements, "
                         f"dest_indices {n}")
    for k, a in enumerate(arrays):
        if src_indices is None and a.size != n:
            raise ValueError(f"{what}: arrays[{k}] has {a.size} elements for {n} dest_indices")
    if src_offsets is None:
        src_offsets = [0] * len(arrays)
    elif len(src_offsets) != len(arrays):
        raise ValueError(f"{what}: src_offsets has {len(src_offsets)} offsets for "
                         f"{len(arrays)} arrays")
    if out is not None:
        out = _multi_out(what, arrays, out, None)
    elif dest_shape is None:
        raise ValueError(f"{what}: dest_shape is needed when out is not given")
    with _default_stream_work(stream):
        if out is None:
            out = [zeros(dest_shape, a.dtype) for a in arrays]
        for a, o, off in zip(arrays, out, src_offsets):
            src = a.reshape(-1)
            if src_indices is not None:
                src = src[src_indices + off if off else src_indices]
            o.reshape(-1)[dest_indices] = src
    return out

