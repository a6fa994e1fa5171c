"""Shared test set-up: the backend is chosen once per process by
PYCUDAC_BACKEND (CI: the simulator; `make gpu-check`: cuda). Tests marked
`gpu` need real hardware and are skipped, with the reason, elsewhere."""
import glob
import os
import subprocess
import sysconfig

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _backend():
    try:
        from pycudac import driver
        return driver.get_backend(), None
    except Exception as exc:  # reported as the skip reason
        return None, f"{type(exc).__name__}: {exc}"


def pytest_collection_modifyitems(config, items):
    # A hung test ends the run with every thread's stack instead of holding
    # CI until its time runs out: where pytest-timeout is installed (make's
    # .venv) and PYTEST_TIMEOUT is set (.ci/run), by its thread method, which
    # ends the process even when the hang is in C with the GIL released.
    if config.pluginmanager.hasplugin("timeout"):
        for item in items:
            if item.get_closest_marker("timeout") is None:
                item.add_marker(pytest.mark.timeout(method="thread"))
    backend, why = _backend()
    if backend == "cuda":
        return
    reason = (f"no CUDA GPU: the {backend} backend is in use" if backend
              else f"no CUDA backend ({why})")
    skip = pytest.mark.skip(reason=reason)
    for item in items:
        if "gpu" in item.keywords:
            item.add_marker(skip)


@pytest.fixture(scope="session")
def backend():
    b, why = _backend()
    if b is None:
        pytest.skip(why)
    return b


@pytest.fixture(scope="session")
def autoinit():
    """pycudac.autoinit's context (the test modules of arrays and kernels use
    it through `pytestmark = pytest.mark.usefixtures("autoinit")`)."""
    try:
        import pycudac.autoinit as ai
    except Exception as exc:  # reported as the skip reason
        pytest.skip(f"no context: {type(exc).__name__}: {exc}")
    return ai.context


@pytest.fixture(scope="session")
def ctx(autoinit):
    """The Context pycudac.autoinit made current (skipped, with the reason,
    where none can be made)."""
    from pycudac import driver
    return driver.Context.get_current()


@pytest.fixture(scope="session")
def ga(autoinit):
    from pycudac import gpuarray
    return gpuarray


@pytest.fixture(scope="session")
def stub_driver(tmp_path_factory):
    """tests/c/stub_*.c (stub_libcuda.c and its graphics part) built into a
    temporary directory: a driver that answers every call, so the CUDA
    backend's code runs without a GPU."""
    cc = os.environ.get("CC") or (sysconfig.get_config_var("CC") or "cc").split()[0]
    out = tmp_path_factory.mktemp("stub") / "libstub_cuda.so"
    sources = sorted(glob.glob(os.path.join(ROOT, "tests", "c", "stub_*.c")))
    r = subprocess.run([cc, "-O1", "-fPIC", "-shared", "-I" + os.path.join(ROOT, "include"),
                        *sources, "-o", str(out)], capture_output=True, text=True)
    if r.returncode != 0:
        pytest.skip(f"no C compiler to build the stub driver: {r.stderr[-300:]}")
    return str(out)


@pytest.fixture(scope="session")
def on_stub(stub_driver):
    """on_stub(code, timeout=120) -> stdout: `code` run by a fresh Python on
    the CUDA backend over the stub driver, which records each launch
    (stub_last_launch); a non-zero exit fails the test with the output."""
    def run(code, timeout=120):
        import sys
        env = dict(os.environ, PYCUDAC_LIBCUDA=stub_driver, PYCUDAC_BACKEND="cuda",
                   STUB_RECORD_LAUNCHES="1",
                   PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
        r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                           timeout=timeout, env=env)
        assert r.returncode == 0, r.stdout + r.stderr
        return r.stdout
    return run


@pytest.fixture(scope="module")
def child():
    """A pool of spawned processes (tests/_multi.py) for the multi-process
    tests; ended with the module."""
    from _multi import child_pool
    pool = child_pool()
    yield pool
    pool.terminate()
    pool.join()
