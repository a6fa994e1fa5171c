"""nvcc's implicit environment (src/compile/wrap.c): nvcc compiles a source
after cuda_runtime.h, whose host headers give uint, INT_MAX, M_PI, INFINITY,
int32_t, RAND_MAX and CLOCKS_PER_SEC with no #include. Kernels written for
PyCUDA (which compiles with nvcc) use them; NVRTC knows none of them, and
PyCUDA's own matrixmul_tiled.py example failed ('identifier "uint" is
undefined'). A source that names one gets what gives it, on both backends,
before anything of its own; what nvcc does not give (uint8_t, FLT_MAX,
uchar) stays refused, as there. int32_t and int64_t are left out on purpose
(nvcc's are glibc's `int` and `long`, NVRTC's <stdint.h> says `long long`):
a source that declares its own, or includes the other, must keep working.
"""
import os
import shutil
import subprocess

import numpy as np
import pytest

import pycudac.driver as drv
from pycudac import compiler
from pycudac.compiler import SourceModule

# name: (an expression that uses it, whether nvcc (CUDA 13, no #include) takes it)
NAMES = {
    "uint": ("(uint)3", True), "ushort": ("(ushort)3", True), "ulong": ("(ulong)3", True),
    "INT_MAX": ("INT_MAX", True), "UINT_MAX": ("(int)(UINT_MAX >> 1)", True),
    "CHAR_BIT": ("CHAR_BIT", True), "LLONG_MAX": ("(int)(LLONG_MAX > 0)", True),
    "M_PI": ("(int)(M_PI * 100)", True), "M_E": ("(int)(M_E * 100)", True),
    "INFINITY": ("(int)(INFINITY > 1.0f)", True), "NAN": ("(int)isnan(NAN)", True),
    "HUGE_VALF": ("(int)(HUGE_VALF > 1.0f)", True), "RAND_MAX": ("RAND_MAX", True),
    "EXIT_FAILURE": ("EXIT_FAILURE", True), "CLOCKS_PER_SEC": ("(int)CLOCKS_PER_SEC", True),
    "uchar": ("(uchar)3", False), "uint8_t": ("(uint8_t)3", False),
    "uintptr_t": ("(uintptr_t)3", False), "FLT_MAX": ("(int)(FLT_MAX > 1.0f)", False),
    "INT32_MAX": ("INT32_MAX", False), "SIZE_MAX": ("(int)(SIZE_MAX > 0)", False),
}
# what nvcc takes and pycudac leaves out (see the top)
LEFT_OUT = {"int32_t": "(int32_t)3", "int64_t": "(int64_t)3"}


def kernel(expr):
    return "__global__ void k(int *p) { p[0] = %s; }" % expr


def nvrtc_or_skip():
    from pycudac import _driver
    try:
        _driver._nvrtc_path()
    except Exception as exc:
        pytest.skip(f"NVRTC not found: {exc}")


@pytest.mark.parametrize("name", sorted(NAMES) + sorted(LEFT_OUT))
def test_nvrtc_takes_what_nvcc_takes(tmp_path, name):
    nvrtc_or_skip()
    expr, nvcc_takes = NAMES[name] if name in NAMES else (LEFT_OUT[name], False)
    if nvcc_takes:
        assert compiler.compile(kernel(expr), arch="sm_90", cache_dir=str(tmp_path))
    else:
        with pytest.raises(compiler.CompileError, match=name):
            compiler.compile(kernel(expr), arch="sm_90", cache_dir=str(tmp_path))


def test_nvcc_agrees_with_the_table(tmp_path):
    """The table above against the toolkit's nvcc, where there is one: what
    it takes, all in one compile, and each name it refuses."""
    nvcc = shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc"
    if not os.path.exists(nvcc):
        pytest.skip("no nvcc here")

    # nvcc's own processes, not a sanitized stage's (LD_PRELOAD would load ASan
    # into them)
    env = {k: v for k, v in os.environ.items() if k not in ("LD_PRELOAD", "ASAN_OPTIONS",
                                                            "UBSAN_OPTIONS", "PYTHONMALLOC")}

    def takes(body):
        src = tmp_path / "k.cu"
        src.write_text("__global__ void k(int *p) { %s }\n" % body)
        r = subprocess.run([nvcc, "-cubin", "-arch=sm_90", str(src), "-o", str(tmp_path / "k")],
                           capture_output=True, text=True, timeout=120, env=env)
        return r.returncode == 0
    good = [e for e, ok in NAMES.values() if ok] + list(LEFT_OUT.values())
    assert takes(" ".join("p[%d] = %s;" % (i, e) for i, e in enumerate(good)))
    for name, (expr, ok) in NAMES.items():
        if not ok:
            assert not takes("p[0] = %s;" % expr), name


def test_the_values_on_either_backend(ctx):
    """They mean what the host's headers say (x86-64 Linux, as nvcc's)."""
    src = r"""
    __global__ void k(float *f, int *i, long long *l)
    {
        const uint t = threadIdx.x; ushort s = 2; ulong u = 3; int a = 4; long b = 5;
        f[0] = (float)M_PI; f[1] = INFINITY; f[2] = isnan(NAN) ? 1.0f : 0.0f;
        f[3] = (float)M_SQRT2;
        i[0] = INT_MAX; i[1] = CHAR_BIT; i[2] = RAND_MAX; i[3] = EXIT_FAILURE;
        i[4] = (int)CLOCKS_PER_SEC; i[5] = (int)(t + s + u + a + b); i[6] = INT_MIN;
        l[0] = LLONG_MAX; l[1] = (long long)UINT_MAX; l[2] = sizeof(ulong);
    }"""
    f = np.zeros(4, np.float32)
    i = np.zeros(7, np.int32)
    l = np.zeros(3, np.int64)
    SourceModule(src).get_function("k")(drv.Out(f), drv.Out(i), drv.Out(l), block=(1, 1, 1))
    assert f[0] == np.float32(np.pi) and np.isinf(f[1]) and f[2] == 1
    assert f[3] == np.float32(np.sqrt(2))
    assert i.tolist() == [2**31 - 1, 8, 2**31 - 1, 1, 1000000, 14, -2**31]
    assert l.tolist() == [2**63 - 1, 2**32 - 1, 8]


@pytest.mark.parametrize("no_extern_c", [False, True])
def test_the_users_line_numbers_stand(ctx, no_extern_c):
    src = "__global__ void k(int *p)\n{\n    uint x = M_PI;\n    p[0] = x + not_declared;\n}\n"
    with pytest.raises(compiler.CompileError) as caught:
        SourceModule(src, no_extern_c=no_extern_c)
    lines = [ln for ln in str(caught.value).splitlines() if "not_declared" in ln]
    assert any("kernel.cu(4)" in ln or "kernel.cu:4:" in ln for ln in lines), str(caught.value)


def test_with_precompiled_headers_the_line_numbers_stand(tmp_path):
    """A source that needs the environment is compiled whole, the environment
    first, also where precompiled headers were asked for (NVRTC makes its PCH
    of a source's leading directives, and of none with a #line among them):
    the same result, the user's line numbers."""
    nvrtc_or_skip()
    for no_extern_c in (False, True):
        src = ("#include <cuda_fp16.h>\n#define TWICE(v) (2 * (v))\n"
               "__global__ void k(int *p)\n{\n    uint x = TWICE(INT_MAX / 4);\n"
               "    p[0] = x + not_declared;\n}\n")
        with pytest.raises(compiler.CompileError) as caught:
            compiler.compile(src, arch="sm_90", pch=True, no_extern_c=no_extern_c,
                             cache_dir=str(tmp_path))
        assert "kernel.cu(6)" in str(caught.value), str(caught.value)
        assert compiler.compile(src.replace(" + not_declared", ""), arch="sm_90", pch=True,
                                no_extern_c=no_extern_c, cache_dir=str(tmp_path))


def test_names_in_the_users_own_definitions_stay_theirs(ctx):
    """A source that defines a name itself keeps it: a typedef of the same
    type, and a macro of its own after the environment's."""
    src = r"""
    typedef unsigned int uint;
    #define RAND_MAX 7
    __global__ void k(int *p) { uint x = RAND_MAX; p[0] = (int)x; }"""
    p = np.zeros(1, np.int32)
    SourceModule(src).get_function("k")(drv.Out(p), block=(1, 1, 1))
    assert p[0] == 7


@pytest.mark.parametrize("pch", [None, True, False])
def test_the_sources_own_definitions_come_after_the_environment(tmp_path, pch):
    """As in nvcc's order: a source's `#define uint ...` or `#define M_PI ...`
    after its leading #include follows the environment (a review: with
    precompiled headers the environment came after them, and the typedef
    read `typedef unsigned int unsigned int`, or math.h's M_PI replaced the
    user's, silently); its own int64_t typedef stays its own."""
    nvrtc_or_skip()
    ok = ['#include <stdint.h>\n#define uint unsigned int\n__global__ void k(uint *a) { a[0] = 1; }',
          '#include <cuda_fp16.h>\n#define ulong unsigned long long\n'
          '__global__ void k(ulong *a) { a[0] = 1; }',
          'typedef long int64_t;\n__global__ void k(int64_t *a) { a[0] = INT_MAX; }',
          'typedef unsigned long uint64_t;\n__global__ void k(int *a, uint64_t n) { a[0] = n; }']
    for src in ok:
        assert compiler.compile(src, arch="sm_90", pch=pch, cache_dir=False), src
    ptx = compiler.compile('#include <stdint.h>\n#define M_PI 3.14159f\n'
                           '__global__ void k(float *a) { a[0] = M_PI; }', arch="sm_90",
                           pch=pch, target="ptx", cache_dir=False)
    assert b"1078530000" in ptx and b"1078530011" not in ptx  # 3.14159f, not math.h's
