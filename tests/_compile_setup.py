"""What the compiler tests share (test_compiler.py, test_source_module.py,
test_compiler_warm.py): the kernels DOUBLE and BAD, a fresh private cache
directory and an empty memo (the `cache` fixture, imported by the files
that use it), and a run of double_array checked against NumPy."""
import numpy as np
import pytest

from pycudac import compiler


DOUBLE = """
__global__ void double_array(float *a)
{
    a[threadIdx.x] *= 2;
}
"""


BAD = """// a comment on line 1
__global__ void ok(float *a) { a[0] = 1; }

__global__ void broken(float *a)
{
    a[threadIdx.x] = undefined_name + 1;
}
"""


@pytest.fixture
def cache(tmp_path, monkeypatch):
    d = tmp_path / "cache"
    monkeypatch.setenv("PYCUDAC_CACHE_DIR", str(d))
    monkeypatch.delenv("PYCUDAC_DISABLE_CACHE", raising=False)
    compiler._cache._dir_state.clear()
    compiler._cache._warned.clear()
    compiler.clear_memo()
    yield d
    compiler.clear_memo()


def run_double_array(mod):
    from pycudac import driver as drv
    f = mod.get_function("double_array")
    a = np.arange(64, dtype=np.float32)
    buf = drv.mem_alloc(a.nbytes)
    drv.memcpy_htod(buf, a)
    f(buf, block=(64, 1, 1), grid=(1, 1))
    out = np.empty_like(a)
    drv.memcpy_dtoh(out, buf)
    np.testing.assert_array_equal(out, a * 2)
