"""The cache key, the on-disk cache (its store is src/compile/cache.c) and a
compile through it."""
from __future__ import annotations

import os
import time
import warnings
from typing import Any

from pycudac import _driver
from pycudac._driver import CompileError
from pycudac._compiler.includes import _hidden_include_dirs, _include_files, _IncludeTreeTooLarge
from pycudac._compiler.toolkit import _NO_CCCL, _NO_CRT, _compiler_identity, _system_includes

try:
    import zlib as _zlib
except ImportError:  # a Python built without zlib: entries keep their PTX as text
    _zlib = None
else:  # module.ptx of a warm start inflates the entry's PTX with it
    _driver._register("ptx_inflate", _zlib.decompress)

#: Bump when the payload layout or the key recipe changes, or what every
#: compile adds to the source (the extern "C++" around toolkit includes, the
#: C library stand-ins of src/compile/c_headers.c): old entries then simply
#: stop matching.
CACHE_FORMAT_VERSION = 6  # 5: a CUBIN entry's PTX compressed; 6: nvcc's environment (compile/wrap.c)

#: Default cap of the on-disk cache (PYCUDAC_CACHE_MAX_BYTES overrides).
DEFAULT_CACHE_MAX_BYTES = 1 << 30


class CacheWarning(UserWarning):
    """The compile cache could not be used (unsafe directory, disk full,
    read-only); compiling goes on without it."""


def _key_args(source, options, name_expressions, target, arch, compiler, backend,
              no_extern_c, includes):
    """cache_key's fields, in the order _driver.cache_key and cache_find take them;
    `includes` is _include_files' list (or empty). NVRTC's identity is left to
    the C side (None): one Python call less on a warm start."""
    kind, identity = ("nvrtc", None) if compiler == "nvrtc" else _compiler_identity(compiler)
    return (CACHE_FORMAT_VERSION, kind, identity, backend, target, arch, options,
            name_expressions or (), bool(no_extern_c), source, includes or None)


def cache_key(source, options, name_expressions, target, arch, compiler, backend,
              no_extern_c, include_dirs=()):
    """SHA-256 hex digest over everything that can change the compiled image
    (src/compile/cache_key.c: tagged, length-prefixed fields, so no two field lists
    hash alike)."""
    includes = _include_files(include_dirs) if include_dirs else None
    return _driver.cache_key(*_key_args(source, options, name_expressions, target, arch,
                                        compiler, backend, no_extern_c, includes))


# ---------------------------------------------------------------------------
# The on-disk cache (the store itself is src/compile/cache.c)

_stats = {"memo_hits": 0, "hits": 0, "misses": 0, "stores": 0, "store_errors": 0,
          "compiles": 0, "pch_created": 0, "pch_used": 0}
_dir_state = {}        # path -> None (usable) or the reason it is refused
_warned = set()        # (path, kind) pairs already warned about


def cache_path(cache_dir: str | os.PathLike[str] | None = None) -> str:
    """The cache directory: cache_dir, else $PYCUDAC_CACHE_DIR, else
    $XDG_CACHE_HOME/pycudac, else ~/.cache/pycudac (src/compile/cache_key.c)."""
    return _driver.cache_path(cache_dir)


_cache_disabled = _driver.cache_disabled


def _max_bytes():
    text = os.environ.get("PYCUDAC_CACHE_MAX_BYTES", "").strip()
    if not text:
        return DEFAULT_CACHE_MAX_BYTES
    try:
        value = int(text)
        if value < 0:
            raise ValueError
    except ValueError:
        _warn_once("env", "PYCUDAC_CACHE_MAX_BYTES", f"PYCUDAC_CACHE_MAX_BYTES={text!r} is not "
                   f"a byte count; using {DEFAULT_CACHE_MAX_BYTES}")
        return DEFAULT_CACHE_MAX_BYTES
    return value


def _warn_once(path, kind, message):
    if (path, kind) in _warned:
        return
    _warned.add((path, kind))
    warnings.warn(message, CacheWarning, stacklevel=4)


def _usable_dir(cache_dir, check=True):
    """The cache directory to use now, or None (disabled or refused).

    A lookup passes check=False: a load checks the directory through its own
    descriptor (ours, not writable by others, no symlink), so a warm hit
    needs no separate check; a miss comes back here with check=True (which
    also creates the directory) before anything is stored."""
    if cache_dir is False or _cache_disabled():
        return None
    path = cache_path(cache_dir)
    if path not in _dir_state:
        if not check:
            return path
        _dir_state[path] = _driver.cache_check_dir(path)
    reason = _dir_state[path]
    if reason is not None:
        _warn_once(path, "refused", f"pycudac compile cache {path} {reason}; compiling "
                   "without the cache")
        return None
    return path


def _encode_payload(result, target, arch):
    """A compile result as the bytes of a cache entry (format: src/compile/cache_key.c).
    The PTX goes in compressed (zlib: a third of its bytes, so a warm start
    reads and checks less; it is inflated when module.ptx is read)."""
    ptx = result.get("ptx")
    if isinstance(ptx, str) and ptx and _zlib is not None:
        ptx = _zlib.compress(ptx.encode("utf-8", "surrogatepass"), 6)
    return _driver.cache_encode(target, arch, result.get("log"), result["image"],
                                ptx, result["options"], result.get("lowered"))


def _check_pch(pch):
    if pch is not None and not isinstance(pch, bool):
        raise TypeError(f"pch must be True, False or None (automatic), not "
                        f"{type(pch).__name__}")
    return pch


def _pch_default():
    """What pch=None means: PYCUDAC_PCH=1 (always), 0 (never), or unset /
    'auto' (None: for sources that start with #include <...>)."""
    value = os.environ.get("PYCUDAC_PCH", "").strip().lower()
    if value in ("", "auto"):
        return None
    if value in ("1", "true", "yes", "on"):
        return True
    if value in ("0", "false", "no", "off"):
        return False
    _warn_once("env", "PYCUDAC_PCH", f"PYCUDAC_PCH={value!r} is not 1, 0 or auto; using auto")
    return None


def _compile_cached(source, plan, name_expressions, compiler, backend, no_extern_c,
                    include_dirs, cache_dir, pch=None):
    """compile_source's result dict, from the disk cache when possible; the
    dict also says `from_cache`, `key`, `target`, `arch` and `options`.

    plan(sure) -> (options, target, arch, sure): with sure=False it may guess
    the target (_device_target); a guess that misses is confirmed before
    anything is compiled or stored."""
    options, target, arch, sure = plan(False)
    include_dirs = list(include_dirs or ()) + _hidden_include_dirs(source, compiler)
    # the headers are read once (not again for a second target), and not at
    # all without a cache
    includes = None
    if include_dirs and _usable_dir(cache_dir, check=False) is not None:
        try:
            includes = _include_files(include_dirs)
        except _IncludeTreeTooLarge as exc:
            _warn_once(exc.directory, "includes", str(exc))
            cache_dir = False
    # one C call: directory, key, entry read, verify and decode
    path, key, result = _driver.cache_find(cache_dir, *_key_args(
        source, options, name_expressions, target, arch, compiler, backend, no_extern_c,
        includes))
    if result is None and not sure:
        guess = (target, arch)
        options, target, arch, sure = plan(True)
        if path is not None and (target, arch) != guess:
            path, key, result = _driver.cache_find(cache_dir, *_key_args(
                source, options, name_expressions, target, arch, compiler, backend,
                no_extern_c, includes))
    if result is not None:
        _stats["hits"] += 1
        result.update(from_cache=True, key=key, target=target, arch=arch)
        return result
    if path is not None:
        _stats["misses"] += 1
        path = _usable_dir(path)
    options = options + _system_includes(compiler)
    if pch is None:
        pch = _pch_default()
    try:
        result = _driver.compile_source(source, options, list(name_expressions or ()) or None,
                                        target, compiler, no_extern_c, pch, path)
    except CompileError as exc:
        if compiler == "nvrtc" and ('cannot open source file "nv/' in str(exc) or
                                    'cannot open source file "cuda/std/' in str(exc)):
            exc.args = (f"{exc.args[0] if exc.args else exc}\n\n{_NO_CCCL}",) + exc.args[1:]
        elif compiler == "nvrtc" and 'cannot open source file "crt/' in str(exc):
            exc.args = (f"{exc.args[0] if exc.args else exc}\n\n{_NO_CRT}",) + exc.args[1:]
        raise
    _stats["compiles"] += 1
    if result.get("pch") in ("created", "used"):
        _stats["pch_" + result["pch"]] += 1
    result.update(from_cache=False, key=key, target=target, arch=arch, options=options)
    if path is not None:
        try:
            _driver.cache_store(path, key, _encode_payload(result, target, arch), _max_bytes())
            _stats["stores"] += 1
        except OSError as exc:
            _stats["store_errors"] += 1
            _warn_once(path, "store", f"pycudac could not write to its compile cache "
                       f"({exc}); compiling without caching")
    return result


def cache_stats(cache_dir: str | os.PathLike[str] | None = None) -> dict[str, Any]:
    """What is in the cache directory, and this process's hit/miss counts."""
    path = cache_path(cache_dir)
    entries = size = 0
    refused = None
    if os.path.isdir(path) and not os.path.islink(path):
        refused = _driver.cache_check_dir(path, create=False)
        with os.scandir(path) as it:
            for e in it:
                if e.name.endswith(".pcc") and e.is_file(follow_symlinks=False):
                    try:  # another process may evict or clear it meanwhile
                        size += e.stat(follow_symlinks=False).st_size
                    except FileNotFoundError:
                        continue
                    entries += 1
    elif os.path.islink(path):
        refused = "is a symbolic link"
    return {"path": path, "entries": entries, "bytes": size, "max_bytes": _max_bytes(),
            "enabled": not _cache_disabled() and refused is None, "refused": refused,
            "process": dict(_stats)}


def cache_clear(cache_dir: str | os.PathLike[str] | None = None) -> int:
    """Removes every entry of the cache directory, and the temporary files a
    crashed writer left (those older than a few minutes: a younger one is a
    store in flight, in this process or another); returns how many files were
    removed. Touches nothing in a directory the cache would refuse."""
    path = cache_path(cache_dir)
    if not os.path.isdir(path) or os.path.islink(path):
        return 0
    reason = _driver.cache_check_dir(path, create=False)
    if reason is not None:
        raise PermissionError(f"refusing to clear {path}: it {reason}")
    removed = 0
    with os.scandir(path) as it:
        for e in it:
            if not e.is_file(follow_symlinks=False):
                continue
            if e.name.startswith(".tmp-"):
                try:
                    age = time.time() - e.stat(follow_symlinks=False).st_mtime
                except FileNotFoundError:
                    continue
                if age < _driver.CACHE_STALE_TMP_S:
                    continue
            if e.name.endswith(".pcc") or e.name.startswith(".tmp-"):
                try:
                    os.unlink(e.path)
                    removed += 1
                except FileNotFoundError:
                    pass
    return removed
