"""nvcc-style options into NVRTC's, and the target architecture a compile is for."""
from __future__ import annotations

import os

from pycudac import _driver
from pycudac._driver import CompileError
from pycudac._compiler.toolkit import _info_cache, _nvrtc_facts


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
