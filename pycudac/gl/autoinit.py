"""Importing pycudac.gl.autoinit makes a context current for OpenGL interop,
as pycuda.gl.autoinit does: the device is CUDA_DEVICE (environment; default
0) and the context its primary context, exactly as pycudac.autoinit makes
them. A GL context on the same GPU is the caller's to make. Raises
LogicError first on the simulator, which has no OpenGL.

Exposes `device` and `context`.
"""
from pycudac import gl as _gl

_gl.init()

from pycudac import autoinit as _autoinit  # noqa: E402  (after the check)

device = _autoinit.device
context = _autoinit.context
