"""The compiler's identity (the cache key names it) and the toolkit's own
include directories: CUDA's headers and CCCL's, wherever NVRTC came from."""
from __future__ import annotations

import os
import sys

from pycudac import _driver


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
    lib = identity.split(" size=")[0]
    for root in _toolkit_roots(lib):
        inc = os.path.join(root, "include")
        if os.path.isfile(os.path.join(inc, "cuda_fp16.h")):
            dirs = [inc]
            if not _is_cccl(inc):
                cccl = _cccl_include(os.path.join(inc, "cccl"))
                dirs += [cccl[0]] if cccl else []
            if not os.path.isfile(os.path.join(inc, *_CRT_MARK)):
                crt = _crt_include(_soname_major(lib))
                dirs += [crt] if crt else []
            return tuple(dirs)
    return ()


#: What tells an include directory holds CUDA's crt headers: <mma.h>
#: includes "crt/mma.h". CUDA 13's wheels ship them apart (nvidia-cuda-crt),
#: so NVRTC's wheel may come with an include/ that has mma.h and no crt/mma.h.
_CRT_MARK = ("crt", "mma.h")


def _soname_major(lib):
    """13 for .../libnvrtc.so.13[.x], None when the name says nothing."""
    tail = os.path.basename(lib).partition(".so.")[2]
    major = tail.split(".")[0]
    return int(major) if major.isdigit() else None


def _cuda_major(inc):
    """The CUDA major version of include directory `inc` (cuda.h's
    CUDA_VERSION, or a wheel's nvidia/cuNN/include), or None."""
    name = os.path.basename(os.path.dirname(inc))
    if name.startswith("cu") and name[2:].isdigit():
        return int(name[2:])
    try:
        with open(os.path.join(inc, "cuda.h"), "rb") as f:
            head = f.read(1 << 16)
    except OSError:
        return None
    at = head.find(b"#define CUDA_VERSION ")
    digits = head[at + 21:at + 29].split()[0] if at >= 0 else b""
    return int(digits) // 1000 if digits.isdigit() else None


def _wheel_includes():
    """The include directories of NVIDIA's wheels on sys.path
    (<entry>/nvidia/<package>/include), in sys.path's order."""
    out = []
    for base in sys.path:
        nv = os.path.join(base or ".", "nvidia")
        if os.path.isdir(nv):
            out += [os.path.join(nv, sub, "include") for sub in sorted(os.listdir(nv))]
    return out


def _crt_include(major):
    """An include directory with CUDA's crt headers of CUDA `major` (None:
    any), for NVRTC's own include/ without them: a toolkit's ($CUDA_HOME,
    $CUDA_PATH, /usr/local/cuda), else a wheel's on sys.path
    (nvidia-cuda-crt: nvidia/cuNN/include). It comes after NVRTC's own, so it
    only answers what that one lacks. None when there is none."""
    key = ("crt", major, os.environ.get("CUDA_HOME"), os.environ.get("CUDA_PATH"))
    if key in _info_cache:
        return _info_cache[key]
    cands = [os.path.join(r, "include") for r in _toolkit_roots(None)] + _wheel_includes()
    found = next((d for d in cands if os.path.isfile(os.path.join(d, *_CRT_MARK)) and
                  (major is None or _cuda_major(d) == major)), None)
    _info_cache[key] = found
    return found


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
    for inc in _wheel_includes():
        cands += [os.path.join(inc, "cccl"), inc]
    found = None
    for d in cands:
        if _is_cccl(d):
            st = os.stat(os.path.join(d, *_CCCL_MARKS[1]))
            found = (d, f"{d} size={st.st_size} mtime={int(st.st_mtime)}")
            break
    _info_cache[key] = found
    return found


_NO_CRT = ("CUDA's crt headers (crt/mma.h, which <mma.h> includes) were not found beside "
           "NVRTC's include directory, in a CUDA toolkit of its version ($CUDA_HOME, $CUDA_PATH, "
           "/usr/local/cuda) or in a wheel on sys.path: CUDA 13's wheels ship them apart, "
           "install nvidia-cuda-crt (pip install nvidia-cuda-crt), or point CUDA_HOME at a "
           "toolkit")

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
