"""Which compiler a request goes to and with what options (plan), and what
keep=True writes."""
from __future__ import annotations

import os
import tempfile
import warnings

from pycudac import _driver, _simcheck
from pycudac._compiler.options import _nvrtc_plan, _parse_arch, normalize_options

_nvcc_warned = False


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
    print(f"*** compiler output in {d}")  # stdout, as PyCUDA prints it
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
    for name, given, opt in (("arch", arch, opt_arch), ("code", code, opt_code)):
        # both spellings for one thing: the keyword won without a word
        if given is not None and opt is not None and _parse_arch(given) != _parse_arch(opt):
            raise ValueError(f"{name}={given!r} and the options' {opt!r} disagree: give the "
                             f"architecture once")
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
