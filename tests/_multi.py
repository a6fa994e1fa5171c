"""Helpers of the tests beyond one GPU (tests/test_multi_*.py).

Two devices: the tests that need them run where two exist (a GPU host with
two, or the simulator with PYCUDAC_SIM_DEVICES=2). On the simulator with one
device each such file has one test, `test_two_device_suite`, that runs the
file again in a child pytest with PYCUDAC_SIM_DEVICES=2 (the count is read
once per process) and fails with the child's report when any test there
fails; the others skip here, naming that test.

Other processes: `child_pool()` is a one-process multiprocessing Pool with
the spawn start method (a CUDA process must not fork); its functions live in
tests/_multi_children.py, so that the child can import them.
"""
import multiprocessing
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def device_count():
    from pycudac import driver
    return driver.Device.count()


def required(what):
    """PYCUDAC_REQUIRE_<WHAT> (make gpu-check-multi sets them): a test that
    would skip for want of it fails instead."""
    return os.environ.get(f"PYCUDAC_REQUIRE_{what}", "") not in ("", "0")


def skip_or_fail(what, reason):
    if required(what):
        pytest.fail(f"{reason} (PYCUDAC_REQUIRE_{what} is set)", pytrace=False)
    pytest.skip(reason)


def need_two_devices():
    """Skips the calling test where fewer than two devices exist."""
    from pycudac import driver
    if device_count() >= 2:
        return
    if driver.get_backend() == "cuda":
        skip_or_fail("DEVICES", f"needs two CUDA devices, {device_count()} here")
    if driver.get_backend() == "sim":
        pytest.skip("needs two devices: runs in test_two_device_suite's child process "
                    "(PYCUDAC_SIM_DEVICES=2)")
    pytest.skip("needs two CUDA devices")


def run_file_with_two_sim_devices(path):
    """The body of test_two_device_suite: reruns `path` in a child pytest."""
    from pycudac import driver
    if device_count() >= 2:
        pytest.skip("two devices here: the file's tests ran in this process")
    if driver.get_backend() != "sim":
        pytest.skip("needs two CUDA devices")
    env = dict(os.environ, PYCUDAC_BACKEND="sim", PYCUDAC_SIM_DEVICES="2")
    r = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                        "-W", "error", path, "-k", "not test_two_device_suite"],
                       cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    report = r.stdout[-6000:] + r.stderr[-2000:]
    assert r.returncode == 0, f"with PYCUDAC_SIM_DEVICES=2:\n{report}"
    assert " passed" in r.stdout and " failed" not in r.stdout, report


def child_pool():
    """A one-process Pool started with 'spawn' (close it with .terminate())."""
    return multiprocessing.get_context("spawn").Pool(1)


def in_child(pool, fn, *args, timeout=180):
    """fn(*args) in the pool's process; its result (children return errors
    as (type name, message) tuples, which pickle whatever they were)."""
    return pool.apply_async(fn, args).get(timeout)
