"""What the driver tests share (test_driver.py, test_driver_memory.py,
test_driver_host_memory.py): every test runs in pycudac.autoinit's context,
which `ctx` (module-scoped and autouse, imported by each file) makes and
gives."""
import pytest


@pytest.fixture(scope="module", autouse=True)
def ctx(backend):
    import pycudac.autoinit as autoinit
    return autoinit.context
