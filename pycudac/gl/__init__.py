"""OpenGL interop with PyCUDA's names (``pycuda.gl``).

A GL buffer object or texture, made by the caller in a GL context of its
own (PyOpenGL, GLFW, EGL ...), is registered with CUDA once and then mapped
for CUDA's use between GL's: a mapped buffer is a device pointer and a size
(wrap it in a GPUArray, pass it to a kernel), a mapped image is a
``driver.Array`` per layer and mip level (copy it, read it through a
TextureObject). GL names are plain ints (GLuint); pycudac never imports a GL
binding. The GL context must be current in the thread that registers, maps
and unmaps.

The simulator has no OpenGL: everything here raises LogicError there
("OpenGL interop needs a GPU and its driver; the simulator has no OpenGL").
"""
import enum as _enum

from pycudac import _driver
from pycudac._checks import index_arg
from pycudac import driver as _drv
from pycudac.driver import _Named

__all__ = [
    "init", "make_context", "get_gl_devices", "graphics_map_flags", "RegisteredObject",
    "RegisteredBuffer", "RegisteredImage", "RegisteredMapping", "BufferObject",
    "BufferObjectMapping",
]


class graphics_map_flags(_Named, _enum.IntEnum):
    """How CUDA uses a registered object (CU_GRAPHICS_REGISTER_FLAGS_* and
    CU_GRAPHICS_MAP_RESOURCE_FLAGS_*, which agree on these three)."""
    NONE = 0
    READ_ONLY = 1
    WRITE_DISCARD = 2


def init():
    """Initialize the driver for OpenGL interop (PyCUDA's gl.init). There is
    nothing GL-specific to set up on a current driver; raises LogicError
    where interop cannot work (the simulator, a driver without it)."""
    _drv.init()
    _driver._gl_check()


def make_context(device, flags=0):
    """A new context on `device`, made current, for use with GL (PyCUDA's
    gl.make_context). Any context of the device the GL context renders on
    can map GL objects: this is Device.make_context after init()."""
    init()
    if not isinstance(device, _drv.Device):
        raise TypeError(f"make_context(device): expected a driver.Device, got "
                        f"{type(device).__name__}")
    return device.make_context(flags)


def get_gl_devices():
    """The Devices the GL context current in this thread renders on
    (cuGLGetDevices). A GL object maps only into a context of one of them."""
    return _driver._gl_devices()


def _gl_name(x, what):
    """A GL object name or enum: an int in 0..2**32-1, named `what`."""
    n = index_arg(x, what, "an int (a GL name, GLuint)")
    if not 0 <= n <= 0xFFFFFFFF:
        raise ValueError(f"{what} must be a GL name in 0..4294967295, got {n}")
    return n


# cuGraphicsGLRegisterImage's further register flags (cuda.h's
# CU_GRAPHICS_REGISTER_FLAGS_SURFACE_LDST and _TEXTURE_GATHER), for images only
_IMAGE_FLAGS = 0x4 | 0x8


def _map_flags(flags, what, image=False):
    if isinstance(flags, bool) or not isinstance(flags, int):
        raise TypeError(f"{what}: flags must be a graphics_map_flags value, not "
                        f"{type(flags).__name__}")
    base, extra = int(flags) & ~_IMAGE_FLAGS if image else int(flags), 0
    if image:
        extra = int(flags) & _IMAGE_FLAGS
    if base not in (0, 1, 2):
        more = " (images may add 4: surface load/store, 8: texture gather)" if image else ""
        raise ValueError(f"{what}: flags must be graphics_map_flags.NONE, READ_ONLY or "
                         f"WRITE_DISCARD{more}, got {int(flags)}")
    return base | extra


class RegisteredObject:
    """A GL object registered with CUDA (RegisteredBuffer, RegisteredImage).
    Unregistered by unregister() or when dropped, in the context it was
    registered in (the GL context should still be current then)."""

    _resource = None
    _gl = 0

    def __init__(self, *args, **kwargs):
        raise TypeError("RegisteredObject: make a RegisteredBuffer or a RegisteredImage")

    def gl_handle(self):
        """The GL object's name, as registered."""
        return self._gl

    def handle(self):
        """The CUgraphicsResource as an int (0 once unregistered)."""
        return self._resource.handle

    def map(self, stream=None):
        """Map for CUDA (ordered in `stream`): a RegisteredMapping, valid
        until its unmap(). GL must not use the object meanwhile. Mapping an
        object that is mapped already raises LogicError."""
        number = self._resource.map(stream)
        return RegisteredMapping(self, number)

    def set_map_flags(self, flags):
        """graphics_map_flags for the next map()."""
        self._resource.set_map_flags(_map_flags(flags, "set_map_flags"))

    def unregister(self):
        """Unregister now; LogicError while mapped (unmap first)."""
        self._resource.unregister()

    @property
    def mapped(self):
        """Whether it is mapped for CUDA now."""
        return self._resource.mapped


class RegisteredBuffer(RegisteredObject):
    """RegisteredBuffer(bufobj, flags=graphics_map_flags.NONE): the GL buffer
    object named `bufobj` (an int), registered with CUDA
    (cuGraphicsGLRegisterBuffer); mapped, it is device memory."""

    def __init__(self, bufobj, flags=graphics_map_flags.NONE):
        self._gl = _gl_name(bufobj, "RegisteredBuffer(bufobj)")
        self._resource = _driver.GraphicsResource(
            False, self._gl, 0, _map_flags(flags, "RegisteredBuffer"))

    def __repr__(self):
        return f"<RegisteredBuffer of GL buffer {self._gl}>"


class RegisteredImage(RegisteredObject):
    """RegisteredImage(texture, target, flags=graphics_map_flags.NONE): the
    GL texture or renderbuffer named `texture` of `target` (GL_TEXTURE_2D,
    GL_TEXTURE_3D, GL_TEXTURE_2D_ARRAY, GL_TEXTURE_CUBE_MAP,
    GL_TEXTURE_RECTANGLE, GL_RENDERBUFFER: ints), registered with CUDA
    (cuGraphicsGLRegisterImage); mapped, it is CUDA arrays. flags may add
    4 (the arrays can back a SurfaceObject) and 8 (texture gather)."""

    def __init__(self, texture, target, flags=graphics_map_flags.NONE):
        self._gl = _gl_name(texture, "RegisteredImage(texture)")
        self._target = _gl_name(target, "RegisteredImage(target)")
        self._resource = _driver.GraphicsResource(
            True, self._gl, self._target, _map_flags(flags, "RegisteredImage", image=True))

    def __repr__(self):
        return f"<RegisteredImage of GL texture {self._gl}, target {self._target:#x}>"


class RegisteredMapping:
    """One mapping of a RegisteredObject (what its map() returns). Usable
    until unmap(); afterwards every method raises LogicError. A context
    manager: `with obj.map() as m:` unmaps at the end of the block."""

    def __init__(self, obj, number):
        self._object = obj
        self._number = number

    def _live(self, what):
        res = self._object._resource
        if res.handle == 0:
            raise _drv.LogicError(f"RegisteredMapping.{what}: the object was unregistered")
        if not res.mapped or res.map_count != self._number:
            raise _drv.LogicError(f"RegisteredMapping.{what}: this mapping was unmapped")
        return res

    @property
    def registered_object(self):
        """The RegisteredObject this maps."""
        return self._object

    def unmap(self, stream=None):
        """Give the object back to GL (ordered in `stream`)."""
        self._live("unmap").unmap(stream)

    def device_ptr_and_size(self):
        """(device address, bytes) of a mapped buffer; LogicError for an
        image."""
        return self._live("device_ptr_and_size").mapped_pointer()

    def array(self, index=0, level=0):
        """The driver.Array of a mapped image's layer (or cube face) `index`
        at mip level `level`. The array belongs to the mapping: it is never
        freed by pycudac and is unusable after unmap()."""
        res = self._live("array")
        return res.mapped_array(_gl_name(index, "array(index)"),
                                _gl_name(level, "array(level)"), _drv.Array)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        res = self._object._resource
        if res.handle != 0 and res.mapped and res.map_count == self._number:
            res.unmap()


class BufferObject:
    """PyCUDA's older interface: BufferObject(bufobj) registers a GL buffer
    object (as a RegisteredBuffer) and map() gives a BufferObjectMapping."""

    def __init__(self, bufobj):
        self._registered = RegisteredBuffer(bufobj)

    def handle(self):
        """The GL buffer's name."""
        return self._registered.gl_handle()

    def map(self):
        """Map for CUDA: a BufferObjectMapping."""
        return BufferObjectMapping(self._registered.map())

    def unregister(self):
        """Unregister now (LogicError while mapped)."""
        self._registered.unregister()


class BufferObjectMapping:
    """A mapped BufferObject: device_ptr(), size(), unmap()."""

    def __init__(self, mapping):
        self._mapping = mapping

    def device_ptr(self):
        return self._mapping.device_ptr_and_size()[0]

    def size(self):
        return self._mapping.device_ptr_and_size()[1]

    def unmap(self):
        self._mapping.unmap()
