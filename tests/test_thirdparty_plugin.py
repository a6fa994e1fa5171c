"""tools/pycuda_compat/thirdparty_plugin.py, the pytest plugin that holds the
third-party suites (thirdparty.py) to thirdparty_expect.py: run here over a
small suite of its own (a thirdparty_expect module in a temporary folder,
first on the path), on the simulator."""
import json
import os
import subprocess
import sys
import textwrap

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
COMPAT = os.path.join(ROOT, "tools", "pycuda_compat")

SUITE = '''
SUITES = {"fake": {
    "expect": {
        r"test_fake\\.py::test_fails_as_said$": {"error": r"ValueError: as said",
                                                  "why": "its own defect", "backends": None},
        r"test_fake\\.py::test_passes_though_expected$": {"error": r"ValueError",
                                                          "why": "stale", "backends": None},
        r"test_fake\\.py::test_slow_and_failing$": {"error": r"AssertionError",
                                                    "why": "a GPU's", "backends": None},
        r"test_fake\\.py::test_not_there$": {"error": r"ValueError", "why": "gone",
                                             "backends": None},
        r"test_fake\\.py::test_elsewhere$": {"error": r"ValueError", "why": "cuda's",
                                             "backends": ("cuda",)},
    },
    "slow_on_sim": {r"test_fake\\.py::test_slow_and_failing$": "minutes there"},
    "slow_markers": {},
    "quick": [r"test_fake\\.py::test_plain$"],
}}
'''

TESTS = '''
def test_plain():
    pass

def test_fails_as_said():
    raise ValueError("as said")

def test_passes_though_expected():
    pass

def test_slow_and_failing():
    assert False
'''


def _run(tmp_path, quick=False):
    (tmp_path / "thirdparty_expect.py").write_text(textwrap.dedent(SUITE))
    suite = tmp_path / "suite"
    suite.mkdir(exist_ok=True)
    (suite / "test_fake.py").write_text(textwrap.dedent(TESTS))
    summary = tmp_path / "summary.json"
    env = dict(os.environ, PYCUDAC_BACKEND="sim", PYCUDAC_THIRDPARTY_SUITE="fake",
               PYCUDAC_THIRDPARTY_SUMMARY=str(summary),
               PYCUDAC_THIRDPARTY_QUICK="1" if quick else "",
               PYTHONPATH=os.pathsep.join([str(tmp_path), COMPAT, ROOT]))
    r = subprocess.run([sys.executable, "-m", "pytest", "-p", "thirdparty_plugin", "-p",
                        "no:cacheprovider", "-q", "-c", os.devnull, "--rootdir", str(suite),
                        str(suite / "test_fake.py")], cwd=suite, env=env, capture_output=True,
                       text=True, timeout=120)
    return r, json.loads(summary.read_text())


def test_expectations_are_held(tmp_path):
    """A failure with its stated error counts as expected; an expected
    failure that passes fails the run; an expectation whose test is not
    collected is reported missing, but not one whose test was collected and
    left out on the simulator (reikna's performance tests: every full run
    there reported their GPU expectations missing), nor one for another
    backend."""
    r, c = _run(tmp_path)
    assert r.returncode == 1, r.stdout[-2000:]
    assert (c["passed"], c["expected"], c["left_out"]) == (1, 1, 1), c
    assert c["unexpected"] == ["test_fake.py::test_passes_though_expected"], c
    assert c["missing"] == ["test_fake\\.py::test_not_there$"], c
    assert c["left_out_reasons"] == {"left out on the simulator: minutes there": 1}


def test_quick_runs_its_subset_only(tmp_path):
    r, c = _run(tmp_path, quick=True)
    assert r.returncode == 0, r.stdout[-2000:]
    assert (c["passed"], c["left_out"], c["missing"]) == (1, 3, []), c
