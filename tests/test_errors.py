"""The error mapping table and the import guarantees (no driver needed)."""
import os
import subprocess
import sys

import pytest

from pycudac import driver

# the whole file runs under valgrind memcheck (tools/ci/valgrind.sh selects by marker)
pytestmark = pytest.mark.valgrind


@pytest.mark.parametrize("code, cls", [
    (1, driver.LogicError), (2, driver.MemoryError), (101, driver.LogicError),
    (201, driver.LogicError), (400, driver.LogicError), (500, driver.LogicError),
    (700, driver.LaunchError), (701, driver.LaunchError), (719, driver.LaunchError),
    (999, driver.RuntimeError), (12345, driver.RuntimeError),
])
def test_code_maps_to_class(code, cls):
    with pytest.raises(cls) as info:
        driver._raise_for_code(code, "cuFake")
    exc = info.value
    assert exc.code == code
    assert exc.call == "cuFake"
    assert isinstance(exc.name, str) and exc.name
    assert "cuFake" in str(exc)
    assert isinstance(exc, driver.Error)


def test_memory_error_is_builtin_memory_error():
    assert issubclass(driver.MemoryError, MemoryError)
    assert issubclass(driver.RuntimeError, RuntimeError)


def test_test_helper_never_poisons():
    with pytest.raises(driver.LaunchError):
        driver._raise_for_code(700)
    assert not driver.is_poisoned()


def _run(code, **env):
    full = dict(os.environ, **env)
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=full, timeout=120)


def test_import_without_driver_succeeds():
    r = _run("import pycudac, pycudac.driver; print('ok')",
             PYCUDAC_LIBCUDA="/nonexistent/libcuda.so.1", PYCUDAC_BACKEND="cuda")
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "ok"


def test_missing_driver_error_names_library_and_places():
    r = _run("from pycudac import driver\n"
             "try:\n    driver.get_backend()\n"
             "except driver.Error as e:\n    print('ERR', e)\n",
             PYCUDAC_LIBCUDA="/nonexistent/libcuda.so.1", PYCUDAC_BACKEND="cuda")
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("ERR")
    assert "/nonexistent/libcuda.so.1" in r.stdout
    assert "looked in" in r.stdout


def test_bad_backend_name():
    r = _run("from pycudac import driver\n"
             "try:\n    driver.get_backend()\n"
             "except ValueError as e:\n    print('ERR', e)\n",
             PYCUDAC_BACKEND="tpu")
    assert "ERR" in r.stdout and "tpu" in r.stdout, r.stderr
