"""What the compile-cache tests share (test_cache.py, test_cache_key.py,
test_cache_dirs.py, test_cache_warm.py): a kernel source, a fresh private
cache directory (the `cache` fixture, imported by the files that use it),
its entries and the compile counters."""
import os
import uuid

import pytest

from pycudac import compiler


SRC = "__global__ void scale(float *a, float s) { a[threadIdx.x] *= s; }\n"


def unique_src():
    return f"// {uuid.uuid4().hex}\n" + SRC


@pytest.fixture
def cache(tmp_path, monkeypatch):
    """A fresh private cache directory, named by PYCUDAC_CACHE_DIR."""
    d = tmp_path / "cache"
    monkeypatch.setenv("PYCUDAC_CACHE_DIR", str(d))
    monkeypatch.delenv("PYCUDAC_DISABLE_CACHE", raising=False)
    monkeypatch.delenv("PYCUDAC_CACHE_MAX_BYTES", raising=False)
    compiler._cache._dir_state.clear()
    compiler._cache._warned.clear()
    yield d
    compiler._cache._dir_state.clear()
    compiler._cache._warned.clear()


def entries(d):
    return sorted(n for n in os.listdir(d) if n.endswith(".pcc"))


def counts():
    return dict(compiler._stats)


def delta(before, key):
    return compiler._stats[key] - before[key]
