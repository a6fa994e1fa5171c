"""pycudac.driver — the CUDA driver as Python objects (PyCUDA's names)."""
from pycudac._driver import *  # noqa: F401,F403
from pycudac._driver import (  # noqa: F401
    Error, LogicError, LaunchError, MemoryError, RuntimeError, CompileError,
    is_poisoned, get_backend, _raise_for_code, _debug_counters,
)
from pycudac._args import In, Out, InOut, ArgumentHandler  # noqa: F401

