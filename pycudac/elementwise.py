"""pycudac.elementwise — kernels that apply an expression to every element.

Two things live here:

* `ElementwiseKernel(arguments, operation, name, preamble, options)` —
  PyCUDA's user-facing generator: `operation` is C code run for every index
  `i` (0 <= i < n) in a grid-stride loop; `range=`, `slice=` and `stream=`
  at call time.
* The "map" kernels behind GPUArray arithmetic, astype, copies, fills,
  where, cumath … Each map kernel computes `out = EXPR(x0, x1, …)` where
  every xk is an array element or a scalar parameter, converted to the
  type NumPy's ufunc loop computes in. Two variants: `contig` (all arrays
  laid out alike: a flat loop, 4-element vector loads/stores when aligned)
  and `strided` (any strides, broadcasting by zero strides, up to
  MAX_DIMS dimensions after merging).

All kernel source is produced from the templates in the next section.
Kernels are grouped into few modules (one per operand-type signature and
group), because every distinct source costs a compile on first use.
"""
from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from numpy.typing import DTypeLike

    from pycudac._driver import Stream
    from pycudac.gpuarray import GPUArray

import numpy as np

from pycudac import _driver, tools

# PyCUDA's public names; the map kernels' machinery below serves gpuarray,
# cumath and friends and is not part of the API.
__all__ = ["ElementwiseKernel", "VectorArg", "ScalarArg", "get_elwise_module",
           "get_elwise_range_module", "get_elwise_kernel_and_types", "get_elwise_kernel",
           "get_linear_combination_kernel"]
from pycudac.tools import ScalarArg, VectorArg, _Arg, dtype_to_ctype
# the ufunc loops and map specs (re-exported: cumath, reduction and the
# array layer reach them as elementwise's)
from pycudac._gpuarray.loops import (  # noqa: F401
    _NO_COMPLEX, BINARY_OPS, GROUPS, UNARY_OPS, MapSpec, Operand, _binary_specs, _unary_specs,
    compute_dtype, resolve)

MAX_DIMS = 8
BLOCK = 256

# ======================================================================
# Templates (all generated CUDA C comes from here)
# ======================================================================

_MAP_CONTIG = """
extern "C" __global__ void {name}({params}, long long n, int vec)
{{
    long long tid = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    long long nthreads = (long long)gridDim.x * blockDim.x;
{scalar_setup}    long long start = 0;
    if (vec) {{
        long long nv = n >> 2;
        for (long long v = tid; v < nv; v += nthreads) {{
{vec_loads}            pcc_pack<{out_t}, 4> r_;
            for (int k_ = 0; k_ < 4; ++k_) {{
{vec_values}                r_.v[k_] = {store};
            }}
            ((pcc_pack<{out_t}, 4> *)out)[v] = r_;
        }}
        start = nv << 2;
    }}
    for (long long i = start + tid; i < n; i += nthreads) {{
{values}        out[i] = {store};
    }}
}}
"""

_MAP_STRIDED = """
extern "C" __global__ void {name}({params}, long long n, int ndim,
    {dim_params})
{{
    long long tid = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    long long nthreads = (long long)gridDim.x * blockDim.x;
{scalar_setup}    const long long shape_[{maxd}] = {{{shape_init}}};
{stride_arrays}    for (long long i = tid; i < n; i += nthreads) {{
        long long rem_ = i;
{offset_init}        for (int d_ = ndim - 1; d_ >= 0; --d_) {{
            long long c_ = rem_ % shape_[d_];
            rem_ /= shape_[d_];
{offset_steps}        }}
{values}        *({out_t} *)((char *)out + oout) = {store};
    }}
}}
"""

_ELWISE_USER = """
extern "C" __global__ void {name}({params}, long long n, long long start_, long long stop_,
    long long step_)
{{
    long long tid_ = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    long long nthreads_ = (long long)gridDim.x * blockDim.x;
    long long i;
    {loop_prep};
    if (step_ == 1) {{
        for (i = start_ + tid_; i < stop_; i += nthreads_) {{
            {operation};
        }}
    }} else if (step_ > 0) {{
        for (i = start_ + tid_ * step_; i < stop_; i += nthreads_ * step_) {{
            {operation};
        }}
    }} else {{
        for (i = start_ + tid_ * step_; i > stop_; i += nthreads_ * step_) {{
            {operation};
        }}
    }}
    {after_loop};
}}
"""

# ======================================================================
# Types inside kernels
# ======================================================================

_F16 = np.dtype(np.float16)
_F32 = np.dtype(np.float32)
_F64 = np.dtype(np.float64)
_C64 = np.dtype(np.complex64)
_BOOL = np.dtype(np.bool_)




def compute_ctype(dtype):
    return dtype_to_ctype(compute_dtype(dtype))


def convert(expr, src, dst):
    """C expression converting `expr` (of kernel type `src`) to `dst`."""
    if src == dst:
        return expr
    if src == _F16:
        expr, src = f"pcc_h2f({expr})", _F32
        if dst == _F32:
            return expr
    if dst == _F16:
        return f"pcc_f2h({convert(expr, src, _F32)})"
    if dst.kind == "c":
        make, real = ("pcc_c64", "float") if dst == _C64 else ("pcc_c128", "double")
        if src.kind == "c":
            return f"{make}(({real})({expr}).x, ({real})({expr}).y)"
        if src == _BOOL:
            return f"{make}(({expr}) ? 1 : 0, 0)"
        return f"{make}(({real})({expr}), 0)"
    if src.kind == "c":
        if dst == _BOOL:
            return f"pcc_nonzero({expr})"
        return f"({dtype_to_ctype(dst)})(({expr}).x)"
    if dst == _BOOL:
        return f"(({expr}) != 0)"
    if src.kind == "f" and dst.kind in "iu" and (dst.itemsize < 4 or dst.kind == "u") \
            and dst.itemsize < 8:
        # Through a 64-bit integer, as NumPy's casts compile on x86: a value
        # out of the narrow type's range wraps instead of saturating (the
        # GPU's own float->u8 conversion saturates), so both backends agree.
        return f"({dtype_to_ctype(dst)})(long long)({expr})"
    return f"({dtype_to_ctype(dst)})({expr})"


def store_expr(expr, expr_dtype, out_dtype):
    """Convert a computed value to the output's storage type; integer
    expressions are cast back even when the types agree (C promotes)."""
    if expr_dtype == out_dtype and out_dtype.kind in "biu":
        return f"({dtype_to_ctype(out_dtype)})({expr})"
    return convert(expr, expr_dtype, out_dtype)


def scalar_params(k, dtype):
    """(C parameter declarations, C value of type compute_dtype(dtype))."""
    if dtype.kind == "c":
        real = "float" if dtype == _C64 else "double"
        make = "pcc_c64" if dtype == _C64 else "pcc_c128"
        return f"{real} s{k}_re, {real} s{k}_im", f"{make}(s{k}_re, s{k}_im)"
    if dtype == _BOOL:
        return f"int s{k}", f"(s{k} != 0)"
    if dtype == _F16:
        return f"float s{k}", f"s{k}"
    return f"{dtype_to_ctype(dtype)} s{k}", f"s{k}"


def scalar_args(value, dtype):
    """Python values for scalar_params(k, dtype)."""
    if dtype.kind == "c":
        v = complex(value)
        return (v.real, v.imag)
    if dtype == _BOOL:
        return (1 if value else 0,)
    if dtype.kind == "f":
        return (float(value),)
    return (int(value),)


# ======================================================================
# Map kernels: specs and rendering
# ======================================================================



def _render_map(spec, variant, tag=""):
    out_t = dtype_to_ctype(spec.out_dtype)
    params = [f"{out_t} *__restrict__ out"]
    scalar_setup, vec_loads, vec_values, values = [], [], [], []
    names = []
    arrays = []
    for k, op in enumerate(spec.operands):
        cast_c = compute_ctype(op.cast)
        names.append(f"x{k}")
        cast = compute_dtype(op.cast)
        if op.kind == "s":
            decl, value = scalar_params(k, op.dtype)
            params.append(decl)
            value = convert(value, compute_dtype(op.dtype), cast)
            scalar_setup.append(f"    const {cast_c} x{k} = {value};\n")
            continue
        t = dtype_to_ctype(op.dtype)
        params.append(f"const {t} *__restrict__ a{k}")
        arrays.append(k)
        vec_loads.append(
            f"            const pcc_pack<{t}, 4> p{k}_ = ((const pcc_pack<{t}, 4> *)a{k})[v];\n")
        vec_values.append(f"                const {cast_c} x{k} = "
                          f"{convert(f'p{k}_.v[k_]', op.dtype, cast)};\n")
        if variant == "contig":
            load = f"a{k}[i]"
        else:
            load = f"*(const {t} *)((const char *)a{k} + o{k})"
        values.append(f"        const {cast_c} x{k} = {convert(load, op.dtype, cast)};\n")
    store = store_expr(spec.expr.format(*names), spec.expr_dtype, spec.out_dtype)
    name = f"{spec.name}_{variant}{tag}"
    if variant == "contig":
        return _MAP_CONTIG.format(
            name=name, params=", ".join(params), out_t=out_t, store=store,
            scalar_setup="".join(scalar_setup), vec_loads="".join(vec_loads),
            vec_values="".join(vec_values), values="".join(values))
    short = ["out"] + [str(k) for k in arrays]
    dim_params = ", ".join(f"long long sh{d}" for d in range(MAX_DIMS))
    for s in short:
        dim_params += ",\n    " + ", ".join(f"long long st{s}_{d}" for d in range(MAX_DIMS))
    stride_arrays = "".join(
        f"    const long long st{s}_[{MAX_DIMS}] = "
        f"{{{', '.join(f'st{s}_{d}' for d in range(MAX_DIMS))}}};\n" for s in short)
    offset_init = "        long long " + ", ".join(f"o{s} = 0" for s in short) + ";\n"
    offset_steps = "".join(f"            o{s} += c_ * st{s}_[d_];\n" for s in short)
    return _MAP_STRIDED.format(
        name=name, params=", ".join(params), out_t=out_t, store=store, maxd=MAX_DIMS,
        dim_params=dim_params, scalar_setup="".join(scalar_setup),
        shape_init=", ".join(f"sh{d}" for d in range(MAX_DIMS)),
        stride_arrays=stride_arrays, offset_init=offset_init, offset_steps=offset_steps,
        values="".join(values))


def render_map_module(specs, variant, tag="", preamble=""):
    return (tools.KERNEL_PREAMBLE + preamble
            + "".join(_render_map(s, variant, tag) for s in specs))




_GROUP_PREAMBLES = {}  # group name -> device functions its expressions call


def register_group(name, builder, preamble=""):
    """Other modules (cumath) add their map-kernel groups here; `preamble`
    (source placed after KERNEL_PREAMBLE) defines what their expressions call."""
    GROUPS[name] = builder
    _GROUP_PREAMBLES[name] = preamble


# ======================================================================
# Compiling and caching map kernels
# ======================================================================

_fn_cache = {}     # (context, group key, kernel name, variant) -> (Function, max blocks)
_module_cache = {}  # (context, group key, variant) -> Module


def _max_blocks(ctx):
    try:
        return _max_blocks_cache[ctx]
    except KeyError:
        from pycudac import driver
        try:
            dev = driver.Context.get_device()
            sms = dev.get_attribute(driver.device_attribute.MULTIPROCESSOR_COUNT)
        except Exception:
            sms = 16
        n = _max_blocks_cache[ctx] = max(1, int(sms)) * 8
        return n


_max_blocks_cache = {}


def source_module(source, **kw):
    """Compile generated source (C++; the kernels carry extern "C")."""
    from pycudac.compiler import SourceModule
    return SourceModule(source, no_extern_c=True, **kw)


def get_map_function(group_key, name, variant, ctx=None):
    """The Function `name` of the map-kernel module `group_key` =
    (group, operand descs, extra), compiled once per context."""
    if ctx is None:
        ctx = tools.current_context()
    key = (ctx, group_key, name, variant)
    try:
        return _fn_cache[key]
    except KeyError:
        pass
    mkey = (ctx, group_key, variant)
    mod = _module_cache.get(mkey)
    if mod is None:
        group, descs, extra = group_key
        specs = GROUPS[group](descs, extra)
        mod = _module_cache[mkey] = source_module(
            render_map_module(specs, variant, tools.unique_tag(group_key),
                              _GROUP_PREAMBLES.get(group, "")))
    fn = mod.get_function(f"{name}_{variant}{tools.unique_tag(group_key)}")
    if variant != "contig":
        blocks = resident_blocks(fn, ctx)
    elif _driver.get_backend() == "sim":  # the most blocks a contiguous map takes
        blocks = resident_blocks(fn, ctx) * SIM_CONTIG_WAVES
    else:
        blocks = MAX_GRID_X
    entry = _fn_cache[key] = (fn, blocks)
    return entry


def resident_blocks(fn, ctx, block=BLOCK):
    """How many blocks of `block` threads of `fn` the device runs at once
    (the occupancy calculator). Grid-stride kernels launch exactly that many,
    one full wave: more would leave SMs idle through a partial second wave."""
    try:
        min_grid, best = fn.max_potential_block_size(0, block)
        if best == block and min_grid > 0:
            return int(min_grid)
    except Exception:
        pass
    return _max_blocks(ctx)


def _clear():
    _fn_cache.clear()
    _module_cache.clear()
    _max_blocks_cache.clear()


tools._context_caches.extend([_fn_cache, _module_cache, _max_blocks_cache])


# ======================================================================
# Launching map kernels on GPUArrays
# ======================================================================

# Contiguous maps launch a thread per element or per aligned 4-element
# vector, up to the grid's x limit: on an H100 (2026-11-28, paired with the
# driver's D2D copy round by round) y = 2*x read 0.933xp of the copy with 4
# waves of resident blocks in a grid-stride loop, 0.952 with 16, 0.970 with
# 64 and 0.990 with the whole grid; x + y 0.961, 0.974, 0.993 and 1.013. Block
# turnover keeps more loads in flight than a thread's loop does. The
# simulator runs blocks one after another on the CPU, where each costs:
# there contiguous maps keep to 4 waves (the whole grid read 1.22x the time
# of 2*x on 2^20 elements).
MAX_GRID_X = (1 << 31) - 1
SIM_CONTIG_WAVES = 4


def _grid(work, max_blocks):
    return (max(1, min((work + BLOCK - 1) // BLOCK, max_blocks)), 1)


_BLOCK = (BLOCK, 1, 1)


def collapse(shape, stride_lists):
    """Drop size-1 dims and merge dims that are contiguous in every
    stride list: returns (shape, [strides...])."""
    dims = [(n, [s[d] for s in stride_lists]) for d, n in enumerate(shape) if n != 1]
    if not dims:
        return (1,), [(0,) for _ in stride_lists]
    out_shape = [dims[0][0]]
    out_strides = [[st] for st in dims[0][1]]
    for n, sts in dims[1:]:
        if all(o[-1] == st * n for o, st in zip(out_strides, sts)):
            out_shape[-1] *= n
            for o, st in zip(out_strides, sts):
                o[-1] = st
        else:
            out_shape.append(n)
            for o, st in zip(out_strides, sts):
                o.append(st)
    return tuple(out_shape), [tuple(o) for o in out_strides]


def broadcast_strides(ary, shape):
    """Byte strides of `ary` broadcast to `shape` (0 where broadcast)."""
    nd = len(shape)
    off = nd - ary.ndim
    strides = [0] * nd
    for d in range(ary.ndim):
        n = ary.shape[d]
        if n == shape[off + d]:
            strides[off + d] = ary.strides[d] if n != 1 else 0
        elif n != 1:
            raise ValueError(f"operands could not be broadcast together: shape {ary.shape} "
                             f"does not fit {shape}")
    return strides


def keep_for_capture(stream, *objs):
    """Work queued into a stream capture is replayed with the graph, long
    after this call: the arrays whose raw addresses it was given are kept
    as long as the graph (nothing is done when `stream` is not capturing)."""
    _driver._capture_keep(stream, *objs)


def launch_map(group_key, name, out, operands, scalar_dtypes, stream=None, fcache=None):
    """Run map kernel `name` writing `out` (a GPUArray). `operands` are
    GPUArrays (broadcast to out.shape) or scalars; scalar_dtypes gives the
    kernel parameter dtype of each scalar (None for arrays). `fcache`, a
    dict the caller keeps per operation, saves the kernel lookup."""
    n = out.size
    if n == 0:
        return out
    ctx = tools.current_context()
    if out._ctx is not ctx:
        raise ValueError(f"{name}: the arrays belong to a context that is not current; "
                         f"push it (Context.push()) before operating on them")
    contig = out._layout
    if contig is not None:
        # fast path: every array laid out like `out` -> one flat loop
        shape = out.shape
        ptr = out.ptr
        args = [ptr]
        aligned = not ptr % (out.dtype.itemsize << 2)
        for op, sd in zip(operands, scalar_dtypes):
            if sd is None:
                if op._layout != contig or op.shape != shape:
                    contig = None
                    break
                ptr = op.ptr
                if ptr % (op.dtype.itemsize << 2):
                    aligned = False
                args.append(ptr)
            elif sd.kind == "f":
                args.append(float(op))
            else:
                args.extend(scalar_args(op, sd))
    if contig is not None:
        if fcache is None:
            fn, max_blocks = get_map_function(group_key, name, "contig", ctx)
        else:
            entry = fcache.get(ctx)
            if entry is None:
                entry = fcache[ctx] = get_map_function(group_key, name, "contig", ctx)
            fn, max_blocks = entry
        if aligned and n >= 4:
            work = n >> 2
            args.append(n)
            args.append(1)
        else:
            work = n
            args.append(n)
            args.append(0)
        blocks = (work + BLOCK - 1) // BLOCK
        fn(*args, block=_BLOCK, grid=(blocks if blocks < max_blocks else max_blocks, 1),
           stream=stream)
        if stream is not None:
            keep_for_capture(stream, out, operands)
        return out
    args = [out.ptr]
    shape = out.shape
    stride_lists = [out.strides]
    for op, sd in zip(operands, scalar_dtypes):
        if sd is None:
            stride_lists.append(broadcast_strides(op, shape))
            args.append(op.ptr)
        else:
            args.extend(scalar_args(op, sd))
    cshape, cstrides = collapse(shape, stride_lists)
    if len(cshape) > MAX_DIMS:
        raise ValueError(f"{name}: arrays with more than {MAX_DIMS} non-mergeable dimensions "
                         f"are not supported (shape {shape})")
    pad = MAX_DIMS - len(cshape)
    args.append(n)
    args.append(len(cshape))
    args.extend(cshape)
    args.extend([1] * pad)
    for st in cstrides:
        args.extend(st)
        args.extend([0] * pad)
    fn, max_blocks = get_map_function(group_key, name, "strided", ctx)
    fn(*args, block=_BLOCK, grid=_grid(n, max_blocks), stream=stream)
    if stream is not None:
        keep_for_capture(stream, out, operands)
    return out


# ======================================================================
# ElementwiseKernel (PyCUDA's user-facing generator)
# ======================================================================

def check_code(kernel, name, **texts):
    """A generated kernel's name (a C identifier) and its pieces of C code
    (str each), checked before they are pasted into a source."""
    if not isinstance(name, str):
        raise TypeError(f"{kernel}: name must be a str (a C identifier), not "
                        f"{type(name).__name__}")
    if not _IDENT.match(name):
        raise ValueError(f"{kernel}: name must be a C identifier, got {name!r}")
    for what, text in texts.items():
        if not isinstance(text, str):
            raise TypeError(f"{kernel}: {what} must be a str of C code, got "
                            f"{type(text).__name__}")


def parse_arguments(arguments):
    """[(name, is_pointer, dtype or None, ctype)] from "float *x, int n" or
    a list of (VectorArg/ScalarArg-like) objects."""
    if not isinstance(arguments, str):
        if not isinstance(arguments, (list, tuple)):
            raise TypeError(f"arguments must be a string like 'float *x, float a' or a list "
                            f"of VectorArg/ScalarArg, got {type(arguments).__name__}")
        out = []
        for a in arguments:
            if isinstance(a, _Arg):
                out.append(a)
            else:
                raise TypeError(f"ElementwiseKernel: arguments must be a string like "
                                f"'float *x, float a' or VectorArg/ScalarArg, got {a!r}")
        return out
    from pycudac import _sigparse
    return [tools._arg_of_param(p) for p in _sigparse.parse_arguments(arguments)]


def array_arg(kernel, spec, a):
    """GPUArray `a` as pointer parameter `spec` of `kernel`: a contiguous
    array, checked here (a kernel indexes it flat). Its element type is
    checked by the launch, as for every kernel: a float64 array through
    'float *x' is a TypeError (reinterpret on purpose with a.view(dtype))."""
    if a._layout is None and a.size > 1:
        raise ValueError(f"{kernel}: argument '{spec.name}' is a non-contiguous array view; "
                         f"pass a.copy()")
    return a


def index_range(kernel, n, range_, slice_, limit):
    """(start, stop, step) of the indices i a kernel runs over: range= (a
    slice or range taken as it is, PyCUDA's), slice= (a slice of range(n)),
    else 0..n. Every i must fall inside the largest array argument (`limit`
    elements): any other i addresses memory no argument owns."""
    if range_ is not None and slice_ is not None:
        raise TypeError(f"{kernel}: give range= or slice=, not both")
    if slice_ is not None:
        if not isinstance(slice_, slice):
            raise TypeError(f"{kernel}: slice= must be a slice, got {type(slice_).__name__}")
        start, stop, step = slice_.indices(n)
    elif range_ is not None:
        if not isinstance(range_, (slice, range)):
            raise TypeError(f"{kernel}: range= must be a slice (or a range), got "
                            f"{type(range_).__name__}")
        if range_.stop is None:
            raise ValueError(f"{kernel}: range= needs a stop index, got {range_!r}")
        start = 0 if range_.start is None else range_.start
        step = 1 if range_.step is None else range_.step
        stop = range_.stop
        for what, v in (("start", start), ("stop", stop), ("step", step)):
            if not isinstance(v, (int, np.integer)) or isinstance(v, (bool, np.bool_)):
                raise TypeError(f"{kernel}: range= {what} must be an int, got "
                                f"{type(v).__name__}")
        if step == 0:
            raise ValueError(f"{kernel}: range= step must not be 0")
        start, stop, step = int(start), int(stop), int(step)
    else:
        return 0, n, 1
    r = range(start, stop, step)
    if len(r) and (min(r[0], r[-1]) < 0 or max(r[0], r[-1]) >= limit):
        raise ValueError(f"{kernel}: the indices {r.start}..{r[-1]} (step {r.step}) reach "
                         f"outside the array arguments (0..{limit - 1})")
    return start, stop, step


def get_linear_combination_kernel(summand_descriptors, dtype_z):
    """PyCUDA's: reads its GPU scalars through texture references, which
    CUDA 12 removed. A LogicError that says what to write instead."""
    raise _driver.LogicError(
        "get_linear_combination_kernel reads its GPU scalars through texture references, "
        "which CUDA 12 removed (pycudac has none): write the combination as an "
        "ElementwiseKernel that takes each scalar as a pointer, e.g. "
        "ElementwiseKernel('float *a, float *x, float *b, float *y, float *z', "
        "'z[i] = a[0] * x[i] + b[0] * y[i]')")


_IDENT = re.compile(r"^[A-Za-z_]\w*$")

# PyCUDA's lower-level elementwise pieces: a kernel over the user's own
# arguments (one of them `n`, or start/stop/step), in a grid-stride loop.
_ELWISE_MODULE = """
#include <pycuda-complex.hpp>
{preamble}
extern "C" __global__ void {name}({params})
{{
    const long long cta_start = (long long)blockDim.x * blockIdx.x, tid = threadIdx.x;
    const long long total_threads = (long long)gridDim.x * blockDim.x;
    long long i;
    {loop_prep};
    {loop}
    {{
        {operation};
    }}
    {after_loop};
}}
"""
_LOOP_N = "for (i = cta_start + tid; i < (long long)n; i += total_threads)"
_LOOP_RANGE = ("for (i = start + (cta_start + tid) * step; step < 0 ? i > stop : i < stop; "
               "i += total_threads * step)")


def _elwise_module(arguments, operation, name, keep, options, preamble, loop_prep,
                   after_loop, loop):
    check_code("get_elwise_module", name, operation=operation, preamble=preamble,
               loop_prep=loop_prep, after_loop=after_loop)
    args = parse_arguments(arguments)
    src = tools.KERNEL_PREAMBLE + _ELWISE_MODULE.format(
        preamble=preamble, name=name, params=", ".join(a.declarator() for a in args),
        loop_prep=loop_prep, loop=loop, operation=operation, after_loop=after_loop)
    return source_module(src, keep=keep, options=options)


def get_elwise_module(arguments, operation, name="kernel", keep=False, options=None,
                      preamble="", loop_prep="", after_loop=""):
    """PyCUDA's: a SourceModule whose kernel `name`(arguments) runs
    `operation` for every i < n (`n`, an integer, is one of the arguments)."""
    return _elwise_module(arguments, operation, name, keep, options, preamble, loop_prep,
                          after_loop, _LOOP_N)


def get_elwise_range_module(arguments, operation, name="kernel", keep=False, options=None,
                            preamble="", loop_prep="", after_loop=""):
    """PyCUDA's: as get_elwise_module, for i in range(start, stop, step)
    (start, stop and step among the arguments)."""
    return _elwise_module(arguments, operation, name, keep, options, preamble, loop_prep,
                          after_loop, _LOOP_RANGE)


def get_elwise_kernel_and_types(arguments, operation, name="kernel", keep=False, options=None,
                                use_range=False, **kwargs):
    """PyCUDA's: (module, prepared Function, arguments), the arguments with
    `n` (or start, stop, step with use_range) appended."""
    args = list(parse_arguments(arguments))
    if use_range:
        args += [ScalarArg(np.intp, "start"), ScalarArg(np.intp, "stop"),
                 ScalarArg(np.intp, "step")]
        mod = get_elwise_range_module(args, operation, name, keep, options, **kwargs)
    else:
        args.append(ScalarArg(np.uintp, "n"))
        mod = get_elwise_module(args, operation, name, keep, options, **kwargs)
    func = mod.get_function(name)
    func.prepare("".join(a.struct_char for a in args))
    return mod, func, args


def get_elwise_kernel(arguments, operation, name="kernel", keep=False, options=None, **kwargs):
    """PyCUDA's: the prepared Function of get_elwise_kernel_and_types."""
    return get_elwise_kernel_and_types(arguments, operation, name, keep, options, **kwargs)[1]


class ElementwiseKernel:
    """PyCUDA's ElementwiseKernel: `operation` is C code for one index `i`
    (also available: `n`, the element count)."""

    def __init__(self, arguments: str | Sequence[Any], operation: str, name: str = "kernel",
                 keep: bool = False, options: Sequence[str] | None = None,
                 preamble: str = "", loop_prep: str = "", after_loop: str = "",
                 **kwargs: Any) -> None:
        check_code("ElementwiseKernel", name, operation=operation, preamble=preamble,
                   loop_prep=loop_prep, after_loop=after_loop)
        self.args = parse_arguments(arguments)
        if not any(a.is_pointer for a in self.args):
            raise ValueError("ElementwiseKernel: arguments need at least one pointer (array) "
                             f"argument, got {arguments!r}")
        self.name = name
        self.options = options
        params = ", ".join(a.declarator() for a in self.args)
        self._cname = name + tools.unique_tag((params, operation, preamble, loop_prep, after_loop))
        self.source = (tools.KERNEL_PREAMBLE + "\n" + preamble + "\n" + _ELWISE_USER.format(
            name=self._cname, params=params, operation=operation, loop_prep=loop_prep,
            after_loop=after_loop))
        self._funcs = {}
        self._ptr_flags = tuple(a.is_pointer for a in self.args)

    def get_function(self, ctx=None):
        if ctx is None:
            ctx = tools.current_context()
        try:
            return self._funcs[ctx]
        except KeyError:
            kw = {} if self.options is None else {"options": self.options}
            mod = source_module(self.source, **kw)
            fn = mod.get_function(self._cname)
            entry = self._funcs[ctx] = (fn, resident_blocks(fn, ctx))
            return entry

    def __call__(self, *args: Any, **kwargs: Any) -> None:
        """Run over every element; keywords range=slice(...) (indices taken
        literally), slice=slice(...) (as NumPy reads it) and stream=."""
        range_ = kwargs.pop("range", None)
        slice_ = kwargs.pop("slice", None)
        stream = kwargs.pop("stream", None)
        if kwargs:
            raise TypeError(f"{self.name}: unknown keyword argument(s) {sorted(kwargs)}")
        if len(args) != len(self.args):
            raise TypeError(f"{self.name}: expected {len(self.args)} arguments "
                            f"({', '.join(a.name for a in self.args)}), got {len(args)}")
        from pycudac.gpuarray import GPUArray
        call_args = []
        n = None
        limit = 0
        for a, spec in zip(args, self.args):
            if spec.is_pointer:
                if isinstance(a, GPUArray):
                    call_args.append(array_arg(self.name, spec, a))
                    if n is None:
                        n = a.size
                    limit = max(limit, a.size)
                else:
                    call_args.append(a)
            else:
                if isinstance(a, GPUArray):
                    raise TypeError(f"{self.name}: argument '{spec.name}' is declared "
                                    f"'{spec.ctype}' (a scalar) but got a GPUArray")
                call_args.append(a)
        if n is None:
            raise ValueError(f"{self.name}: no GPUArray among the pointer arguments to "
                             f"take the element count from")
        start, stop, step = index_range(self.name, n, range_, slice_, limit)
        count = len(range(start, stop, step))
        if count == 0:
            return
        fn, max_blocks = self.get_function()
        call_args.extend((n, start, stop, step))
        fn(*call_args, block=_BLOCK, grid=_grid(count, max_blocks), stream=stream)
        if stream is not None:
            keep_for_capture(stream, args)
