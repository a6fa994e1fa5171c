"""Argument wrappers for kernel launches: In, Out, InOut (PyCUDA's names).

`f(drv.InOut(a), ...)` copies the host array `a` to a temporary device buffer
before the launch and back after it (In: only before, Out: only after).
"""
import numpy as np


class ArgumentHandler:
    """Base of In/Out/InOut: wraps one host array for one launch."""

    copy_in = False
    copy_out = False

    def __init__(self, array):
        if not hasattr(array, "__array_interface__") and not hasattr(array, "__array__"):
            raise TypeError(
                f"{type(self).__name__}() takes a host array (numpy.ndarray), "
                f"not {type(array).__name__}")
        self.array = array

    def get_device_alloc(self):  # PyCUDA compatibility
        return getattr(self, "dev_alloc", None)


class In(ArgumentHandler):
    copy_in = True


class Out(ArgumentHandler):
    copy_out = True


class InOut(ArgumentHandler):
    copy_in = True
    copy_out = True
