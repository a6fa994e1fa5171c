"""Importing pycudac.autoprimaryctx makes device CUDA_DEVICE's (default 0)
primary context current, as PyCUDA's module of that name does. In pycudac
this is also what pycudac.autoinit does; both expose `device` and
`context`, and both are safe to import together (same context object)."""
from pycudac.autoinit import context, device  # noqa: F401
