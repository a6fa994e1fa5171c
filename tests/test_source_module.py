"""SourceModule on the active backend (the simulator in CI, the GPU under
`make gpu-check`): arguments of the wrong kind or value refused by name,
get_function and get_global, module_from_buffer/file/result, the module's
attributes, keep=True, several modules at once, and the headers a source
includes (toolkit, PyCUDA's complex, stdio). Warm starts and the memo are
test_compiler_warm.py's."""
import os
import re
import uuid
import warnings

import numpy as np
import pytest

from pycudac import _driver, compiler
from pycudac.compiler import CompileError, SourceModule
from pycudac._compiler import includes as _includes

import _compile_setup
from _compile_setup import BAD, DOUBLE, run_double_array

cache = _compile_setup.cache  # a fixture: pytest finds it in this module


# ---------------------------------------------------------------------------
# SourceModule on the active backend (sim in CI, the GPU under gpu-check)

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


@pytest.mark.parametrize("decl, name", [
    ("__constant__ float coef[4];", "coef"),
    ("__device__ float coef[4];", "coef"),
    ("#define CONSTANT_MEM_DECL __constant__\nCONSTANT_MEM_DECL float coef[4];", "coef"),
])
def test_each_source_module_has_its_own_module_variables(ctx, cache, decl, name):
    """Two SourceModules of one source are two modules in PyCUDA, each with
    its own __constant__ and __device__ data: reikna's test_constant_memory
    sets two programs of one source apart and reads the first back, which
    failed (the memo gave both one loaded module). A source without module
    variables still shares its module."""
    from pycudac import driver as drv
    src = f"// {uuid.uuid4().hex}\n{decl}\n" + \
        "__global__ void read_coef(float *out) { out[threadIdx.x] = coef[threadIdx.x]; }"
    mods = [SourceModule(src), SourceModule(src)]
    for k, mod in enumerate(mods):
        drv.memcpy_htod(mod.get_global(name)[0], np.full(4, k + 1, np.float32))
    for k, mod in enumerate(mods):
        out = np.zeros(4, np.float32)
        mod.get_function("read_coef")(drv.Out(out), block=(4, 1, 1))
        np.testing.assert_array_equal(out, np.full(4, k + 1, np.float32))
    assert mods[0].module is not mods[1].module
    plain = f"// {uuid.uuid4().hex}\n__device__ float twice(float x) {{ return 2 * x; }}\n" + DOUBLE
    assert SourceModule(plain).module is SourceModule(plain).module


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
    # `sm.ptx = ...` said the attribute did not exist, while reading it works:
    # it is the module's, which SourceModules of the same source share (the
    # memo), so the write is refused by name rather than made for all of them
    # (a review: one instance's write showed in the next); a subclass keeps
    # its own attributes
    before = mod.ptx
    with pytest.raises(AttributeError, match=r"SourceModule\.ptx is its module's .* "
                                             r"sm\.module\.ptx"):
        mod.ptx = "// mine"
    assert SourceModule(DOUBLE).ptx == before
    with pytest.raises(AttributeError, match="'nothing'"):
        mod.nothing = 1

    class Tagged(SourceModule):
        def __init__(self, src):
            super().__init__(src)
            self.log = []
    assert Tagged(DOUBLE).log == [] and SourceModule(DOUBLE).log != []


def test_keep_writes_outputs(ctx, cache, capsys):
    """keep=True says where on stdout, in PyCUDA's words: grunnur's
    test_program.py::test_keep reads the folder from there and opens its
    kernel.cu (it failed: pycudac wrote to stderr)."""
    src = f"// {uuid.uuid4().hex}\n" + DOUBLE
    mod = SourceModule(src, keep=True)
    out = capsys.readouterr().out
    m = re.match(r"\*\*\* compiler output in (.*)\n", out)
    assert m is not None and m.group(1) == mod.keep_dir
    with open(os.path.join(m.group(1), "kernel.cu")) as f:
        assert src in f.read()


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


# ---------------------------------------------------------------------------
# headers a source includes

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


def test_a_cpp_kernel_is_found_by_its_linkage_name_on_every_backend(ctx, cache):
    """With no_extern_c=True a C++ kernel's name in the module is its mangled
    one: get_function("_Z1kPi") finds it and get_function("k") does not, on a
    GPU and (since the simulator's modules carry each kernel's linkage name)
    on the simulator, which found "k" and not "_Z1kPi" before, so code
    written on one failed on the other; a name expression finds it by its
    own text on both."""
    import pycudac.driver as drv
    src = ("__global__ void k(int *p) { p[0] = 7; }\n"
           "namespace ns { __global__ void e(int *p) { p[0] = 8; } "
           "extern \"C\" __global__ void d(int *p) { p[0] = 9; } }")
    mod = SourceModule(src, no_extern_c=True)
    out = np.zeros(1, np.int32)
    for name, value in (("_Z1kPi", 7), ("_ZN2ns1eEPi", 8), ("d", 9)):
        mod.get_function(name)(drv.Out(out), block=(1, 1, 1))
        assert out[0] == value, name
    for name in ("k", "e", "ns::e"):
        with pytest.raises(_driver.LogicError, match="with no_extern_c=True, declared extern"):
            mod.get_function(name)
    # a static kernel has no symbol of its plain name either (NVRTC's is a local
    # _Z1sPi; a review: the simulator found "s")
    static = SourceModule("static __global__ void s(int *p) { p[0] = 1; }", no_extern_c=True)
    with pytest.raises(_driver.LogicError, match="no kernel named 's'"):
        static.get_function("s")
    named = SourceModule(src, no_extern_c=True, name_expressions=["k", "ns::e"])
    named.get_function("ns::e")(drv.Out(out), block=(1, 1, 1))
    assert out[0] == 8
    named.get_function("k")(drv.Out(out), block=(1, 1, 1))
    assert out[0] == 7
