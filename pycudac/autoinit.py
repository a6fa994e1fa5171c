"""Importing pycudac.autoinit makes a context current, as in PyCUDA.

The device is CUDA_DEVICE (environment; default 0) and the context is that
device's primary context — the one the CUDA runtime, CuPy and cuda.core use.
It is current in the importing thread and, since CUDA's current context is
per thread, any other thread that calls into pycudac with no context of its
own gets it made current there too.

Exposes `device` and `context` like PyCUDA's module.
"""
import os

from pycudac import _driver
from pycudac import driver as _drv


def _device_from_env():
    text = os.environ.get("CUDA_DEVICE", "0").strip() or "0"
    try:
        ordinal = int(text)
    except ValueError:
        raise ValueError(f"CUDA_DEVICE must be a device number, not {text!r}") from None
    return _drv.Device(ordinal)


_drv.init()
device = _device_from_env()
context = device.retain_primary_context()
_driver._set_default_context(context)
