"""Device code in pieces: nvJitLink's link() and the driver-linked
DynamicModule (dynamic parallelism needs its device runtime,
libcudadevrt.a, linked in)."""
from __future__ import annotations

import os

from pycudac import _driver, _pycuda_headers
from pycudac._compiler.cache import _compile_cached
from pycudac._compiler.options import (_INCLUDES_EXAMPLE, _OPTIONS_EXAMPLE, _PATHS, _parse_arch,
                                      _str_seq)
from pycudac._compiler.plan import _keep_outputs, _plan, _warn_nvcc
from pycudac._compiler.toolkit import _toolkit_roots
from pycudac._driver import CompileError, module_from_buffer


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
    return _linkable(f"sm_{num}{suffix}", num, "arch")


def _linkable(arch, num, what):
    """arch ('sm_XY') when nvJitLink knows it: an architecture it does not
    know ('sm_5') makes nvJitLink print a fatal error and end the process
    (or crash it), so it is checked against the architectures this
    toolkit's NVRTC lists (nvJitLink comes from the same toolkit) before
    nvJitLink sees it. A ValueError naming `what` otherwise."""
    try:
        supported = sorted(_driver.nvrtc_supported_archs())
    except Exception:  # no NVRTC to ask: at least no single digit (nvJitLink's 'compute_5')
        supported = None
    if (num not in supported) if supported else num < 10:
        known = ", ".join(f"sm_{n}" for n in supported) if supported else "two digits or more"
        raise ValueError(f"link: {what} {arch!r} is not an architecture nvJitLink links for "
                         f"(this toolkit's: {known})")
    return arch


def _link_inputs(objects):
    """link()'s objects as jitlink's (input type, bytes, path, name)."""
    from pycudac.driver import jit_input_type
    if isinstance(objects, (str, bytes, bytearray, memoryview, os.PathLike)):
        raise TypeError("link: objects must be a list of objects to link (bytes, PTX str, "
                        f"paths or (data, jit_input_type) pairs), not a single "
                        f"{type(objects).__name__}")
    try:
        objects = list(objects)
    except TypeError:
        raise TypeError("link: objects must be a list of objects to link (bytes, PTX str, paths "
                        f"or (data, jit_input_type) pairs), not {type(objects).__name__}") from None
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
        for k, o in enumerate(_str_seq(options, "options", "['-O3']")):
            if "\0" in o:
                raise ValueError(f"link: options[{k}] holds a NUL character: {o!r}")
            if o.startswith("-arch="):  # nvJitLink's own spelling: checked as arch= is
                num, _, suffix = _parse_arch(o[len("-arch="):])
                _linkable(f"sm_{num}{suffix}", num, f"options[{k}]")
            opts.append(o)
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
    if not isinstance(lto, bool):
        raise TypeError(f"link: lto must be True or False, not {type(lto).__name__}")
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
        if link_options is not None:  # a str would be taken character by character
            link_options = _str_seq(link_options, "DynamicModule: link_options", "['-O3']")
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
        try:
            kind = int(jit_input_type(input_type))
        except ValueError:
            raise ValueError(f"DynamicModule: input_type must be a jit_input_type "
                             f"({', '.join(m.name for m in jit_input_type)}), not "
                             f"{input_type!r}") from None
        self._inputs.append((kind, data, path, name))
        return self

    def add_source(self, source, nvcc_options=None, name="kernel.ptx"):
        """Compile `source` (relocatable device code) and queue its PTX (its
        LTO-IR with lto=True)."""
        if not isinstance(name, str):
            raise TypeError(f"DynamicModule.add_source: name must be a str, not "
                            f"{type(name).__name__}")
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
