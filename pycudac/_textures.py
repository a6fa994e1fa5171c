"""CUDA arrays, texture objects and surface objects (pycudac.driver's
Array, ArrayDescriptor, ArrayDescriptor3D, array_format, array3d_flags,
address_mode, filter_mode, np_to_array, gpuarray_to_array, matrix_to_array,
array_to_np, Memcpy2D, Memcpy3D, TextureObject, SurfaceObject).

PyCUDA's names for arrays and their descriptors; texture and surface
*objects* as CuPy and the CUDA runtime have them (PyCUDA's texture
references are gone from CUDA 12). The C types (pycudac._driver.Array,
TextureObject, SurfaceObject) own the handles; this module checks the
arguments and names the one that is wrong before the driver sees them.
"""
from __future__ import annotations

import enum as _enum

import numpy as np

from pycudac import _driver
from pycudac._checks import index_arg


class array_format(_enum.IntEnum):
    """CUarray_format: the element type of a CUDA array (CUDA's names)."""
    UNSIGNED_INT8 = 0x01
    UNSIGNED_INT16 = 0x02
    UNSIGNED_INT32 = 0x03
    SIGNED_INT8 = 0x08
    SIGNED_INT16 = 0x09
    SIGNED_INT32 = 0x0A
    HALF = 0x10
    FLOAT = 0x20


class array3d_flags(_enum.IntFlag):
    """CUDA_ARRAY3D_* flags: LAYERED (depth counts layers), SURFACE_LDST
    (the array may back a SurfaceObject)."""
    LAYERED = 0x01
    SURFACE_LDST = 0x02
    ARRAY3D_LAYERED = 0x01  # PyCUDA's spelling


class address_mode(_enum.IntEnum):
    """CUaddress_mode. WRAP and MIRROR need normalized coordinates; without
    them they are CLAMP (pycudac asks the driver for CLAMP then: CUDA
    documents no other behaviour for them). BORDER reads the border colour
    (0 unless given)."""
    WRAP = 0
    CLAMP = 1
    MIRROR = 2
    BORDER = 3


class filter_mode(_enum.IntEnum):
    """CUfilter_mode. LINEAR interpolates, for reads that return floats."""
    POINT = 0
    LINEAR = 1


# the enums under names the keyword arguments below do not shadow
_AddressMode, _FilterMode = address_mode, filter_mode
_READ_AS_INTEGER = 0x01
_NORMALIZED_COORDINATES = 0x02

_FORMAT_OF = {np.dtype(np.uint8): array_format.UNSIGNED_INT8,
              np.dtype(np.uint16): array_format.UNSIGNED_INT16,
              np.dtype(np.uint32): array_format.UNSIGNED_INT32,
              np.dtype(np.int8): array_format.SIGNED_INT8,
              np.dtype(np.int16): array_format.SIGNED_INT16,
              np.dtype(np.int32): array_format.SIGNED_INT32,
              np.dtype(np.float16): array_format.HALF,
              np.dtype(np.float32): array_format.FLOAT}
_DTYPE_OF = {int(v): k for k, v in _FORMAT_OF.items()}


def dtype_to_array_format(dtype):
    """The array_format of a NumPy dtype (PyCUDA's name); TypeError for a
    dtype no CUDA array holds (float64, int64, complex ...)."""
    dt = np.dtype(dtype)
    fmt = _FORMAT_OF.get(dt)
    if fmt is None:
        hint = " (CUDA arrays have no 64-bit float format: convert to float32)" \
            if dt == np.float64 else ""
        raise TypeError(f"dtype {dt} has no CUDA array format; arrays hold uint8, int8, uint16, "
                        f"int16, uint32, int32, float16 or float32{hint}")
    return fmt


def _format_arg(fmt, what):
    try:
        return array_format(int(fmt))
    except (ValueError, TypeError):
        raise ValueError(f"{what}: format must be an array_format, got {fmt!r}") from None


def _channels_arg(n, what):
    v = index_arg(n, f"{what}: num_channels", "an int (1, 2 or 4)")
    if v not in (1, 2, 4):
        raise ValueError(f"{what}: num_channels must be 1, 2 or 4, got {n!r}")
    return v


class ArrayDescriptor:
    """A 1D or 2D array's shape and element (height 0: 1D)."""

    def __init__(self, width=0, height=0, format=array_format.FLOAT, num_channels=1):
        self.width, self.height = width, height
        self.format, self.num_channels = format, num_channels

    def __repr__(self):
        return (f"ArrayDescriptor(width={self.width}, height={self.height}, "
                f"format={array_format(self.format).name}, num_channels={self.num_channels})")


class ArrayDescriptor3D(ArrayDescriptor):
    """A 3D or layered array's shape and element (depth: slices, or layers
    with array3d_flags.LAYERED)."""

    def __init__(self, width=0, height=0, depth=0, format=array_format.FLOAT, num_channels=1,
                 flags=0):
        super().__init__(width, height, format, num_channels)
        self.depth, self.flags = depth, flags

    def __repr__(self):
        return (f"ArrayDescriptor3D(width={self.width}, height={self.height}, "
                f"depth={self.depth}, format={array_format(self.format).name}, "
                f"num_channels={self.num_channels}, flags={int(self.flags)})")


def _size_arg(x, what, name):
    v = index_arg(x, f"{what}: {name}", "an int >= 0")
    if not 0 <= v < 1 << 62:
        raise ValueError(f"{what}: {name} must be an int >= 0 (and of a size a device holds), "
                         f"got {x!r}")
    return v


def _array_limits(w, h, d, layered):
    """The device's limits for an array of this kind, as text ("width <= ...")."""
    from pycudac import driver
    A = driver.device_attribute
    if layered:
        names = ((("width", "MAXIMUM_TEXTURE1D_LAYERED_WIDTH"),
                  ("layers", "MAXIMUM_TEXTURE1D_LAYERED_LAYERS")) if h == 0 else
                 (("width", "MAXIMUM_TEXTURE2D_LAYERED_WIDTH"),
                  ("height", "MAXIMUM_TEXTURE2D_LAYERED_HEIGHT"),
                  ("layers", "MAXIMUM_TEXTURE2D_LAYERED_LAYERS")))
    elif d:
        names = (("width", "MAXIMUM_TEXTURE3D_WIDTH"), ("height", "MAXIMUM_TEXTURE3D_HEIGHT"),
                 ("depth", "MAXIMUM_TEXTURE3D_DEPTH"))
    elif h:
        names = (("width", "MAXIMUM_TEXTURE2D_WIDTH"), ("height", "MAXIMUM_TEXTURE2D_HEIGHT"))
    else:
        names = (("width", "MAXIMUM_TEXTURE1D_WIDTH"),)
    dev = driver.Context.get_device()
    return ", ".join(f"{n} <= {dev.get_attribute(getattr(A, a))}" for n, a in names)


class Array(_driver.Array):
    """A CUDA array: Array(ArrayDescriptor) or Array(ArrayDescriptor3D).
    Freed when dropped (or by free()), in the context it was made in."""

    def __new__(cls, descriptor):
        if not isinstance(descriptor, ArrayDescriptor):
            raise TypeError("Array(descriptor): expected an ArrayDescriptor or "
                            f"ArrayDescriptor3D, got {type(descriptor).__name__}")
        what = f"Array({type(descriptor).__name__})"
        w = _size_arg(descriptor.width, what, "width")
        if w == 0:
            raise ValueError(f"{what}: width must be positive")
        h = _size_arg(descriptor.height, what, "height")
        is3d = isinstance(descriptor, ArrayDescriptor3D)
        d = _size_arg(descriptor.depth, what, "depth") if is3d else 0
        flags = index_arg(descriptor.flags, f"{what}: flags",
                          "array3d_flags values (an int)") if is3d else 0
        if flags & ~int(array3d_flags.LAYERED | array3d_flags.SURFACE_LDST):
            raise ValueError(f"{what}: flags must combine array3d_flags.LAYERED and "
                             f"SURFACE_LDST, got {flags}")
        if flags & array3d_flags.LAYERED and d == 0:
            raise ValueError(f"{what}: a LAYERED array needs depth (its layers) >= 1")
        if h == 0 and d != 0 and not flags & array3d_flags.LAYERED:
            raise ValueError(f"{what}: a 3D array needs height >= 1")
        fmt = _format_arg(descriptor.format, what)
        nch = _channels_arg(descriptor.num_channels, what)
        try:
            return super().__new__(cls, w, h, d, int(fmt), nch, flags)
        except _driver.LogicError as exc:
            if "INVALID_VALUE" not in str(exc):
                raise
            # the driver says only "invalid argument": name the limits it holds to
            layered = bool(flags & array3d_flags.LAYERED)
            raise ValueError(f"{what}: the driver refused a {w} x {h} x {d}"
                             f"{' layered' if layered else ''} array; this device's limits for "
                             f"it: {_array_limits(w, h, d, layered)}") from exc

    @property
    def dtype(self):
        """The NumPy dtype of one channel."""
        return _DTYPE_OF[self.format]

    @property
    def shape(self):
        """The NumPy shape get() returns (C order): (depth or layers,)
        (height,) (width,) where present, then channels when more than 1."""
        s = tuple(n for n in (self.depth, self.height) if n) + (self.width,)
        return s + ((self.num_channels,) if self.num_channels > 1 else ())

    def get_descriptor(self):
        """ArrayDescriptor (width, height, format, num_channels)."""
        return ArrayDescriptor(self.width, self.height, array_format(self.format),
                               self.num_channels)

    def get_descriptor_3d(self):
        """ArrayDescriptor3D (with depth and flags)."""
        return ArrayDescriptor3D(self.width, self.height, self.depth,
                                 array_format(self.format), self.num_channels,
                                 array3d_flags(self.flags))

    def get(self):
        """A new ndarray with the array's contents (shape: self.shape)."""
        out = np.empty(self.shape, self.dtype)
        self._copy(False, out)
        return out

    def set(self, ary):
        """Copy an ndarray of self.shape and self.dtype (C order) in."""
        ary = np.asarray(ary)
        if ary.shape != self.shape or ary.dtype != self.dtype:
            raise ValueError(f"Array.set: expected {self.dtype} of shape {self.shape}, got "
                             f"{ary.dtype} of shape {ary.shape}")
        self._copy(True, np.ascontiguousarray(ary))


def _layout(shape, num_channels, layered, what):
    """(width, height, depth) of a C-order shape."""
    if num_channels > 1:
        if len(shape) < 2 or shape[-1] != num_channels:
            raise ValueError(f"{what}: num_channels={num_channels} needs a last axis of "
                             f"{num_channels}, got shape {shape}")
        shape = shape[:-1]
    lo = 2 if layered else 1
    if not lo <= len(shape) <= 3:
        kind = "a layered array takes 2 or 3" if layered else "an array takes 1 to 3"
        raise ValueError(f"{what}: {kind} dimensions (after the channels), got shape {shape}")
    if 0 in shape:
        raise ValueError(f"{what}: an empty array (shape {shape}) makes no CUDA array")
    if layered:
        layers, rest = shape[0], shape[1:]
        return (rest[-1], rest[0] if len(rest) == 2 else 0, layers)
    s = tuple(reversed(shape))
    return s + (0,) * (3 - len(s))


def np_to_array(nparray, order="C", allowSurfaceBind=False, layered=False, num_channels=1):
    """A new Array holding an ndarray's contents. order 'C': shape (w,),
    (h, w) or (d, h, w); 'F': the axes reversed. layered=True: the first
    (C) axis counts layers. num_channels 2 or 4: the last (C) axis holds
    the channels. allowSurfaceBind=True: the array may back a SurfaceObject."""
    what = "np_to_array"
    ary = np.asarray(nparray)
    if order not in ("C", "F"):
        raise ValueError(f"{what}: order must be 'C' or 'F', got {order!r}")
    fmt = dtype_to_array_format(ary.dtype)
    nch = _channels_arg(num_channels, what)
    if order == "F":
        ary = ary.T
    ary = np.asarray(ary, order="C")  # (ascontiguousarray made a 0-d array 1-d)
    w, h, d = _layout(ary.shape, nch, layered, what)
    flags = (array3d_flags.LAYERED if layered else 0) | \
        (array3d_flags.SURFACE_LDST if allowSurfaceBind else 0)
    arr = Array(ArrayDescriptor3D(w, h, d, fmt, nch, flags))
    arr._copy(True, ary)
    return arr


def gpuarray_to_array(gpuarray, order="C", allowSurfaceBind=False, layered=False,
                      num_channels=1):
    """A new Array holding a contiguous GPUArray's contents (copied on the
    device); the shape rules of np_to_array."""
    what = "gpuarray_to_array"
    if not all(hasattr(gpuarray, a) for a in ("gpudata", "flags", "dtype", "shape")):
        raise TypeError(f"{what}: expected a GPUArray, got {type(gpuarray).__name__} (for a "
                        f"numpy array, np_to_array)")
    if order not in ("C", "F"):
        raise ValueError(f"{what}: order must be 'C' or 'F', got {order!r}")
    flags = gpuarray.flags
    if not (flags.c_contiguous if order == "C" else flags.f_contiguous):
        raise ValueError(f"{what}: the GPUArray must be {order}-contiguous")
    fmt = dtype_to_array_format(gpuarray.dtype)
    nch = _channels_arg(num_channels, what)
    shape = tuple(gpuarray.shape)
    if order == "F":
        shape = shape[::-1]
    w, h, d = _layout(shape, nch, layered, what)
    flags = (array3d_flags.LAYERED if layered else 0) | \
        (array3d_flags.SURFACE_LDST if allowSurfaceBind else 0)
    arr = Array(ArrayDescriptor3D(w, h, d, fmt, nch, flags))
    arr._copy(True, int(gpuarray.gpudata))
    return arr


def matrix_to_array(matrix, order="C", allow_double_hack=False):
    """A 2D Array from a 2D ndarray (PyCUDA's). allow_double_hack is not
    supported: CUDA arrays have no 64-bit format."""
    if allow_double_hack:
        raise ValueError("matrix_to_array: allow_double_hack is not supported; convert to "
                         "float32 (or store the two halves as SIGNED_INT32 x 2 yourself)")
    ary = np.asarray(matrix)
    if ary.ndim != 2:
        raise ValueError(f"matrix_to_array: expected a 2D array, got shape {ary.shape}")
    return np_to_array(ary, order)


def make_multichannel_2d_array(ndarray, order):
    """A 2D Array of 2 or 4 channels (PyCUDA's): shape (height, width,
    channels) for order 'C', (channels, width, height) for 'F'."""
    ary = np.asarray(ndarray)
    if ary.ndim != 3:
        raise ValueError(f"make_multichannel_2d_array: expected 3 dimensions, got shape "
                         f"{ary.shape}")
    if order == "F":
        ary = ary.transpose(2, 1, 0)
    elif order != "C":
        raise ValueError(f"make_multichannel_2d_array: order must be 'C' or 'F', got {order!r}")
    return np_to_array(ary, "C", num_channels=ary.shape[-1])


def array_to_np(array):
    """The Array's contents as a new ndarray (Array.get())."""
    return array.get()


def _enum_arg(value, enum, name, what):
    """An enum member or its int (operator.index: a float, bool, None or str
    is a TypeError, where int() truncated 1.5 and took True); a ValueError
    for an int that is no member."""
    choices = ", ".join(m.name for m in enum)
    v = index_arg(value, f"{what}: {name}", f"{enum.__name__} values ({choices})")
    try:
        return enum(v)
    except ValueError:
        raise ValueError(f"{what}: {name} must be {enum.__name__} values ({choices}), got "
                         f"{value!r}") from None


def _mode_tuple(mode, what):
    modes = tuple(mode) if isinstance(mode, (tuple, list)) else (mode,) * 3
    if not 1 <= len(modes) <= 3:
        raise ValueError(f"{what}: address_mode takes 1 to 3 modes, got {len(modes)}")
    modes = modes + (modes[-1],) * (3 - len(modes))
    return tuple(int(_enum_arg(m, _AddressMode, "address_mode", what)) for m in modes)


def _texture_alignment():
    """The current device's TEXTURE_ALIGNMENT: where linear memory for a
    texture object must start (512 bytes on an H100; 256 on the simulator,
    counted from the start of the allocation)."""
    from pycudac import driver
    return driver.Context.get_device().get_attribute(
        driver.device_attribute.TEXTURE_ALIGNMENT) or 1  # 0: the driver does not say


class TextureObject(_driver.TextureObject):
    """A texture object over an Array (tex1D/2D/3D, tex1DLayered/2DLayered)
    or a 1D contiguous GPUArray (tex1Dfetch), passed to a kernel for its
    cudaTextureObject_t / CUtexObject parameter. read_as_float: 8- and
    16-bit integer formats read as floats in [0, 1] (unsigned) or [-1, 1]
    (signed); else they read as the element type. Destroyed when dropped."""

    def __new__(cls, source, address_mode=address_mode.CLAMP, filter_mode=filter_mode.POINT,
                normalized_coords=False, read_as_float=False, border_color=None,
                num_channels=1):
        what = "TextureObject"
        modes = _mode_tuple(address_mode, what)
        filt = _enum_arg(filter_mode, _FilterMode, "filter_mode", what)
        if border_color is None:
            border = (0.0, 0.0, 0.0, 0.0)
        else:
            if not isinstance(border_color, (tuple, list, np.ndarray)):
                raise TypeError(f"{what}: border_color must be a tuple of 1 to 4 numbers (one "
                                f"per channel), not {type(border_color).__name__}")
            try:
                border = tuple(float(x) for x in np.asarray(border_color).ravel())
            except (TypeError, ValueError):
                raise TypeError(f"{what}: border_color must be a tuple of 1 to 4 numbers, got "
                                f"{border_color!r}") from None
            if not 1 <= len(border) <= 4:
                raise ValueError(f"{what}: border_color takes 1 to 4 numbers, got "
                                 f"{border_color!r}")
            border = border + (0.0,) * (4 - len(border))
        linear = None
        if isinstance(source, _driver.Array):
            fmt = array_format(source.format)
            if num_channels != 1 and _channels_arg(num_channels, what) != source.num_channels:
                # an Array says its own channels: a different number was ignored
                raise ValueError(f"{what}: num_channels={num_channels!r} does not match the "
                                 f"Array's {source.num_channels} channel(s) (num_channels is "
                                 f"for linear memory; an Array has its own)")
        elif hasattr(source, "gpudata") and hasattr(source, "dtype"):
            fmt = dtype_to_array_format(source.dtype)
            nch = _channels_arg(num_channels, what)
            if not source.flags.c_contiguous or source.size == 0:
                raise ValueError(f"{what}: linear memory must be a non-empty contiguous GPUArray")
            if nch > 1 and (source.ndim < 1 or source.shape[-1] != nch):
                raise ValueError(f"{what}: num_channels={nch} needs a last axis of {nch}, "
                                 f"got shape {source.shape}")
            if filt == _FilterMode.LINEAR:
                raise ValueError(f"{what}: filter_mode LINEAR does not apply to linear memory "
                                 f"(tex1Dfetch reads texels unfiltered)")
            if normalized_coords:
                raise ValueError(f"{what}: normalized_coords does not apply to linear memory "
                                 f"(tex1Dfetch takes an integer index)")
            ptr = int(source.gpudata)
            align = _texture_alignment()
            # a GPU's allocations start aligned, so the address tells; the
            # simulator's end at a guard page (an overrun by one element
            # faults), so there the offset into the allocation tells
            start = ptr
            if _driver.get_backend() == "sim" and hasattr(source, "_root"):
                start = ptr - int(source._root())
            if start % align:
                raise ValueError(f"{what}: linear memory must start on the device's "
                                 f"TEXTURE_ALIGNMENT ({align} bytes); this GPUArray starts "
                                 f"{start % align} bytes past it (a view inside an "
                                 f"allocation): give a copy (.copy())")
            linear = (ptr, int(fmt), nch, int(source.nbytes))
        else:
            raise TypeError(f"{what}: source must be an Array or a GPUArray (linear memory, "
                            f"for tex1Dfetch), got {type(source).__name__}")
        is_int = fmt not in (array_format.FLOAT, array_format.HALF)
        if read_as_float and fmt in (array_format.UNSIGNED_INT32, array_format.SIGNED_INT32):
            raise ValueError(f"{what}: read_as_float applies to 8- and 16-bit integer formats, "
                             f"not {fmt.name}")
        if filt == _FilterMode.LINEAR and is_int and not read_as_float:
            raise ValueError(f"{what}: filter_mode LINEAR needs a read that returns floats: a "
                             f"float or half array, or read_as_float=True ({fmt.name} reads "
                             f"as integers)")
        flags = (_NORMALIZED_COORDINATES if normalized_coords else 0) | \
            (_READ_AS_INTEGER if is_int and not read_as_float else 0)
        if not normalized_coords:
            # cuTexObjectCreate: without normalized coordinates "the only
            # supported address mode is CLAMP" (BORDER works too); WRAP and
            # MIRROR would be the driver's to refuse or to clamp
            modes = tuple(int(_AddressMode.CLAMP) if m in (_AddressMode.WRAP, _AddressMode.MIRROR)
                          else m for m in modes)
        if linear is None:
            # a GPU samples a 1D array as a 2D one of one row: BORDER along
            # the missing y halved every linear fetch there (the H100,
            # 2026-11-28); axes the array does not have are asked as CLAMP
            layered = bool(source.flags & array3d_flags.LAYERED)
            dims = 1 + (source.height > 0) + (source.depth > 0 and not layered)
            modes = tuple(m if k < dims else int(_AddressMode.CLAMP) for k, m in enumerate(modes))
        self = super().__new__(cls, source, modes, int(filt), flags, border, linear)
        self.address_modes = tuple(_AddressMode(m) for m in modes)  # as the driver got them
        return self


class SurfaceObject(_driver.SurfaceObject):
    """A surface object over an Array made with SURFACE_LDST
    (np_to_array(..., allowSurfaceBind=True)), passed to a kernel for its
    cudaSurfaceObject_t / CUsurfObject parameter. Destroyed when dropped."""

    def __new__(cls, array):
        if not isinstance(array, _driver.Array):
            raise TypeError(f"SurfaceObject: expected an Array, got {type(array).__name__}")
        if not array.flags & array3d_flags.SURFACE_LDST:
            raise ValueError("SurfaceObject: the array was not made for surface access "
                             "(array3d_flags.SURFACE_LDST, or np_to_array(..., "
                             "allowSurfaceBind=True))")
        if array.flags & array3d_flags.LAYERED:
            raise ValueError("SurfaceObject: layered surfaces are not supported "
                             "(surf1DLayered/surf2DLayered)")
        return super().__new__(cls, array)


def _size(value, name):
    """value as a non-negative int below 2**63 (operator.index: no float or
    str), else TypeError, ValueError or OverflowError naming it."""
    v = index_arg(value, name, "an integer")
    if v < 0:
        raise ValueError(f"{name} must be non-negative, not {v}")
    if v >= 1 << 63:
        raise OverflowError(f"{name} is too large: {v}")
    return v


class Memcpy2D:
    """PyCUDA's 2D copy between host, device and array memory: set a source
    and a destination (set_src_host/device/array, set_dst_...), their
    x_in_bytes, y and pitch, then width_in_bytes and height, and call it.
    A pitch of 0 means width_in_bytes. Runs cuMemcpy3D; with a stream it
    waits for that stream first (the copy itself is synchronous)."""

    _fields = ("x_in_bytes", "y", "z", "lod", "pitch", "height")

    def __init__(self):
        for side in ("src", "dst"):
            for f in self._fields:
                setattr(self, f"{side}_{f}", 0)
            setattr(self, f"_{side}", None)
        self.width_in_bytes = self.height = 0
        self.depth = 1

    def _set(self, side, kind, obj):
        setattr(self, f"_{side}", (kind, obj))

    def set_src_host(self, buf):
        self._set("src", 1, buf)

    def _address(self, ptr, name):
        try:
            return int(ptr)
        except (TypeError, ValueError):
            raise TypeError(f"{type(self).__name__}.{name}: expected a device address (an int or "
                            f"a DeviceAllocation), not {type(ptr).__name__}") from None

    def set_src_device(self, ptr):
        self._set("src", 2, self._address(ptr, "set_src_device"))

    def set_src_array(self, ary):
        self._set("src", 3, ary)

    def set_dst_host(self, buf):
        self._set("dst", 1, buf)

    def set_dst_device(self, ptr):
        self._set("dst", 2, self._address(ptr, "set_dst_device"))

    def set_dst_array(self, ary):
        self._set("dst", 3, ary)

    set_src_unified, set_dst_unified = set_src_host, set_dst_host

    def _side(self, side):
        where = getattr(self, f"_{side}")
        if where is None:
            raise ValueError(f"{type(self).__name__}: no {side} set (set_{side}_host, "
                             f"set_{side}_device or set_{side}_array)")
        if getattr(self, f"{side}_lod", 0):
            raise ValueError(f"{type(self).__name__}: {side}_lod must be 0 (no mipmaps)")
        kind, obj = where
        name = type(self).__name__
        return (kind, obj) + tuple(_size(getattr(self, f"{side}_{f}", 0), f"{name}.{side}_{f}")
                                   for f in ("x_in_bytes", "y", "z", "pitch", "height"))

    def __call__(self, stream_or_aligned=None):
        name = type(self).__name__
        if not (stream_or_aligned is None or isinstance(stream_or_aligned, bool)
                or hasattr(stream_or_aligned, "synchronize")):
            raise TypeError(f"{name}(): expected a Stream, a bool (PyCUDA's aligned) or None, "
                            f"not {type(stream_or_aligned).__name__}")
        width = _size(self.width_in_bytes, f"{name}.width_in_bytes")
        height = _size(self.height, f"{name}.height")
        depth = _size(self.depth, f"{name}.depth")
        if width == 0:
            raise ValueError(f"{name}: width_in_bytes must be positive")
        src, dst = self._side("src"), self._side("dst")
        if stream_or_aligned is not None and not isinstance(stream_or_aligned, bool):
            stream_or_aligned.synchronize()
        _driver._memcpy3d(src, dst, width, height or 1, depth or 1)


class Memcpy3D(Memcpy2D):
    """PyCUDA's 3D copy: Memcpy2D's fields with src_z, dst_z, src_height,
    dst_height (rows of a slice of linear memory) and depth."""
