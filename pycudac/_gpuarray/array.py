"""The GPUArray class (the public face is pycudac.gpuarray; its constructors
are in create). create, ops, index and funcs import this module; its methods
reach them at call time (_create(), _ops(), _index()), so that modules import
one way: layout, vec <- array <- create <- ops <- index, funcs <-
pycudac.gpuarray."""
import builtins
import operator
import warnings

import numpy as np

from pycudac import _driver
from pycudac import elementwise as _ew
from pycudac import tools
from pycudac._gpuarray.layout import (
    ViewPointer, Flags, c_strides, default_pool, f_strides, is_c, is_f, layout_of,
    memory_order_view, norm_axis, normalize_shape, normalize_shape_with_minus, prod)


def _ops():
    from pycudac._gpuarray import ops
    return ops


def _index():
    from pycudac._gpuarray import index
    return index


def _create():
    from pycudac._gpuarray import create
    return create


# ======================================================================
# GPUArray
# ======================================================================

class GPUArray(_driver.ArrayBase):
    """An N-dimensional array in device memory."""

    __array_priority__ = 100
    __array_ufunc__ = None  # NumPy operators defer to ours

    # gpudata, ptr, dtype and _ctx live in the C base (a launch reads them there)
    __slots__ = ("shape", "strides", "size", "base", "allocator", "_layout", "_nbytes",
                 "__weakref__")

    def __init__(self, shape, dtype, allocator=None, strides=None, order="C", gpudata=None,
                 base=None):
        dtype = tools.check_dtype(dtype, "GPUArray: dtype")
        shape = normalize_shape(shape)
        itemsize = dtype.itemsize
        if strides is None:
            if order in ("C", "c", None):
                strides = c_strides(shape, itemsize)
            elif order in ("F", "f"):
                strides = f_strides(shape, itemsize)
            else:
                raise ValueError(f"GPUArray: order must be 'C' or 'F', got {order!r}")
        else:
            strides = tuple(int(s) for s in strides)
            if len(strides) != len(shape):
                raise ValueError(f"GPUArray: strides {strides} do not match shape {shape}")
            # the GPU reads an element only at its natural alignment (the
            # largest power of two dividing its size, at most 16)
            align = builtins.min(itemsize & -itemsize, 16)
            if builtins.any(n > 1 and s % align for n, s in zip(shape, strides)):
                raise ValueError(f"GPUArray: strides {strides} are not multiples of "
                                 f"{align} bytes, the alignment of {dtype}")
        ctx = tools.current_context()
        size = prod(shape)
        if gpudata is None:
            if allocator is None:
                allocator = default_pool(ctx).allocate
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
        if type(gpudata) is tools.PooledDeviceAllocation:
            gpudata.in_array = True  # its free() waits for this array (tools.py)
        self.ptr = int(gpudata) if gpudata is not None else 0
        self.base = base
        self.allocator = allocator
        self._layout = layout_of(shape, strides, itemsize)
        self._ctx = ctx

    @classmethod
    def _make(cls, shape, dtype, strides, layout, gpudata, ptr, base, ctx, allocator=None):
        self = _driver.ArrayBase.__new__(cls)
        self.shape = shape
        self.dtype = dtype
        self.strides = strides
        self.size = prod(shape)
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
        try:
            return self._nbytes
        except AttributeError:
            return self.size * self.dtype.itemsize

    @nbytes.setter
    def nbytes(self, value):
        # PyCUDA's nbytes is a plain attribute, and code built on it sets its
        # own (reikna's Array: the size of the buffer under the array). It is
        # only read back: pycudac's own copies and fills use size * itemsize.
        self._nbytes = operator.index(value)

    @property
    def mem_size(self):  # PyCUDA
        return self.size

    @property
    def flags(self):
        return Flags(is_c(self.shape, self.strides, self.dtype.itemsize),
                      is_f(self.shape, self.strides, self.dtype.itemsize))

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
        return getattr(g, "base", g) if isinstance(g, ViewPointer) else g

    def _view(self, shape, strides, offset=0, dtype=None):
        dtype = self.dtype if dtype is None else dtype
        if offset == 0 and self.gpudata is not None:
            gpudata = self.gpudata
        else:
            gpudata = ViewPointer(self.ptr + offset, self._root())
        return GPUArray._make(tuple(shape), dtype, tuple(strides),
                              layout_of(shape, strides, dtype.itemsize), gpudata,
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
                    if ary.size != self.size:
                        raise ValueError(f"set: array of shape {ary.shape} does not fit "
                                         f"GPUArray of shape {self.shape}") from None
                    warnings.warn(f"set: array of shape {ary.shape} into a GPUArray of shape "
                                  f"{self.shape}: reshaped (C order), as PyCUDA does",
                                  stacklevel=2)
                    ary = ary.reshape(self.shape)
        if ary.dtype != self.dtype:
            tools.check_dtype(ary.dtype, "set: ary.dtype")
            ary = ary.astype(self.dtype)
        if self.size == 0:
            return
        if self._layout is None:
            self._assign_array(_create().to_gpu(ary))
            return
        host = np.ascontiguousarray(ary) if self._layout == "C" else np.asfortranarray(ary)
        flat = memory_order_view(host)
        if async_ or stream is not None:
            driver.memcpy_htod_async(self.ptr, flat, stream)
            _ew.keep_for_capture(stream, self)
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
        given = None
        if ary is None:
            if pagelocked:
                ary = driver.pagelocked_empty(self.shape, self.dtype, order=order)
            else:
                ary = np.empty(self.shape, self.dtype, order=order)
            target = ary
        else:
            if not isinstance(ary, np.ndarray):
                raise TypeError(f"get: ary must be a numpy.ndarray, got {type(ary).__name__}")
            given = ary
            if ary.shape != self.shape and ary.size == self.size and ary.dtype == self.dtype \
                    and ary.flags.c_contiguous:
                warnings.warn(f"get: ary of shape {ary.shape} for a GPUArray of shape "
                              f"{self.shape}: filled in C order, as PyCUDA does (deprecated "
                              f"there)", DeprecationWarning, stacklevel=2)
                ary = ary.reshape(self.shape)
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
            flat = memory_order_view(target)
            if async_ or stream is not None:
                driver.memcpy_dtoh_async(flat, src.ptr, stream)
                _ew.keep_for_capture(stream, src)
            else:
                driver.memcpy_dtoh(flat, src.ptr)
        if target is not ary:
            ary[...] = target
        return ary if given is None else given

    def get_async(self, stream=None, ary=None):
        return self.get(ary=ary, async_=True, stream=stream)

    # ---------------------------------------------------------------- copies and casts
    def copy(self, order="K"):
        """A contiguous copy: of the array's own layout (order='K', as PyCUDA's
        copy() keeps an F-ordered array's strides), or in order 'C' or 'F'."""
        if order == "K" or order == "A":
            order = "F" if self._layout == "F" else "C"
        out = GPUArray(self.shape, self.dtype, order=order)
        if self.size:
            if self._layout == out._layout and self._layout is not None:
                from pycudac import driver
                driver.memcpy_dtod(out.ptr, self.ptr, self.size * self.dtype.itemsize)
            else:
                _ops().copy_into(out, self)
        return out

    def astype(self, dtype, stream=None):
        dtype = tools.check_dtype(dtype, "astype: dtype")
        if dtype == self.dtype:
            return self.copy()
        out = GPUArray(self.shape, dtype, order="F" if self._layout == "F" else "C")
        _ops().copy_into(out, self, stream)
        return out

    def fill(self, value, stream=None):
        """Set every element to `value` (cast to self.dtype); returns self."""
        if self.size == 0:
            return self
        if isinstance(value, GPUArray):
            self._assign_array(value, stream)
            return self
        if self.dtype.kind == "V":
            return _ops().vec_fill(self, value, stream)
        desc = _ops().scalar_desc(value)
        if desc is None:
            raise TypeError(f"fill: value must be a scalar, got {type(value).__name__}")
        dtype = self.dtype
        if type(value) is complex and dtype.kind in "iuf":
            # NumPy's rule (a[i] = 1j on a real array): a Python complex is
            # refused, where casting would drop its imaginary part unseen
            raise TypeError(f"cannot assign a complex value ({value!r}) to a GPUArray of "
                            f"{dtype}: NumPy refuses it too (assign value.real to mean it)")
        if dtype.kind in "iu" and type(value) in (int, float):
            # NumPy's own rule for a Python number (ndarray.fill, a[i] = v):
            # OverflowError out of range, ValueError for NaN, never a wrap
            np.empty((), dtype)[()] = value
        if self._layout is not None and dtype.kind in "biufc" and stream is None:
            with np.errstate(all="ignore"):
                try:
                    bits = np.array(value).astype(dtype)
                except (OverflowError, ValueError):
                    bits = None
            if bits is not None and _ops().fill_memset(self, bits):
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
        if src.ptr != self.ptr and _ops().same_memory(src, self):
            src = src.copy()
        if src.dtype.kind not in "biufc" and src.dtype != self.dtype:
            raise TypeError(f"cannot assign {src.dtype} to {self.dtype}")
        if self.dtype.kind not in "biufc":
            if src.shape == self.shape and src._layout == self._layout and src._layout:
                from pycudac import driver
                driver.memcpy_dtod(self.ptr, src.ptr, self.size * self.dtype.itemsize)
                return
            raise TypeError(f"only contiguous copies of {self.dtype} are supported")
        _ops().copy_into(self, src, stream)

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
        shape = list(normalize_shape_with_minus(shape))
        if -1 in shape:
            if shape.count(-1) > 1:
                raise ValueError("reshape: can only specify one unknown dimension")
            known = prod(n for n in shape if n != -1)
            if known == 0 or self.size % known:
                raise ValueError(f"cannot reshape array of size {self.size} into shape "
                                 f"{tuple(shape)}")
            shape[shape.index(-1)] = self.size // known
        shape = tuple(shape)
        if prod(shape) != self.size:
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
        strides = (c_strides if order == "C" else f_strides)(shape, self.dtype.itemsize)
        return src._view(shape, strides)

    def ravel(self, order="C"):
        return self.reshape(-1, order=order)

    def squeeze(self, axis=None):
        if axis is None:
            axes = [d for d, n in enumerate(self.shape) if n == 1]
        else:
            axes = [norm_axis(a, self.ndim) for a in
                    (axis if isinstance(axis, tuple) else (axis,))]
            for a in axes:
                if self.shape[a] != 1:
                    raise ValueError(f"squeeze: axis {a} has size {self.shape[a]}, not 1")
        shape = tuple(n for d, n in enumerate(self.shape) if d not in axes)
        strides = tuple(s for d, s in enumerate(self.strides) if d not in axes)
        return self._view(shape, strides)

    def transpose(self, *args, axes=None):
        """A view with the axes permuted: transpose(), transpose(1, 0, 2),
        transpose((1, 0, 2)) or transpose(axes=(1, 0, 2)) (PyCUDA's keyword)."""
        if axes is not None:
            if args:
                raise TypeError("transpose: give the axes positionally or as axes=, not both")
            args = (axes,)
        axes = args
        if not axes or axes == (None,):
            axes = tuple(reversed(range(self.ndim)))
        elif len(axes) == 1 and not isinstance(axes[0], (int, np.integer)):
            axes = tuple(axes[0])
        axes = tuple(norm_axis(a, self.ndim) for a in axes)
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
        a, b = norm_axis(a, self.ndim), norm_axis(b, self.ndim)
        axes[a], axes[b] = axes[b], axes[a]
        return self.transpose(axes)

    # .real and .imag are new contiguous arrays, as in PyCUDA: a strided view
    # passed to a raw kernel would hand it the interleaved complex data.
    # Writes go through the setters (a.real = v), into a strided view.
    @property
    def real(self):
        if self.dtype.kind != "c":
            return self
        return self._part(0).copy(order="F" if self._layout == "F" else "C")

    @real.setter
    def real(self, value):
        target = self._part(0) if self.dtype.kind == "c" else self
        target[...] = value

    @property
    def imag(self):
        if self.dtype.kind != "c":
            return _create().zeros_like(self)
        return self._part(1).copy(order="F" if self._layout == "F" else "C")

    @imag.setter
    def imag(self, value):
        if self.dtype.kind != "c":
            raise TypeError(f"imag: an array of {self.dtype} has no imaginary part to set")
        self._part(1)[...] = value

    def _part(self, k):
        """The real (k=0) or imaginary (k=1) parts of a complex array: a view."""
        rd = _REAL_OF[self.dtype]
        return self._view(self.shape, self.strides, k * rd.itemsize, rd)

    def conj(self, out=None):
        """The complex conjugate: a new array, or written into `out` (a
        GPUArray of self's shape; cast with NumPy's same_kind rule)."""
        if out is None and self.dtype.kind != "c":
            return self.copy()
        return _ops().unary("conjugate", self, out=out)

    conjugate = conj

    @property
    def _block(self):
        """A block for a grid-stride kernel over this array (PyCUDA's
        attribute, used with prepared_call): the elementwise kernels' block."""
        return _ew._BLOCK

    @property
    def _grid(self):
        """A grid for a grid-stride kernel over this array (PyCUDA's
        attribute): the one the elementwise kernels take for this size."""
        return _ew._grid(self.size, _ew._max_blocks(tools.current_context()))

    def reverse(self, stream=None):
        """A copy with the elements in reverse order (PyCUDA's: the array is
        taken as one-dimensional, so every axis is reversed and the shape kept)."""
        out = GPUArray(self.shape, self.dtype, order="F" if self._layout == "F" else "C")
        _ops().copy_into(out, self[(slice(None, None, -1),) * self.ndim], stream)
        return out

    # ---------------------------------------------------------------- indexing
    def __getitem__(self, index):
        return _index().getitem(self, index)

    def __setitem__(self, index, value):
        _index().setitem(self, index, value)

    # ---------------------------------------------------------------- arithmetic
    def __add__(self, other):
        return _ops().binary("add", self, other)

    def __radd__(self, other):
        return _ops().binary("add", self, other, reflected=True)

    def __sub__(self, other):
        return _ops().binary("subtract", self, other)

    def __rsub__(self, other):
        return _ops().binary("subtract", self, other, reflected=True)

    def __mul__(self, other):
        return _ops().binary("multiply", self, other)

    def __rmul__(self, other):
        return _ops().binary("multiply", self, other, reflected=True)

    def __truediv__(self, other):
        return _ops().binary("true_divide", self, other)

    def __rtruediv__(self, other):
        return _ops().binary("true_divide", self, other, reflected=True)

    def __floordiv__(self, other):
        return _ops().binary("floor_divide", self, other)

    def __rfloordiv__(self, other):
        return _ops().binary("floor_divide", self, other, reflected=True)

    def __mod__(self, other):
        return _ops().binary("remainder", self, other)

    def __rmod__(self, other):
        return _ops().binary("remainder", self, other, reflected=True)

    def __pow__(self, other):
        return _ops().binary("power", self, other)

    def __rpow__(self, other):
        return _ops().binary("power", self, other, reflected=True)

    def __and__(self, other):
        return _ops().binary("bitwise_and", self, other)

    def __rand__(self, other):
        return _ops().binary("bitwise_and", self, other, reflected=True)

    def __or__(self, other):
        return _ops().binary("bitwise_or", self, other)

    def __ror__(self, other):
        return _ops().binary("bitwise_or", self, other, reflected=True)

    def __xor__(self, other):
        return _ops().binary("bitwise_xor", self, other)

    def __rxor__(self, other):
        return _ops().binary("bitwise_xor", self, other, reflected=True)

    def __iadd__(self, other):
        return _ops().binary("add", self, other, out=self)

    def __isub__(self, other):
        return _ops().binary("subtract", self, other, out=self)

    def __imul__(self, other):
        return _ops().binary("multiply", self, other, out=self)

    def __itruediv__(self, other):
        return _ops().binary("true_divide", self, other, out=self)

    def __ifloordiv__(self, other):
        return _ops().binary("floor_divide", self, other, out=self)

    def __imod__(self, other):
        return _ops().binary("remainder", self, other, out=self)

    def __ipow__(self, other):
        return _ops().binary("power", self, other, out=self)

    def __iand__(self, other):
        return _ops().binary("bitwise_and", self, other, out=self)

    def __ior__(self, other):
        return _ops().binary("bitwise_or", self, other, out=self)

    def __ixor__(self, other):
        return _ops().binary("bitwise_xor", self, other, out=self)

    def __eq__(self, other):
        return _ops().binary("equal", self, other)

    def __ne__(self, other):
        return _ops().binary("not_equal", self, other)

    def __lt__(self, other):
        return _ops().binary("less", self, other)

    def __le__(self, other):
        return _ops().binary("less_equal", self, other)

    def __gt__(self, other):
        return _ops().binary("greater", self, other)

    def __ge__(self, other):
        return _ops().binary("greater_equal", self, other)

    def __neg__(self):
        return _ops().unary("negative", self)

    def __pos__(self):
        if self.dtype == np.bool_:
            raise TypeError("_ops().unary + is not supported for bool arrays (as in NumPy)")
        return self.copy()

    def __abs__(self):
        return _ops().unary("absolute", self)

    def __invert__(self):
        return _ops().unary("invert", self)

    def mul_add(self, selffac, other, otherfac, add_timer=None, stream=None, out=None):
        """selffac*self + otherfac*other (PyCUDA), into `out` when given (an
        array of the result's shape and dtype), queued on `stream`."""
        scaled = _ops().binary("multiply", self, selffac, stream=stream)
        return _ops().binary("add", scaled, _ops().binary("multiply", other, otherfac, stream=stream),
                       out=out, stream=stream)

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
            # explicit, as PyCUDA gives them (None would mean C order too)
            "strides": self.strides,
            "version": 3,
            "stream": 1,  # pycudac works on the legacy default stream
        }

    def __dlpack_device__(self):
        from pycudac import _dlpack
        return _dlpack.device_of(self)

    def __dlpack__(self, stream=None, max_version=None, dl_device=None, copy=None):
        from pycudac import _dlpack
        if dl_device is not None and tuple(dl_device) != self.__dlpack_device__():
            raise BufferError(f"__dlpack__(dl_device={dl_device}): the array is on "
                              f"{self.__dlpack_device__()}; copy it there first")
        if copy:
            raise BufferError("__dlpack__(copy=True): pycudac exports its memory, never a "
                              "copy; pass copy=None or False")
        return _dlpack.export(self, stream, max_version)


_REAL_OF = {np.dtype(np.complex64): np.dtype(np.float32),
            np.dtype(np.complex128): np.dtype(np.float64)}
