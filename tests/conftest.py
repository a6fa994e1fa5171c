"""Shared test set-up: the backend is chosen once per process by
PYCUDAC_BACKEND (CI: the simulator; `make gpu-check`: cuda). Tests marked
`gpu` need real hardware and are skipped, with the reason, elsewhere."""
import os

import pytest


def _backend():
    try:
        from pycudac import driver
        return driver.get_backend(), None
    except Exception as exc:  # reported as the skip reason
        return None, f"{type(exc).__name__}: {exc}"


def pytest_collection_modifyitems(config, items):
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
def ga(autoinit):
    from pycudac import gpuarray
    return gpuarray
