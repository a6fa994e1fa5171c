"""pycudac: CUDA C kernels from Python, compiled at run time with NVRTC,
cached safely on disk, launched with checked arguments at the speed of C,
and runnable on a CPU simulator when no GPU is present.

`import pycudac` never touches the driver; the backend (PYCUDAC_BACKEND=
cuda|sim|auto) is chosen at the first call that needs it.
"""

__version__ = "0.1.0"
VERSION = (0, 1, 0)
VERSION_TEXT = __version__
