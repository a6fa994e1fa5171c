"""pycudac.compiler — CUDA C source strings to loaded modules (PyCUDA's names).

    mod = SourceModule('''
        __global__ void double_array(float *a) { a[threadIdx.x] *= 2; }
    ''')
    double_array = mod.get_function("double_array")

What happens, cheapest first:

1. In-process memo: a SourceModule of the same source, options and include
   files in the same context returns the module already loaded (no hashing,
   no disk, no driver call). Not for a source that declares module-scope
   variables (__constant__, __device__, __managed__): each SourceModule of
   it has its own, as in PyCUDA (a load of the cached image).
2. On-disk cache (``cache_path()``): the key is a SHA-256 over everything that
   can change the binary (format version, compiler identity, backend, target
   architecture, normalized options, name expressions, extern "C" wrapping,
   the source, and every file under the include directories). A verified hit
   runs no compiler: read, check, ``cuModuleLoadData``.
3. Compile with NVRTC (the CPU simulator's compiler on the sim backend)
   through ``pycudac._driver.compile_source``, then store the result.

The cache is safe to share with nothing: a directory owned by another user,
writable by others, or a symlink is refused with one CacheWarning; a corrupt
entry is a miss; a full or read-only disk means compiling without caching,
with one CacheWarning. ``PYCUDAC_DISABLE_CACHE=1`` turns the disk cache off;
``PYCUDAC_CACHE_MAX_BYTES`` caps its size (least recently used entries go).
"""
from __future__ import annotations

import inspect as _inspect
import os
import weakref
from collections.abc import Sequence
from typing import Literal

from pycudac import _driver, _pycuda_headers, _simcheck
from pycudac._compiler import cache as _cache
# (DEFAULT_CACHE_MAX_BYTES, cache_key, DynamicModule, DynamicSourceModule and
# DEFAULT_NVCC_FLAGS are this module's names too: imported to be re-exported)
from pycudac._compiler.cache import (DEFAULT_CACHE_MAX_BYTES, CacheWarning, _check_pch,  # noqa: F401
                                     _compile_cached, _stats, cache_clear, cache_key, cache_path,
                                     cache_stats)
from pycudac._compiler.includes import (_ENV_INCLUDE_VARS, _hidden_include_dirs,
                                        _include_fingerprint)
from pycudac._compiler.link import DynamicModule, DynamicSourceModule, link  # noqa: F401
from pycudac._compiler.options import (  # noqa: F401
    _EXPRS_EXAMPLE, _INCLUDES_EXAMPLE, _OPTIONS_EXAMPLE, _PATHS, DEFAULT_NVCC_FLAGS, _str_seq,
    normalize_options, target_for)
from pycudac._compiler.plan import _keep_outputs, _plan, _warn_nvcc
from pycudac._driver import CompileError, module_from_buffer, module_from_file


# A Module (src/core/module.c) reads its kernels' declarations from its
# source on the first get_function; the parser is imported then, not here
# (a warm start pays for every import).
def _parse_kernels(source):
    from pycudac._sigparse import parse_kernels
    return parse_kernels(source)


def _signature_for(signatures, name):
    from pycudac._sigparse import signature_for
    return signature_for(signatures, name)


_driver._register("parse_kernels", _parse_kernels)
_driver._register("signature_for", _signature_for)

# The cache key's SHA-256 is OpenSSL's, found through hashlib
# (src/compile/cache.c): set it up with this module, not inside the first lookup.
_driver.sha256_setup()


__all__ = [
    "SourceModule", "compile", "link", "module_from_buffer", "module_from_file", "CompileError",
    "CacheWarning", "cache_path", "cache_stats", "cache_clear", "clear_memo",
    "normalize_options", "target_for", "compile_plain", "get_nvcc_version",
]

#: The cache's format version (pycudac._compiler.cache holds it: bump it there).
CACHE_FORMAT_VERSION = _cache.CACHE_FORMAT_VERSION


# ---------------------------------------------------------------------------
# SourceModule

# SourceModules of the same source, options and context share their loaded
# module while it is in use; the memo never keeps one alive (a module nobody
# uses is unloaded, and so its context can be destroyed): key -> weak
# reference to the module, the key naming its context by a weak reference
# too (_driver.memo_get / memo_put, which the one-call warm path shares).
_memo = {}


def clear_memo():
    """Forget the modules kept for re-use in this process (they unload when
    nothing else holds them)."""
    _memo.clear()


_current_context = _driver.Context.get_current


def _build_module(source, options, no_extern_c, arch, code, cache_dir, include_dirs,
                  name_expressions, keep, pch=None):
    """Compile (or fetch) and load; returns the _driver.Module with its
    attributes (ptx, cubin, log, source, lowered, signatures...) set."""
    if not isinstance(source, str):
        raise TypeError(f"source must be str, not {type(source).__name__}")
    compiler, backend, plan, incs = _plan(options, include_dirs, arch, code, None, True)
    result = _compile_cached(source, plan, name_expressions, compiler, backend, no_extern_c,
                             incs, cache_dir, pch)
    # signatures: parsed from mod.source by the module at first get_function
    keep_dir = _keep_outputs(source, result, result["target"]) if keep else None
    return _driver.module_from_result(result, source, keep_dir)


def _source_module_init(self, source: str, nvcc: str | None = None,
                        options: Sequence[str] | None = None, keep: bool = False,
                        no_extern_c: bool = False, arch: str | None = None,
                        code: str | None = None,
                        cache_dir: str | os.PathLike[str] | Literal[False] | None = None,
                        include_dirs: Sequence[str] = [],  # noqa: B006
                        name_expressions: Sequence[str] | None = None,
                        pch: bool | None = None, *, _tried: bool = False) -> None:
    """SourceModule.__init__'s general path (SourceModuleBase's C __init__
    takes SourceModule(source) alone from the memo or the disk cache and
    calls this for everything else; _tried=True: it looked and missed)."""
    if nvcc is not None:
        _warn_nvcc()
    if pch is not None:
        _check_pch(pch)
    # the common case in one C call (src/compile/cache_warm.c): the memo, then the
    # disk cache, under the key built below; None: this path decides.
    # Headers reached by absolute path go into the key, which only the
    # general path builds (so do CPATH's, which only the simulator reads:
    # the one-call path is NVRTC's alone): the C call answers None for a
    # source that may include one, before any lookup.
    fast = (options is None and name_expressions is None and arch is None and code is None
            and not keep and not include_dirs and not _simcheck._instrumented())
    if fast and not _tried:
        mod = _driver.warm_source_module(source, no_extern_c, cache_dir, _memo, _stats,
                                         _cache.CACHE_FORMAT_VERSION)
        if mod is not None:
            self.module = mod
            return
    hidden = _hidden_include_dirs(source, None)
    if isinstance(source, str):
        # after the fast path (a source it changes is never stored under
        # its own text, so the fast path always misses those)
        source = _pycuda_headers.expand(source)
    opts = _str_seq(options, "options", _OPTIONS_EXAMPLE) if options else ()
    exprs = (_str_seq(name_expressions, "name_expressions", _EXPRS_EXAMPLE)
             if name_expressions else ())
    incs = _str_seq(include_dirs, "include_dirs", _INCLUDES_EXAMPLE, _PATHS) if include_dirs else ()
    if any(v in os.environ for v in _ENV_INCLUDE_VARS) and _driver.get_backend() == "sim":
        hidden = _hidden_include_dirs(source, "sim")
    fp = ()
    if incs or hidden or (opts and any(o.startswith(("-I", "--include-path")) for o in opts
                                       if isinstance(o, str))):
        fp = _include_fingerprint(list(incs) + normalize_options(opts)[3] + hidden)
    context = _current_context()
    # (warm_source_module builds this key too, for its arguments); check
    # mode's instrumented build is another module
    key = (source, opts, exprs, bool(no_extern_c), arch, code, incs, fp,
           None if context is None else weakref.ref(context))
    if _simcheck._instrumented():
        key += (True,)
    if fp is None:  # too many include files to fingerprint: no memo
        key = None
    try:
        mod = _driver.memo_get(_memo, key)
    except TypeError:  # an unhashable argument: no memo for this call
        key, mod = None, None
    if mod is not None and not keep:
        if cache_dir is not None and cache_dir is not False:
            _driver.cache_path(cache_dir)  # its TypeError: the memo never reads it
        _stats["memo_hits"] += 1
        self.module = mod
        return
    mod = None
    if (not fast and arch is None and code is None and not incs and not keep
            and not hidden and isinstance(source, str)):
        # the warm start from disk in one C call (src/compile/cache_warm.c); None:
        # a miss, or a case only the general path (_build_module) decides
        nvrtc_opts, opt_arch, opt_code, opt_incs = (normalize_options(opts) if opts
                                                    else ([], None, None, ()))
        if opt_arch is None and opt_code is None and not opt_incs:
            mod = _driver.cache_module(cache_dir, source, nvrtc_opts, exprs,
                                       bool(no_extern_c), _cache.CACHE_FORMAT_VERSION, context)
            if mod is not None:
                _stats["hits"] += 1
    if mod is None:
        mod = _build_module(source, list(opts) if options is not None else None,
                            no_extern_c, arch, code, cache_dir, incs, exprs, keep, pch)
    if key is not None:
        _driver.memo_put(_memo, key, mod)
    self.module = mod


class SourceModule(_driver.SourceModuleBase):
    """A CUDA C source string compiled and loaded into the current context
    (PyCUDA's SourceModule).

    The source is wrapped in extern "C" unless no_extern_c=True (then reach
    templates through name_expressions=["axpy<float>"]). `options` takes the
    nvcc flags NVRTC understands (-use_fast_math, --std=c++17, -DX, -Idir,
    -lineinfo, --maxrregcount=N, -G, -Xptxas ...); nvcc= is ignored. `arch`
    (e.g. "sm_80") overrides the device's architecture. `cache_dir` picks
    the cache directory (False: no disk cache). `keep=True` writes the
    source, image, PTX and log to a temporary directory and prints where.
    `pch` turns NVRTC's precompiled headers on (True) or off (False) for
    this compile; None (the default) uses them for a source that starts
    with `#include <...>` lines (PYCUDAC_PCH=1/0 changes that default).
    A compile whose leading #include lines and options match an earlier
    one's in this process then skips parsing those headers. PCH changes
    neither the result nor the cache key; a PCH failure never fails a
    compile; the simulator ignores it.

    Attributes: `module` (the loaded _driver.Module), `ptx` (NVRTC's PTX),
    `cubin` (when a CUBIN was made), `log`, `source`, `lowered` (name
    expression → mangled name), `signatures` (parsed from the source on
    first use), `arch`, `from_cache`."""

    # `module` and weak references are the C base's
    __slots__ = ()

    def get_function(self, name: str) -> _driver.Function:
        """The kernel `name` (or name expression) as a launchable Function."""
        return self.module.get_function(name)

    def get_global(self, name):
        """(device address, size in bytes) of a __device__/__constant__ variable."""
        return self.module.get_global(name)

    def get_texref(self, name):
        raise _driver.LogicError("texture references are not supported by pycudac "
                                 "(they were removed in CUDA 12); use texture objects")

    def __getattr__(self, name):
        # ptx, cubin, log, source, lowered, signatures, arch, image... live on the module
        try:
            return getattr(object.__getattribute__(self, "module"), name)
        except AttributeError:
            raise AttributeError(f"'SourceModule' object has no attribute {name!r}") from None

    def __setattr__(self, name, value):
        # a subclass's instance keeps its own attributes; a SourceModule has
        # none of its own but `module`: what it reads from its module is
        # shared by every SourceModule of the same source (the memo), so a
        # write there is refused by name, not made for all of them
        try:
            object.__setattr__(self, name, value)
        except AttributeError:
            if hasattr(type(self), name):
                raise
            try:
                module = object.__getattribute__(self, "module")
            except AttributeError:
                module = None
            if module is None or not hasattr(module, name):
                raise
            raise AttributeError(
                f"SourceModule.{name} is its module's (SourceModule.module), which every "
                f"SourceModule of the same source and options shares: set "
                f"sm.module.{name} to change it for all of them") from None

    def __repr__(self):
        return f"<pycudac SourceModule {self.module.arch} {self.module!r}>"


# SourceModuleBase's C __init__ (src/compile/cache_warm.c) reaches these; errors
# in the arguments name SourceModule.__init__, and so does help()
_source_module_init.__name__ = "__init__"
_source_module_init.__qualname__ = "SourceModule.__init__"
SourceModule.__signature__ = _inspect.signature(_source_module_init).replace(
    parameters=[p for p in list(_inspect.signature(_source_module_init).parameters.values())[1:]
                if not p.name.startswith("_")])
_driver._register("source_module_init", _source_module_init)
_driver._register("compile_memo", _memo)
_driver._register("compile_stats", _stats)
_driver._register("cache_format", _cache.CACHE_FORMAT_VERSION)
_driver._register("sim_instrumented", _simcheck._instrumented)


def compile(source: str, nvcc: str | None = None, options: Sequence[str] | None = None,
            keep: bool = False, no_extern_c: bool = False, arch: str | None = None,
            code: str | None = None,
            cache_dir: str | os.PathLike[str] | Literal[False] | None = None,
            include_dirs: Sequence[str] = [],  # noqa: B006
            target: Literal["cubin", "ptx", "ltoir", "sim"] = "cubin",
            name_expressions: Sequence[str] | None = None, pch: bool | None = None) -> bytes:
    """Compile CUDA C `source` and return the image bytes (PyCUDA's compile).

    target="cubin" (default), "ptx" or "ltoir" (relocatable LTO-IR, for
    link() or DynamicModule(lto=True)). With arch (e.g. "sm_90") no GPU is
    needed. Without it: the current device's architecture; on the simulator
    backend the result is the simulator's image (what module_from_buffer
    loads there). target="sim" asks for the simulator's image explicitly.
    pch: NVRTC's precompiled headers, as for SourceModule."""
    if nvcc is not None:
        _warn_nvcc()
    if target not in ("cubin", "ptx", "ltoir", "sim"):
        raise ValueError(f"target must be 'cubin', 'ptx', 'ltoir' or 'sim', not {target!r}")
    _check_pch(pch)
    if not isinstance(source, str):
        raise TypeError(f"source must be str, not {type(source).__name__}")
    source = _pycuda_headers.expand(source)
    if include_dirs:  # (options: normalize_options checks them)
        include_dirs = _str_seq(include_dirs, "include_dirs", _INCLUDES_EXAMPLE, _PATHS)
    if name_expressions:
        name_expressions = _str_seq(name_expressions, "name_expressions", _EXPRS_EXAMPLE)
    compiler, backend, plan, incs = _plan(options, include_dirs, arch, code, target, False)
    result = _compile_cached(source, plan, name_expressions, compiler, backend, no_extern_c,
                             incs, cache_dir, pch)
    tgt = result["target"]
    if keep:
        _keep_outputs(source, result, tgt)
    return result["image"]


def get_nvcc_version(nvcc: str | None = None) -> str:
    """PyCUDA's get_nvcc_version, for code that keys on the compiler: pycudac
    compiles with NVRTC (nvcc is not used, whatever `nvcc` names), so this
    is NVRTC's version, or the simulator's compiler on that backend."""
    if _driver.get_backend() == "sim":
        info = _driver.compiler_info("sim")
        return f"pycudac CPU simulator: {info['identity']} (nvcc is not used)"
    major, minor = _driver.nvrtc_version()
    return f"NVRTC {major}.{minor} (pycudac compiles with NVRTC; nvcc is not used)"


def compile_plain(source: str, options: Sequence[str], keep: bool, nvcc: str | None,
                  cache_dir: str | os.PathLike[str] | Literal[False] | None,
                  target: str = "cubin") -> bytes:
    """PyCUDA's compile_plain: `source` compiled as it is (no extern "C"
    wrapping, no architecture added but the current device's) to a cubin or
    PTX image, through pycudac's compile and cache. `nvcc` is ignored (NVRTC
    compiles); target "fatbin" has no NVRTC equivalent."""
    if target not in ("cubin", "ptx"):
        raise ValueError(f"compile_plain: target must be 'cubin' or 'ptx' (NVRTC makes no "
                         f"fatbin), not {target!r}")
    return compile(source, options=options or None, keep=keep,
                   no_extern_c=True, cache_dir=cache_dir if cache_dir else False,
                   target=target)
