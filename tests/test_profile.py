"""pycudac.profile (issue 25): NVTX ranges and marks for user code, pycudac's
own ranges (compile, link, module load, launches on the general path — never
on the fast path), no-ops without a profiler, and driver.start_profiler /
stop_profiler. The profiler is a fake NVTX injection library of our own
(tests/c/fake_nvtx_injection.c) that logs what it receives, attached as Nsight
Systems attaches: NVTX_INJECTION64_PATH."""
import os
import subprocess
import sys
import sysconfig
import textwrap

import pytest

from pycudac import _driver, profile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@pytest.fixture(scope="module")
def fake_tool(tmp_path_factory):
    cc = os.environ.get("CC") or (sysconfig.get_config_var("CC") or "cc").split()[0]
    out = tmp_path_factory.mktemp("nvtx") / "libfake_nvtx.so"
    r = subprocess.run([cc, "-O1", "-fPIC", "-shared", "-Wall", "-Wextra", "-Werror",
                        os.path.join(ROOT, "tests", "c", "fake_nvtx_injection.c"), "-o",
                        str(out)], capture_output=True, text=True)
    if r.returncode != 0:
        pytest.skip(f"no C compiler for the fake NVTX tool: {r.stderr[-300:]}")
    return str(out)


def run_with_tool(code, tool, log, **env):
    e = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""),
             NVTX_INJECTION64_PATH=tool, FAKE_NVTX_LOG=str(log), PYCUDAC_BACKEND="sim",
             PYCUDAC_DISABLE_CACHE="1")
    e.update(env)
    r = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], env=e,
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr[-3000:]
    lines = log.read_text().splitlines() if log.exists() else []
    return r.stdout, lines


# ---- without a profiler: nothing happens, arguments are still checked ----------------

def test_without_a_profiler_ranges_do_nothing():
    assert profile.enabled() is False
    with profile.range("outer", color="green") as r:
        profile.mark("inside", color=0x00FF00)
    assert isinstance(r, profile.range) and r.argb == 0xFF76B900

    @profile.range("named", color="#102030")
    def f(a, b=2):
        """doc"""
        return a + b

    @profile.range
    def g():
        raise KeyError("x")
    assert f(1) == 3 and f.__name__ == "f" and f.__doc__ == "doc"
    with pytest.raises(KeyError):
        g()
    assert g.__name__ == "g"


@pytest.mark.parametrize("color,argb", [(None, 0), ("green", 0xFF76B900), ("Blue", 0xFF0072B2),
                                        ("#abcdef", 0xFFABCDEF), (0x123456, 0xFF123456),
                                        (0x80123456, 0x80123456)])
def test_colors(color, argb):
    assert profile.color_argb(color) == argb


@pytest.mark.parametrize("call,exc,match", [
    (lambda: profile.range(5), TypeError, "message must be str"),
    (lambda: profile.range("a\0b"), ValueError, "NUL"),
    (lambda: profile.range("x", color="chartreuse"), ValueError, "color 'chartreuse'"),
    (lambda: profile.range("x", color="#12345"), ValueError, "#RRGGBB"),
    # a sign passed int(): refused only at the first `with` (an adversarial review)
    (lambda: profile.range("x", color="#-12345"), ValueError, "#RRGGBB"),
    (lambda: profile.range("x", color="# 12345"), ValueError, "#RRGGBB"),
    (lambda: profile.range("x", color=1.5), TypeError, "color must be"),
    (lambda: profile.range("x", color=True), TypeError, "color must be"),
    (lambda: profile.range("x", color=1 << 33), ValueError, "0xAARRGGBB"),
    (lambda: profile.range("x")(5), TypeError, "decorates a callable"),
    (lambda: profile.mark(b"x"), TypeError, "message must be str"),
    (lambda: _driver.nvtx_push("x", -1), ValueError, "argb"),
    (lambda: _driver.nvtx_push(), TypeError, "takes 1 or 2 arguments"),
])
def test_bad_arguments_are_named(call, exc, match):
    with pytest.raises(exc, match=match):
        call()


def test_profiler_start_and_stop_do_nothing_on_the_simulator(backend):
    from pycudac import driver
    if backend != "sim":
        pytest.skip("the simulator's no-op")
    assert driver.start_profiler() is None and driver.stop_profiler() is None


# ---- with a profiler ------------------------------------------------------------------

CHILD = """
import numpy as np
import pycudac.autoinit
import pycudac.driver as drv
from pycudac import profile
from pycudac.compiler import SourceModule
assert profile.enabled()
with profile.range("outer", color="green"):
    profile.mark("hello", color=0x112233)
    f = SourceModule("__global__ void kk(float *a, int n) { a[threadIdx.x] *= n; }",
                     cache_dir=False).get_function("kk")
    a = drv.mem_alloc(16)
    b = np.ones(4, np.float32)
    start = drv._debug_counters()["general_launches"]
    f(drv.InOut(b), np.int32(2), block=(4, 1, 1))  # In/Out: the general path
    f(a, np.int32(2), block=(4, 1, 1), shared=0)  # shared=: the general path
    f(a, np.int32(2), block=(4, 1, 1))
    before = drv._debug_counters()["general_launches"]
    for _ in range(5):
        f(a, np.int32(2), block=(4, 1, 1))  # the fast path: no range
    fast = drv._debug_counters()["general_launches"] == before
    general = before - start
@profile.range
def step():
    pass
step()
print("FAST", fast, b.tolist())
print("GENERAL", general)
"""


@pytest.mark.parametrize("backend_name", ["sim", pytest.param("cuda", marks=pytest.mark.gpu)])
def test_ranges_reach_the_profiler(fake_tool, tmp_path, backend_name):
    out, lines = run_with_tool(CHILD, fake_tool, tmp_path / "nvtx.log",
                               PYCUDAC_BACKEND=backend_name)
    compiler_name = "simulator" if backend_name == "sim" else "NVRTC"
    assert "FAST True [2.0, 2.0, 2.0, 2.0]" in out
    general = int(out.split("GENERAL ")[1])
    assert general >= 2
    assert lines[0] == "init 3" and "domain pycudac" in lines
    own = [ln for ln in lines if ln.startswith(("push pycudac", "pop pycudac"))]
    # one range per launch that took the general path, none for the 5 fast ones
    assert own == [f"push pycudac ffe69f00 compile ({compiler_name})", "pop pycudac",
                   "push pycudac ff56b4e9 module load", "pop pycudac"] + \
        ["push pycudac ff009e73 launch kk", "pop pycudac"] * general
    mine = [ln for ln in lines if " - " in ln or ln == "pop -"]
    assert mine == ["push - ff76b900 outer", "mark - ff112233 hello", "pop -",
                    "push - 00000000 step", "pop -"]


def test_a_tool_that_declines_gets_nothing(fake_tool, tmp_path):
    out, lines = run_with_tool("""
        from pycudac import profile
        with profile.range("x"):
            profile.mark("y")
        print(profile.enabled())
        """, fake_tool, tmp_path / "nvtx.log", FAKE_NVTX_REFUSE="1")
    assert out.strip() == "False"
    assert lines == ["init 3"]


def test_a_missing_tool_library_is_no_profiler(tmp_path):
    out, lines = run_with_tool("""
        from pycudac import profile
        with profile.range("x"):
            pass
        print(profile.enabled())
        """, str(tmp_path / "no-such-tool.so"), tmp_path / "nvtx.log")
    assert out.strip() == "False" and lines == []


def test_link_ranges_reach_the_profiler(fake_tool, tmp_path):
    try:
        _driver.nvjitlink_info()
    except Exception as exc:
        pytest.skip(f"no NVRTC/nvJitLink: {exc}")
    _, lines = run_with_tool("""
        from pycudac import compiler
        a = compiler.compile("__device__ int f(int x) { return x; }", arch="sm_90",
                             target="ltoir")
        compiler.link([a], arch="sm_90")
        """, fake_tool, tmp_path / "nvtx.log")
    own = [ln for ln in lines if ln.startswith("push pycudac")]
    assert own == ["push pycudac ffe69f00 compile (NVRTC)",
                   "push pycudac ffd55e00 link (nvJitLink)"]


@pytest.mark.gpu
def test_profiler_start_and_stop_on_the_gpu(autoinit):
    """cuProfilerStart/Stop succeed in the current context (a profiler
    started with --capture-range=cudaProfilerApi records between them)."""
    from pycudac import driver
    assert driver.start_profiler() is None
    assert driver.stop_profiler() is None


def test_profiler_start_and_stop_through_the_stub_driver(stub_driver, tmp_path):
    """cuProfilerStart / cuProfilerStop in the current context, on the CUDA
    backend's code path (the stub counts the calls)."""
    out, _ = run_with_tool("""
        import ctypes, os
        import pycudac.autoinit
        from pycudac import driver
        driver.start_profiler()
        driver.stop_profiler()
        print(ctypes.CDLL(os.environ["PYCUDAC_LIBCUDA"]).stub_profiler_calls())
        """, "", tmp_path / "nvtx.log", PYCUDAC_BACKEND="cuda", PYCUDAC_LIBCUDA=stub_driver)
    assert out.strip() == "1001"
