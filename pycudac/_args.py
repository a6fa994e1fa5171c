"""Argument wrappers for kernel launches: In, Out, InOut (PyCUDA's names).

`f(drv.InOut(a), ...)` copies the host array `a` to a temporary device buffer
before the launch and back after it (In: only before, Out: only after).
Without a stream the copies are synchronous (PyCUDA's behaviour); with
`stream=s` they are queued on `s`, and the array and the temporary buffer are
kept alive until the stream gets past them. The launch path (src/launch/pointer.c)
reads `array`, `copy_in` and `copy_out`; the array must export a C-contiguous
buffer, writable for Out/InOut.
"""
import numpy as np

from pycudac import _driver

__all__ = ["ArgumentHandler", "In", "Out", "InOut"]


def _has_buffer(obj):
    try:
        memoryview(obj).release()
    except TypeError:
        return False
    return True


class ArgumentHandler:
    """Base of In/Out/InOut: wraps one host array for one launch.

    A subclass may instead follow PyCUDA's protocol, as code built on PyCUDA
    does (reikna's cluda Buffer): a launch passes int(h.get_device_alloc()),
    calls h.pre_call(stream) before it and h.post_call(stream) after it
    (without a stream, once the context has synchronized). A subclass that
    defines get_device_alloc, pre_call or post_call of its own is such a one
    (`_pycuda_protocol`, set for each class here; the launch reads it)."""

    copy_in = False
    copy_out = False
    _pycuda_protocol = False

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        cls._pycuda_protocol = (
            cls.get_device_alloc is not ArgumentHandler.get_device_alloc
            or cls.pre_call is not ArgumentHandler.pre_call or hasattr(cls, "post_call"))

    def __init__(self, array):
        name = type(self).__name__
        if hasattr(array, "gpudata") or hasattr(array, "__cuda_array_interface__"):
            raise TypeError(f"{name}() wraps a host array; this {type(array).__name__} is "
                            "already on the device: pass it to the kernel directly")
        if not isinstance(array, np.ndarray) and not _has_buffer(array):
            if (hasattr(array, "__array__") or isinstance(array, (list, tuple))) \
                    and not self.copy_out:
                array = np.ascontiguousarray(array)  # read-only use: a copy is fine
            else:
                raise TypeError(f"{name}() takes a host array (numpy.ndarray or another "
                                f"writable buffer), not {type(array).__name__}")
        self.array = array

    def get_device_alloc(self):
        """PyCUDA's: device memory the size of `array`, made on first use."""
        if getattr(self, "dev_alloc", None) is None:
            from pycudac import driver
            self.dev_alloc = driver.mem_alloc_like(self.array)
        return self.dev_alloc

    def pre_call(self, stream):
        """PyCUDA's hook before a launch (a no-op here)."""

    def __repr__(self):
        a = self.array
        what = (f"{a.dtype}, shape {a.shape}" if isinstance(a, np.ndarray)
                else type(a).__name__)
        return f"{type(self).__name__}({what})"


class In(ArgumentHandler):
    """Copied to the device before the launch."""
    copy_in = True


class Out(ArgumentHandler):
    """Copied back to the host after the launch."""
    copy_out = True


class InOut(ArgumentHandler):
    """Copied in before and back after the launch."""
    copy_in = True
    copy_out = True


# The launch path (src/launch/pointer.c) recognizes In/Out/InOut by this class.
_driver._register("argument_handler", ArgumentHandler)
