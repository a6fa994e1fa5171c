"""pycudac.profile — NVTX ranges and marks for profilers (Nsight Systems).

    from pycudac import profile

    with profile.range("step", color="green"):
        ...

    @profile.range("solve")
    def solve(...): ...

    profile.mark("checkpoint")

A range shows as a bar on its thread's NVTX row in Nsight Systems (NVTX's
default domain); pycudac's own work — compiles, links, module loads, and
launches that take the general path (keywords other than block/grid/stream,
In/Out arguments, timing, errors) — shows under the "pycudac" domain. The
plain launch's fast path carries no range (the profiler's CUDA trace shows
those launches). Without a profiler attached every call does nothing: NVTX
is looked for once, through NVTX_INJECTION64_PATH, which the profiler sets
(`nsys profile --trace=cuda,nvtx python app.py`). No NVIDIA library is needed.

`pycudac.driver.start_profiler()` / `stop_profiler()` (PyCUDA's names) call
cuProfilerStart / cuProfilerStop, which bound what `nsys profile
--capture-range=cudaProfilerApi` records; on the simulator they do nothing.
"""
import functools

from pycudac import _driver

__all__ = ["range", "mark", "enabled", "color_argb"]

# Nsight's palette names, as the nvtx package accepts them (0xAARRGGBB).
_COLORS = {
    "green": 0xFF76B900, "blue": 0xFF0072B2, "yellow": 0xFFF0E442, "purple": 0xFF8E44AD,
    "rapids": 0xFF7400FF, "cyan": 0xFF56B4E9, "red": 0xFFD55E00, "white": 0xFFFFFFFF,
    "darkgreen": 0xFF006400, "orange": 0xFFE69F00, "black": 0xFF000000, "gray": 0xFF808080,
    "grey": 0xFF808080,
}


def color_argb(color):
    """`color` as NVTX's 0xAARRGGBB: None (no color: 0), a name ('green',
    'blue', 'red', ...), '#RRGGBB', or an int 0xRRGGBB / 0xAARRGGBB."""
    if color is None:
        return 0
    if isinstance(color, bool) or not isinstance(color, (int, str)):
        raise TypeError(f"color must be a name, '#RRGGBB' or an int 0xRRGGBB, not "
                        f"{type(color).__name__}")
    if isinstance(color, str):
        name = color.strip().lower()
        if name in _COLORS:
            return _COLORS[name]
        # six hex digits only: int() also takes a sign ("#-12345" made a
        # negative colour, refused at the first push instead of here)
        if len(name) == 7 and name[0] == "#" and all(c in "0123456789abcdef" for c in name[1:]):
            return 0xFF000000 | int(name[1:], 16)
        raise ValueError(f"color {color!r} is not one of {', '.join(sorted(_COLORS))} or "
                         "'#RRGGBB'")
    if not 0 <= color <= 0xFFFFFFFF:
        raise ValueError(f"color must be 0xRRGGBB or 0xAARRGGBB, not {color:#x}")
    return color | 0xFF000000 if color <= 0xFFFFFF else color


class range:  # noqa: A001 - nvtx's and PyTorch's name for it
    """An NVTX range: a context manager, and a decorator for functions.

    `message` names the range (a function decorated with a bare
    `@profile.range` gets its qualified name); `color` as color_argb takes.
    The same object may be entered again, nested or later."""

    __slots__ = ("message", "argb")

    def __new__(cls, message, color=None):
        if callable(message) and not isinstance(message, str):
            return cls.wrap(message, color)  # a bare @profile.range
        return super().__new__(cls)

    def __init__(self, message, color=None):
        if not isinstance(message, str):
            raise TypeError(f"profile.range: message must be str, not {type(message).__name__}")
        if "\0" in message:
            raise ValueError("profile.range: message must not contain NUL characters")
        self.message, self.argb = message, color_argb(color)

    def __enter__(self):
        _driver.nvtx_push(self.message, self.argb)
        return self

    def __exit__(self, *exc):
        _driver.nvtx_pop()
        return False

    def __call__(self, func):
        if not callable(func):
            raise TypeError(f"profile.range(...) decorates a callable, not "
                            f"{type(func).__name__}")

        @functools.wraps(func)
        def ranged(*args, **kwargs):
            _driver.nvtx_push(self.message, self.argb)
            try:
                return func(*args, **kwargs)
            finally:
                _driver.nvtx_pop()
        return ranged

    @classmethod
    def wrap(cls, func, color=None):
        """`func` inside a range named after it (func.__qualname__)."""
        name = getattr(func, "__qualname__", None) or repr(func)
        return cls(name, color)(func)

    def __repr__(self):
        return f"<pycudac.profile.range {self.message!r}>"


def mark(message, color=None):
    """An instantaneous NVTX event named `message`."""
    if not isinstance(message, str):
        raise TypeError(f"profile.mark: message must be str, not {type(message).__name__}")
    _driver.nvtx_mark(message, color_argb(color))


def enabled():
    """Whether a profiler takes the ranges (NVTX_INJECTION64_PATH named a
    tool that accepted them)."""
    return _driver.nvtx_enabled()
