"""pycudac.compiler: NVRTC compile to CUBIN/PTX, option translation, compile
errors with the user's line numbers, SourceModule → get_function → launch
(on whichever backend is active: the simulator in CI, the GPU under
`make gpu-check`), get_global, and the in-process memo."""
import os
import re
import struct
import subprocess
import sys
import textwrap
import timeit
import uuid
import warnings

import numpy as np
import pytest

from pycudac import _driver, compiler
from pycudac.compiler import CompileError, SourceModule
from pycudac._compiler import includes as _includes, link as _link, plan as _plan

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

DOUBLE = """
__global__ void double_array(float *a)
{
    a[threadIdx.x] *= 2;
}
"""

EM_CUDA = 190


def elf_sm(image):
    """(e_machine, SM number) of a CUDA ELF image."""
    assert image[:4] == b"\x7fELF"
    (machine,) = struct.unpack_from("<H", image, 18)
    (flags,) = struct.unpack_from("<I", image, 48)
    return machine, (flags >> 8) & 0xFF


@pytest.fixture
def cache(tmp_path, monkeypatch):
    d = tmp_path / "cache"
    monkeypatch.setenv("PYCUDAC_CACHE_DIR", str(d))
    monkeypatch.delenv("PYCUDAC_DISABLE_CACHE", raising=False)
    compiler._cache._dir_state.clear()
    compiler._cache._warned.clear()
    compiler.clear_memo()
    yield d
    compiler.clear_memo()


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

BAD = """// a comment on line 1
__global__ void ok(float *a) { a[0] = 1; }

__global__ void broken(float *a)
{
    a[threadIdx.x] = undefined_name + 1;
}
"""


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


# ---------------------------------------------------------------------------
# SourceModule on the active backend (sim in CI, the GPU under gpu-check)

def run_double_array(mod):
    from pycudac import driver as drv
    f = mod.get_function("double_array")
    a = np.arange(64, dtype=np.float32)
    buf = drv.mem_alloc(a.nbytes)
    drv.memcpy_htod(buf, a)
    f(buf, block=(64, 1, 1), grid=(1, 1))
    out = np.empty_like(a)
    drv.memcpy_dtoh(out, buf)
    np.testing.assert_array_equal(out, a * 2)


def test_double_array_cold_then_warm(ctx, cache):
    src = f"// {uuid.uuid4().hex}\n" + DOUBLE
    cold = SourceModule(src)
    assert cold.from_cache is False and cold.source == src and isinstance(cold.log, str)
    run_double_array(cold)
    compiler.clear_memo()
    warm = SourceModule(src)
    assert warm.from_cache is True and warm.module is not cold.module
    run_double_array(warm)
    assert warm.image == cold.image


def test_double_array_warm_in_a_fresh_process(ctx, cache):
    src = f"// {uuid.uuid4().hex}\n" + DOUBLE
    SourceModule(src)
    script = textwrap.dedent(f"""
        import numpy as np
        import pycudac.autoinit
        from pycudac import driver as drv
        from pycudac.compiler import SourceModule
        mod = SourceModule({src!r})
        assert mod.from_cache, "expected a warm hit"
        f = mod.get_function("double_array")
        a = np.arange(32, dtype=np.float32)
        f(drv.InOut(a), block=(32, 1, 1))
        assert (a == np.arange(32) * 2).all(), a
        print("ok")
    """)
    r = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True,
                       env=dict(os.environ, PYCUDAC_CACHE_DIR=str(cache)), timeout=300)
    assert r.returncode == 0 and r.stdout.strip() == "ok", r.stderr


WARM_ATTRS = ("source", "log", "ptx", "cubin", "target", "arch", "options", "cache_key",
              "from_cache", "lowered", "keep_dir", "image")


def test_warm_start_paths_agree(ctx, cache):
    """A warm start of the common case is one C call (cache_module); with an
    explicit arch the same entry comes through the general path. Both give a
    module with the same attributes, and both count as hits."""
    src = f"// {uuid.uuid4().hex}\n" + DOUBLE + "template <class T> __global__ void t(T *a) {}\n"
    kw = dict(options=["-use_fast_math", "-DX=1"], no_extern_c=True,
              name_expressions=["t<float>"])
    cold = SourceModule(src.replace("__global__ void double", 'extern "C" __global__ void double'),
                        **kw)
    assert cold.from_cache is False
    compiler.clear_memo()
    before = compiler.cache_stats()["process"]["hits"]
    fast = SourceModule(cold.source, **kw)
    compiler.clear_memo()
    # an explicit arch takes the general path (the simulator ignores it)
    general = SourceModule(cold.source, arch="sm_90" if cold.arch == "sim" else cold.arch, **kw)
    assert compiler.cache_stats()["process"]["hits"] == before + 2
    for name in WARM_ATTRS:
        assert getattr(fast, name) == getattr(general, name), name
    assert fast.from_cache is True and fast.lowered == {"t<float>": cold.lowered["t<float>"]}
    assert "--use_fast_math" in fast.options and "-DX=1" in fast.options
    fast.get_function("t<float>")
    run_double_array(fast)


def test_cache_dir_of_the_wrong_type_is_named_on_a_memo_hit(ctx, cache):
    """A second SourceModule of the same source comes from the in-process
    memo, which never reads cache_dir: a wrong one is still refused."""
    src = f"// {uuid.uuid4().hex}\n" + DOUBLE
    first = SourceModule(src)
    with pytest.raises(TypeError, match="cache_dir must be a path"):
        SourceModule(src, cache_dir=123)
    assert SourceModule(src, cache_dir=str(cache)).module is first.module


@pytest.mark.parametrize("name, value", [("options", "-DX=1"), ("include_dirs", "/usr"),
                                         ("name_expressions", "axpy<float>"),
                                         ("include_dirs", b"/usr"), ("include_dirs", [None]),
                                         ("include_dirs", 5), ("name_expressions", [3]),
                                         ("options", [b"-O3"])])
def test_a_single_str_where_a_list_is_expected_is_named(ctx, cache, name, value):
    """Iterated, a str is its characters: include_dirs="/usr" would have
    read every header under "/" for the key. SourceModule and compile()
    refuse it with a TypeError that names the argument, at once."""
    src = f"// {uuid.uuid4().hex}\n" + DOUBLE
    with pytest.raises(TypeError, match=f"{name} must be a list of str"):
        SourceModule(src, **{name: value})
    with pytest.raises(TypeError, match=f"{name} must be a list of str"):
        compiler.compile(src, arch="sm_90", **{name: value})


@pytest.mark.parametrize("kw, exc", [(dict(arch="sm_xx"), ValueError),
                                     (dict(code="compute_"), ValueError),
                                     (dict(arch=object()), TypeError),
                                     (dict(options=["-arch=sm_9x"]), ValueError)])
def test_a_malformed_arch_is_refused_on_every_backend(ctx, cache, kw, exc):
    """The simulator ignores the architecture, but a malformed one is still
    the error it is on the GPU."""
    with pytest.raises(exc, match="arch must"):
        SourceModule(f"// {uuid.uuid4().hex}\n" + DOUBLE, **kw)


@pytest.mark.parametrize("cap", ["files", "bytes"])
def test_an_include_tree_too_large_to_hash_is_compiled_without_cache(ctx, cache, tmp_path,
                                                                      monkeypatch, cap):
    """Every file under include_dirs goes into the key. Past the cap
    (include_dirs=["/usr"], say) the compile goes on without the disk cache,
    with one warning naming the directory, instead of reading the whole tree
    on every call; past the file count, without the memo too (its key stats
    every file)."""
    inc = tmp_path / "inc"
    inc.mkdir()
    for i in range(5):
        (inc / f"h{i}.h").write_text(f"#define H{i} {i}\n" + "// padding\n" * 10)
    if cap == "files":
        monkeypatch.setattr(_includes, "INCLUDE_MAX_FILES", 3)
    else:
        monkeypatch.setattr(_includes, "INCLUDE_MAX_BYTES", 100)
    src = f"// {uuid.uuid4().hex}\n#include \"h4.h\"\n" + DOUBLE
    before = dict(compiler.cache_stats()["process"])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        first = SourceModule(src, include_dirs=[str(inc)])
        second = SourceModule(src, include_dirs=[str(inc)])
    msgs = [str(w.message) for w in caught if issubclass(w.category, compiler.CacheWarning)]
    assert len(msgs) == 1 and str(inc) in msgs[0] and "not cached" in msgs[0], msgs
    assert first.from_cache is False and second.from_cache is False
    after = compiler.cache_stats()["process"]
    assert after["stores"] == before["stores"] and not list(cache.glob("*.pcc"))
    memo_hits = after["memo_hits"] - before["memo_hits"]
    assert (second.module is first.module) == (cap == "bytes") == (memo_hits == 1)
    run_double_array(second)
    with pytest.raises(ValueError, match="holds more than"):
        compiler.cache_key(src, [], (), "cubin", "sm_90", "nvrtc", "nvrtc", False,
                           include_dirs=[str(inc)])


def test_module_from_result_refuses_garbage(ctx):
    """The C entry point that loads a compile result: wrong types and
    incomplete results are clear errors, before anything is loaded."""
    with pytest.raises(TypeError, match="result must be a dict"):
        _driver.module_from_result(123, "src")
    with pytest.raises(TypeError):
        _driver.module_from_result({}, b"src")
    for bad in ({}, {"image": b"", "options": [], "target": "cubin"},
                {"image": "text", "options": [], "target": "cubin"},
                {"image": b"\x7fELF", "options": [], "target": "cubin", "lowered": [1]}):
        with pytest.raises(ValueError, match="module_from_result: result needs"):
            _driver.module_from_result(bad, "src")


def test_get_global_writes_a_constant(ctx, cache):
    from pycudac import driver as drv
    mod = SourceModule("""
        __constant__ float coef[4];
        __global__ void read_coef(float *out) { out[threadIdx.x] = coef[threadIdx.x] * 10; }
    """)
    ptr, size = mod.get_global("coef")
    assert size == 16 and ptr.size == 16 and int(ptr) != 0
    assert isinstance(ptr, drv.DeviceAllocation)
    drv.memcpy_htod(ptr, np.array([1, 2, 3, 4], dtype=np.float32))
    out = np.zeros(4, dtype=np.float32)
    mod.get_function("read_coef")(drv.Out(out), block=(4, 1, 1))
    np.testing.assert_array_equal(out, [10, 20, 30, 40])
    del mod
    compiler.clear_memo()
    ptr.size  # the view keeps the module alive: still usable
    drv.memcpy_htod(ptr, np.zeros(4, dtype=np.float32))


def test_unknown_names_are_logic_errors(ctx, cache):
    mod = SourceModule(DOUBLE)
    with pytest.raises(_driver.LogicError, match="no kernel named 'tripple_array'.*double_array"):
        mod.get_function("tripple_array")
    with pytest.raises(_driver.LogicError, match="'nothing'"):
        mod.get_global("nothing")
    with pytest.raises(TypeError, match="name"):
        mod.get_function(3)


def test_template_kernel_through_name_expression(ctx, cache):
    from pycudac import driver as drv
    mod = SourceModule("""
        template <typename T>
        __global__ void scale(T *x, T a) { x[threadIdx.x] *= a; }
    """, no_extern_c=True, name_expressions=["scale<float>", "scale<int>"])
    x = np.arange(8, dtype=np.float32)
    mod.get_function("scale<float>")(drv.InOut(x), np.float32(3), block=(8, 1, 1))
    np.testing.assert_array_equal(x, np.arange(8) * 3)
    with pytest.raises(_driver.LogicError, match="name expression"):
        mod.get_function("scale<double>")


def test_source_module_compile_error_shows_user_line(ctx, cache):
    with pytest.raises(CompileError) as ei:
        SourceModule(BAD)
    msg = str(ei.value)
    assert "kernel.cu" in msg and "6" in msg
    assert "a[threadIdx.x] = undefined_name + 1;" in msg


def test_memo_returns_the_loaded_module(ctx, cache):
    a = SourceModule(DOUBLE)
    before = compiler._stats["memo_hits"]
    b = SourceModule(DOUBLE)
    assert b.module is a.module and compiler._stats["memo_hits"] == before + 1
    assert SourceModule(DOUBLE, options=["-DX=1"]).module is not a.module
    assert SourceModule(DOUBLE, no_extern_c=True).module is not a.module
    run_double_array(b)


def test_the_memo_sweeps_its_dead_entries_and_keeps_the_live():
    """The memo holds weak references; the dead are swept as it grows, so
    however many modules come and go it stays near twice the live ones."""
    from pycudac import _driver

    class Mod:
        pass

    memo = {}
    live = [Mod() for _ in range(10)]
    for i, m in enumerate(live):
        _driver.memo_put(memo, ("live", i), m)
    for i in range(50_000):
        _driver.memo_put(memo, ("dead", i), Mod())   # dies at once
    assert len(memo) <= 64
    assert all(_driver.memo_get(memo, ("live", i)) is m for i, m in enumerate(live))
    assert _driver.memo_get(memo, ("dead", 49_999)) is None
    with pytest.raises(TypeError, match="memo_put"):
        _driver.memo_put([], "k", live[0])


def test_the_one_call_path_and_the_general_path_share_the_memo(ctx, cache):
    """SourceModule(src) with no other argument takes one C call
    (warm_source_module) that builds the memo key itself: it must be the key
    the general path builds for the same arguments, both ways round."""
    src = f"// {uuid.uuid4().hex}\n" + DOUBLE
    first = SourceModule(src, options=[])  # general path (options given), fills the memo
    before = dict(compiler._stats)
    assert SourceModule(src).module is first.module  # the one-call path finds it
    assert SourceModule(src, no_extern_c=False, cache_dir=str(cache)).module is first.module
    assert compiler._stats["memo_hits"] == before["memo_hits"] + 2
    with pytest.raises(TypeError, match="cache_dir must be a path"):
        SourceModule(src, cache_dir=123)  # refused on a memo hit too
    src2 = f"// {uuid.uuid4().hex}\n" + DOUBLE
    second = SourceModule(src2)  # the one-call path first (or the general path on a miss)
    assert SourceModule(src2, options=[], include_dirs=[]).module is second.module
    assert SourceModule(src2, no_extern_c=True).module is not second.module
    for bad in (None, 5, b"__global__ void k() {}"):
        with pytest.raises(TypeError):
            SourceModule(bad)


def test_memo_sees_edited_headers(ctx, cache, tmp_path):
    inc = tmp_path / "inc"
    inc.mkdir()
    (inc / "k.h").write_text("#define K 2\n")
    src = '#include "k.h"\n__global__ void double_array(float *a) { a[threadIdx.x] *= K; }'
    a = SourceModule(src, include_dirs=[str(inc)])
    os.utime(inc / "k.h", ns=(1, 1))
    (inc / "k.h").write_text("#define K 3\n")
    b = SourceModule(src, include_dirs=[str(inc)])
    assert b.module is not a.module
    assert SourceModule(src, include_dirs=[str(inc)]).module is b.module
    c = SourceModule(src, options=[f"-I{inc}"])
    assert SourceModule(src, options=[f"-I{inc}"]).module is c.module
    (inc / "k.h").write_text("#define K 4 \n")
    assert SourceModule(src, options=[f"-I{inc}"]).module is not c.module


def test_memo_recreation_is_fast(ctx, cache):
    """While one SourceModule of a source lives, another of it reuses its
    loaded module (the memo holds modules only weakly)."""
    keep = SourceModule(DOUBLE)
    n = 2000
    t = min(timeit.repeat(lambda: SourceModule(DOUBLE), number=n, repeat=3)) / n
    # the target is 5 µs; leave room for a loaded shared CI machine
    assert t < 50e-6, f"{t * 1e6:.1f} µs per memo hit"
    assert SourceModule(DOUBLE).module is keep.module


def test_source_module_alone_on_a_memo_hit_runs_no_python_of_pycudac(ctx, cache):
    """SourceModule(src) with the source alone is SourceModuleBase's C
    __init__ (src/compile/cache_warm.c): a re-create runs no Python frame of
    pycudac's but the simulator's check-mode flag, which the key needs (a
    Python __init__ cost as much as the C call it made)."""
    keep = SourceModule(DOUBLE)
    SourceModule(DOUBLE)
    root = os.path.dirname(compiler.__file__)
    ran = []

    def profile(frame, event, arg):
        if event == "call" and frame.f_code.co_filename.startswith(root):
            ran.append(frame.f_code.co_name)

    sys.setprofile(profile)
    try:
        again = SourceModule(DOUBLE)
    finally:
        sys.setprofile(None)
    assert again.module is keep.module
    assert [n for n in ran if n != "_instrumented"] == []
    # anything more than the source is compiler.py's general path
    sys.setprofile(profile)
    try:
        SourceModule(DOUBLE, no_extern_c=False)
    finally:
        sys.setprofile(None)
    assert "_source_module_init" in ran


def test_a_miss_of_the_one_call_path_is_not_looked_up_again(ctx, cache):
    """SourceModule(src) that misses in C goes to compiler.py's general path
    told so (_tried): the memo and disk lookup are not made a second time."""
    src = f"// {uuid.uuid4().hex}\n" + DOUBLE
    calls = []

    def profile(frame, event, arg):
        if event == "c_call" and getattr(arg, "__name__", "") == "warm_source_module":
            calls.append(arg)

    sys.setprofile(profile)
    try:
        mod = SourceModule(src)
    finally:
        sys.setprofile(None)
    assert calls == [] and mod.module is not None
    assert "_tried" not in __import__("inspect").signature(SourceModule).parameters


def test_source_module_is_a_class_like_any_other(ctx, cache):
    """The C base keeps what a Python class gave: subclasses with their own
    __init__, weak references, the signature, and argument errors that name
    SourceModule.__init__."""
    import inspect
    import weakref

    class Tagged(SourceModule):
        def __init__(self, src, tag):
            super().__init__(src, options=[f"-DTAG={tag}"])
            self.tag = tag

    t = Tagged(DOUBLE, 3)
    assert t.tag == 3 and t.options and isinstance(t, SourceModule)
    run_double_array(t)
    m = SourceModule(DOUBLE)
    assert weakref.ref(m)() is m and m.module is not None
    params = list(inspect.signature(SourceModule).parameters)
    assert params[:3] == ["source", "nvcc", "options"] and "pch" in params
    with pytest.raises(TypeError, match=r"SourceModule.__init__\(\) missing 1 required"):
        SourceModule()
    with pytest.raises(TypeError, match=r"SourceModule.__init__\(\) got an unexpected keyword"):
        SourceModule(DOUBLE, bogus=1)
    with pytest.raises(TypeError, match="source must be str, not int"):
        SourceModule(123)
    with pytest.raises(TypeError, match="source must be str, not int"):
        SourceModule(source=123)
    assert SourceModule(source=DOUBLE).module is m.module

def test_module_from_buffer_and_file(ctx, cache, tmp_path):
    mod = SourceModule(DOUBLE)
    m2 = compiler.module_from_buffer(mod.image)
    f = m2.get_function("double_array")
    assert f is not None
    p = tmp_path / "image.bin"
    p.write_bytes(mod.image)
    m3 = compiler.module_from_file(str(p))
    assert m3.get_function("double_array") is not None
    with pytest.raises(TypeError, match="image"):
        compiler.module_from_buffer(12)
    with pytest.raises(ValueError, match="empty"):
        compiler.module_from_buffer(b"")
    with pytest.raises(_driver.Error):
        compiler.module_from_buffer(b"this is not an image at all")
    with pytest.raises(FileNotFoundError):
        compiler.module_from_file(str(tmp_path / "missing.bin"))


def test_module_ptx_attribute(ctx, cache):
    """`ptx` is the compile's PTX text or None; a module pycudac did not
    compile has none; it takes str or None only."""
    mod = SourceModule(DOUBLE)
    assert mod.ptx is None or ".entry" in mod.ptx
    bare = compiler.module_from_buffer(mod.image)
    assert not hasattr(bare, "ptx")
    with pytest.raises(AttributeError, match="ptx"):
        bare.ptx
    bare.ptx = "// text"
    assert bare.ptx == "// text"
    with pytest.raises(TypeError, match="ptx must be str or None"):
        bare.ptx = b"bytes"
    del bare.ptx
    assert not hasattr(bare, "ptx")
    with pytest.raises(ValueError, match="ptx"):
        _driver.module_from_result({"image": mod.image, "options": [], "target": "x",
                                    "ptx": b"raw"}, DOUBLE)


def test_keep_writes_outputs(ctx, cache, capsys):
    mod = SourceModule(f"// {uuid.uuid4().hex}\n" + DOUBLE, keep=True)
    assert os.path.exists(os.path.join(mod.keep_dir, "kernel.cu"))
    assert "compiler output in" in capsys.readouterr().err


def test_signatures_parsed_lazily_from_source(ctx, cache):
    mod = SourceModule(DOUBLE)
    sigs = mod.signatures
    assert sigs["double_array"].params[0].is_pointer
    assert compiler.module_from_buffer(mod.image).signatures is None


def test_two_loaded_modules_keep_their_own_kernels(ctx, cache):
    """Regression: on the simulator a second module once came back as the
    first one's shared object (dlopen of a reused /proc/self/fd/N path)."""
    m1 = SourceModule("__global__ void first_k(float *a) { a[0] = 1; }")
    m2 = SourceModule("__global__ void second_k(float *a) { a[0] = 2; }")
    assert m1.get_function("first_k") is not None
    assert m2.get_function("second_k") is not None
    with pytest.raises(_driver.LogicError, match="first_k"):
        m2.get_function("first_k")


FP16_SRC = """#include <cuda_fp16.h>
/* a comment before the kernels */
#define TWICE(x) __hadd((x), (x))
__global__ void twice(__half *x, int n)
{
    int i = threadIdx.x;
    if (i < n) x[i] = TWICE(x[i]);
}
"""


def test_toolkit_headers_work_inside_the_default_extern_c(tmp_path):
    """`#include <cuda_fp16.h>` is C++: it is read before the extern "C" block
    and NVRTC finds the toolkit's headers by itself."""
    image = compiler.compile(FP16_SRC, arch="sm_90", cache_dir=str(tmp_path))
    assert image[:4] == b"\x7fELF"


def test_hoisted_includes_keep_the_users_line_numbers(tmp_path):
    bad = FP16_SRC.replace("x[i] = TWICE(x[i]);", "x[i] = nope;")
    with pytest.raises(compiler.CompileError) as info:
        compiler.compile(bad, arch="sm_90", cache_dir=str(tmp_path))
    assert "(7)" in str(info.value) and "nope" in str(info.value)


def test_half_kernel_runs_with_default_wrapping(ctx):
    import numpy as np
    import pycudac.driver as drv
    f = compiler.SourceModule(FP16_SRC).get_function("twice")
    x = np.arange(8, dtype=np.float16)
    f(drv.InOut(x), np.int32(8), block=(8, 1, 1), grid=(1, 1))
    assert (x == np.arange(8, dtype=np.float16) * 2).all()


def test_pycuda_complex_header(autoinit):
    """`#include <pycuda-complex.hpp>` works as with PyCUDA, inside the
    extern "C" wrapping, and compile errors still quote the user's lines."""
    import numpy as np
    from pycudac import gpuarray
    src = """
#include <pycuda-complex.hpp>
#include "pycudac-complex.hpp"
__global__ void sq(pycuda::complex<float> *a, int n)
{
    int i = threadIdx.x;
    if (i < n) {
        pycudac::complex<float> z = a[i];  // the spelling of a source renamed throughout
        z *= z;
        z += 1.0f;
        a[i] = z / pycuda::complex<float>(0.5f, 0) + pycuda::polar(2.0f, 0.0f) - 2.0f * z.real();
    }
}
"""
    x = np.array([1 + 2j, 0, 3 - 1j, -0.5j], np.complex64)
    a = gpuarray.to_gpu(x)
    SourceModule(src).get_function("sq")(a, np.int32(4), block=(4, 1, 1), grid=(1, 1))
    z = x * x + 1
    np.testing.assert_allclose(a.get(), z / 0.5 + 2 - 2 * z.real, rtol=1e-6)
    bad = "#include <pycuda-complex.hpp>\n__global__ void k(pycuda::complex<float> *a)\n{\n" \
          "    a[0] = not_declared_here;\n}\n"
    with pytest.raises(CompileError) as info:
        SourceModule(bad)
    text = str(info.value)
    assert re.search(r"kernel\.cu(:4:|\(4\))", text) and "not_declared_here" in text
    assert ">     4 |     a[0] = not_declared_here;" in text


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


def test_stdio_include_works_on_every_backend(autoinit, capfd):
    """nvcc-style device code includes <stdio.h> or <cstdio> for printf; NVRTC
    has no such header, so pycudac drops the line (keeping line numbers)."""
    import numpy as np
    from pycudac import driver
    for header in ("<stdio.h>", "<cstdio>"):
        src = f"#include {header}\n__global__ void hi(int *a)\n{{\n    a[0] = 7;\n" \
              f"    printf(\"printed %d\\n\", a[0]);\n}}\n"
        a = driver.mem_alloc(4)
        SourceModule(src).get_function("hi")(a, block=(1, 1, 1), grid=(1, 1))
        driver.Context.synchronize()
        assert driver.from_device(a, (1,), np.int32)[0] == 7
    assert capfd.readouterr().out.count("printed 7") == 2
    with pytest.raises(CompileError) as info:
        SourceModule("#include <stdio.h>\n__global__ void k(int *a)\n{\n    a[0] = nope;\n}\n")
    assert re.search(r"kernel\.cu(:4:|\(4\))", str(info.value))


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


def test_the_one_call_path_leaves_absolute_includes_to_the_general_path(ctx, tmp_path,
                                                                       monkeypatch):
    """warm_source_module answers None, before the memo, for a source that
    may include a header by absolute path (its headers go into the key, which
    only the general path builds): the C test of compiler._hidden_include_dirs's
    condition, which costs the fast path nothing (Python's `in` took 10-40 µs
    over a kernel's text)."""
    monkeypatch.setenv("PYCUDAC_CACHE_DIR", str(tmp_path / "c"))
    compiler.clear_memo()
    plain = "__global__ void k(int *p) { *p = 1; }\n"
    for src, fast in ((plain, True),
                      ('// not an #include "/abs/x.h": a comment\n' + plain, False),
                      ("// include </x>\n" + plain, False),
                      ('// "/x" include\n' + plain, False),
                      ('// "/x"\n' + plain, True), ("// include /x\n" + plain, True)):
        held = SourceModule(src)  # in the memo, under the key both paths build
        got = _driver.warm_source_module(src, False, None, compiler._memo, compiler._stats,
                                         compiler.CACHE_FORMAT_VERSION)
        assert (got is held.module) == fast and (got is None) == (not fast), src
    compiler.clear_memo()


def test_the_memo_is_swept_when_modules_die_whatever_it_held_before():
    """The sweep waited for the dict to double what the last sweep left: a
    memo once full of live modules (an earlier test's) then grew to twice
    that with dead entries (test_scale saw 162 entries, one alive). It is
    swept once 32 modules have died."""
    class Mod:
        pass

    memo = {}
    live = [Mod() for _ in range(100)]
    for i, m in enumerate(live):
        _driver.memo_put(memo, ("a", i), m)
    del live, m  # 100 die
    for i in range(300):
        _driver.memo_put(memo, ("b", i), Mod())  # each dies at once
        assert len(memo) <= 64, (i, len(memo))


def test_the_memo_holds_nothing_alive_and_sweeps_the_dead():
    """compiler._memo (issue 21): key -> weak reference; a dead entry is a
    miss, and dead entries are swept as the dict grows, so that a service
    compiling many variants keeps neither modules nor their keys."""
    class Mod:
        pass

    memo, keep = {}, []
    for i in range(500):
        m = Mod()
        _driver.memo_put(memo, ("k", i), m)
        if i % 100 == 0:
            keep.append((i, m))
    assert len(memo) < 140
    for i, m in keep:
        assert _driver.memo_get(memo, ("k", i)) is m
    assert _driver.memo_get(memo, ("k", 1)) is None
    with pytest.raises(TypeError):
        _driver.memo_get([], 1)
