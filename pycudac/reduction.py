"""pycudac.reduction — reductions in two passes (PyCUDA's ReductionKernel).

Pass 1: a grid sized to the device (8 blocks per SM) walks the input in a
grid-stride loop — four 16-byte vector loads in flight per thread when the
input is contiguous and aligned — then each block combines its threads'
values and writes one partial. Pass 2: one block reduces the partials and
writes the result (converted to the output dtype). Inputs small enough for
one block take pass 1 alone, writing the result.

The in-block combine (`<name>_block` in `_REDUCE_FN`) folds each warp's
32 values with shuffles, then warp 0 folds the 8 warps' values the same
way: two barrier-free shuffle trees and one __syncthreads, instead of eight
rounds through shared memory. Values of any type travel as 32-bit pieces
(`_SHFL_FN`), so bool, half, complex128 and user structs all take it.

    ReductionKernel(dtype_out, neutral, reduce_expr, map_expr, arguments)
    sum(a, axis=None), min(a), max(a), any(a), all(a), dot(a, b)

min/max of complex arrays order lexicographically (real, then imaginary
part) and propagate NaN, as NumPy does. Results are 0-d GPUArrays (no
synchronization until you .get() them).
"""
from __future__ import annotations

import builtins
import re
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from numpy.typing import DTypeLike

    from pycudac._driver import Stream
    from pycudac.gpuarray import GPUArray

import numpy as np

from pycudac._gpuarray.layout import norm_axis
from pycudac import elementwise as _ew
from pycudac import tools
from pycudac.elementwise import compute_ctype, compute_dtype, convert
from pycudac.tools import dtype_to_ctype

# ReductionKernel and PyCUDA's helper; sum, max, min, any, all and dot serve
# GPUArray's methods and shadow builtins, so `import *` leaves them out.
__all__ = ["ReductionKernel", "get_sum_kernel"]

BLOCK = 256
WARPS = BLOCK // 32
assert WARPS & (WARPS - 1) == 0, "the cross-warp shuffle tree needs a power-of-two warp count"

# ======================================================================
# Templates
# ======================================================================

# Once per module: a value of any type through __shfl_down_sync, as 32-bit
# pieces (the intrinsic has no overloads for bool, char, short, half,
# complex or structs; 4- and 8-byte types cost what the native ones do).
_SHFL_FN = """
template <typename T> __device__ inline T pcc_red_shfl_down(T v, unsigned int delta)
{
    unsigned int w[(sizeof(T) + 3) / 4] = {0};
    memcpy(w, &v, sizeof(T));
#pragma unroll
    for (unsigned int k = 0; k < (sizeof(T) + 3) / 4; ++k)
        w[k] = __shfl_down_sync(0xffffffffu, w[k], delta);
    memcpy(&v, w, sizeof(T));
    return v;
}
"""

_REDUCE_FN = """
__device__ inline {acc_t} {name}_op({acc_t} a, {acc_t} b)
{{
    return ({reduce_expr});
}}

/* The block's combined value in thread 0 (other threads: partial values).
 * Every thread of the block must call it. Lane 0 of each warp gets its
 * warp's value from a shuffle tree; warp 0 then folds the {warps} warp values.
 * Lanes of warp 0 past {warps} hold copies: only lanes 0..{warps}-1 reach lane 0.
 * A caller that calls it again (one row after another) puts a barrier
 * between the calls, so that warps_ is read before it is rewritten. */
__device__ inline {acc_t} {name}_block({acc_t} v)
{{
    __shared__ {acc_t} warps_[{warps}];
    const unsigned int lane = threadIdx.x & 31u, warp = threadIdx.x >> 5;
#pragma unroll
    for (unsigned int d = 16; d > 0; d >>= 1)
        v = {name}_op(v, pcc_red_shfl_down(v, d));
    if (lane == 0) warps_[warp] = v;
    __syncthreads();
    if (warp == 0) {{
        v = warps_[lane & ({warps} - 1)];
#pragma unroll
        for (unsigned int d = {warps} / 2; d > 0; d >>= 1)
            v = {name}_op(v, pcc_red_shfl_down(v, d));
    }}
    return v;
}}
"""

_STAGE = """
extern "C" __global__ void {name}({out_t} *__restrict__ out, {params}long long n, int vec)
{{
    const unsigned int tid_ = threadIdx.x;
    const long long nthreads_ = (long long)gridDim.x * {block};
    long long i = (long long)blockIdx.x * {block} + tid_;
    {acc_t} acc_ = {neutral};
{vec_loop}    for (; i < n; i += nthreads_) {{
        acc_ = {op}(acc_, {map_expr});
    }}
    acc_ = {block_fn}(acc_);
    if (tid_ == 0) out[blockIdx.x] = {store};
}}
"""

# ReductionKernel's pass 1: the map expression sees the real index `i` of
# range(start_, start_ + count_ * step_, step_) (range=/slice= at call
# time) and `n`, the size of the first array argument.
_USER_STAGE = """
extern "C" __global__ void {name}({out_t} *__restrict__ out, {params}long long n,
                               long long start_, long long step_, long long count_)
{{
    const unsigned int tid_ = threadIdx.x;
    const long long nthreads_ = (long long)gridDim.x * {block};
    {acc_t} acc_ = {neutral};
    for (long long k_ = (long long)blockIdx.x * {block} + tid_; k_ < count_; k_ += nthreads_) {{
        const long long i = start_ + k_ * step_;
        acc_ = {op}(acc_, {map_expr});
    }}
    acc_ = {block_fn}(acc_);
    if (tid_ == 0) out[blockIdx.x] = acc_;
}}
"""

# Contiguous, aligned inputs: 4 packs of 4 elements per operand in flight.
_VEC_LOOP = """    if (vec) {{
        const long long nv_ = n >> 2;
        long long v_ = i;
        for (; v_ + 3 * nthreads_ < nv_; v_ += 4 * nthreads_) {{
{loads4}            for (int u_ = 0; u_ < 4; ++u_)
                for (int k_ = 0; k_ < 4; ++k_) {{
{values4}                    acc_ = {op}(acc_, {vec_map});
                }}
        }}
        for (; v_ < nv_; v_ += nthreads_) {{
{loads1}            for (int k_ = 0; k_ < 4; ++k_) {{
{values1}                acc_ = {op}(acc_, {vec_map});
            }}
        }}
        i = (nv_ << 2) + (long long)blockIdx.x * {block} + tid_;
    }}
"""

_AXIS = """
extern "C" __global__ void {name}({out_t} *__restrict__ out, const {in_t} *__restrict__ a,
                               long long rows, long long m, long long row_stride,
                               long long col_stride)
{{
    const unsigned int tid_ = threadIdx.x;
    for (long long r = blockIdx.x; r < rows; r += gridDim.x) {{
        const char *row_ = (const char *)a + r * row_stride;
        {acc_t} acc_ = {neutral};
        for (long long j = tid_; j < m; j += {block}) {{
            acc_ = {op}(acc_, {map_expr});
        }}
        acc_ = {block_fn}(acc_);
        if (tid_ == 0) out[r] = {store};
        __syncthreads();  /* the next row's {block_fn} rewrites its warps_ */
    }}
}}
"""


# One thread per output element: for reductions along an axis whose output
# elements are adjacent in memory (a.sum(axis=0) of a C array), so that a
# warp's loads are coalesced.
_COLS = """
extern "C" __global__ void {name}({out_t} *__restrict__ out, const {in_t} *__restrict__ a,
                               long long rows, long long m, long long row_stride,
                               long long col_stride)
{{
    const long long nthreads_ = (long long)gridDim.x * blockDim.x;
    for (long long r = (long long)blockIdx.x * blockDim.x + threadIdx.x; r < rows;
         r += nthreads_) {{
        const char *row_ = (const char *)a + r * row_stride;
        {acc_t} acc_ = {neutral};
        for (long long j = 0; j < m; ++j) {{
            acc_ = {op}(acc_, {map_expr});
        }}
        out[r] = {store};
    }}
}}
"""


def _render_combine(base, acc_t, reduce_expr):
    """`base`_op (the reduce expression) and `base`_block (a block's combine)."""
    return _REDUCE_FN.format(name=base, acc_t=acc_t, reduce_expr=reduce_expr, warps=WARPS)


def _render_stage(name, base, out_t, acc_t, params, neutral, map_expr, store, vec_loop=""):
    """A pass kernel `name` using `base`_op and `base`_block; `store` is an
    expression over acc_ (thread 0's block value)."""
    return _STAGE.format(name=name, out_t=out_t, acc_t=acc_t, params=params, neutral=neutral,
                         op=f"{base}_op", block_fn=f"{base}_block", map_expr=map_expr,
                         store=store, vec_loop=vec_loop, block=BLOCK)


def _render_vec_loop(op, arrays, casts, expr):
    """arrays: [(k, storage dtype)], casts: compute dtype per k; expr over
    {0},{1}… (values of the operands)."""
    loads4 = "".join(
        f"            const pcc_pack<{dtype_to_ctype(d)}, 4> p{k}_[4] = {{"
        + ", ".join(f"((const pcc_pack<{dtype_to_ctype(d)}, 4> *)a{k})[v_ + {u} * nthreads_]"
                    for u in range(4)) + "};\n" for k, d in arrays)
    values4 = "".join(
        f"                    const {compute_ctype(casts[k])} x{k} = "
        f"{convert(f'p{k}_[u_].v[k_]', d, compute_dtype(casts[k]))};\n" for k, d in arrays)
    loads1 = "".join(
        f"            const pcc_pack<{dtype_to_ctype(d)}, 4> q{k}_ = "
        f"((const pcc_pack<{dtype_to_ctype(d)}, 4> *)a{k})[v_];\n" for k, d in arrays)
    values1 = "".join(
        f"                const {compute_ctype(casts[k])} x{k} = "
        f"{convert(f'q{k}_.v[k_]', d, compute_dtype(casts[k]))};\n" for k, d in arrays)
    vec_map = expr.format(*[f"x{k}" for k, _ in arrays])
    return _VEC_LOOP.format(loads4=loads4, values4=values4, loads1=loads1, values1=values1,
                            op=op, vec_map=vec_map, block=BLOCK)


# ======================================================================
# Built-in reductions (sum, min, max, any, all, dot)
# ======================================================================

class _RedSpec:
    """One built-in reduction over array operands a0, a1…"""

    def __init__(self, name, in_dtypes, casts, out_dtype, acc_dtype, neutral, reduce_expr,
                 map_expr):
        self.name = name
        self.in_dtypes = [np.dtype(d) for d in in_dtypes]
        self.casts = [np.dtype(c) for c in casts]
        self.out_dtype = np.dtype(out_dtype)
        self.acc_dtype = np.dtype(acc_dtype)  # a compute dtype
        self.neutral = neutral
        self.reduce_expr = reduce_expr
        self.map_expr = map_expr  # over {0}, {1}: converted values


def _zero(acc):
    if acc.kind == "c":
        return ("pcc_c64(0, 0)" if acc == np.complex64 else "pcc_c128(0, 0)")
    return f"({dtype_to_ctype(acc)})0"


def _render_builtin(spec):
    acc_t = dtype_to_ctype(spec.acc_dtype)
    out_t = dtype_to_ctype(spec.out_dtype)
    op = f"{spec.name}_op"
    arrays = list(enumerate(spec.in_dtypes))
    params = "".join(f"const {dtype_to_ctype(d)} *__restrict__ a{k}, " for k, d in arrays)
    neutral = spec.neutral
    scalar_vals = [convert(f"a{k}[i]", d, compute_dtype(spec.casts[k])) for k, d in arrays]
    map_expr = spec.map_expr.format(*scalar_vals)
    vec_loop = _render_vec_loop(op, arrays, spec.casts, spec.map_expr)
    src = _render_combine(spec.name, acc_t, spec.reduce_expr)
    final = _ew.store_expr("acc_", spec.acc_dtype, spec.out_dtype)
    # pass 1 writes partials in the accumulator type
    src += _render_stage(f"{spec.name}_s1", spec.name, acc_t, acc_t, params, neutral, map_expr,
                         "acc_", vec_loop)
    # pass 1 for one block, writing the final value
    src += _render_stage(f"{spec.name}_s1f", spec.name, out_t, acc_t, params, neutral,
                         map_expr, final, vec_loop)
    # pass 2 over partials
    src += _render_stage(f"{spec.name}_s2", spec.name, out_t, acc_t,
                         f"const {acc_t} *__restrict__ part, ", _zero_or(neutral, spec),
                         "part[i]", final)
    return src


def _zero_or(neutral, spec):
    # min/max use the first element as neutral; pass 2 takes part[0]
    return "part[0]" if "a0[0]" in neutral else neutral


def _render_axis(spec):
    acc_t = dtype_to_ctype(spec.acc_dtype)
    out_t = dtype_to_ctype(spec.out_dtype)
    in_t = dtype_to_ctype(spec.in_dtypes[0])
    val = convert(f"*(const {in_t} *)(row_ + j * col_stride)", spec.in_dtypes[0],
                  compute_dtype(spec.casts[0]))
    # min/max start from the row's first element instead of the array's
    neutral = spec.neutral.replace("a0[0]", f"(*(const {in_t} *)row_)")
    common = dict(out_t=out_t, acc_t=acc_t, in_t=in_t, neutral=neutral, op=f"{spec.name}_op",
                  map_expr=spec.map_expr.format(val), block=BLOCK)
    return (_AXIS.format(name=f"{spec.name}_axis", **common, block_fn=f"{spec.name}_block",
                         store=_ew.store_expr("acc_", spec.acc_dtype, spec.out_dtype))
            + _COLS.format(name=f"{spec.name}_cols", **common,
                           store=_ew.store_expr("acc_", spec.acc_dtype, spec.out_dtype)))


def _sum_dtype(dtype):
    return np.sum(np.zeros(1, dtype)).dtype if dtype.kind in "biu" else dtype


def _unary_specs(dtype, sum_dtype):
    """All single-input reductions of `dtype` (one module)."""
    specs = []
    sdt = np.dtype(sum_dtype)
    sacc = compute_dtype(sdt)
    specs.append(_RedSpec("sum", [dtype], [sdt], sdt, sacc, _zero(sacc), "a + b", "{0}"))
    acc = compute_dtype(dtype)
    first = convert("a0[0]", dtype, acc)
    if dtype.kind == "b":
        specs.append(_RedSpec("max", [dtype], [dtype], dtype, acc, "false", "a || b", "{0}"))
        specs.append(_RedSpec("min", [dtype], [dtype], dtype, acc, "true", "a && b", "{0}"))
    elif dtype.kind == "c":
        # NumPy's order: lexicographic (the preamble's operator<= on
        # pcc_complex*); a NaN in either part wins. Both NaN tests are
        # needed: (2, nan) >= (1, 0) holds on the real parts alone.
        for name, cmp in (("max", ">="), ("min", "<=")):
            specs.append(_RedSpec(name, [dtype], [dtype], dtype, acc, first,
                                  f"(pcc_isnan(a) || (!pcc_isnan(b) && a {cmp} b)) ? a : b",
                                  "{0}"))
    else:
        # NaN wins (a comparison with NaN is false)
        specs.append(_RedSpec("max", [dtype], [dtype], dtype, acc, first,
                              "pcc_maximum(a, b)", "{0}"))
        specs.append(_RedSpec("min", [dtype], [dtype], dtype, acc, first,
                              "pcc_minimum(a, b)", "{0}"))
    b = np.dtype(np.bool_)
    specs.append(_RedSpec("any", [dtype], [dtype], b, b, "false", "a || b", "pcc_nonzero({0})"))
    specs.append(_RedSpec("all", [dtype], [dtype], b, b, "true", "a && b", "pcc_nonzero({0})"))
    return specs


def _render_unary_module(dtype, sum_dtype):
    specs = _unary_specs(dtype, sum_dtype)
    src = tools.KERNEL_PREAMBLE + _SHFL_FN + "".join(_render_builtin(s) for s in specs)
    src += "".join(_render_axis(s) for s in specs)  # along one axis
    return src


def _render_dot_module(da, db, out):
    acc = compute_dtype(out)
    if out.kind == "b":
        spec = _RedSpec("dot", [da, db], [out, out], out, acc, "false", "a || b",
                        "({0} && {1})")
    else:
        spec = _RedSpec("dot", [da, db], [out, out], out, acc, _zero(acc), "a + b",
                        "({0} * {1})")
    return tools.KERNEL_PREAMBLE + _SHFL_FN + _render_builtin(spec)


_mods = {}


def _module(key, ctx):
    mod = _mods.get((ctx, key))
    if mod is None:
        if key[0] == "unary":
            src = _render_unary_module(key[1], key[2])
        else:
            src = _render_dot_module(*key[1:])
        mod = _mods[(ctx, key)] = _ew.source_module(_retag(src, key))
    return mod


def _retag(src, key):
    """Make kernel names unique to this module (name_s1 -> name_s1_<tag>)."""
    tag = tools.unique_tag(key)
    return re.sub(r"\b(\w+_(?:s1f|s1|s2|axis|cols|op|block))\(", lambda m: m.group(1) + tag + "(",
                  src)


_fns = {}


def _function(key, name, ctx):
    return _function_and_blocks(key, name, ctx)[0]


def _function_and_blocks(key, name, ctx):
    """(Function, blocks resident at once on the device) for kernel `name`."""
    fk = (ctx, key, name)
    entry = _fns.get(fk)
    if entry is None:
        fn = _module(key, ctx).get_function(name + tools.unique_tag(key))
        entry = _fns[fk] = (fn, _ew.resident_blocks(fn, ctx, BLOCK))
    return entry


tools._context_caches.extend([_mods, _fns])


def _contiguous(a):
    return a if a._layout == "C" else a.copy()


def _run(key, name, arrays, out_dtype, acc_dtype, stream):
    from pycudac.gpuarray import GPUArray
    ctx = tools.current_context()
    n = arrays[0].size
    out = GPUArray((), out_dtype)
    aligned = builtins.all(a.ptr % (a.dtype.itemsize * 4) == 0 for a in arrays)
    vec = 1 if (n >= 16 and aligned) else 0
    s1, max_blocks = _function_and_blocks(key, f"{name}_s1", ctx)
    work = (n >> 2) if vec else n
    grid = builtins.max(1, builtins.min((work + BLOCK - 1) // BLOCK, max_blocks))
    ptrs = [a.ptr for a in arrays]
    if grid == 1:
        _function(key, f"{name}_s1f", ctx)(out.ptr, *ptrs, n, vec, block=(BLOCK, 1, 1),
                                           grid=(1, 1), stream=stream)
        if stream is not None:
            _ew.keep_for_capture(stream, out, arrays)
        return out
    part = GPUArray((grid,), acc_dtype)
    s1(part.ptr, *ptrs, n, vec, block=(BLOCK, 1, 1), grid=(grid, 1), stream=stream)
    _function(key, f"{name}_s2", ctx)(out.ptr, part.ptr, grid, 0, block=(BLOCK, 1, 1),
                                      grid=(1, 1), stream=stream)
    if stream is not None:
        _ew.keep_for_capture(stream, out, part, arrays)
    return out


def _check(a, what):
    from pycudac.gpuarray import GPUArray
    if not isinstance(a, GPUArray):
        raise TypeError(f"{what}: expected a GPUArray, got {type(a).__name__}")
    if a.dtype not in tools.NUMERIC_DTYPES:
        raise TypeError(f"{what}: unsupported dtype {a.dtype}")


def sum(a, axis=None, dtype=None, stream=None):  # noqa: A001
    """Sum of all elements (0-d GPUArray), or along `axis`."""
    from pycudac import gpuarray
    _check(a, "sum")
    sdt = _sum_dtype(a.dtype) if dtype is None else tools.check_dtype(dtype, "sum: dtype")
    key = ("unary", a.dtype, sdt)
    if axis is not None:
        return _reduce_axis(a, axis, "sum", sdt, key, stream)
    if a.size == 0:
        return gpuarray.zeros((), sdt)
    return _run(key, "sum", [_contiguous(a)], sdt, compute_dtype(sdt), stream)


def _minmax(a, name, axis, stream):
    _check(a, name)
    key = ("unary", a.dtype, _sum_dtype(a.dtype))
    if axis is not None:
        return _reduce_axis(a, axis, name, a.dtype, key, stream)
    if a.size == 0:
        raise ValueError(f"zero-size array to reduction operation {name}imum which has no "
                         f"identity")
    return _run(key, name, [_contiguous(a)], a.dtype, compute_dtype(a.dtype), stream)


def max(a, axis=None, stream=None):  # noqa: A001
    """Largest element (NaN if any), or along `axis`. Complex: largest real
    part, then largest imaginary part among those (NumPy's order)."""
    return _minmax(a, "max", axis, stream)


def min(a, axis=None, stream=None):  # noqa: A001
    """Smallest element (NaN if any), or along `axis`. Complex: smallest
    real part, then smallest imaginary part (NumPy's order)."""
    return _minmax(a, "min", axis, stream)


def _logical(a, name, axis, stream):
    from pycudac import gpuarray
    _check(a, name)
    key = ("unary", a.dtype, _sum_dtype(a.dtype))
    if axis is not None:
        return _reduce_axis(a, axis, name, np.dtype(np.bool_), key, stream)
    if a.size == 0:
        return gpuarray.to_gpu(np.array(name == "all"))
    return _run(key, name, [_contiguous(a)], np.dtype(np.bool_), np.dtype(np.bool_), stream)


def any(a, axis=None, stream=None):  # noqa: A001
    return _logical(a, "any", axis, stream)


def all(a, axis=None, stream=None):  # noqa: A001
    return _logical(a, "all", axis, stream)


def dot(a, b, dtype=None, stream=None):
    """sum(a * b) over two arrays of one shape (PyCUDA's gpuarray.dot)."""
    from pycudac import gpuarray
    _check(a, "dot: a")
    _check(b, "dot: b")
    if a.shape != b.shape:
        raise ValueError(f"dot: shapes {a.shape} and {b.shape} are not aligned "
                         f"(pycudac's dot takes two arrays of one shape)")
    if a._ctx is not b._ctx:
        raise ValueError("dot: operands belong to different contexts")
    out = np.result_type(a.dtype, b.dtype) if dtype is None else np.dtype(dtype)
    if a.size == 0:
        return gpuarray.zeros((), out)
    key = ("dot", a.dtype, b.dtype, out)
    return _run(key, "dot", [_contiguous(a), _contiguous(b)], out, compute_dtype(out), stream)


def _reduce_axis(a, axis, name, out_dtype, key, stream):
    """Reduction `name` along one axis (or several, one after the other):
    one block per output element, reading its row with the row's strides."""
    from pycudac import gpuarray
    axes = axis if isinstance(axis, tuple) else (axis,)
    if len(axes) != 1:
        res = a
        for ax in sorted((norm_axis(x, a.ndim) for x in axes), reverse=True):
            k = ("unary", res.dtype, key[2]) if name == "sum" else (
                "unary", res.dtype, _sum_dtype(res.dtype))
            res = _reduce_axis(res, ax, name, out_dtype, k, stream)
        return res
    axis = norm_axis(axes[0], a.ndim)
    rest = [d for d in range(a.ndim) if d != axis]
    out_shape = tuple(a.shape[d] for d in rest)
    m = a.shape[axis]
    rows = 1
    for d in rest:
        rows *= a.shape[d]
    if rows == 0:
        return gpuarray.empty(out_shape, out_dtype)
    if m == 0:
        if name in ("max", "min"):
            raise ValueError(f"zero-size array to reduction operation {name}imum which has "
                             f"no identity")
        return gpuarray.zeros(out_shape, out_dtype).fill(1 if name == "all" else 0)
    rshape, (rstrides,) = _ew.collapse(out_shape, [tuple(a.strides[d] for d in rest)])
    src = a
    if len(rshape) > 1:
        src = a.transpose(rest + [axis]).copy()
        row_stride, col_stride = m * src.dtype.itemsize, src.dtype.itemsize
    else:
        row_stride, col_stride = rstrides[0], a.strides[axis]
    out = gpuarray.GPUArray(out_shape, out_dtype)
    ctx = tools.current_context()
    if abs(row_stride) < abs(col_stride) and rows >= 64:
        # outputs adjacent in memory: a thread per output, coalesced loads
        fn, resident = _function_and_blocks(key, f"{name}_cols", ctx)
        grid = builtins.max(1, builtins.min((rows + BLOCK - 1) // BLOCK, resident))
    else:
        # a block per output, its threads striding along the row
        fn = _function(key, f"{name}_axis", ctx)
        grid = builtins.max(1, builtins.min(rows, _ew._max_blocks(ctx)))
    fn(out.ptr, src.ptr, rows, m, row_stride, col_stride, block=(BLOCK, 1, 1), grid=(grid, 1),
       stream=stream)
    return out


# ======================================================================
# ReductionKernel (PyCUDA's user-facing generator)
# ======================================================================

class ReductionKernel:
    """reduce(map(i) for i in range(n)) with `reduce_expr` over a and b.

        krnl = ReductionKernel(numpy.float32, neutral="0",
                               reduce_expr="a+b", map_expr="x[i]*y[i]",
                               arguments="float *x, float *y")
        result = krnl(x, y).get()

    `n` is the size of the first array argument. At call time,
    `slice=slice(start, stop, step)` reduces over the indices that slice
    selects from range(n) (negative values count from the end, as in
    NumPy), `range=slice(start, stop, step)` over those indices taken
    literally; map_expr sees the real index `i` either way. An empty
    selection gives `neutral`. `out=` (a one-element GPUArray of dtype_out)
    receives the result, `stream=` orders the launches, `allocator=`
    allocates the result and the partials.
    """

    def __init__(self, dtype_out: DTypeLike, neutral: str | int | float, reduce_expr: str,
                 map_expr: str | None = None, arguments: str | Sequence[Any] | None = None,
                 name: str = "reduce_kernel", keep: bool = False,
                 options: Sequence[str] | None = None, preamble: str = "",
                 allocator: Callable[[int], Any] | None = None) -> None:
        self.dtype_out = tools.check_dtype(dtype_out, "ReductionKernel: dtype_out")
        if isinstance(neutral, (int, float, np.integer, np.floating)) and \
                not isinstance(neutral, (bool, np.bool_)):
            neutral = repr(neutral.item() if isinstance(neutral, np.generic) else neutral)
        _ew.check_code("ReductionKernel", name, neutral=neutral, reduce_expr=reduce_expr,
                       preamble=preamble, **({} if map_expr is None else {"map_expr": map_expr}))
        if arguments is None:
            raise ValueError("ReductionKernel: arguments are required")
        self.args = _ew.parse_arguments(arguments)
        if not builtins.any(a.is_pointer for a in self.args):
            raise ValueError("ReductionKernel: arguments need at least one pointer argument")
        if map_expr is None:
            first = next(a for a in self.args if a.is_pointer)
            map_expr = f"{first.name}[i]"
        self.options = options
        self.allocator = allocator
        acc_t = dtype_to_ctype(self.dtype_out)
        params = "".join(a.declarator() + ", " for a in self.args)
        self.name = name
        name = name + tools.unique_tag((acc_t, neutral, reduce_expr, map_expr, params, preamble))
        self._cname = name
        self.source = (tools.KERNEL_PREAMBLE + "\n" + preamble + "\n" + _SHFL_FN
                       + _render_combine(name, acc_t, reduce_expr)
                       + _USER_STAGE.format(name=f"{name}_s1", out_t=acc_t, acc_t=acc_t,
                                            params=params, neutral=f"({neutral})",
                                            op=f"{name}_op", block_fn=f"{name}_block",
                                            map_expr=f"({map_expr})", block=BLOCK)
                       + _render_stage(f"{name}_s2", name, acc_t, acc_t,
                                       f"const {acc_t} *__restrict__ part, ", f"({neutral})",
                                       "part[i]", "acc_"))
        self._mods = {}

    def _fns(self, ctx):
        """(pass 1, its resident block count, pass 2) in context `ctx`."""
        fns = self._mods.get(ctx)
        if fns is None:
            kw = {} if self.options is None else {"options": self.options}
            mod = _ew.source_module(self.source, **kw)
            s1 = mod.get_function(f"{self._cname}_s1")
            fns = self._mods[ctx] = (s1, _ew.resident_blocks(s1, ctx, BLOCK),
                                     mod.get_function(f"{self._cname}_s2"))
        return fns

    def _out(self, out, allocator):
        from pycudac.gpuarray import GPUArray
        if out is None:
            return GPUArray((), self.dtype_out, allocator=allocator)
        if not isinstance(out, GPUArray):
            raise TypeError(f"{self.name}: out= must be a GPUArray, got {type(out).__name__}")
        if out.dtype != self.dtype_out or out.size != 1:
            raise ValueError(f"{self.name}: out= must hold one element of dtype "
                             f"{self.dtype_out}, got shape {out.shape} dtype {out.dtype}")
        return out

    def __call__(self, *args: Any, stream: Stream | None = None, out: GPUArray | None = None,
                 allocator: Callable[[int], Any] | None = None,
                 range: slice | None = None,  # noqa: A002
                 slice: slice | None = None) -> GPUArray:  # noqa: A002
        from pycudac.gpuarray import GPUArray
        if len(args) != len(self.args):
            raise TypeError(f"{self.name}: expected {len(self.args)} arguments "
                            f"({', '.join(a.name for a in self.args)}), got {len(args)}")
        call_args, n, limit = [], None, 0
        for a, spec in zip(args, self.args):
            if isinstance(a, GPUArray):
                if not spec.is_pointer:
                    raise TypeError(f"{self.name}: argument '{spec.name}' is declared "
                                    f"'{spec.ctype}' (a scalar) but got a GPUArray")
                call_args.append(_ew.array_arg(self.name, spec, a))
                if n is None:
                    n = a.size
                limit = builtins.max(limit, a.size)
            else:
                call_args.append(a)
        if n is None:
            raise ValueError(f"{self.name}: no GPUArray among the arguments to take the "
                             f"element count from")
        start, stop, step = _ew.index_range(self.name, n, range, slice, limit)
        count = len(builtins.range(start, stop, step))
        allocator = allocator or self.allocator
        out = self._out(out, allocator)
        ctx = tools.current_context()
        s1, resident, s2 = self._fns(ctx)
        grid = builtins.max(1, builtins.min((count + BLOCK - 1) // BLOCK, resident))
        if grid == 1:
            # one block: pass 1 writes the result (an empty range: neutral)
            s1(out.ptr, *call_args, n, start, step, count, block=(BLOCK, 1, 1), grid=(1, 1),
               stream=stream)
            return out
        part = GPUArray((grid,), self.dtype_out, allocator=allocator)
        s1(part.ptr, *call_args, n, start, step, count, block=(BLOCK, 1, 1), grid=(grid, 1),
           stream=stream)
        s2(out.ptr, part.ptr, grid, 0, block=(BLOCK, 1, 1), grid=(1, 1), stream=stream)
        return out


def get_sum_kernel(dtype_out, dtype_in):  # PyCUDA helper names
    return ReductionKernel(dtype_out, "0", "a+b", arguments=f"const {dtype_to_ctype(dtype_in)} *in")
