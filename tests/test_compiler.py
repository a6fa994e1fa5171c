"""pycudac.compiler's compile(): NVRTC compiles to CUBIN/PTX, option
translation, compile errors with the user's line numbers, and linking
(DynamicModule, DynamicSourceModule: refused on the simulator, through the
stub driver's linker in CI, on the GPU under `make gpu-check`). SourceModule
is test_source_module.py's, warm starts and the memo test_compiler_warm.py's."""
import os
import struct
import subprocess
import sys
import warnings

import numpy as np
import pytest

import pycudac.driver as drv
from pycudac import _driver, compiler
from pycudac.compiler import CompileError
from pycudac._compiler import link as _link, plan as _plan

import _compile_setup
from _compile_setup import BAD, DOUBLE

cache = _compile_setup.cache  # a fixture: pytest finds it in this module


EM_CUDA = 190


def elf_sm(image):
    """(e_machine, SM number) of a CUDA ELF image."""
    assert image[:4] == b"\x7fELF"
    (machine,) = struct.unpack_from("<H", image, 18)
    (flags,) = struct.unpack_from("<I", image, 48)
    return machine, (flags >> 8) & 0xFF


# ---------------------------------------------------------------------------
# compile() with NVRTC: no GPU needed

@pytest.mark.parametrize("arch,sm", [("sm_90", 90), ("sm_80", 80), ("86", 86), ((8, 9), 89)])
def test_compile_cubin_for_arch(cache, arch, sm):
    image = compiler.compile(DOUBLE, arch=arch)
    assert elf_sm(image) == (EM_CUDA, sm)


@pytest.mark.parametrize("arch", ["sm_90", "sm_80"])
def test_compile_ptx_for_arch(cache, arch):
    ptx = compiler.compile(DOUBLE, arch=arch, target="ptx").decode()
    assert f".target {arch}" in ptx
    assert ".visible .entry double_array(" in ptx  # extern "C": unmangled


def test_compute_arch_means_ptx(cache):
    ptx = compiler.compile(DOUBLE, arch="compute_80")
    assert b".target sm_80" in ptx


def test_compile_source_returns_ptx_and_log():
    r = _driver.compile_source(DOUBLE, ["--gpu-architecture=sm_90"], None, "cubin", "nvrtc")
    assert set(r) == {"image", "log", "ptx", "lowered", "pch"}
    assert r["pch"] is None  # no leading #include: no precompiled header
    assert elf_sm(r["image"]) == (EM_CUDA, 90)
    assert ".target sm_90" in r["ptx"]
    assert r["lowered"] == {} and isinstance(r["log"], str)


def test_name_expressions_give_lowered_names():
    src = "template <typename T> __global__ void axpy(T a, T *x) { x[threadIdx.x] *= a; }"
    r = _driver.compile_source(src, ["--gpu-architecture=sm_90"], ["axpy<float>", "axpy<double>"],
                               "cubin", "nvrtc", no_extern_c=True)
    assert r["lowered"] == {"axpy<float>": "_Z4axpyIfEvT_PS0_",
                            "axpy<double>": "_Z4axpyIdEvT_PS0_"}


def test_compile_source_bad_arguments():
    with pytest.raises(ValueError, match="target"):
        _driver.compile_source(DOUBLE, None, None, "elf", "nvrtc")
    with pytest.raises(ValueError, match="compiler"):
        _driver.compile_source(DOUBLE, None, None, "cubin", "gcc")
    with pytest.raises(ValueError, match="does not go with"):
        _driver.compile_source(DOUBLE, None, None, "sim", "nvrtc")
    with pytest.raises(TypeError, match="options"):
        _driver.compile_source(DOUBLE, [1], None, "ptx", "nvrtc")
    with pytest.raises(ValueError, match="NUL"):
        _driver.compile_source(DOUBLE, ["-DA\0B"], None, "ptx", "nvrtc")
    with pytest.raises(TypeError):
        _driver.compile_source(b"bytes", None, None, "ptx", "nvrtc")


def test_compiler_info_and_versions():
    info = _driver.compiler_info("nvrtc")
    major, minor = _driver.nvrtc_version()
    assert info["kind"] == "nvrtc" and info["version"] == f"{major}.{minor}"
    assert "nvrtc" in info["identity"]
    archs = _driver.nvrtc_supported_archs()
    assert 90 in archs and archs == sorted(archs)


# ---------------------------------------------------------------------------
# compile errors point at the user's own lines

@pytest.mark.parametrize("no_extern_c", [False, True])
def test_compile_error_shows_user_line(cache, no_extern_c):
    with pytest.raises(CompileError) as ei:
        compiler.compile(BAD, arch="sm_90", no_extern_c=no_extern_c)
    e = ei.value
    msg = str(e)
    assert "kernel.cu(6): error" in msg
    assert '"undefined_name" is undefined' in msg
    assert ">     6 |     a[threadIdx.x] = undefined_name + 1;" in msg
    assert "undefined_name" in e.log and e.source == BAD
    assert isinstance(e, _driver.Error)


def test_compile_error_on_first_line(cache):
    with pytest.raises(CompileError) as ei:
        compiler.compile("int x = ;\n__global__ void f() {}", arch="sm_90")
    assert "kernel.cu(1): error" in str(ei.value)
    assert ">     1 | int x = ;" in str(ei.value)


def test_compile_error_many_errors_are_bounded(cache):
    src = "\n".join(f"__global__ void f{i}() {{ undefined_{i}; }}" for i in range(15))
    with pytest.raises(CompileError) as ei:
        compiler.compile(src, arch="sm_90")
    msg = str(ei.value)
    assert "kernel.cu(1): error" in msg and "more errors" in msg


def test_bad_nvrtc_option_is_a_compile_error_with_log():
    with pytest.raises(CompileError, match="unrecognized option"):
        _driver.compile_source(DOUBLE, ["--no-such-option"], None, "ptx", "nvrtc")


def test_macro_options_reach_the_compiler(cache):
    src = "#ifndef N\n#error N is not defined\n#endif\n__global__ void f(float *a) { a[0] = N; }"
    with pytest.raises(CompileError, match="N is not defined"):
        compiler.compile(src, arch="sm_90", target="ptx")
    assert b".target" in compiler.compile(src, arch="sm_90", target="ptx", options=["-DN=4"])
    assert b".target" in compiler.compile(src, arch="sm_90", target="ptx",
                                          options=["-D", "N=4"])


def test_include_dirs(cache, tmp_path):
    inc = tmp_path / "inc"
    inc.mkdir()
    (inc / "scale.h").write_text("#define SCALE 3.0f\n")
    src = '#include "scale.h"\n__global__ void f(float *a) { a[0] *= SCALE; }'
    ptx1 = compiler.compile(src, arch="sm_90", target="ptx", include_dirs=[str(inc)])
    assert b"0f40400000" in ptx1  # 3.0f
    (inc / "scale.h").write_text("#define SCALE 5.0f\n")
    ptx2 = compiler.compile(src, arch="sm_90", target="ptx", include_dirs=[str(inc)])
    assert b"0f40A00000" in ptx2  # 5.0f: the edited header was not served from the cache
    assert b".target" in compiler.compile(src, arch="sm_90", target="ptx",
                                          options=[f"-I{inc}"])


# ---------------------------------------------------------------------------
# option translation

@pytest.mark.parametrize("given,expected", [
    (["-use_fast_math"], ["--use_fast_math"]),
    (["--use_fast_math"], ["--use_fast_math"]),
    (["--std=c++17"], ["--std=c++17"]),
    (["-std=c++14"], ["--std=c++14"]),
    (["-std", "c++20"], ["--std=c++20"]),
    (["-DN=4", "-D", "M", "--define-macro=K"], ["-DN=4", "-DM", "-DK"]),
    (["-UX"], ["-UX"]),
    (["-lineinfo"], ["--generate-line-info"]),
    (["--maxrregcount=32"], ["--maxrregcount=32"]),
    (["-maxrregcount", "64"], ["--maxrregcount=64"]),
    (["-G"], ["--device-debug"]),
    (["-O3", "-O0", "-m64", "-Xcompiler", "-fPIC"], []),
    (["-Xptxas", "-v"], ["--ptxas-options=-v"]),
    (["-Xptxas=-O3,-v"], ["--ptxas-options=-O3,-v"]),
    (["--ftz=true", "--prec-div=false", "--fmad=true"],
     ["--ftz=true", "--prec-div=false", "--fmad=true"]),
    (["-include", "x.h"], ["--pre-include=x.h"]),
])
def test_option_translation(given, expected):
    opts, arch, code, incs = compiler.normalize_options(given)
    assert opts == expected and arch is None and code is None and incs == []


def test_arch_and_include_options_are_taken_out():
    opts, arch, code, incs = compiler.normalize_options(
        ["-arch=sm_80", "-Iinc1", "-I", "inc2", "--include-path=inc3", "-code", "sm_86"])
    assert opts == [] and arch == "sm_80" and code == "sm_86"
    assert incs == ["inc1", "inc2", "inc3"]


@pytest.mark.parametrize("bad,match", [
    (["--bogus"], "'--bogus'"),
    (["-rdc=true"], "device linker"),
    (["--std=c++99"], "c\\+\\+17"),
    (["--maxrregcount=lots"], "positive integer"),
    (["--ftz=maybe"], "'true' or 'false'"),
    (["-D"], "needs a value"),
    (["-Xptxas"], "needs a value"),
])
def test_bad_options_are_value_errors(bad, match):
    with pytest.raises(ValueError, match=match):
        compiler.normalize_options(bad)


def test_options_types():
    with pytest.raises(TypeError, match="list of str"):
        compiler.normalize_options("-use_fast_math")
    with pytest.raises(TypeError, match="str"):
        compiler.normalize_options([3])


def test_options_used_in_compile(cache):
    ptx = compiler.compile(DOUBLE, arch="sm_90", target="ptx",
                           options=["-use_fast_math", "--std=c++17", "-lineinfo", "-O3"])
    assert b".loc" in ptx  # -lineinfo reached NVRTC


def test_arch_spellings():
    assert compiler.target_for("sm_90") == ("cubin", "sm_90")
    assert compiler.target_for("sm_90a") == ("cubin", "sm_90a")
    assert compiler.target_for("compute_80") == ("ptx", "compute_80")
    assert compiler.target_for("sm_80", target="ptx") == ("ptx", "compute_80")
    assert compiler.target_for(None, code="sm_86") == ("cubin", "sm_86")
    assert compiler.target_for((9, 0)) == ("cubin", "sm_90")
    for bad in ("gfx90a", "sm_", "sm_9x0"):
        with pytest.raises(ValueError, match="arch"):
            compiler.target_for(bad)
    with pytest.raises(TypeError, match="arch"):
        compiler.target_for(9.0)


def test_an_architecture_given_twice_must_agree(cache):
    """arch="sm_90" with "-arch=sm_80" in options compiled for sm_90 and
    dropped the option without a word (found by an adversarial review): a
    disagreement is a ValueError; the same architecture twice is fine."""
    with pytest.raises(ValueError, match=r"arch='sm_90' and the options' 'sm_80' disagree"):
        compiler.compile(DOUBLE, arch="sm_90", options=["-arch=sm_80"], cache_dir=False)
    with pytest.raises(ValueError, match="code='sm_90' and the options' 'sm_86' disagree"):
        compiler.compile(DOUBLE, code="sm_90", options=["-code=sm_86"], cache_dir=False)
    assert compiler.compile(DOUBLE, arch="sm_90", options=["--gpu-architecture=sm_90"],
                            cache_dir=False)[:4] == b"\x7fELF"


def test_nvcc_argument_warns_once(cache):
    _plan._nvcc_warned = False
    with pytest.warns(UserWarning, match="nvcc"):
        compiler.compile(DOUBLE, nvcc="/usr/local/cuda/bin/nvcc", arch="sm_90")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        compiler.compile(DOUBLE, nvcc="/usr/local/cuda/bin/nvcc", arch="sm_90")


def test_compile_bad_target(cache):
    with pytest.raises(ValueError, match="target"):
        compiler.compile(DOUBLE, arch="sm_90", target="fatbin")
    with pytest.raises(TypeError, match="source"):
        compiler.compile(b"__global__ void f() {}", arch="sm_90")


# ---- DynamicModule / DynamicSourceModule (linking; dynamic parallelism) ----------

_DYNAMIC_SRC = """
__global__ void child(int *a, int k)
{
    a[k * blockDim.x + threadIdx.x] += 10 * k + threadIdx.x;
}
__global__ void parent(int *a)
{
    child<<<1, 8>>>(a, threadIdx.x);
}
"""


def test_dynamic_module_refused_on_the_simulator(backend):
    from pycudac import driver
    if backend != "sim":
        pytest.skip("the simulator's refusal")
    from pycudac.compiler import DynamicModule, DynamicSourceModule
    import pycudac.autoinit  # noqa: F401
    for make in (lambda: DynamicSourceModule(_DYNAMIC_SRC), lambda: DynamicModule()):
        with pytest.raises(driver.LogicError, match="needs a CUDA GPU.*no device linker"):
            make()


def test_find_cuda_lib():
    with pytest.raises(FileNotFoundError, match="libno_such_lib_here.a is in none of"):
        _link._find_cuda_lib("no_such_lib_here")
    with pytest.raises(ValueError, match="libname"):
        _link._find_cuda_lib("../cudadevrt")
    if os.path.isfile("/usr/local/cuda/lib64/libcudadevrt.a"):
        path = _link._find_cuda_lib("cudadevrt", "/usr/local/cuda/lib64")
        assert path == "/usr/local/cuda/lib64/libcudadevrt.a"
        assert _link._find_cuda_lib("cudadevrt").endswith("libcudadevrt.a")


@pytest.mark.gpu
def test_dynamic_source_module_launches_from_the_device(autoinit):
    """PyCUDA's DynamicSourceModule: a kernel launching kernels, linked with
    the device runtime."""
    import numpy as np
    from pycudac import driver, gpuarray
    from pycudac.compiler import DynamicModule, DynamicSourceModule
    a = gpuarray.zeros(32, np.int32)
    mod = DynamicSourceModule(_DYNAMIC_SRC)
    mod.get_function("parent")(a, block=(4, 1, 1), grid=(1, 1))
    driver.Context.synchronize()
    want = np.array([10 * k + t for k in range(4) for t in range(8)], np.int32)
    np.testing.assert_array_equal(a.get(), want)
    # two sources linked: a device function defined in one, used in the other
    seen = []
    dm = DynamicModule(message_handler=lambda ok, info, err: seen.append(ok))
    dm.add_source("__device__ int twice(int x) { return 2 * x; }", name="a.ptx")
    dm.add_source("__device__ int twice(int x);\n"
                  "__global__ void k(int *o) { o[threadIdx.x] = twice(threadIdx.x); }",
                  name="b.ptx")
    dm.link()
    out = gpuarray.zeros(8, np.int32)
    dm.get_function("k")(out, block=(8, 1, 1), grid=(1, 1))
    np.testing.assert_array_equal(out.get(), 2 * np.arange(8))
    assert seen == [True]
    with pytest.raises(driver.LogicError, match="already linked"):
        dm.add_source("__global__ void z() {}")
    bad = DynamicModule()
    bad.add_source("__device__ int never_defined(int);\n"
                   "__global__ void k(int *o) { o[0] = never_defined(1); }")
    with pytest.raises(CompileError, match="linking device code: cuLink") as info:
        bad.link()
    assert "never_defined" in str(info.value)  # the linker's log names the missing symbol


_STUB_LINK_CHILD = r"""
import pycudac.autoinit
from pycudac import compiler, driver
from pycudac.compiler import CompileError, DynamicModule
seen = []
dm = DynamicModule(message_handler=lambda ok, info, err: seen.append((ok, err)))
dm.add_source("__device__ int twice(int x) { return 2 * x; }", name="a.ptx")
dm.add_source("__device__ int twice(int x);\n"
              "__global__ void k(int *o) { o[threadIdx.x] = twice(threadIdx.x); }",
              nvcc_options=["-rdc=true", "-lcudadevrt"], name="b.ptx")
try:
    dm.add_stdlib("cudadevrt")
except FileNotFoundError:
    print("no libcudadevrt.a")
dm.link()
assert dm.image.startswith(b"stub image of") and seen == [(True, "")], (dm.image, seen)
assert dm.get_function("k") is not None
bad = DynamicModule(message_handler=lambda ok, info, err: seen.append((ok, err)))
bad.add_data(b"// STUB_LINK_FAIL", driver.jit_input_type.PTX, "bad.ptx")
try:
    bad.link()
except CompileError as exc:
    text = str(exc)
    assert "linking device code: cuLinkAddData of bad.ptx" in text, text
    assert "Undefined reference to 'STUB_LINK_FAIL'" in text, text
    assert "failed: CUDA_ERROR_" in text and "(300)" in text, text  # the stub names few codes
    assert seen[-1][0] is False and "STUB_LINK_FAIL" in seen[-1][1]
else:
    raise AssertionError("the stub's linker failure was not raised")
bad2 = DynamicModule()
for call, exc, text in ((lambda: bad2.add_data(b"x", 7), ValueError, "jit_input_type"),
                        (lambda: bad2.add_file("/no/such/file.a", 4), FileNotFoundError,
                         "is not a file"),
                        (lambda: bad2.link(), driver.LogicError, "nothing to link"),
                        (lambda: bad2.get_function("k"), driver.LogicError, "link() first"),
                        (lambda: DynamicModule(link_options=["-x"]), ValueError, "link_options"),
                        (lambda: DynamicModule(message_handler=5), TypeError, "callable")):
    try:
        call()
    except exc as e:
        assert text in str(e), (text, str(e))
    else:
        raise AssertionError(f"no {exc.__name__} ({text})")
print("OK")
"""


def test_link_images_bad_input():
    """link_images refuses a malformed input list before touching the driver."""
    from pycudac import _driver
    with pytest.raises(TypeError):
        _driver.link_images("not a list")
    for bad in ((9, b"x", None, "n"), (1, None, None, "n"), (1, b"x", None, 5), (1, b"x"),
                ("1", b"x", None, "n"), [1, b"x", None, "n"]):
        with pytest.raises(TypeError, match=r"link_images: inputs\[0\] must be \(input type"):
            _driver.link_images([bad])


def test_dynamic_module_through_the_stub_driver(stub_driver):
    """DynamicModule's C path (link_images: cuLinkCreate .. cuLinkComplete, the
    linker's log in a CompileError) in CI, through the stub driver's linker;
    NVRTC makes the relocatable PTX for real. (On the GPU: the gpu test above.)"""
    from pycudac import _driver
    try:
        _driver._nvrtc_path()
    except Exception as exc:
        pytest.skip(f"no NVRTC: {exc}")
    env = dict(os.environ, PYCUDAC_BACKEND="cuda", PYCUDAC_LIBCUDA=stub_driver,
               PYCUDAC_DISABLE_CACHE="1")
    r = subprocess.run([sys.executable, "-c", _STUB_LINK_CHILD], env=env, capture_output=True,
                       text=True, timeout=300)
    assert r.returncode == 0 and r.stdout.strip().endswith("OK"), r.stdout + r.stderr[-3000:]


def test_pycudas_compile_plain_and_get_nvcc_version(ctx, tmp_path):
    """PyCUDA's compile_plain (the source as it is: no extern "C" added) and
    get_nvcc_version (code keys its own caches on it) were AttributeErrors."""
    src = 'extern "C" __global__ void k(int *p) { p[0] = 7; }'
    image = compiler.compile_plain(src, [], False, "nvcc", str(tmp_path))
    f = compiler.module_from_buffer(image).get_function("k")
    out = np.zeros(1, np.int32)
    f(drv.Out(out), block=(1, 1, 1))
    assert out[0] == 7
    # no extern "C" added: a C++ kernel's name stays mangled in the image
    cxx = compiler.compile_plain("__global__ void k(int *p) { p[0] = 7; }", [], False, None, None)
    wrapped = compiler.compile("__global__ void k(int *p) { p[0] = 7; }", cache_dir=False)
    assert b"_Z1kPi" in cxx and b"_Z1kPi" not in wrapped
    with pytest.raises(ValueError, match="fatbin"):
        compiler.compile_plain(src, [], False, None, None, target="fatbin")
    # a single str where PyCUDA's list of options goes is named (it was split
    # into one-letter options, "option '-' is not supported")
    with pytest.raises(TypeError, match="options must be a list of str"):
        compiler.compile_plain(src, "-O3", False, None, None)
    v = compiler.get_nvcc_version("nvcc")
    assert isinstance(v, str) and "nvcc is not used" in v
    assert ("NVRTC" in v) == (drv.get_backend() == "cuda")
