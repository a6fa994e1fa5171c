"""Link-time optimization (issue 25): LTO-IR from NVRTC (compile(...,
target="ltoir")), linked by nvJitLink into a CUBIN (compiler.link, on the CPU,
no GPU needed), DynamicModule(lto=True) through the stub driver and on the GPU,
nvJitLink's errors as CompileError, a missing nvJitLink as a RuntimeError
that says where it looked, and the simulator's refusal."""
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from pycudac import _driver, compiler
from pycudac.compiler import CompileError
from pycudac._compiler import link as _link

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ARCH = "sm_90"
LTOIR_MAGIC = b"\xedCN\x7f"  # what NVRTC's -dlto output starts with

HELPER = "__device__ float helper_twice(float x) { return 2.0f * x; }\n"
KERNEL = ("__device__ float helper_twice(float x);\n"
          "__global__ void scale_by_two(float *x, int n)\n"
          "{\n"
          "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
          "    if (i < n) x[i] = helper_twice(x[i]);\n"
          "}\n")


@pytest.fixture(scope="module")
def nvjitlink():
    try:
        _driver._nvrtc_path()
    except Exception as exc:  # reported as the skip reason
        pytest.skip(f"NVRTC not found: {exc}")
    try:
        return _driver.nvjitlink_info()
    except _driver.RuntimeError as exc:
        pytest.skip(f"nvJitLink not found: {exc}")


def ltoir(src, **kw):
    return compiler.compile(src, arch=ARCH, target="ltoir", cache_dir=False, **kw)


def test_nvrtc_makes_ltoir(nvjitlink, tmp_path):
    image = ltoir(HELPER)
    assert image[:4] == LTOIR_MAGIC
    # through the cache like any compile, under its own key
    first = compiler.compile(KERNEL, arch=ARCH, target="ltoir", cache_dir=str(tmp_path))
    hits = compiler._stats["hits"]
    again = compiler.compile(KERNEL, arch=ARCH, target="ltoir", cache_dir=str(tmp_path))
    assert again == first and compiler._stats["hits"] == hits + 1


def test_ltoir_needs_an_arch_without_a_gpu(backend):
    if backend != "sim":
        pytest.skip("the simulator's refusal")
    with pytest.raises(ValueError, match=r"target='ltoir'\) needs arch="):
        compiler.compile(HELPER, target="ltoir")
    with pytest.raises(ValueError, match="target must be 'cubin', 'ptx', 'ltoir' or 'sim'"):
        compiler.compile(HELPER, target="lto")


def test_nvjitlink_links_two_ltoir_units_into_a_cubin(nvjitlink):
    assert os.path.basename(nvjitlink["path"]).startswith("libnvJitLink.so")
    assert nvjitlink["version"][0] >= 12
    a, b = ltoir(HELPER), ltoir(KERNEL)
    cubin = compiler.link([a, b], arch=ARCH)
    assert cubin[:4] == b"\x7fELF" and b"scale_by_two\0" in cubin
    # link-time optimization: the helper of the other unit was inlined, so
    # no function of that name is left in the CUBIN
    assert b"helper_twice" not in cubin
    # the kinds given explicitly, and the same link
    from pycudac.driver import jit_input_type
    nvvm = jit_input_type.NVVM
    assert compiler.link([(a, nvvm), (b, nvvm)], arch=ARCH) == cubin


def test_without_lto_the_helper_stays_a_function(nvjitlink):
    """The same two sources as relocatable PTX, linked without -lto: the
    helper is a call across units (the contrast that shows LTO above)."""
    ptx = [_link._compile_relocatable(s, None, False, ARCH, None, None, False, False)
           for s in (HELPER, KERNEL)]
    cubin = compiler.link([p.decode() for p in ptx], arch=ARCH, lto=False)
    assert b"helper_twice" in cubin and b"scale_by_two" in cubin


def test_a_link_error_carries_nvjitlinks_log(nvjitlink):
    with pytest.raises(CompileError) as info:
        compiler.link([ltoir(KERNEL)], arch=ARCH)
    exc = info.value
    assert "nvJitLink" in str(exc) and "nvJitLinkComplete" in str(exc)
    assert "helper_twice" in exc.log and "helper_twice" in str(exc)
    assert exc.call == "nvJitLinkComplete" and exc.code != 0
    with pytest.raises(CompileError, match="NVJITLINK_ERROR_UNRECOGNIZED_OPTION"):
        compiler.link([ltoir(HELPER)], arch=ARCH, options=["-no-such-option"])


@pytest.mark.parametrize("objects,exc,match", [
    (b"x", TypeError, "a list of objects"),
    ("x", TypeError, "a list of objects"),
    ([1], TypeError, r"objects\[0\] must be bytes"),
    ([(b"x", 42)], ValueError, r"objects\[0\]: 42 is not a jit_input_type"),
])
def test_link_refuses_bad_objects(objects, exc, match):
    with pytest.raises(exc, match=match):
        compiler.link(objects, arch=ARCH)


def test_an_architecture_nvjitlink_does_not_know_is_refused_before_it_sees_it(nvjitlink):
    """arch="sm_5" (or -arch=sm_5 in options) made nvJitLink print "fatal:
    Unknown arch name 'compute_5'" and end the process, or crash it after an
    earlier link (found by an adversarial review). Each is now a ValueError
    that names the architectures this toolkit links for; the process lives."""
    code = textwrap.dedent(f"""
        from pycudac import compiler
        lto = compiler.compile({HELPER!r}, arch="sm_90", target="ltoir", cache_dir=False)
        compiler.link([lto], arch="sm_90")
        for kw in (dict(arch="sm_5"), dict(arch="sm_90", options=["-arch=sm_5"]),
                   dict(arch="sm_1")):
            try:
                compiler.link([lto], **kw)
                print("linked", kw)
            except ValueError as exc:
                assert "nvJitLink links for" in str(exc) and "sm_90" in str(exc), exc
                print("refused")
        """)
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                       env=dict(os.environ, PYTHONPATH=ROOT))
    assert r.returncode == 0 and r.stdout.split() == ["refused"] * 3, (r.returncode, r.stdout,
                                                                     r.stderr[-1500:])


@pytest.mark.parametrize("kw,exc,match", [
    (dict(lto="no"), TypeError, "lto must be True or False"),
    (dict(options=["-O3\0"]), ValueError, r"options\[0\] holds a NUL"),
])
def test_link_checks_its_keywords(nvjitlink, kw, exc, match):
    with pytest.raises(exc, match=match):
        compiler.link([ltoir(HELPER)], arch=ARCH, **kw)
    with pytest.raises(TypeError, match="objects must be a list .* not NoneType"):
        compiler.link(None, arch=ARCH)


def test_link_refuses_a_missing_file(tmp_path):
    import pathlib
    with pytest.raises(FileNotFoundError, match=r"objects\[0\]"):
        compiler.link([pathlib.Path(tmp_path / "none.ltoir")], arch=ARCH)


def test_jitlink_checks_its_inputs():
    with pytest.raises(ValueError, match="nothing to link"):
        _driver.jitlink([], ["-arch=sm_90"])
    for bad in ((9, b"x", None, "n"), (1, None, None, "n"), (1, b"x", None, 5), (1, b"x")):
        with pytest.raises(TypeError, match=r"jitlink: inputs\[0\] must be"):
            _driver.jitlink([bad], ["-arch=sm_90"])
    with pytest.raises(TypeError, match=r"options\[0\] must be str"):
        _driver.jitlink([(5, b"x", None, "n")], [b"-arch=sm_90"])


def test_dynamic_module_with_lto_is_refused_on_the_simulator(backend):
    if backend != "sim":
        pytest.skip("the simulator's refusal")
    import pycudac.autoinit  # noqa: F401
    with pytest.raises(_driver.LogicError, match="lto=True.*LTO-IR.*compiler.link"):
        compiler.DynamicModule(lto=True)
    with pytest.raises(TypeError, match="lto must be True or False"):
        compiler.DynamicModule(lto="yes")


def run_child(code, env):
    e = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    e.update(env)
    r = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], env=e,
                       capture_output=True, text=True, timeout=300)
    return r


def test_a_missing_nvjitlink_is_named(nvjitlink):
    """PYCUDAC_NVJITLINK names the library to use, and only that: one that
    does not open is a RuntimeError naming it (and what to install)."""
    r = run_child("""
        from pycudac import _driver, compiler
        try:
            compiler.link([b"x"], arch="sm_90")
        except _driver.RuntimeError as exc:
            print("RAISED", exc)
        """, {"PYCUDAC_NVJITLINK": "/no/such/libnvJitLink.so.13", "PYCUDAC_BACKEND": "sim"})
    assert r.returncode == 0, r.stderr[-2000:]
    assert "RAISED nvJitLink" in r.stdout and "/no/such/libnvJitLink.so.13" in r.stdout
    assert "nvidia-nvjitlink" in r.stdout


STUB_LTO_CHILD = """
import pycudac.autoinit
from pycudac import compiler, driver
from pycudac.compiler import CompileError, DynamicModule
HELPER, KERNEL = %r, %r
seen = []
dm = DynamicModule(lto=True, message_handler=lambda ok, info, err: seen.append((ok, err)))
dm.add_source(HELPER, name="helper.ptx")
dm.add_data(compiler.compile(KERNEL, target="ltoir"), driver.jit_input_type.NVVM, "kernel")
dm.link()
# the stub driver loads anything; the image is nvJitLink's real CUBIN
assert dm.image[:4] == b"\\x7fELF" and b"scale_by_two" in dm.image, dm.image[:16]
assert b"helper_twice" not in dm.image and seen == [(True, "")], seen
assert dm.get_function("scale_by_two") is not None
# a name that is no str was an AttributeError, an input type no jit_input_type
# a message naming nothing (an adversarial review)
for call, exc, words in ((lambda: DynamicModule(lto=True).add_source(HELPER, name=None),
                          TypeError, "add_source: name must be a str"),
                         (lambda: DynamicModule(lto=True).add_data(b"x", 99), ValueError,
                          "input_type must be a jit_input_type")):
    try:
        call()
    except exc as e:
        assert words in str(e), e
    else:
        raise AssertionError(words)
bad = DynamicModule(lto=True, message_handler=lambda ok, info, err: seen.append((ok, err)))
bad.add_source(KERNEL)
try:
    bad.link()
except CompileError as exc:
    assert "helper_twice" in exc.log and seen[-1][0] is False, (exc.log, seen)
else:
    raise AssertionError("the unresolved helper linked")
# link options go to nvJitLink
opt = DynamicModule(lto=True, link_options=["-no-such-option"])
opt.add_source(HELPER)
try:
    opt.link()
except CompileError as exc:
    assert "UNRECOGNIZED_OPTION" in str(exc), str(exc)
else:
    raise AssertionError("an unknown nvJitLink option was accepted")
print("OK")
"""

STUB_NO_JITLINK_CHILD = """
import pycudac.autoinit
from pycudac import _driver
from pycudac.compiler import DynamicModule
dm = DynamicModule(lto=True)
dm.add_source(%r)
try:
    dm.link()
except _driver.RuntimeError as exc:
    text = str(exc)
    assert "nvJitLink" in text and "cuLink" in text and "older than 12.0" in text, text
    print("OK")
"""


def test_dynamic_module_with_lto_through_the_stub_driver(stub_driver, nvjitlink):
    """DynamicModule(lto=True) on the CUDA backend's code path in CI: NVRTC
    makes LTO-IR, nvJitLink links it for real, the stub driver loads the
    CUBIN. (On the GPU: test_dynamic_module_with_lto_runs_on_the_gpu.)"""
    env = {"PYCUDAC_BACKEND": "cuda", "PYCUDAC_LIBCUDA": stub_driver,
           "PYCUDAC_DISABLE_CACHE": "1"}
    r = run_child(STUB_LTO_CHILD % (HELPER, KERNEL), env)
    assert r.returncode == 0 and r.stdout.strip().endswith("OK"), r.stdout + r.stderr[-3000:]
    r = run_child(STUB_NO_JITLINK_CHILD % HELPER,
                  dict(env, PYCUDAC_NVJITLINK="/no/such/libnvJitLink.so"))
    assert r.returncode == 0 and r.stdout.strip().endswith("OK"), r.stdout + r.stderr[-3000:]


@pytest.mark.gpu
def test_dynamic_module_with_lto_runs_on_the_gpu(autoinit):
    """Two sources linked with link-time optimization, loaded and launched;
    then LTO-IR made by compile() and added as data."""
    from pycudac import driver, gpuarray
    dm = compiler.DynamicModule(lto=True)
    dm.add_source(HELPER, name="helper")
    dm.add_source(KERNEL, name="kernel")
    dm.link()
    assert b"helper_twice" not in dm.image
    x = gpuarray.to_gpu(np.arange(64, dtype=np.float32))
    dm.get_function("scale_by_two")(x, np.int32(64), block=(64, 1, 1), grid=(1, 1))
    driver.Context.synchronize()
    np.testing.assert_array_equal(x.get(), 2 * np.arange(64, dtype=np.float32))
    dm2 = compiler.DynamicModule(lto=True)
    dm2.add_data(compiler.compile(HELPER, target="ltoir"), driver.jit_input_type.NVVM, "h")
    dm2.add_data(compiler.compile(KERNEL, target="ltoir"), driver.jit_input_type.NVVM, "k")
    dm2.link()
    y = gpuarray.to_gpu(np.ones(8, np.float32))
    dm2.get_function("scale_by_two")(y, np.int32(8), block=(8, 1, 1), grid=(1, 1))
    np.testing.assert_array_equal(y.get(), np.full(8, 2, np.float32))
    # a CUBIN linked without loading it, for this GPU, loads as any image
    cubin = compiler.link([compiler.compile(s, target="ltoir") for s in (HELPER, KERNEL)])
    mod = compiler.module_from_buffer(cubin)
    z = gpuarray.to_gpu(np.full(4, 3, np.float32))
    mod.get_function("scale_by_two")(z, np.int32(4), block=(4, 1, 1), grid=(1, 1))
    np.testing.assert_array_equal(z.get(), np.full(4, 6, np.float32))
