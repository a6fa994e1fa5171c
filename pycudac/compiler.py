"""pycudac.compiler — CUDA C source strings to loaded modules (PyCUDA's names).

    mod = SourceModule('''
        __global__ void double_array(float *a) { a[threadIdx.x] *= 2; }
    ''')
    double_array = mod.get_function("double_array")

What happens, cheapest first:

1. In-process memo: a SourceModule of the same source, options and include
   files in the same context returns the module already loaded (no hashing,
   no disk, no driver call).
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

import os
import re
import stat
import sys
import tempfile
import time
import warnings
import weakref
from collections.abc import Sequence
from typing import Any, Literal

from pycudac import _driver, _pycuda_headers, _simcheck
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
    "normalize_options", "target_for",
]

#: Bump when the payload layout or the key recipe changes, or what every
#: compile adds to the source (the extern "C++" around toolkit includes, the
#: C library stand-ins of src/compile/c_headers.c): old entries then simply
#: stop matching.
CACHE_FORMAT_VERSION = 4

#: Default cap of the on-disk cache (PYCUDAC_CACHE_MAX_BYTES overrides).
DEFAULT_CACHE_MAX_BYTES = 1 << 30


class CacheWarning(UserWarning):
    """The compile cache could not be used (unsafe directory, disk full,
    read-only); compiling goes on without it."""


def _str_seq(value, name, example, kinds=(str,)):
    """A list-of-str argument (options, include_dirs, name_expressions) as a
    tuple; include_dirs also takes os.PathLike items (`kinds`). A single str
    is refused: iterated, it would be its characters (include_dirs="/usr"
    would hash every header under /)."""
    if isinstance(value, (str, bytes, os.PathLike)):
        raise TypeError(f"{name} must be a list of str (e.g. {example}), not a single "
                        f"{type(value).__name__}")
    try:
        items = tuple(value)
    except TypeError:
        raise TypeError(f"{name} must be a list of str (e.g. {example}), not "
                        f"{type(value).__name__}") from None
    for k, item in enumerate(items):
        if not isinstance(item, kinds):
            raise TypeError(f"{name} must be a list of str (e.g. {example}); item {k} is "
                            f"{type(item).__name__}")
    return items


_OPTIONS_EXAMPLE = "['-use_fast_math', '-DN=4']"

#: PyCUDA's name for the options every compile gets first: none here (NVRTC
#: needs no -I of pycudac's own headers); a list, so PyCUDA code that adds
#: it to its options keeps working.
DEFAULT_NVCC_FLAGS = []
_INCLUDES_EXAMPLE = "['/path/to/headers']"
_PATHS = (str, os.PathLike)
_EXPRS_EXAMPLE = "['axpy<float>']"


# ---------------------------------------------------------------------------
# nvcc options → NVRTC options

# Flags that NVRTC takes as they are, under every spelling PyCUDA users write.
_FLAGS = {
    "-use_fast_math": "--use_fast_math", "--use_fast_math": "--use_fast_math",
    "-use-fast-math": "--use_fast_math",
    "-lineinfo": "--generate-line-info", "--generate-line-info": "--generate-line-info",
    "-G": "--device-debug", "--device-debug": "--device-debug",
    "-restrict": "--restrict", "--restrict": "--restrict",
    "-w": "--disable-warnings", "--disable-warnings": "--disable-warnings",
    "-default-device": "--device-as-default-execution-space",
    "--device-as-default-execution-space": "--device-as-default-execution-space",
    "-extra-device-vectorization": "--extra-device-vectorization",
    "--extra-device-vectorization": "--extra-device-vectorization",
    "-device-int128": "--device-int128", "--device-int128": "--device-int128",
    "-src-in-ptx": "--source-in-ptx", "--source-in-ptx": "--source-in-ptx",
}

# Options that only matter to nvcc's host compiler or pick an output kind we
# choose ourselves: accepted and dropped. (-O3 etc.: device code is always
# optimized unless -G.)
_DROPPED = {"-O0", "-O1", "-O2", "-O3", "-Os", "-m64", "--machine=64", "-cubin", "--cubin",
            "-ptx", "--ptx", "-c", "--compile"}
_DROPPED_WITH_VALUE = {"-Xcompiler", "--compiler-options", "-ccbin", "--compiler-bindir"}

# Options with a value: spelling → (canonical NVRTC spelling, value check).
_BOOL = ("true", "false")
_VALUED = {
    "-D": "-D", "--define-macro": "-D",
    "-U": "-U", "--undefine-macro": "-U",
    "-I": "-I", "--include-path": "-I",
    "-std": "--std", "--std": "--std",
    "-maxrregcount": "--maxrregcount", "--maxrregcount": "--maxrregcount",
    "-arch": "arch", "--gpu-architecture": "arch",
    "-code": "code", "--gpu-code": "code",
    "-Xptxas": "--ptxas-options", "--ptxas-options": "--ptxas-options",
    "-ftz": "--ftz", "--ftz": "--ftz",
    "-prec-div": "--prec-div", "--prec-div": "--prec-div",
    "-prec-sqrt": "--prec-sqrt", "--prec-sqrt": "--prec-sqrt",
    "-fmad": "--fmad", "--fmad": "--fmad",
    "-include": "--pre-include", "--pre-include": "--pre-include",
    "-diag-suppress": "--diag-suppress", "--diag-suppress": "--diag-suppress",
    "-diag-error": "--diag-error", "--diag-error": "--diag-error",
    "-diag-warn": "--diag-warn", "--diag-warn": "--diag-warn",
    "-dopt": "--dopt", "--dopt": "--dopt",
    "-split-compile": "--split-compile", "--split-compile": "--split-compile",
}
_STDS = ("c++03", "c++11", "c++14", "c++17", "c++20")
_REJECTED = {
    "-rdc": "relocatable device code needs a device linker, which pycudac does not run",
    "--relocatable-device-code": "relocatable device code needs a device linker, which "
                                 "pycudac does not run",
    "-dc": "separate compilation needs a device linker, which pycudac does not run",
}


def _check_value(canon, opt, value):
    if value == "":
        raise ValueError(f"option {opt!r} needs a value")
    if canon == "--std" and value not in _STDS:
        raise ValueError(f"option {opt!r}: the C++ standard must be one of {', '.join(_STDS)}, "
                         f"not {value!r}")
    if canon == "--maxrregcount" and not (value.isdigit() and int(value) > 0):
        raise ValueError(f"option {opt!r}: --maxrregcount needs a positive integer, "
                         f"not {value!r}")
    if canon in ("--ftz", "--prec-div", "--prec-sqrt", "--fmad") and value not in _BOOL:
        raise ValueError(f"option {opt!r}: {canon} must be 'true' or 'false', not {value!r}")
    if canon == "--dopt" and value not in ("on", "off"):
        raise ValueError(f"option {opt!r}: --dopt must be 'on' or 'off', not {value!r}")


def normalize_options(options):
    """Translate nvcc-style options into NVRTC's.

    Returns (nvrtc_options, arch, code, include_dirs): the NVRTC options in
    canonical spelling (order kept, include paths and the architecture taken
    out), the -arch/-code values if given (else None), and the -I
    directories. Unknown options are a ValueError naming the option."""
    if options is None:
        return [], None, None, []
    items = list(_str_seq(options, "options", _OPTIONS_EXAMPLE))
    out, incs = [], []
    arch = code = None
    i = 0
    while i < len(items):
        opt = items[i]
        if not isinstance(opt, str):
            raise TypeError(f"options must be str, not {type(opt).__name__} ({opt!r})")
        i += 1
        if opt in _FLAGS:
            out.append(_FLAGS[opt])
            continue
        if opt in _DROPPED:
            continue
        if opt in _DROPPED_WITH_VALUE:
            i += 1
            continue
        if opt.startswith(("-Xcompiler=", "--compiler-options=", "-ccbin=",
                           "--compiler-bindir=")):
            continue
        if opt[:2] in ("-D", "-U", "-I") and len(opt) > 2:
            # -DNAME[=VALUE], -UNAME, -Idir glued to their value
            name, eq, value = opt[:2], "=", opt[2:]
        else:
            name, eq, value = opt.partition("=")
        if name in _REJECTED:
            raise ValueError(f"option {opt!r} is not supported: {_REJECTED[name]}")
        canon = _VALUED.get(name)
        if canon is None:
            raise ValueError(
                f"option {opt!r} is not supported by pycudac's NVRTC compile; accepted: "
                "-use_fast_math, --std=c++NN, -DNAME[=VAL], -UNAME, -Idir, -lineinfo, "
                "--maxrregcount=N, -G, -Xptxas <opts>, --ftz/--prec-div/--prec-sqrt/--fmad="
                "true|false, -arch=sm_XY, -include file, --diag-suppress=N, -restrict, -w "
                "(and -O*, -m64, -Xcompiler, which are dropped)")
        if not eq:
            if i >= len(items) or not isinstance(items[i], str):
                raise ValueError(f"option {opt!r} needs a value")
            value = items[i]
            i += 1
        _check_value(canon, opt, value)
        if canon == "arch":
            arch = value
        elif canon == "code":
            code = value
        elif canon == "-I":
            incs.append(value)
        elif canon in ("-D", "-U"):
            out.append(canon + value)
        else:
            out.append(f"{canon}={value}")
    return out, arch, code, incs


# ---------------------------------------------------------------------------
# Target architecture

def _parse_arch(arch):
    """'sm_90' / 'compute_90' / 'sm_90a' / '90' / 90 / (9, 0) → (number, kind, suffix)."""
    if isinstance(arch, tuple) and len(arch) == 2:
        return int(arch[0]) * 10 + int(arch[1]), "sm", ""
    if isinstance(arch, int) and not isinstance(arch, bool):
        if arch <= 0:
            raise ValueError(f"arch must look like 'sm_90' or be a positive number, not {arch!r}")
        return arch, "sm", ""
    if not isinstance(arch, str):
        raise TypeError(f"arch must be a str like 'sm_90', not {type(arch).__name__}")
    s = arch.strip().lower()
    kind = "sm"
    for prefix in ("sm_", "compute_"):
        if s.startswith(prefix):
            kind, s = prefix[:-1], s[len(prefix):]
            break
    suffix = ""
    while s and s[-1].isalpha():
        suffix = s[-1] + suffix
        s = s[:-1]
    if not s.isdigit() or suffix not in ("", "a", "f"):
        raise ValueError(f"arch must look like 'sm_90', 'compute_80' or 'sm_90a', not {arch!r}")
    return int(s), kind, suffix


def target_for(arch=None, code=None, target=None):
    """(target, arch string) that NVRTC compiles for.

    With arch/code given: that architecture ('compute_XY' or target='ptx'
    makes PTX, else CUBIN) — no GPU needed. Without: the current device's
    sm_XY as CUBIN when NVRTC supports it, else PTX for the newest
    compute_XY NVRTC supports below it (the driver JIT-compiles it).
    target='ltoir': LTO-IR for that architecture (nvJitLink links it for
    the GPU)."""
    if code is not None:
        arch = code
    if target == "ltoir":
        if arch is None:
            major, minor = _driver.Context.get_device().compute_capability()
            return "ltoir", f"sm_{major}{minor}"
        num, kind, suffix = _parse_arch(arch)
        return "ltoir", f"{kind}_{num}{suffix}"
    if arch is not None:
        num, kind, suffix = _parse_arch(arch)
        if target == "ptx" or kind == "compute":
            return "ptx", f"compute_{num}{suffix}"
        return "cubin", f"sm_{num}{suffix}"
    major, minor = _driver.Context.get_device().compute_capability()
    cc = major * 10 + minor
    supported = _nvrtc_facts()[1]
    if target != "ptx" and cc in supported:
        return "cubin", f"sm_{cc}"
    older = [a for a in supported if a <= cc]
    if not older:
        maj, mnr = _driver.nvrtc_version()
        raise CompileError(
            f"NVRTC {maj}.{mnr} cannot compile for this GPU (compute capability {major}.{minor}); "
            f"it supports sm_{min(supported)} and newer. Use an older CUDA toolkit's NVRTC "
            "(PYCUDAC_NVRTC=/path/to/libnvrtc.so).")
    return "ptx", f"compute_{max(older)}"


def _device_target(target, sure):
    """(target, arch, sure) for the current device when no arch is given.

    Choosing between the device's CUBIN and PTX for an older architecture
    needs NVRTC's list of architectures, and loading NVRTC costs
    milliseconds. Unless `sure` is asked for (or NVRTC is loaded already),
    this guesses the device's own architecture, which is right unless the
    GPU is newer than NVRTC; the cache lookup checks the guess against the
    entry and asks again, sure, before anything is compiled."""
    if sure or "nvrtc-facts" in _info_cache or target == "ltoir":
        return (*target_for(None, None, target), True)
    major, minor = _driver.Context.get_device().compute_capability()
    if target == "ptx":
        return "ptx", f"compute_{major}{minor}", False
    return "cubin", f"sm_{major}{minor}", False


def _nvrtc_plan(options, incs, arch, code, target):
    """plan(sure) -> (NVRTC options, target, arch, sure) for _compile_cached.
    The toolkit's own include directories are not among these options: they
    follow from NVRTC's identity and CUDA_HOME/CUDA_PATH, which the key
    holds, and finding them costs stats a warm hit need not pay."""
    tail = [f"-I{d}" for d in incs]

    def plan(sure):
        if arch is None and code is None:
            tgt, arch_s, sure = _device_target(target, sure)
        else:
            (tgt, arch_s), sure = target_for(arch, code, target), True
        lto = ["--dlink-time-opt"] if tgt == "ltoir" else []
        return options + [f"--gpu-architecture={arch_s}"] + lto + tail, tgt, arch_s, sure
    return plan


# ---------------------------------------------------------------------------
# The compiler's identity: the cache key names it

_info_cache = {}


def _nvrtc_identity():
    """'path size=N mtime=T ino=I dev=D' of the NVRTC library a compile
    would use (`_driver.nvrtc_identity`), found with stat alone where it can
    be: a warm hit in a fresh process never loads NVRTC. The file fixes
    NVRTC's version, so the key needs nothing more from it."""
    return _driver.nvrtc_key_identity().split("\0", 1)[0]


def _nvrtc_facts():
    """(compiler_info dict, supported architectures) of the NVRTC in use.
    Asking loads NVRTC, so only a compile or a target choice needs these."""
    facts = _info_cache.get("nvrtc-facts")
    if facts is None:
        info = _driver.compiler_info("nvrtc")
        facts = (info, frozenset(_driver.nvrtc_supported_archs()))
        _info_cache["nvrtc-facts"] = facts
    return facts


def _toolkit_roots(nvrtc_lib):
    """Where a CUDA toolkit may be, first the one NVRTC (the library file
    `nvrtc_lib`, or None) came with: its lib directory's parent (also a pip
    wheel's root), then $CUDA_HOME, $CUDA_PATH and /usr/local/cuda."""
    roots = [os.path.dirname(os.path.dirname(nvrtc_lib))] if nvrtc_lib else []
    roots += [os.environ.get(v) for v in ("CUDA_HOME", "CUDA_PATH")] + ["/usr/local/cuda"]
    return [r for r in roots if r]


def _toolkit_includes(identity):
    """Include directories of the toolkit that NVRTC (`identity`) belongs
    to, so that `#include <cuda_fp16.h>` and <cooperative_groups.h> resolve
    as with nvcc: its include directory, and CCCL's (nv/target, cuda/std),
    which the headers of CUDA 12.x and 13 need. A pip wheel's NVRTC ships
    without CCCL: it is then the nvidia-cuda-cccl wheel's or a toolkit's
    (_cccl_include). The key names the NVRTC build already, and these
    directories are among the options the key hashes."""
    for root in _toolkit_roots(identity.split(" size=")[0]):
        inc = os.path.join(root, "include")
        if os.path.isfile(os.path.join(inc, "cuda_fp16.h")):
            if _is_cccl(inc):
                return (inc,)
            cccl = _cccl_include(os.path.join(inc, "cccl"))
            return (inc, cccl[0]) if cccl else (inc,)
    return ()


#: What tells a directory holds CCCL's headers: NVRTC's CUDA headers include
#: <nv/target>, libcu++ is <cuda/std/...>.
_CCCL_MARKS = (("nv", "target"), ("cuda", "std", "version"))


def _is_cccl(d):
    return all(os.path.isfile(os.path.join(d, *m)) for m in _CCCL_MARKS)


def _cccl_include(first=None):
    """CCCL's include directory (nv/target, libcu++'s <cuda/std/...>):
    `first` (the one beside NVRTC's headers), a CUDA toolkit's include/cccl
    ($CUDA_HOME, $CUDA_PATH, /usr/local/cuda), else a wheel's on sys.path
    (nvidia-cuda-cccl: nvidia/*/include[/cccl]); None when there is none
    (the compile error then says what provides it). (directory, identity:
    the directory and its version file's size and time, for the key)."""
    key = ("cccl", first, os.environ.get("CUDA_HOME"), os.environ.get("CUDA_PATH"))
    if key in _info_cache:
        return _info_cache[key]
    cands = ([first] if first else []) + [
        os.path.join(r, "include", "cccl") for r in _toolkit_roots(None)]
    for base in sys.path:
        nv = os.path.join(base or ".", "nvidia")
        if os.path.isdir(nv):
            for sub in sorted(os.listdir(nv)):
                cands += [os.path.join(nv, sub, "include", "cccl"), os.path.join(nv, sub, "include")]
    found = None
    for d in cands:
        if _is_cccl(d):
            st = os.stat(os.path.join(d, *_CCCL_MARKS[1]))
            found = (d, f"{d} size={st.st_size} mtime={int(st.st_mtime)}")
            break
    _info_cache[key] = found
    return found


_NO_CCCL = ("CCCL's headers (nv/target, cuda/std/...), which CUDA's own headers include, were "
            "not found beside NVRTC's include directory, in a CUDA toolkit ($CUDA_HOME, "
            "$CUDA_PATH, /usr/local/cuda: include/cccl) or in a wheel on sys.path: install "
            "the nvidia-cuda-cccl wheel of NVRTC's CUDA version (pip install nvidia-cuda-cccl; "
            "for CUDA 12: nvidia-cuda-cccl-cu12), or point CUDA_HOME at a toolkit")


def _system_includes(compiler):
    """-I options for the toolkit's own headers, searched after the user's
    directories; for the simulator (which brings its own CUDA headers) only
    libcu++, as a system directory."""
    if compiler == "sim":
        cccl = _cccl_include()
        return [f"--pycudac-sim-system-include={cccl[0]}"] if cccl else []
    if compiler != "nvrtc":
        return []
    ident = _nvrtc_identity()
    env = (ident, os.environ.get("CUDA_HOME"), os.environ.get("CUDA_PATH"))
    incs = _info_cache.get(env)
    if incs is None:
        incs = _info_cache[env] = [f"-I{d}" for d in _toolkit_includes(ident)]
    return incs


def _compiler_identity(compiler):
    """(kind, identity) of `compiler` for the key: NVRTC's library file, or
    the simulator's compiler and version."""
    if compiler == "nvrtc":  # with what decides its toolkit include directories
        return "nvrtc", _driver.nvrtc_key_identity()
    info = _info_cache.get(compiler)
    if info is None:
        info = _info_cache[compiler] = _driver.compiler_info(compiler)
    cccl = _cccl_include() if compiler == "sim" else None
    return info["kind"], (f"{info['identity']} version={info['version']}"
                          + (f" cccl={cccl[1]}" if cccl else ""))


#: The files under include_dirs go into the key whole. Past this many files
#: or bytes a compile skips the disk cache (one warning) rather than read a
#: whole tree (include_dirs=["/usr"]) on every call; past the file count the
#: in-process memo too, whose key stats each file.
INCLUDE_MAX_FILES = 4096
INCLUDE_MAX_BYTES = 64 << 20


class _IncludeTreeTooLarge(ValueError):
    def __init__(self, directory):
        super().__init__(
            f"include_dirs entry {directory!r} holds more than {INCLUDE_MAX_FILES} files or "
            f"{INCLUDE_MAX_BYTES >> 20} MiB; the cache key reads every file under "
            "include_dirs, so this compile is not cached (point include_dirs at the headers' "
            "own directory)")
        self.directory = directory


def _walk_includes(dirs):
    """(dir index, dir, path, stat) of every regular file under dirs, in a
    sorted walk (directory symlinks are not followed); _IncludeTreeTooLarge
    past INCLUDE_MAX_FILES."""
    n = 0
    for k, d in enumerate(dirs):
        if not os.path.isdir(d):
            continue
        for root, subdirs, files in os.walk(d):
            subdirs.sort()
            for name in sorted(files):
                path = os.path.join(root, name)
                try:
                    st = os.stat(path)
                except OSError:
                    continue
                if not stat.S_ISREG(st.st_mode):
                    continue
                n += 1
                if n > INCLUDE_MAX_FILES:
                    raise _IncludeTreeTooLarge(d)
                yield k, d, path, st


def _include_files(dirs):
    """[(dir index, relative path, bytes)] of every regular file under dirs;
    _IncludeTreeTooLarge past INCLUDE_MAX_FILES files or INCLUDE_MAX_BYTES."""
    out, total = [], 0
    for k, d, path, st in _walk_includes(dirs):
        total += st.st_size
        if total > INCLUDE_MAX_BYTES:
            raise _IncludeTreeTooLarge(d)
        try:
            with open(path, "rb") as f:
                data = f.read()
        except OSError:
            continue
        out.append((k, os.path.relpath(path, d), data))
    return out


_ABS_INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*["<](/[^">\n]+)[">]', re.M)
_ENV_INCLUDE_VARS = ("CPATH", "C_INCLUDE_PATH", "CPLUS_INCLUDE_PATH")


def _special_file(path):
    """Whether path is what no compile may read: a device, FIFO or socket, or
    anything under /dev, /proc or /sys (the compilers refuse such includes)."""
    if path.startswith(("/dev/", "/proc/", "/sys/")):
        return True
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return False
    return not (stat.S_ISREG(mode) or stat.S_ISDIR(mode))


def _hidden_include_dirs(source, compiler):
    """Directories whose headers can change the binary though they reach the
    compiler neither as include_dirs nor as -I: those of headers included by
    absolute path (followed into those headers, up to 64 of them) and, for
    the simulator's C++ compiler, CPATH, C_INCLUDE_PATH and
    CPLUS_INCLUDE_PATH (NVRTC reads no environment). Their files go into the
    cache key as include_dirs' do, or the compile skips the cache."""
    dirs = []
    if isinstance(source, str) and ('"/' in source or "</" in source) and "include" in source:
        seen, todo = set(), [source]
        while todo and len(seen) < 64:
            for path in _ABS_INCLUDE.findall(todo.pop()):
                if path in seen:
                    continue
                seen.add(path)
                if _special_file(path):
                    continue  # never opened (a FIFO blocks): the compiler refuses it
                if os.path.dirname(path) not in dirs:
                    dirs.append(os.path.dirname(path))
                try:
                    with open(path, encoding="utf-8", errors="replace") as f:
                        todo.append(f.read(1 << 20))
                except OSError:
                    pass
    if compiler == "sim":
        for var in _ENV_INCLUDE_VARS:
            for d in os.environ.get(var, "").split(os.pathsep):
                if d and d not in dirs:
                    dirs.append(d)
    return dirs


def _include_fingerprint(dirs):
    """Cheap stand-in for the include files in the memo key: path, size and
    mtime of each (the disk key hashes their bytes); None (no memo) past
    INCLUDE_MAX_FILES."""
    out = [(d, None) for d in dirs if not os.path.isdir(d)]
    try:
        out += [(path, st.st_size, st.st_mtime_ns, st.st_ino)
                for _, _, path, st in _walk_includes(dirs)]
    except _IncludeTreeTooLarge:
        return None
    return tuple(out)


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
    """A compile result as the bytes of a cache entry (format: src/compile/cache_key.c)."""
    return _driver.cache_encode(target, arch, result.get("log"), result["image"],
                                result.get("ptx"), result["options"], result.get("lowered"))


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


# ---------------------------------------------------------------------------
# SourceModule

# SourceModules of the same source, options and context share their loaded
# module while it is in use; the memo never keeps one alive (a module nobody
# uses is unloaded, and so its context can be destroyed): key -> weak
# reference to the module, the key naming its context by a weak reference
# too (_driver.memo_get / memo_put, which the one-call warm path shares).
_memo = {}
_nvcc_warned = False


def clear_memo():
    """Forget the modules kept for re-use in this process (they unload when
    nothing else holds them)."""
    _memo.clear()


_current_context = _driver.Context.get_current


def _keep_outputs(source, result, target):
    d = tempfile.mkdtemp(prefix="pycudac-keep-")
    with open(os.path.join(d, "kernel.cu"), "w") as f:
        f.write(source)
    ext = {"cubin": "cubin", "ptx": "ptx", "ltoir": "ltoir", "sim": "simimg"}[target]
    with open(os.path.join(d, "kernel." + ext), "wb") as f:
        f.write(result["image"])
    if result.get("ptx") and target != "ptx":
        with open(os.path.join(d, "kernel.ptx"), "w") as f:
            f.write(result["ptx"])
    with open(os.path.join(d, "compile.log"), "w") as f:
        f.write(result.get("log") or "")
    print(f"*** compiler output in {d}", file=sys.stderr)
    return d


def _warn_nvcc():
    global _nvcc_warned
    if not _nvcc_warned:
        _nvcc_warned = True
        warnings.warn("SourceModule(nvcc=...) is ignored: pycudac compiles with NVRTC",
                      UserWarning, stacklevel=3)


def _plan(options, include_dirs, arch, code, target, for_module):
    """(compiler, backend, plan, include dirs) of one compile request: the
    simulator's compiler for a module on the sim backend, for target="sim",
    and for compile() there without an architecture; NVRTC otherwise."""
    nvrtc_opts, opt_arch, opt_code, opt_incs = normalize_options(options)
    incs = [os.fspath(d) for d in include_dirs] + opt_incs if include_dirs else opt_incs
    arch = arch if arch is not None else opt_arch
    code = code if code is not None else opt_code
    for a in (arch, code):
        if a is not None:
            _parse_arch(a)  # a malformed one is refused on every backend
    if target == "sim" or ((for_module or (arch is None and code is None)) and
                           _driver.get_backend() == "sim"):
        if target in ("ptx", "ltoir"):
            raise ValueError(f"compile(target={target!r}) needs arch= (e.g. arch='sm_90') on a "
                             "machine without a CUDA GPU")
        opts = nvrtc_opts + [f"-I{d}" for d in incs]
        if _simcheck._instrumented():  # check mode's build: its own cache entry
            opts.append("--pycudac-sim-check")
        return "sim", "sim", lambda sure: (opts, "sim", "sim", True), incs
    # the key says "nvrtc" as backend on both backends: NVRTC's output does
    # not depend on which one loads it, so compile(arch=...) shares entries
    return "nvrtc", "nvrtc", _nvrtc_plan(nvrtc_opts, incs, arch, code, target), incs


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


class SourceModule:
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

    __slots__ = ("module", "__weakref__")

    def __init__(self, source: str, nvcc: str | None = None,
                 options: Sequence[str] | None = None, keep: bool = False,
                 no_extern_c: bool = False, arch: str | None = None, code: str | None = None,
                 cache_dir: str | os.PathLike[str] | Literal[False] | None = None,
                 include_dirs: Sequence[str] = [],  # noqa: B006
                 name_expressions: Sequence[str] | None = None,
                 pch: bool | None = None) -> None:
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
        if fast:
            mod = _driver.warm_source_module(source, no_extern_c, cache_dir, _memo, _stats,
                                             CACHE_FORMAT_VERSION)
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
                                           bool(no_extern_c), CACHE_FORMAT_VERSION, context)
                if mod is not None:
                    _stats["hits"] += 1
        if mod is None:
            mod = _build_module(source, list(opts) if options is not None else None,
                                no_extern_c, arch, code, cache_dir, incs, exprs, keep, pch)
        if key is not None:
            _driver.memo_put(_memo, key, mod)
        self.module = mod

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

    def __repr__(self):
        return f"<pycudac SourceModule {self.module.arch} {self.module!r}>"


# ---------------------------------------------------------------------------
# Linked modules: device code in pieces, linked by the driver (dynamic
# parallelism needs its device runtime, libcudadevrt.a, linked in)

def _compile_relocatable(source, options, no_extern_c, arch, code, include_dirs, cache_dir,
                         keep, target="ptx"):
    """PTX of `source` compiled with relocatable device code (what the
    driver's linker takes), or its LTO-IR (target="ltoir", for nvJitLink),
    through the compile cache like compile()."""
    if not isinstance(source, str):
        raise TypeError(f"add_source: source must be str, not {type(source).__name__}")
    source = _pycuda_headers.expand(source)
    if include_dirs:
        include_dirs = _str_seq(include_dirs, "include_dirs", _INCLUDES_EXAMPLE, _PATHS)
    compiler, backend, plan, incs = _plan(options, include_dirs, arch, code, target, False)

    def relocatable(sure):
        opts, target_, arch_, sure = plan(sure)
        if target_ != "ltoir":  # (--dlink-time-opt implies it)
            opts = opts + ["--relocatable-device-code=true"]
        return opts, target_, arch_, sure
    result = _compile_cached(source, relocatable, None, compiler, backend, no_extern_c, incs,
                             cache_dir)
    if keep:
        _keep_outputs(source, result, result["target"])
    return result["image"]


def _link_arch(arch, code):
    """'sm_XY' that nvJitLink links for: arch/code's number, else the
    current device's."""
    a = code if code is not None else arch
    if a is None:
        major, minor = _driver.Context.get_device().compute_capability()
        return f"sm_{major}{minor}"
    num, _, suffix = _parse_arch(a)
    return f"sm_{num}{suffix}"


def _link_inputs(objects):
    """link()'s objects as jitlink's (input type, bytes, path, name)."""
    from pycudac.driver import jit_input_type
    if isinstance(objects, (str, bytes, bytearray, memoryview, os.PathLike)):
        raise TypeError("link: objects must be a list of objects to link (bytes, PTX str, "
                        f"paths or (data, jit_input_type) pairs), not a single "
                        f"{type(objects).__name__}")
    out = []
    for k, obj in enumerate(objects):
        kind = None
        if isinstance(obj, tuple) and len(obj) == 2:
            obj, kind = obj
            try:
                kind = int(jit_input_type(kind))
            except ValueError:
                raise ValueError(f"link: objects[{k}]: {kind!r} is not a jit_input_type") from None
        if isinstance(obj, os.PathLike):
            path = os.fspath(obj)
            if not os.path.isfile(path):
                raise FileNotFoundError(f"link: objects[{k}]: {path!r} is not a file")
            out.append((kind, None, path, os.path.basename(path)))
        elif isinstance(obj, str):
            out.append((int(jit_input_type.PTX) if kind is None else kind, obj.encode(), None,
                        f"object{k}.ptx"))
        elif isinstance(obj, (bytes, bytearray, memoryview)):
            out.append((kind, bytes(obj), None, f"object{k}"))
        else:
            raise TypeError(f"link: objects[{k}] must be bytes, a PTX str, a path or a "
                            f"(data, jit_input_type) pair, not {type(obj).__name__}")
    return out


def _jitlink(inputs, arch, lto, options):
    opts = [f"-arch={arch}"] + (["-lto"] if lto else [])
    if options:
        opts += list(_str_seq(options, "options", "['-O3']"))
    return _driver.jitlink(inputs, opts)


def link(objects, arch=None, code=None, lto=True, options=None):
    """Link device code with nvJitLink into a CUBIN (bytes), without loading it.

    `objects`: LTO-IR from compile(..., target="ltoir") and any CUBIN,
    fatbin or object (bytes; nvJitLink tells the kind), PTX (str), files
    (os.PathLike), or (data, jit_input_type) pairs. `arch` ("sm_90"; the
    current device's when None) is the GPU the CUBIN is for; no GPU is
    needed with it. lto=True links with link-time optimization (-lto);
    `options` go to nvJitLink as they are. Needs nvJitLink
    (libnvJitLink.so.13/.12: the CUDA toolkit's, or the nvidia-nvjitlink
    wheel); a link error is a CompileError carrying nvJitLink's log (.log)."""
    image, _info = _jitlink(_link_inputs(objects), _link_arch(arch, code), lto, options)
    return image


def _find_cuda_lib(libname, cuda_libdir=None):
    """The path of lib<libname>.a: in cuda_libdir if given, else in the lib
    directories of the toolkit roots (_toolkit_roots)."""
    if not isinstance(libname, str) or not libname or os.sep in libname:
        raise ValueError(f"add_stdlib: libname must be a library name like 'cudadevrt', "
                         f"not {libname!r}")
    if cuda_libdir is not None:
        dirs = [os.fspath(cuda_libdir)]
    else:
        try:
            nvrtc_lib = _driver._nvrtc_path()
        except Exception:  # NVRTC not found: the other places remain
            nvrtc_lib = None
        dirs = [os.path.join(root, d) for root in _toolkit_roots(nvrtc_lib)
                for d in ("lib64", "lib", os.path.join("targets", "x86_64-linux", "lib"))]
    for d in dirs:
        path = os.path.join(d, f"lib{libname}.a")
        if os.path.isfile(path):
            return path
    raise FileNotFoundError(f"add_stdlib: lib{libname}.a is in none of {dirs}; give the "
                            "directory that holds it as cuda_libdir=")


class DynamicModule:
    """PyCUDA's DynamicModule: device code from several sources, images and
    libraries, linked by the driver into one module (cuLinkCreate ..
    cuLinkComplete). add_source, add_data, add_file and add_stdlib queue the
    pieces; link() links and loads them, after which get_function works.

    lto=True: link-time optimization. add_source then compiles to LTO-IR
    (NVRTC's -dlto), add_data also takes LTO-IR (jit_input_type.NVVM), and
    link() links with nvJitLink (-lto), which optimizes across the pieces
    (a __device__ function of one source inlined into a kernel of another).
    nvJitLink must be present (the CUDA toolkit's libnvJitLink, or the
    nvidia-nvjitlink wheel); without it, the driver's cuLink links LTO-IR
    only from NVRTC older than 12.0, and anything newer is a RuntimeError
    that says what to install. link_options go to nvJitLink then.

    Needs a CUDA GPU: the simulator has no device linker (compiler.link()
    links LTO-IR into a CUBIN without a GPU)."""

    def __init__(self, nvcc="nvcc", link_options=None, keep=False, no_extern_c=False,
                 arch=None, code=None, cache_dir=None, include_dirs=[],  # noqa: B006
                 message_handler=None, log_verbose=False, cuda_libdir=None, lto=False):
        if nvcc not in (None, "nvcc"):
            _warn_nvcc()
        if not isinstance(lto, bool):
            raise TypeError(f"DynamicModule: lto must be True or False, not {type(lto).__name__}")
        if link_options and not lto:
            raise ValueError("DynamicModule: link_options are not supported (pycudac passes "
                             "the driver's linker only its log buffers); with lto=True they "
                             "go to nvJitLink")
        if _driver.get_backend() == "sim":
            raise _driver.LogicError(
                "DynamicModule needs a CUDA GPU: the simulator has no device linker and runs "
                "no device-side launches" + (
                    "; with lto=True the pieces are LTO-IR (NVVM IR), which only nvJitLink "
                    "turns into a CUBIN for a GPU and the simulator cannot run — "
                    "pycudac.compiler.link(objects, arch='sm_90') links LTO-IR without a GPU"
                    if lto else ""))
        if message_handler is not None and not callable(message_handler):
            raise TypeError("DynamicModule: message_handler must be callable")
        self.lto, self.link_options = lto, link_options
        self.keep, self.no_extern_c, self.arch, self.code = keep, no_extern_c, arch, code
        self.cache_dir, self.include_dirs, self.cuda_libdir = cache_dir, include_dirs, cuda_libdir
        self.message_handler, self.log_verbose = message_handler, bool(log_verbose)
        self.module = None
        self._inputs = []

    def _add(self, input_type, data, path, name):
        if self.module is not None:
            raise _driver.LogicError("DynamicModule: already linked; make a new one to add more")
        from pycudac.driver import jit_input_type
        self._inputs.append((int(jit_input_type(input_type)), data, path, name))
        return self

    def add_source(self, source, nvcc_options=None, name="kernel.ptx"):
        """Compile `source` (relocatable device code) and queue its PTX (its
        LTO-IR with lto=True)."""
        if nvcc_options:  # relocatable code is what add_source makes anyway, and
            # libraries (-lcudadevrt) go to the linker through add_stdlib
            nvcc_options = [o for o in _str_seq(nvcc_options, "nvcc_options", _OPTIONS_EXAMPLE)
                            if o not in ("-rdc=true", "--relocatable-device-code=true", "-dc",
                                         "-dlto", "--dlink-time-opt")
                            and not (isinstance(o, str) and o.startswith("-l"))]
        if self.lto:
            ltoir = _compile_relocatable(source, nvcc_options, self.no_extern_c, self.arch,
                                         self.code, self.include_dirs, self.cache_dir, self.keep,
                                         target="ltoir")
            return self._add(5, ltoir, None, name.replace(".ptx", ".ltoir"))
        ptx = _compile_relocatable(source, nvcc_options, self.no_extern_c, self.arch, self.code,
                                   self.include_dirs, self.cache_dir, self.keep)
        return self._add(1, ptx, None, name)

    def add_data(self, data, input_type, name="unknown"):
        """Queue an image already in memory (CUBIN, PTX, fatbin, object, library)."""
        if isinstance(data, str):
            data = data.encode()
        return self._add(input_type, bytes(memoryview(data)), None, str(name))

    def add_file(self, filename, input_type):
        """Queue an image or library file."""
        path = os.fspath(filename)
        if not os.path.isfile(path):
            raise FileNotFoundError(f"add_file: {path!r} is not a file")
        return self._add(input_type, None, path, os.path.basename(path))

    def add_stdlib(self, libname):
        """Queue the toolkit's lib<libname>.a (e.g. 'cudadevrt')."""
        from pycudac.driver import jit_input_type
        return self.add_file(_find_cuda_lib(libname, self.cuda_libdir), jit_input_type.LIBRARY)

    def link(self):
        """Link what was queued and load the result into the current context."""
        if self.module is not None:
            raise _driver.LogicError("DynamicModule: already linked")
        if not self._inputs:
            raise _driver.LogicError("DynamicModule: nothing to link (add_source first)")
        try:
            if self.lto or any(t == 5 for t, *_ in self._inputs):
                image, info = self._link_lto()
            else:
                image, info = _driver.link_images(self._inputs, verbose=self.log_verbose)
        except CompileError as exc:
            if self.message_handler is not None:
                self.message_handler(False, "", str(exc))
            raise
        if self.message_handler is not None:
            self.message_handler(True, info, "")
        self.image, self.info_log = image, info
        self.module = module_from_buffer(image)
        return self

    def _link_lto(self):
        """(image, info log) from nvJitLink; without it, from the driver's
        cuLink where NVRTC is older than 12.0 (the only LTO-IR it takes)."""
        try:
            _driver.nvjitlink_info()
        except _driver.RuntimeError as exc:
            major = _driver.nvrtc_version()[0]
            if major >= 12:
                raise _driver.RuntimeError(
                    f"{exc}. (The driver's own linker, cuLink, links LTO-IR only from NVRTC "
                    f"older than 12.0, and this NVRTC is {major}.x.)") from None
            return _driver.link_images(self._inputs, verbose=self.log_verbose, lto=True)
        return _jitlink(self._inputs, _link_arch(self.arch, self.code), True,
                        self.link_options)

    def _linked(self):
        if self.module is None:
            raise _driver.LogicError("DynamicModule: call link() first")
        return self.module

    def get_function(self, name):
        return self._linked().get_function(name)

    def get_global(self, name):
        return self._linked().get_global(name)


class DynamicSourceModule(DynamicModule):
    """PyCUDA's DynamicSourceModule: a SourceModule whose kernels may launch
    kernels (dynamic parallelism), compiled as relocatable device code and
    linked with the device runtime (libcudadevrt.a from the toolkit)."""

    def __init__(self, source, nvcc="nvcc", options=None, keep=False, no_extern_c=False,
                 arch=None, code=None, cache_dir=None, include_dirs=[],  # noqa: B006
                 cuda_libdir=None):
        super().__init__(nvcc, None, keep, no_extern_c, arch, code, cache_dir, include_dirs,
                         cuda_libdir=cuda_libdir)
        self.add_source(source, nvcc_options=options)
        self.add_stdlib("cudadevrt")
        self.link()


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
