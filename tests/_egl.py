"""A headless OpenGL context through EGL, with ctypes only (tests/test_gl.py).

EGL's device platform (EGL_EXT_platform_device: a display per GPU, no X
server, no window) is tried first, picking the EGL device whose CUDA device
(EGL_NV_device_cuda) is the one asked for; Mesa's surfaceless platform is
the fallback. The context is desktop OpenGL (eglBindAPI(EGL_OPENGL_API)),
current with no surface. GL functions come from eglGetProcAddress, or from
libOpenGL.so.0 / libGL.so.1 where it answers NULL.

open_context(cuda_ordinal) returns a GLContext, or raises Unavailable with
the reason a test should be skipped for.
"""
import ctypes
import ctypes.util

EGL_NONE = 0x3038
EGL_SURFACE_TYPE = 0x3033
EGL_PBUFFER_BIT = 0x0001
EGL_RENDERABLE_TYPE = 0x3040
EGL_OPENGL_BIT = 0x0008
EGL_OPENGL_API = 0x30A2
EGL_PLATFORM_DEVICE_EXT = 0x313F
EGL_PLATFORM_SURFACELESS_MESA = 0x31DD
EGL_CUDA_DEVICE_NV = 0x323A

GL_ARRAY_BUFFER = 0x8892
GL_DYNAMIC_DRAW = 0x88E8
GL_TEXTURE_2D = 0x0DE1
GL_RGBA8 = 0x8058
GL_RGBA = 0x1908
GL_UNSIGNED_BYTE = 0x1401
GL_TEXTURE_MIN_FILTER = 0x2801
GL_TEXTURE_MAG_FILTER = 0x2800
GL_NEAREST = 0x2600
GL_RENDERER = 0x1F01

_vp, _u, _i = ctypes.c_void_p, ctypes.c_uint, ctypes.c_int
_GL_SIGNATURES = {
    "glGetError": (_u, []),
    "glFinish": (None, []),
    "glGetString": (ctypes.c_char_p, [_u]),
    "glGenBuffers": (None, [_i, ctypes.POINTER(_u)]),
    "glDeleteBuffers": (None, [_i, ctypes.POINTER(_u)]),
    "glBindBuffer": (None, [_u, _u]),
    "glBufferData": (None, [_u, ctypes.c_ssize_t, _vp, _u]),
    "glBufferSubData": (None, [_u, ctypes.c_ssize_t, ctypes.c_ssize_t, _vp]),
    "glGetBufferSubData": (None, [_u, ctypes.c_ssize_t, ctypes.c_ssize_t, _vp]),
    "glGenTextures": (None, [_i, ctypes.POINTER(_u)]),
    "glDeleteTextures": (None, [_i, ctypes.POINTER(_u)]),
    "glBindTexture": (None, [_u, _u]),
    "glTexParameteri": (None, [_u, _u, _i]),
    "glTexImage2D": (None, [_u, _i, _i, ctypes.c_int, ctypes.c_int, _i, _u, _u, _vp]),
}


class Unavailable(Exception):
    """No headless GL context here; str() is the skip reason."""


def _load(names):
    for name in names:
        try:
            return ctypes.CDLL(name)
        except OSError:
            continue
    return None


class GLContext:
    """An EGL display and a current OpenGL context; GL functions as
    attributes (gl.glGenBuffers ...). close() releases both."""

    def __init__(self, egl, display, context, platform):
        self._egl, self._display, self._context = egl, display, context
        self.platform = platform
        gl_lib = _load(["libOpenGL.so.0", "libGL.so.1"])
        get = egl.eglGetProcAddress
        get.restype, get.argtypes = _vp, [ctypes.c_char_p]
        for name, (res, args) in _GL_SIGNATURES.items():
            addr = get(name.encode())
            if not addr and gl_lib is not None:
                addr = ctypes.cast(getattr(gl_lib, name, None), _vp).value
            if not addr:
                raise Unavailable(f"no OpenGL function {name} (eglGetProcAddress, libOpenGL)")
            setattr(self, name, ctypes.CFUNCTYPE(res, *args)(addr))
        self.renderer = (self.glGetString(GL_RENDERER) or b"?").decode(errors="replace")

    def check(self, what):
        err = self.glGetError()
        if err:
            raise RuntimeError(f"{what}: GL error {err:#x}")

    def close(self):
        egl = self._egl
        egl.eglMakeCurrent(self._display, None, None, None)
        egl.eglDestroyContext(self._display, self._context)
        egl.eglTerminate(self._display)


def _proc(egl, name, res, args):
    egl.eglGetProcAddress.restype = _vp
    egl.eglGetProcAddress.argtypes = [ctypes.c_char_p]
    addr = egl.eglGetProcAddress(name.encode())
    return ctypes.CFUNCTYPE(res, *args)(addr) if addr else None


def _device_display(egl, cuda_ordinal):
    """An EGLDisplay on the EGL device of CUDA device `cuda_ordinal`, or None
    with why."""
    query = _proc(egl, "eglQueryDevicesEXT", _u, [_i, ctypes.POINTER(_vp), ctypes.POINTER(_i)])
    get_display = _proc(egl, "eglGetPlatformDisplayEXT", _vp, [_u, _vp, ctypes.POINTER(_i)])
    if query is None or get_display is None:
        return None, "libEGL has no eglQueryDevicesEXT / eglGetPlatformDisplayEXT"
    devices, n = (_vp * 16)(), _i(0)
    if not query(16, devices, ctypes.byref(n)) or n.value == 0:
        return None, "EGL lists no device (eglQueryDevicesEXT)"
    attrib = _proc(egl, "eglQueryDeviceAttribEXT", _u, [_vp, _i, ctypes.POINTER(ctypes.c_ssize_t)])
    chosen = devices[0]
    for i in range(n.value):
        value = ctypes.c_ssize_t(-1)
        if attrib is not None and attrib(devices[i], EGL_CUDA_DEVICE_NV, ctypes.byref(value)) \
                and value.value == cuda_ordinal:
            chosen = devices[i]
            break
    display = get_display(EGL_PLATFORM_DEVICE_EXT, chosen, None)
    return (display, None) if display else (None, "eglGetPlatformDisplayEXT(device) failed")


def open_context(cuda_ordinal=0):
    """A current headless OpenGL context on the GPU of CUDA device
    `cuda_ordinal` (GLContext), or Unavailable with why."""
    egl = _load(["libEGL.so.1", ctypes.util.find_library("EGL") or "libEGL.so"])
    if egl is None:
        vendor = _load(["libEGL_nvidia.so.0"])
        raise Unavailable(
            "no libEGL.so.1, libglvnd's EGL loader (install libegl1, or run tools/fetch_egl.sh "
            "and put .egl/ on LD_LIBRARY_PATH)" + (
                "; libEGL_nvidia.so.0 is here, but NVIDIA's vendor library exports "
                "only __egl_Main, for that loader" if vendor is not None else
                " and no NVIDIA EGL (libEGL_nvidia.so.0)"))
    for f, res, args in [("eglInitialize", _u, [_vp, ctypes.POINTER(_i), ctypes.POINTER(_i)]),
                         ("eglChooseConfig", _u, [_vp, ctypes.POINTER(_i), ctypes.POINTER(_vp),
                                                  _i, ctypes.POINTER(_i)]),
                         ("eglBindAPI", _u, [_u]),
                         ("eglCreateContext", _vp, [_vp, _vp, _vp, ctypes.POINTER(_i)]),
                         ("eglMakeCurrent", _u, [_vp, _vp, _vp, _vp]),
                         ("eglDestroyContext", _u, [_vp, _vp]),
                         ("eglTerminate", _u, [_vp]),
                         ("eglGetError", _i, [])]:
        fn = getattr(egl, f)
        fn.restype, fn.argtypes = res, args
    display, why = _device_display(egl, cuda_ordinal)
    platform = "device"
    if display is None:
        get_display = _proc(egl, "eglGetPlatformDisplayEXT", _vp, [_u, _vp, ctypes.POINTER(_i)])
        display = get_display(EGL_PLATFORM_SURFACELESS_MESA, None, None) if get_display else None
        platform = "surfaceless"
        if not display:
            raise Unavailable(f"no EGL device: {why}; no surfaceless display either")
    major, minor = _i(), _i()
    if not egl.eglInitialize(display, ctypes.byref(major), ctypes.byref(minor)):
        raise Unavailable(f"eglInitialize failed on the {platform} platform "
                          f"(EGL error {egl.eglGetError():#x})")
    config, n = _vp(), _i(0)
    for attribs in ([EGL_SURFACE_TYPE, EGL_PBUFFER_BIT, EGL_RENDERABLE_TYPE, EGL_OPENGL_BIT,
                     EGL_NONE], [EGL_RENDERABLE_TYPE, EGL_OPENGL_BIT, EGL_NONE]):
        arr = (_i * len(attribs))(*attribs)
        if egl.eglChooseConfig(display, arr, ctypes.byref(config), 1, ctypes.byref(n)) \
                and n.value:
            break
    else:
        egl.eglTerminate(display)
        raise Unavailable(f"no EGL config for desktop OpenGL on the {platform} platform")
    if not egl.eglBindAPI(EGL_OPENGL_API):
        egl.eglTerminate(display)
        raise Unavailable("eglBindAPI(EGL_OPENGL_API) failed: no desktop OpenGL")
    none = (_i * 1)(EGL_NONE)
    context = egl.eglCreateContext(display, config, None, none)
    if not context or not egl.eglMakeCurrent(display, None, None, context):
        egl.eglTerminate(display)
        raise Unavailable(f"no current OpenGL context on the {platform} platform "
                          f"(EGL error {egl.eglGetError():#x})")
    try:
        return GLContext(egl, display, context, platform)
    except Unavailable:
        egl.eglMakeCurrent(display, None, None, None)
        egl.eglTerminate(display)
        raise
