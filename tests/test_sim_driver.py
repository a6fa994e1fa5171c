"""The simulator's own checks, called as a driver (tests/c/sim_driver_probe.c).

pycudac refuses an oversized copy, a short parameter buffer or too much
dynamic shared memory before the driver sees it, so from Python the
simulator's checks of the same things (what the real driver refuses) are
never reached: tools/mutate.py's V2 (a copy past an allocation made) and V3
(a short parameter buffer launched) passed the whole suite. The probe links
the simulator's sources (src/sim/, src/util/: plain C, no Python) into a
small C program and calls its driver table directly."""
import glob
import os
import shutil
import subprocess
import sysconfig

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

KERNEL = r"""
extern "C" __global__ void k(int a, double b, int *p)
{
    if (threadIdx.x == 0) p[0] = a + (b == 2.5 ? 0 : 1000);
}
"""


@pytest.fixture(scope="module")
def probe(tmp_path_factory, backend):
    if backend != "sim":
        pytest.skip("the simulator's driver (the cuda backend is in use)")
    cc = os.environ.get("CC") or (sysconfig.get_config_var("CC") or "cc").split()[0]
    if shutil.which(cc) is None:
        pytest.skip(f"no C compiler ({cc})")
    generated = os.path.join(ROOT, "build", "generated")
    if not os.path.exists(os.path.join(generated, "sim_prelude_blob.h")):
        # an installed package's tests (an sdist's tree, never built in place)
        pytest.skip("build/generated is made by setup.py; build in place first")
    sources = sorted(glob.glob(os.path.join(ROOT, "src", "sim", "**", "*.c"), recursive=True)
                     + glob.glob(os.path.join(ROOT, "src", "util", "*.c")))
    out = str(tmp_path_factory.mktemp("probe") / "sim_driver_probe")
    cmd = [cc, "-std=c11", "-O1", "-D_GNU_SOURCE", "-I" + os.path.join(ROOT, "include"),
           "-I" + os.path.join(ROOT, "src"), "-I" + generated,
           os.path.join(ROOT, "tests", "c", "sim_driver_probe.c"),
           *sources, "-ldl", "-lpthread", "-lm", "-o", out]
    r = subprocess.run(cmd, capture_output=True, text=True)
    assert r.returncode == 0, "the probe does not build:\n" + r.stderr[-3000:]
    return out


def _run(probe, tmp_path):
    from pycudac import compiler
    image = tmp_path / "k.sim"
    image.write_bytes(compiler.compile(KERNEL, no_extern_c=True))
    # not under the sanitizers' preload: the probe is not instrumented
    env = {k: v for k, v in os.environ.items() if k != "LD_PRELOAD"}
    r = subprocess.run([probe, str(image)], capture_output=True, text=True, timeout=120, env=env)
    assert r.returncode == 0, r.stdout + r.stderr
    return dict(line.split() for line in r.stdout.splitlines())


INVALID_VALUE = "1"


def test_copies_and_memsets_past_an_allocation_are_refused(probe, tmp_path, autoinit):
    got = _run(probe, tmp_path)
    assert got["htod_inside"] == "0" and got["memset_inside"] == "0", got
    for what in ("htod_past_end", "dtoh_past_end", "dtod_past_end", "memset_past_end"):
        assert got[what] == INVALID_VALUE, (what, got)


def test_a_parameter_buffer_of_another_size_is_refused(probe, tmp_path, autoinit):
    """The driver refuses a buffer longer than the parameters and silently
    takes a short one; the simulator refuses both."""
    got = _run(probe, tmp_path)
    assert got["module"] == "0" and got["function"] == "0", got
    assert got["launch_exact"] == "0" and got["kernel_wrote"] == "7", got
    assert got["launch_short"] == INVALID_VALUE, got
    assert got["launch_long"] == INVALID_VALUE, got


def test_dynamic_shared_memory_past_the_function_limit_is_refused(probe, tmp_path, autoinit):
    got = _run(probe, tmp_path)
    assert got["launch_shared_ok"] == "0", got
    assert got["launch_shared_over"] == INVALID_VALUE, got
