"""Module-level array functions of pycudac.gpuarray: maximum/minimum,
where, concatenate/stack, take, and the reductions PyCUDA exposes here
(sum, min, max, any, all, dot — computed by pycudac.reduction)."""
import builtins

import numpy as np

from pycudac import elementwise as _ew
from pycudac import gpuarray as _ga
from pycudac import tools
from pycudac._gpuarray_layout import _norm_axis, _prod
from pycudac._gpuarray_ops import _binary, _check_scalar, _operand, _scalar_desc


def _as_operand(x, what):
    if isinstance(x, _ga.GPUArray):
        return x
    if _scalar_desc(x) is not None:
        return x
    raise TypeError(f"{what}: expected a GPUArray or a scalar, got {type(x).__name__}")


def maximum(a, b, out=None, stream=None):
    a, b = _as_operand(a, "maximum: a"), _as_operand(b, "maximum: b")
    if not isinstance(a, _ga.GPUArray):
        return _binary("maximum", b, a, out=out, reflected=True, stream=stream)
    return _binary("maximum", a, b, out=out, stream=stream)


def minimum(a, b, out=None, stream=None):
    a, b = _as_operand(a, "minimum: a"), _as_operand(b, "minimum: b")
    if not isinstance(a, _ga.GPUArray):
        return _binary("minimum", b, a, out=out, reflected=True, stream=stream)
    return _binary("minimum", a, b, out=out, stream=stream)


def where(condition, x, y, stream=None):
    """condition ? x : y elementwise, with broadcasting and promotion."""
    if not isinstance(condition, _ga.GPUArray):
        raise TypeError(f"where: condition must be a GPUArray, got {type(condition).__name__}")
    x, y = _as_operand(x, "where: x"), _as_operand(y, "where: y")
    dx, dy = _operand(x, "where: x"), _operand(y, "where: y")
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
            vals.append(_check_scalar(v, out_dtype, "where: scalar"))
            sds.append(out_dtype)
    return _ew.launch_map(("where", descs, out_dtype), "where", out, vals, sds, stream)


def if_positive(criterion, then_, else_, out=None, stream=None):
    """PyCUDA: criterion > 0 ? then_ : else_."""
    return where(criterion > 0, then_, else_, stream=stream)


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
    axis = _norm_axis(axis, nd)
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
    shape = arrays[0].shape
    for k, a in enumerate(arrays):
        if not isinstance(a, _ga.GPUArray):
            raise TypeError(f"stack: arrays[{k}] is a {type(a).__name__}, not a GPUArray")
        if a.shape != shape:
            raise ValueError(f"stack: all input arrays must have the same shape; arrays[{k}] "
                             f"has {a.shape}, arrays[0] has {shape}")
    axis = _norm_axis(axis, len(shape) + 1)
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
        indices = _ga.to_gpu(np.asarray(indices))
    if indices.dtype.kind not in "iu":
        raise TypeError(f"take: indices must be an integer array, got {indices.dtype}")
    if axis is None:
        src = a if a._layout == "C" else a.copy()
        src = src.reshape(-1)
        row, m, rest = 1, src.size, ()
    else:
        axis = _norm_axis(axis, a.ndim)
        if axis != 0:
            raise ValueError("take: only axis=None and axis=0 are supported")
        src = a if a._layout == "C" else a.copy()
        m, rest = a.shape[0], a.shape[1:]
        row = _prod(rest)
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


def dot(a, b, stream=None):
    from pycudac import reduction
    return reduction.dot(a, b, stream=stream)


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


def subset_dot(subset, a, b, stream=None):
    return dot(take(a, subset), take(b, subset), stream=stream)

