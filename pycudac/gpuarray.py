"""pycudac.gpuarray — NumPy-shaped arrays in device memory (PyCUDA's names).

    import pycudac.autoinit
    from pycudac import gpuarray
    x = gpuarray.to_gpu(numpy.arange(10, dtype=numpy.float32))
    y = (2 * x + 1).get()

A GPUArray is shape + dtype + byte strides over device memory. Indexing with
ints, slices (any step), `...` and `None` gives views; arithmetic follows
NumPy (NEP 50 promotion, broadcasting) and works on any strided operands.
`gpudata` is the owning allocation for a fresh array and an int-like
pointer (address of element 0, keeping the allocation alive) for a view;
`ptr` is always the plain int address of element 0.

Memory comes from a per-context tools.DeviceMemoryPool unless an
`allocator` is given, so temporaries do not pay cuMemAlloc.

Interop: `__cuda_array_interface__` (v3) export and import (`asarray`),
DLPack export (`__dlpack__`, `__dlpack_device__`) and import
(`from_dlpack`), all zero-copy.

Limits (device code cannot raise): integer `x // 0` and `x % 0` give 0 and
a negative integer power gives 0 (NumPy: warning / ValueError); `take`
clips out-of-range indices; float -> int casts of NaN/inf are whatever the
hardware gives. Index arrays are accepted for reading (a[idx] = take) but
not for assignment; boolean masks are not supported (use where()). Arrays
with more than 8 dimensions that cannot be merged need a copy first.
float16 elements are `pcc_half` (2-byte storage, pcc_h2f/pcc_f2h) in
kernels, complex ones `pcc_complex64/128` (float2/double2 layout with
operators) — see tools.KERNEL_PREAMBLE. `vec` dtypes are for storage,
copies and kernels; arithmetic on them is a TypeError.
"""
import numbers
import operator

import builtins

import numpy as np

from pycudac import elementwise as _ew
from pycudac import tools

__all__ = [
    "GPUArray", "to_gpu", "to_gpu_async", "empty", "zeros", "ones", "empty_like", "zeros_like",
    "ones_like", "arange", "asarray", "from_dlpack", "where", "maximum", "minimum",
    "concatenate", "stack", "take", "dot", "sum", "min", "max", "any", "all", "vec",
    "if_positive", "is_gpuarray",
]

_PY_SCALARS = (int, float, complex, bool)
_BOOL_DT = np.dtype(np.bool_)


# ======================================================================
# vector types (float4 ...) as NumPy structured dtypes
# ======================================================================

class vec:  # noqa: N801 (PyCUDA's name)
    """gpuarray.vec.float4 etc.: structured dtypes with fields x, y, z, w
    laid out (and aligned) like CUDA's vector types; make_float4(...)."""
    _dtype_to_name = {}


def _setup_vec():
    fields = "xyzw"
    bases = [("char", np.int8), ("uchar", np.uint8), ("short", np.int16),
             ("ushort", np.uint16), ("int", np.int32), ("uint", np.uint32),
             ("long", np.int64), ("ulong", np.uint64), ("longlong", np.int64),
             ("ulonglong", np.uint64), ("float", np.float32), ("double", np.float64)]
    for base, scalar in bases:
        for n in (1, 2, 3, 4):
            name = f"{base}{n}"
            # CUDA's layout: n packed elements (float3 is 12 bytes)
            dt = np.dtype({"names": list(fields[:n]), "formats": [scalar] * n})
            setattr(vec, name, dt)
            vec._dtype_to_name.setdefault(dt, name)

            def make(*args, _dt=dt, _n=n, _name=name):
                if len(args) != _n:
                    raise TypeError(f"make_{_name} takes {_n} values, got {len(args)}")
                out = np.zeros((), _dt)
                for f, v in zip(fields, args):
                    out[f] = v
                return out
            setattr(vec, f"make_{name}", staticmethod(make))


_setup_vec()


# ======================================================================
# helpers
# ======================================================================

def _c_strides(shape, itemsize):
    strides = []
    acc = itemsize
    for n in reversed(shape):
        strides.append(acc)
        acc *= builtins.max(n, 1)
    return tuple(reversed(strides))


def _f_strides(shape, itemsize):
    strides = []
    acc = itemsize
    for n in shape:
        strides.append(acc)
        acc *= builtins.max(n, 1)
    return tuple(strides)


def _is_c(shape, strides, itemsize):
    acc = itemsize
    for n, s in zip(reversed(shape), reversed(strides)):
        if n == 0:
            return True
        if n != 1 and s != acc:
            return False
        acc *= n
    return True


def _is_f(shape, strides, itemsize):
    acc = itemsize
    for n, s in zip(shape, strides):
        if n == 0:
            return True
        if n != 1 and s != acc:
            return False
        acc *= n
    return True


def _layout_of(shape, strides, itemsize):
    if _is_c(shape, strides, itemsize):
        return "C"
    if _is_f(shape, strides, itemsize):
        return "F"
    return None


def _normalize_shape(shape, what="shape"):
    if isinstance(shape, (int, np.integer)):
        shape = (int(shape),)
    else:
        try:
            shape = tuple(operator.index(n) for n in shape)
        except TypeError:
            raise TypeError(f"{what} must be an int or a tuple of ints, got {shape!r}") from None
    for n in shape:
        if n < 0:
            raise ValueError(f"{what} must not contain negative sizes, got {shape}")
    return shape


def _prod(shape):
    p = 1
    for n in shape:
        p *= n
    return p


class _ViewPointer(int):
    """Address of a view's element 0 that keeps the owning allocation
    alive (int(view.gpudata) works wherever a pointer is accepted)."""

    def __new__(cls, address, owner):
        self = int.__new__(cls, address)
        self.base = owner
        return self

    def __repr__(self):
        return f"<device pointer 0x{int(self):x}>"


_pools = {}  # context -> DeviceMemoryPool (dropped by tools.clear_context_caches)
tools._context_caches.append(_pools)


def _default_pool(ctx):
    pool = _pools.get(ctx)
    if pool is None:
        pool = _pools[ctx] = tools.DeviceMemoryPool()
    return pool


def get_default_pool():
    """The DeviceMemoryPool GPUArrays of the current context allocate from."""
    return _default_pool(tools.current_context())


class _Flags:
    __slots__ = ("c_contiguous", "f_contiguous")

    def __init__(self, c, f):
        self.c_contiguous, self.f_contiguous = c, f

    @property
    def forc(self):
        return self.c_contiguous or self.f_contiguous

    def __repr__(self):
        return f"  C_CONTIGUOUS : {self.c_contiguous}\n  F_CONTIGUOUS : {self.f_contiguous}"


def _scalar_desc(value):
    """('s', weak Python type or strong dtype) for a scalar operand, or None."""
    t = type(value)
    if t is bool:
        return ("s", _BOOL_DT)
    if t in _PY_SCALARS:
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


def _check_scalar(value, dtype, what):
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


def _same_memory(a, b):
    """True when a and b may overlap in device memory (conservative)."""
    if a.nbytes == 0 or b.nbytes == 0:
        return False
    a_lo, a_hi = a._extent()
    b_lo, b_hi = b._extent()
    return a_lo < b_hi and b_lo < a_hi


# ======================================================================
# GPUArray
# ======================================================================

class GPUArray:
    """An N-dimensional array in device memory."""

    __array_priority__ = 100
    __array_ufunc__ = None  # NumPy operators defer to ours

    __slots__ = ("shape", "dtype", "strides", "size", "gpudata", "ptr", "base", "allocator",
                 "_layout", "_ctx", "__weakref__")

    def __init__(self, shape, dtype, allocator=None, strides=None, order="C", gpudata=None,
                 base=None):
        dtype = tools.check_dtype(dtype, "GPUArray: dtype")
        shape = _normalize_shape(shape)
        itemsize = dtype.itemsize
        if strides is None:
            if order in ("C", "c", None):
                strides = _c_strides(shape, itemsize)
            elif order in ("F", "f"):
                strides = _f_strides(shape, itemsize)
            else:
                raise ValueError(f"GPUArray: order must be 'C' or 'F', got {order!r}")
        else:
            strides = tuple(int(s) for s in strides)
            if len(strides) != len(shape):
                raise ValueError(f"GPUArray: strides {strides} do not match shape {shape}")
        ctx = tools.current_context()
        size = _prod(shape)
        if gpudata is None:
            if allocator is None:
                allocator = _default_pool(ctx).allocate
            extent = 0
            if size:
                extent = itemsize + builtins.sum((n - 1) * abs(s) for n, s in zip(shape, strides))
                if builtins.any(s < 0 for s in strides):
                    raise ValueError("GPUArray: negative strides need gpudata=")
            gpudata = allocator(extent)
        self.shape = shape
        self.dtype = dtype
        self.strides = strides
        self.size = size
        self.gpudata = gpudata
        self.ptr = int(gpudata) if gpudata is not None else 0
        self.base = base
        self.allocator = allocator
        self._layout = _layout_of(shape, strides, itemsize)
        self._ctx = ctx

    @classmethod
    def _make(cls, shape, dtype, strides, layout, gpudata, ptr, base, ctx, allocator=None):
        self = object.__new__(cls)
        self.shape = shape
        self.dtype = dtype
        self.strides = strides
        self.size = _prod(shape)
        self.gpudata = gpudata
        self.ptr = ptr
        self.base = base
        self.allocator = allocator
        self._layout = layout
        self._ctx = ctx
        return self

    # ---------------------------------------------------------------- attributes
    @property
    def ndim(self):
        return len(self.shape)

    @property
    def itemsize(self):
        return self.dtype.itemsize

    @property
    def nbytes(self):
        return self.size * self.dtype.itemsize

    @property
    def mem_size(self):  # PyCUDA
        return self.size

    @property
    def flags(self):
        return _Flags(_is_c(self.shape, self.strides, self.dtype.itemsize),
                      _is_f(self.shape, self.strides, self.dtype.itemsize))

    @property
    def context(self):
        return self._ctx

    def __len__(self):
        if not self.shape:
            raise TypeError("len() of unsized object (0-d GPUArray)")
        return self.shape[0]

    def __repr__(self):
        return f"GPUArray({np.array2string(self.get(), separator=', ')}, dtype={self.dtype})"

    def __str__(self):
        return str(self.get())

    def __bool__(self):
        if self.size != 1:
            raise ValueError("The truth value of an array with more than one element is "
                             "ambiguous. Use a.any() or a.all()")
        return bool(self.get())

    def __float__(self):
        return float(self._scalar_value())

    def __int__(self):
        return int(self._scalar_value())

    def __complex__(self):
        return complex(self._scalar_value())

    def __index__(self):
        if self.dtype.kind not in "iub":
            raise TypeError("only integer GPUArrays can be used as an index")
        return operator.index(self._scalar_value())

    def _scalar_value(self):
        if self.size != 1:
            raise TypeError("only size-1 GPUArrays can be converted to Python scalars")
        return self.get().reshape(())[()]

    __hash__ = None

    def _extent(self):
        lo = hi = self.ptr
        for n, s in zip(self.shape, self.strides):
            if s < 0:
                lo += (n - 1) * s
            else:
                hi += (n - 1) * s
        return lo, hi + self.dtype.itemsize

    def _root(self):
        g = self.gpudata
        return getattr(g, "base", g) if isinstance(g, _ViewPointer) else g

    def _view(self, shape, strides, offset=0, dtype=None):
        dtype = self.dtype if dtype is None else dtype
        if offset == 0 and self.gpudata is not None:
            gpudata = self.gpudata
        else:
            gpudata = _ViewPointer(self.ptr + offset, self._root())
        return GPUArray._make(tuple(shape), dtype, tuple(strides),
                              _layout_of(shape, strides, dtype.itemsize), gpudata,
                              self.ptr + offset, self if self.base is None else self.base,
                              self._ctx)

    # ---------------------------------------------------------------- host transfers
    def set(self, ary, async_=False, stream=None):
        """Copy host array `ary` (same shape; cast to self.dtype) into self."""
        from pycudac import driver
        ary = np.asarray(ary)
        if ary.shape != self.shape:
            if ary.size == self.size and ary.ndim <= 1 or ary.shape == ():
                ary = ary.reshape(self.shape) if ary.size == self.size else ary
            if ary.shape != self.shape:
                try:
                    ary = np.broadcast_to(ary, self.shape)
                except ValueError:
                    raise ValueError(f"set: array of shape {ary.shape} does not fit "
                                     f"GPUArray of shape {self.shape}") from None
        if ary.dtype != self.dtype:
            tools.check_dtype(ary.dtype, "set: ary.dtype")
            ary = ary.astype(self.dtype)
        if self.size == 0:
            return
        if self._layout is None:
            self._assign_array(to_gpu(ary))
            return
        host = np.ascontiguousarray(ary) if self._layout == "C" else np.asfortranarray(ary)
        flat = _flat(host)
        if async_ or stream is not None:
            driver.memcpy_htod_async(self.ptr, flat, stream)
        else:
            driver.memcpy_htod(self.ptr, flat)

    def set_async(self, ary, stream=None):
        return self.set(ary, async_=True, stream=stream)

    def get(self, ary=None, pagelocked=False, async_=False, stream=None):
        """Copy to the host: a new NumPy array (page-locked if asked), or
        into `ary` (same shape and dtype)."""
        from pycudac import driver
        src = self if self._layout is not None else self.copy()
        order = src._layout or "C"
        if ary is None:
            if pagelocked:
                ary = driver.pagelocked_empty(self.shape, self.dtype, order=order)
            else:
                ary = np.empty(self.shape, self.dtype, order=order)
            target = ary
        else:
            if not isinstance(ary, np.ndarray):
                raise TypeError(f"get: ary must be a numpy.ndarray, got {type(ary).__name__}")
            if ary.shape != self.shape or ary.dtype != self.dtype:
                raise ValueError(f"get: ary has shape {ary.shape} and dtype {ary.dtype}; "
                                 f"expected {self.shape} and {self.dtype}")
            target = ary
            if not (ary.flags.c_contiguous if order == "C" else ary.flags.f_contiguous) \
                    or not ary.flags.writeable:
                if not ary.flags.writeable:
                    raise ValueError("get: ary is read-only")
                target = np.empty(self.shape, self.dtype, order=order)
        if self.size:
            flat = _flat(target)
            if async_ or stream is not None:
                driver.memcpy_dtoh_async(flat, src.ptr, stream)
            else:
                driver.memcpy_dtoh(flat, src.ptr)
        if target is not ary:
            ary[...] = target
        return ary

    def get_async(self, stream=None, ary=None):
        return self.get(ary=ary, async_=True, stream=stream)

    # ---------------------------------------------------------------- copies and casts
    def copy(self, order="C"):
        """A contiguous copy (C order unless order='F' or 'K' on an F array)."""
        if order == "K" or order == "A":
            order = "F" if self._layout == "F" else "C"
        out = GPUArray(self.shape, self.dtype, order=order)
        if self.size:
            if self._layout == out._layout and self._layout is not None:
                from pycudac import driver
                driver.memcpy_dtod(out.ptr, self.ptr, self.nbytes)
            else:
                _copy_into(out, self)
        return out

    def astype(self, dtype, stream=None):
        dtype = tools.check_dtype(dtype, "astype: dtype")
        if dtype == self.dtype:
            return self.copy()
        out = GPUArray(self.shape, dtype, order="F" if self._layout == "F" else "C")
        _copy_into(out, self, stream)
        return out

    def fill(self, value, stream=None):
        """Set every element to `value` (cast to self.dtype); returns self."""
        if self.size == 0:
            return self
        if isinstance(value, GPUArray):
            self._assign_array(value, stream)
            return self
        desc = _scalar_desc(value)
        if desc is None:
            raise TypeError(f"fill: value must be a scalar, got {type(value).__name__}")
        dtype = self.dtype
        if self._layout is not None and dtype.kind in "biufc" and stream is None:
            with np.errstate(all="ignore"):
                try:
                    bits = np.array(value).astype(dtype)
                except (OverflowError, ValueError):
                    bits = None
            if bits is not None and _fill_memset(self, bits):
                return self
        if dtype.kind not in "biufc":
            raise TypeError(f"fill: dtype {dtype} can only be filled from a GPUArray")
        with np.errstate(all="ignore"):
            v = np.array(value).astype(dtype)[()]
        _ew.launch_map(("fill", (("s", dtype),), None), "fill", self, [v], [dtype], stream)
        return self

    def _assign_array(self, src, stream=None):
        """self[...] = src (a GPUArray, broadcast, cast)."""
        if src._ctx is not self._ctx:
            raise ValueError("cannot mix GPUArrays from different contexts")
        np.broadcast_shapes(src.shape, self.shape)
        if len(src.shape) > len(self.shape) or builtins.any(
                a != b and a != 1 for a, b in zip(src.shape[::-1], self.shape[::-1])):
            raise ValueError(f"could not broadcast input array from shape {src.shape} "
                             f"into shape {self.shape}")
        if src.ptr != self.ptr and _same_memory(src, self):
            src = src.copy()
        if src.dtype.kind not in "biufc" and src.dtype != self.dtype:
            raise TypeError(f"cannot assign {src.dtype} to {self.dtype}")
        if self.dtype.kind not in "biufc":
            if src.shape == self.shape and src._layout == self._layout and src._layout:
                from pycudac import driver
                driver.memcpy_dtod(self.ptr, src.ptr, self.nbytes)
                return
            raise TypeError(f"only contiguous copies of {self.dtype} are supported")
        _copy_into(self, src, stream)

    def view(self, dtype=None):
        """The same memory seen as another dtype (itemsizes may differ for
        a contiguous last axis)."""
        if dtype is None:
            return self._view(self.shape, self.strides)
        if isinstance(dtype, type) and issubclass(dtype, GPUArray):
            return self._view(self.shape, self.strides)
        dtype = tools.check_dtype(dtype, "view: dtype")
        old = self.dtype.itemsize
        if dtype.itemsize == old:
            return self._view(self.shape, self.strides, 0, dtype)
        if not self.shape or self.strides[-1] != old:
            raise ValueError("view: changing the itemsize needs a contiguous last axis")
        last = self.shape[-1] * old
        if last % dtype.itemsize:
            raise ValueError(f"view: last axis of {last} bytes is not a multiple of "
                             f"{dtype.itemsize}")
        shape = self.shape[:-1] + (last // dtype.itemsize,)
        strides = self.strides[:-1] + (dtype.itemsize,)
        return self._view(shape, strides, 0, dtype)

    def reshape(self, *shape, order="C"):
        if len(shape) == 1 and not isinstance(shape[0], (int, np.integer)):
            shape = shape[0]
        shape = list(_normalize_shape_with_minus(shape))
        if -1 in shape:
            if shape.count(-1) > 1:
                raise ValueError("reshape: can only specify one unknown dimension")
            known = _prod(n for n in shape if n != -1)
            if known == 0 or self.size % known:
                raise ValueError(f"cannot reshape array of size {self.size} into shape "
                                 f"{tuple(shape)}")
            shape[shape.index(-1)] = self.size // known
        shape = tuple(shape)
        if _prod(shape) != self.size:
            raise ValueError(f"cannot reshape array of size {self.size} into shape {shape}")
        if order not in ("C", "F"):
            raise ValueError(f"reshape: order must be 'C' or 'F', got {order!r}")
        if shape == self.shape:
            return self._view(self.shape, self.strides)
        src = self
        if not (src._layout == order or (src.size <= 1) or
                (order == "C" and src.flags.c_contiguous) or
                (order == "F" and src.flags.f_contiguous)):
            src = self.copy(order=order)
        strides = (_c_strides if order == "C" else _f_strides)(shape, self.dtype.itemsize)
        return src._view(shape, strides)

    def ravel(self, order="C"):
        return self.reshape(-1, order=order)

    def squeeze(self, axis=None):
        if axis is None:
            axes = [d for d, n in enumerate(self.shape) if n == 1]
        else:
            axes = [_norm_axis(a, self.ndim) for a in
                    (axis if isinstance(axis, tuple) else (axis,))]
            for a in axes:
                if self.shape[a] != 1:
                    raise ValueError(f"squeeze: axis {a} has size {self.shape[a]}, not 1")
        shape = tuple(n for d, n in enumerate(self.shape) if d not in axes)
        strides = tuple(s for d, s in enumerate(self.strides) if d not in axes)
        return self._view(shape, strides)

    def transpose(self, *axes):
        if not axes or axes == (None,):
            axes = tuple(reversed(range(self.ndim)))
        elif len(axes) == 1 and not isinstance(axes[0], (int, np.integer)):
            axes = tuple(axes[0])
        axes = tuple(_norm_axis(a, self.ndim) for a in axes)
        if sorted(axes) != list(range(self.ndim)):
            raise ValueError(f"transpose: axes {axes} are not a permutation of "
                             f"{tuple(range(self.ndim))}")
        return self._view(tuple(self.shape[a] for a in axes),
                          tuple(self.strides[a] for a in axes))

    @property
    def T(self):  # noqa: N802
        return self.transpose()

    def swapaxes(self, a, b):
        axes = list(range(self.ndim))
        a, b = _norm_axis(a, self.ndim), _norm_axis(b, self.ndim)
        axes[a], axes[b] = axes[b], axes[a]
        return self.transpose(axes)

    @property
    def real(self):
        if self.dtype.kind != "c":
            return self
        rd = _REAL_OF[self.dtype]
        return self._view(self.shape, self.strides, 0, rd)

    @property
    def imag(self):
        if self.dtype.kind != "c":
            return zeros_like(self)
        rd = _REAL_OF[self.dtype]
        return self._view(self.shape, self.strides, rd.itemsize, rd)

    def conj(self):
        if self.dtype.kind != "c":
            return self.copy()
        return _unary("conjugate", self)

    conjugate = conj

    # ---------------------------------------------------------------- indexing
    def __getitem__(self, index):
        if isinstance(index, (list, np.ndarray)) and not (
                isinstance(index, np.ndarray) and index.ndim == 0):
            index = to_gpu(np.asarray(index))
        if isinstance(index, GPUArray):
            if index.dtype == np.bool_:
                raise TypeError("boolean mask indexing is not supported; use where()")
            return take(self, index, axis=0)
        if not isinstance(index, tuple):
            index = (index,)
        n_real = builtins.sum(1 for i in index if i is not None and i is not Ellipsis)
        if n_real > self.ndim:
            raise IndexError(f"too many indices for array: array is {self.ndim}-dimensional, "
                             f"but {n_real} were indexed")
        if builtins.sum(1 for i in index if i is Ellipsis) > 1:
            raise IndexError("an index can only have a single ellipsis ('...')")
        shape, strides = [], []
        offset = 0
        d = 0
        for i in index:
            if i is Ellipsis:
                for _ in range(self.ndim - n_real):
                    shape.append(self.shape[d])
                    strides.append(self.strides[d])
                    d += 1
            elif i is None:
                shape.append(1)
                strides.append(0)
            elif isinstance(i, slice):
                start, stop, step = i.indices(self.shape[d])
                n = len(range(start, stop, step))
                offset += start * self.strides[d] if n else 0
                shape.append(n)
                strides.append(self.strides[d] * step)
                d += 1
            else:
                try:
                    k = operator.index(i)
                except TypeError:
                    raise IndexError(f"only integers, slices (':'), ellipsis ('...'), "
                                     f"numpy.newaxis ('None') and integer GPUArrays are "
                                     f"valid indices, got {type(i).__name__}") from None
                n = self.shape[d]
                if k < -n or k >= n:
                    raise IndexError(f"index {k} is out of bounds for axis {d} with size {n}")
                offset += (k % n) * self.strides[d]
                d += 1
        while d < self.ndim:
            shape.append(self.shape[d])
            strides.append(self.strides[d])
            d += 1
        return self._view(tuple(shape), tuple(strides), offset)

    def __setitem__(self, index, value):
        if isinstance(index, (GPUArray, list)) or (isinstance(index, np.ndarray) and index.ndim):
            raise TypeError("assignment through an index array is not supported (a[idx] = v); "
                            "use where() or an ElementwiseKernel")
        view = self[index] if not (isinstance(index, slice) and index == slice(None)) else self
        if isinstance(value, GPUArray):
            view._assign_array(value)
        elif _scalar_desc(value) is not None and not isinstance(value, np.ndarray):
            view.fill(value)
        else:
            host = np.asarray(value)
            if host.ndim == 0:
                view.fill(host[()])
            else:
                tools.check_dtype(host.dtype, "setitem: value dtype")
                view._assign_array(to_gpu(host.astype(view.dtype, copy=False)))

    # ---------------------------------------------------------------- arithmetic
    def __add__(self, other):
        return _binary("add", self, other)

    def __radd__(self, other):
        return _binary("add", self, other, reflected=True)

    def __sub__(self, other):
        return _binary("subtract", self, other)

    def __rsub__(self, other):
        return _binary("subtract", self, other, reflected=True)

    def __mul__(self, other):
        return _binary("multiply", self, other)

    def __rmul__(self, other):
        return _binary("multiply", self, other, reflected=True)

    def __truediv__(self, other):
        return _binary("true_divide", self, other)

    def __rtruediv__(self, other):
        return _binary("true_divide", self, other, reflected=True)

    def __floordiv__(self, other):
        return _binary("floor_divide", self, other)

    def __rfloordiv__(self, other):
        return _binary("floor_divide", self, other, reflected=True)

    def __mod__(self, other):
        return _binary("remainder", self, other)

    def __rmod__(self, other):
        return _binary("remainder", self, other, reflected=True)

    def __pow__(self, other):
        return _binary("power", self, other)

    def __rpow__(self, other):
        return _binary("power", self, other, reflected=True)

    def __and__(self, other):
        return _binary("bitwise_and", self, other)

    def __rand__(self, other):
        return _binary("bitwise_and", self, other, reflected=True)

    def __or__(self, other):
        return _binary("bitwise_or", self, other)

    def __ror__(self, other):
        return _binary("bitwise_or", self, other, reflected=True)

    def __xor__(self, other):
        return _binary("bitwise_xor", self, other)

    def __rxor__(self, other):
        return _binary("bitwise_xor", self, other, reflected=True)

    def __iadd__(self, other):
        return _binary("add", self, other, out=self)

    def __isub__(self, other):
        return _binary("subtract", self, other, out=self)

    def __imul__(self, other):
        return _binary("multiply", self, other, out=self)

    def __itruediv__(self, other):
        return _binary("true_divide", self, other, out=self)

    def __ifloordiv__(self, other):
        return _binary("floor_divide", self, other, out=self)

    def __imod__(self, other):
        return _binary("remainder", self, other, out=self)

    def __ipow__(self, other):
        return _binary("power", self, other, out=self)

    def __iand__(self, other):
        return _binary("bitwise_and", self, other, out=self)

    def __ior__(self, other):
        return _binary("bitwise_or", self, other, out=self)

    def __ixor__(self, other):
        return _binary("bitwise_xor", self, other, out=self)

    def __eq__(self, other):
        return _binary("equal", self, other)

    def __ne__(self, other):
        return _binary("not_equal", self, other)

    def __lt__(self, other):
        return _binary("less", self, other)

    def __le__(self, other):
        return _binary("less_equal", self, other)

    def __gt__(self, other):
        return _binary("greater", self, other)

    def __ge__(self, other):
        return _binary("greater_equal", self, other)

    def __neg__(self):
        return _unary("negative", self)

    def __pos__(self):
        if self.dtype == np.bool_:
            raise TypeError("unary + is not supported for bool arrays (as in NumPy)")
        return self.copy()

    def __abs__(self):
        return _unary("absolute", self)

    def __invert__(self):
        return _unary("invert", self)

    def mul_add(self, selffac, other, otherfac, add_timer=None, stream=None):
        """selffac*self + otherfac*other (PyCUDA)."""
        return self * selffac + other * otherfac

    # ---------------------------------------------------------------- reductions
    def sum(self, axis=None, dtype=None, stream=None):
        from pycudac import reduction
        return reduction.sum(self, axis=axis, dtype=dtype, stream=stream)

    def max(self, axis=None, stream=None):
        from pycudac import reduction
        return reduction.max(self, axis=axis, stream=stream)

    def min(self, axis=None, stream=None):
        from pycudac import reduction
        return reduction.min(self, axis=axis, stream=stream)

    def any(self, axis=None, stream=None):
        from pycudac import reduction
        return reduction.any(self, axis=axis, stream=stream)

    def all(self, axis=None, stream=None):
        from pycudac import reduction
        return reduction.all(self, axis=axis, stream=stream)

    def dot(self, other, stream=None):
        from pycudac import reduction
        return reduction.dot(self, other, stream=stream)

    # ---------------------------------------------------------------- interop
    @property
    def __cuda_array_interface__(self):
        return {
            "shape": self.shape,
            "typestr": self.dtype.str,
            "descr": self.dtype.descr if self.dtype.fields else [("", self.dtype.str)],
            "data": (self.ptr if self.size else 0, False),
            "strides": None if _is_c(self.shape, self.strides, self.dtype.itemsize)
            else self.strides,
            "version": 3,
            "stream": 1,  # pycudac works on the legacy default stream
        }

    def __dlpack_device__(self):
        from pycudac import _dlpack
        return _dlpack.device_of(self)

    def __dlpack__(self, stream=None, max_version=None, dl_device=None, copy=None):
        from pycudac import _dlpack
        return _dlpack.export(self, stream)


_REAL_OF = {np.dtype(np.complex64): np.dtype(np.float32),
            np.dtype(np.complex128): np.dtype(np.float64)}


def _normalize_shape_with_minus(shape):
    if isinstance(shape, (int, np.integer)):
        return (int(shape),)
    try:
        shape = tuple(operator.index(n) for n in shape)
    except TypeError:
        raise TypeError(f"shape must be an int or a tuple of ints, got {shape!r}") from None
    for n in shape:
        if n < -1:
            raise ValueError(f"negative dimensions not allowed: {shape}")
    return shape


def _flat(host):
    """1-d view of a C- or F-contiguous host array, in memory order."""
    if host.ndim == 0:
        return host.reshape(1)
    return host.ravel(order="F" if not host.flags.c_contiguous else "C")


def _norm_axis(axis, ndim):
    axis = operator.index(axis)
    if not -ndim <= axis < builtins.max(ndim, 1):
        raise np.exceptions.AxisError(axis, ndim)
    return axis % ndim if ndim else 0


def _fill_memset(ary, bits):
    """Fill a contiguous array with a memset when the element's bytes are
    a repeated 1-, 2- or 4-byte pattern. Returns False when they are not."""
    from pycudac import driver
    raw = bits.tobytes()
    n = ary.nbytes
    for width, fn in ((1, driver.memset_d8), (2, driver.memset_d16), (4, driver.memset_d32)):
        if len(raw) % width == 0 and raw == raw[:width] * (len(raw) // width):
            fn(ary.ptr, int.from_bytes(raw[:width], "little"), n // width)
            return True
    return False


def _copy_into(dst, src, stream=None):
    """dst[...] = src with dtype conversion and broadcasting (any strides)."""
    if src.dtype != dst.dtype and (src.dtype not in tools.NUMERIC_DTYPES or
                                   dst.dtype not in tools.NUMERIC_DTYPES):
        raise TypeError(f"cannot convert {src.dtype} to {dst.dtype} (only numeric dtypes "
                        f"convert; use view() to reinterpret)")
    _ew.launch_map(("astype", (("a", src.dtype),), dst.dtype), "astype", dst, [src], [None],
                   stream)


# ======================================================================
# operator plumbing
# ======================================================================

_binary_plans = {}


_cstride_cache = {}


def _new_out(shape, dtype, order, ctx):
    """A fresh contiguous result array (the hot path of every operator)."""
    if order != "C" and len(shape) > 1:
        return GPUArray(shape, dtype, order=order)
    key = (shape, dtype.itemsize)
    entry = _cstride_cache.get(key)
    if entry is None:
        size = _prod(shape)
        entry = (_c_strides(shape, dtype.itemsize), size * dtype.itemsize)
        if len(_cstride_cache) < 1024:
            _cstride_cache[key] = entry
    strides, nbytes = entry
    pool = _pools.get(ctx)
    if pool is None:
        pool = _default_pool(ctx)
    gpudata = pool.allocate(nbytes)
    return GPUArray._make(shape, dtype, strides, "C", gpudata, int(gpudata), None, ctx)


def _binary_plan(op, descs):
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


def _operand(x, what):
    if isinstance(x, GPUArray):
        return ("a", x.dtype)
    desc = _scalar_desc(x)
    if desc is None:
        return None
    if isinstance(desc[1], np.dtype):
        tools.check_dtype(desc[1], what)
    return desc


def _binary(op, a, b, out=None, reflected=False, stream=None):
    """a (op) b, or b (op) a when reflected; `a` is a GPUArray."""
    db = _operand(b, f"{op}: operand")
    if db is None:
        if isinstance(b, np.ndarray):
            raise TypeError(f"{op}: cannot combine a GPUArray with a host numpy.ndarray; "
                            f"upload it with gpuarray.to_gpu() first")
        return NotImplemented
    da = ("a", a.dtype)
    if reflected:
        descs, operands = (db, da), [b, a]
    else:
        descs, operands = (da, db), [a, b]
    group_key, out_dtype, scalar_dtypes, fcache = _binary_plan(op, descs)
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
        v = _check_scalar(b, sd, f"{op}: scalar operand")
        operands[0 if reflected else 1] = v
    if out is None:
        out = _new_out(shape, out_dtype, "F" if a._layout == "F" else "C", a._ctx)
    else:
        if out.shape != shape:
            raise ValueError(f"{op}: output of shape {out.shape} cannot hold the broadcast "
                             f"result of shape {shape}")
        if out_dtype != out.dtype:
            if not np.can_cast(out_dtype, out.dtype, "same_kind"):
                raise TypeError(f"{op}: cannot cast ufunc '{op}' output from {out_dtype} to "
                                f"{out.dtype} with casting rule 'same_kind'")
            tmp = _binary(op, a, b, reflected=reflected, stream=stream)
            _copy_into(out, tmp, stream)
            return out
        for k, x in enumerate(operands):
            if isinstance(x, GPUArray) and x is not out and _same_memory(x, out) and not (
                    x.ptr == out.ptr and x.strides == out.strides and x.shape == out.shape):
                operands[k] = x.copy()
    return _ew.launch_map(group_key, op, out, operands, scalar_dtypes, stream, fcache)


_unary_plans = {}


def _unary(op, a, out=None, stream=None):
    key = (op, a.dtype)
    plan = _unary_plans.get(key)
    if plan is None:
        loop = _ew.resolve(_ew.UNARY_OPS[op][0], [a.dtype])
        fcache = {}
        tools._context_caches.append(fcache)
        plan = _unary_plans[key] = (("unary", (("a", a.dtype),), None), loop[-1], fcache)
    group_key, out_dtype, fcache = plan
    if out is None:
        out = _new_out(a.shape, out_dtype, "F" if a._layout == "F" else "C", a._ctx)
    return _ew.launch_map(group_key, op, out, [a], (None,), stream, fcache)


# ======================================================================
# constructors
# ======================================================================

def is_gpuarray(x):
    return isinstance(x, GPUArray)


def empty(shape, dtype=np.float64, allocator=None, order="C"):
    return GPUArray(shape, dtype, allocator=allocator, order=order)


def zeros(shape, dtype=np.float64, allocator=None, order="C"):
    out = GPUArray(shape, dtype, allocator=allocator, order=order)
    if out.size:
        from pycudac import driver
        driver.memset_d8(out.ptr, 0, out.nbytes)
    return out


def ones(shape, dtype=np.float64, allocator=None, order="C"):
    return GPUArray(shape, dtype, allocator=allocator, order=order).fill(1)


def _like(other, dtype, order):
    if dtype is None:
        dtype = other.dtype
    if order == "K" or order == "A":
        order = "F" if other._layout == "F" and other.ndim > 1 else "C"
    return GPUArray(other.shape, dtype, order=order)


def empty_like(other, dtype=None, order="K"):
    return _like(other, dtype, order)


def zeros_like(other, dtype=None, order="K"):
    out = _like(other, dtype, order)
    if out.size:
        from pycudac import driver
        driver.memset_d8(out.ptr, 0, out.nbytes)
    return out


def ones_like(other, dtype=None, order="K"):
    return _like(other, dtype, order).fill(1)


def to_gpu(ary, allocator=None):
    """Copy a host array (anything numpy.asarray takes) to a new GPUArray."""
    if isinstance(ary, GPUArray):
        return ary.copy()
    ary = np.asarray(ary)
    tools.check_dtype(ary.dtype, "to_gpu: ary.dtype")
    order = "F" if (ary.flags.f_contiguous and not ary.flags.c_contiguous) else "C"
    out = GPUArray(ary.shape, ary.dtype, allocator=allocator, order=order)
    out.set(ary)
    return out


def to_gpu_async(ary, allocator=None, stream=None):
    ary = np.asarray(ary)
    tools.check_dtype(ary.dtype, "to_gpu_async: ary.dtype")
    order = "F" if (ary.flags.f_contiguous and not ary.flags.c_contiguous) else "C"
    out = GPUArray(ary.shape, ary.dtype, allocator=allocator, order=order)
    out.set_async(ary, stream=stream)
    return out


def arange(*args, dtype=None, allocator=None, **kwargs):
    """Like numpy.arange (computed on the host, then copied)."""
    if "start" in kwargs or "stop" in kwargs or "step" in kwargs:
        start = kwargs.pop("start", 0)
        stop = kwargs.pop("stop", None)
        step = kwargs.pop("step", 1)
        args = (start, stop, step) if stop is not None else (start,)
    if kwargs:
        raise TypeError(f"arange: unexpected keyword arguments {sorted(kwargs)}")
    host = np.arange(*args, dtype=dtype)
    return to_gpu(host, allocator=allocator)


# ======================================================================
# importing foreign device arrays (zero-copy)
# ======================================================================

class _Foreign:
    """Keeps the exporting object alive for a GPUArray made from it."""

    def __init__(self, obj):
        self.obj = obj


def _from_cai(obj):
    cai = obj.__cuda_array_interface__
    shape = tuple(int(n) for n in cai["shape"])
    dtype = tools.check_dtype(np.dtype(cai["typestr"]) if not cai.get("descr") or
                              len(cai["descr"]) <= 1 else np.dtype(cai["descr"]),
                              "__cuda_array_interface__ typestr")
    ptr = int(cai["data"][0] or 0)
    strides = cai.get("strides")
    strides = _c_strides(shape, dtype.itemsize) if strides is None else tuple(strides)
    stream = cai.get("stream")
    if stream is not None and stream not in (1, 2) and cai.get("version", 0) >= 3:
        from pycudac import driver
        driver.Context.synchronize()
    owner = _Foreign(obj)
    return GPUArray._make(shape, dtype, strides, _layout_of(shape, strides, dtype.itemsize),
                          _ViewPointer(ptr, owner), ptr, owner, tools.current_context())


def asarray(obj, dtype=None):
    """A GPUArray for `obj`: itself, a zero-copy view of an object with
    __cuda_array_interface__ or a CUDA __dlpack__, or a copy of host data."""
    if isinstance(obj, GPUArray):
        out = obj
    elif hasattr(obj, "__cuda_array_interface__"):
        out = _from_cai(obj)
    elif hasattr(obj, "__dlpack_device__") and obj.__dlpack_device__()[0] == 2:
        out = from_dlpack(obj)
    else:
        out = to_gpu(np.asarray(obj))
    if dtype is not None and np.dtype(dtype) != out.dtype:
        out = out.astype(dtype)
    return out


def from_dlpack(obj):
    """Zero-copy import of a DLPack-exporting device array."""
    from pycudac import _dlpack
    return _dlpack.import_(obj)


# ======================================================================
# module-level operations
# ======================================================================

def _as_operand(x, what):
    if isinstance(x, GPUArray):
        return x
    if _scalar_desc(x) is not None:
        return x
    raise TypeError(f"{what}: expected a GPUArray or a scalar, got {type(x).__name__}")


def maximum(a, b, out=None, stream=None):
    a, b = _as_operand(a, "maximum: a"), _as_operand(b, "maximum: b")
    if not isinstance(a, GPUArray):
        return _binary("maximum", b, a, out=out, reflected=True, stream=stream)
    return _binary("maximum", a, b, out=out, stream=stream)


def minimum(a, b, out=None, stream=None):
    a, b = _as_operand(a, "minimum: a"), _as_operand(b, "minimum: b")
    if not isinstance(a, GPUArray):
        return _binary("minimum", b, a, out=out, reflected=True, stream=stream)
    return _binary("minimum", a, b, out=out, stream=stream)


def where(condition, x, y, stream=None):
    """condition ? x : y elementwise, with broadcasting and promotion."""
    if not isinstance(condition, GPUArray):
        raise TypeError(f"where: condition must be a GPUArray, got {type(condition).__name__}")
    x, y = _as_operand(x, "where: x"), _as_operand(y, "where: y")
    dx, dy = _operand(x, "where: x"), _operand(y, "where: y")
    out_dtype = np.result_type(*[d if k == "a" or isinstance(d, np.dtype)
                                 else {int: 0, float: 0.0, complex: 0j, bool: False}[d]
                                 for k, d in (dx, dy)])
    shapes = [condition.shape] + [v.shape for v in (x, y) if isinstance(v, GPUArray)]
    try:
        shape = np.broadcast_shapes(*shapes)
    except ValueError:
        raise ValueError(f"where: shapes {shapes} could not be broadcast together") from None
    descs = (("a", condition.dtype), dx, dy)
    out = GPUArray(shape, out_dtype)
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
        if not isinstance(a, GPUArray):
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
    out = GPUArray(tuple(shape), dtype, allocator=allocator)
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
        if not isinstance(a, GPUArray):
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
    if not isinstance(a, GPUArray):
        raise TypeError(f"take: a must be a GPUArray, got {type(a).__name__}")
    if not isinstance(indices, GPUArray):
        indices = to_gpu(np.asarray(indices))
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
        out = GPUArray(shape, a.dtype)
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


def _clear_pools():
    _pools.clear()

