"""SourceModule's warm starts: from the disk cache (cold then warm, in a
fresh process; the one-C-call path and the general one giving the same
module, sharing the memo, and a miss of the first not looked up again) and
from the in-process memo (the loaded module returned, edited headers seen,
recreation fast and without pycudac's Python, weak references swept)."""
import os
import subprocess
import sys
import textwrap
import timeit
import uuid

import pytest

from pycudac import _driver, compiler
from pycudac.compiler import SourceModule

import _compile_setup
from _compile_setup import DOUBLE, run_double_array

cache = _compile_setup.cache  # a fixture: pytest finds it in this module

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def test_double_array_cold_then_warm(ctx, cache):
    src = f"// {uuid.uuid4().hex}\n" + DOUBLE
    cold = SourceModule(src)
    assert cold.from_cache is False and cold.source == src and isinstance(cold.log, str)
    run_double_array(cold)
    compiler.clear_memo()
    warm = SourceModule(src)
    assert warm.from_cache is True and warm.module is not cold.module
    run_double_array(warm)
    assert warm.image == cold.image


def test_double_array_warm_in_a_fresh_process(ctx, cache):
    src = f"// {uuid.uuid4().hex}\n" + DOUBLE
    SourceModule(src)
    script = textwrap.dedent(f"""
        import numpy as np
        import pycudac.autoinit
        from pycudac import driver as drv
        from pycudac.compiler import SourceModule
        mod = SourceModule({src!r})
        assert mod.from_cache, "expected a warm hit"
        f = mod.get_function("double_array")
        a = np.arange(32, dtype=np.float32)
        f(drv.InOut(a), block=(32, 1, 1))
        assert (a == np.arange(32) * 2).all(), a
        print("ok")
    """)
    r = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True,
                       env=dict(os.environ, PYCUDAC_CACHE_DIR=str(cache)), timeout=300)
    assert r.returncode == 0 and r.stdout.strip() == "ok", r.stderr


WARM_ATTRS = ("source", "log", "ptx", "cubin", "target", "arch", "options", "cache_key",
              "from_cache", "lowered", "keep_dir", "image")


def test_warm_start_paths_agree(ctx, cache):
    """A warm start of the common case is one C call (cache_module); with an
    explicit arch the same entry comes through the general path. Both give a
    module with the same attributes, and both count as hits."""
    src = f"// {uuid.uuid4().hex}\n" + DOUBLE + "template <class T> __global__ void t(T *a) {}\n"
    kw = dict(options=["-use_fast_math", "-DX=1"], no_extern_c=True,
              name_expressions=["t<float>"])
    cold = SourceModule(src.replace("__global__ void double", 'extern "C" __global__ void double'),
                        **kw)
    assert cold.from_cache is False
    compiler.clear_memo()
    before = compiler.cache_stats()["process"]["hits"]
    fast = SourceModule(cold.source, **kw)
    compiler.clear_memo()
    # an explicit arch takes the general path (the simulator ignores it)
    general = SourceModule(cold.source, arch="sm_90" if cold.arch == "sim" else cold.arch, **kw)
    assert compiler.cache_stats()["process"]["hits"] == before + 2
    for name in WARM_ATTRS:
        assert getattr(fast, name) == getattr(general, name), name
    assert fast.from_cache is True and fast.lowered == {"t<float>": cold.lowered["t<float>"]}
    assert "--use_fast_math" in fast.options and "-DX=1" in fast.options
    fast.get_function("t<float>")
    run_double_array(fast)


def test_cache_dir_of_the_wrong_type_is_named_on_a_memo_hit(ctx, cache):
    """A second SourceModule of the same source comes from the in-process
    memo, which never reads cache_dir: a wrong one is still refused."""
    src = f"// {uuid.uuid4().hex}\n" + DOUBLE
    first = SourceModule(src)
    with pytest.raises(TypeError, match="cache_dir must be a path"):
        SourceModule(src, cache_dir=123)
    assert SourceModule(src, cache_dir=str(cache)).module is first.module


def test_memo_returns_the_loaded_module(ctx, cache):
    a = SourceModule(DOUBLE)
    before = compiler._stats["memo_hits"]
    b = SourceModule(DOUBLE)
    assert b.module is a.module and compiler._stats["memo_hits"] == before + 1
    assert SourceModule(DOUBLE, options=["-DX=1"]).module is not a.module
    assert SourceModule(DOUBLE, no_extern_c=True).module is not a.module
    run_double_array(b)


def test_the_memo_sweeps_its_dead_entries_and_keeps_the_live():
    """The memo holds weak references; the dead are swept as it grows, so
    however many modules come and go it stays near twice the live ones."""
    from pycudac import _driver

    class Mod:
        pass

    memo = {}
    live = [Mod() for _ in range(10)]
    for i, m in enumerate(live):
        _driver.memo_put(memo, ("live", i), m)
    for i in range(50_000):
        _driver.memo_put(memo, ("dead", i), Mod())   # dies at once
    assert len(memo) <= 64
    assert all(_driver.memo_get(memo, ("live", i)) is m for i, m in enumerate(live))
    assert _driver.memo_get(memo, ("dead", 49_999)) is None
    with pytest.raises(TypeError, match="memo_put"):
        _driver.memo_put([], "k", live[0])


def test_the_one_call_path_and_the_general_path_share_the_memo(ctx, cache):
    """SourceModule(src) with no other argument takes one C call
    (warm_source_module) that builds the memo key itself: it must be the key
    the general path builds for the same arguments, both ways round."""
    src = f"// {uuid.uuid4().hex}\n" + DOUBLE
    first = SourceModule(src, options=[])  # general path (options given), fills the memo
    before = dict(compiler._stats)
    assert SourceModule(src).module is first.module  # the one-call path finds it
    assert SourceModule(src, no_extern_c=False, cache_dir=str(cache)).module is first.module
    assert compiler._stats["memo_hits"] == before["memo_hits"] + 2
    with pytest.raises(TypeError, match="cache_dir must be a path"):
        SourceModule(src, cache_dir=123)  # refused on a memo hit too
    src2 = f"// {uuid.uuid4().hex}\n" + DOUBLE
    second = SourceModule(src2)  # the one-call path first (or the general path on a miss)
    assert SourceModule(src2, options=[], include_dirs=[]).module is second.module
    assert SourceModule(src2, no_extern_c=True).module is not second.module
    for bad in (None, 5, b"__global__ void k() {}"):
        with pytest.raises(TypeError):
            SourceModule(bad)


def test_memo_sees_edited_headers(ctx, cache, tmp_path):
    inc = tmp_path / "inc"
    inc.mkdir()
    (inc / "k.h").write_text("#define K 2\n")
    src = '#include "k.h"\n__global__ void double_array(float *a) { a[threadIdx.x] *= K; }'
    a = SourceModule(src, include_dirs=[str(inc)])
    os.utime(inc / "k.h", ns=(1, 1))
    (inc / "k.h").write_text("#define K 3\n")
    b = SourceModule(src, include_dirs=[str(inc)])
    assert b.module is not a.module
    assert SourceModule(src, include_dirs=[str(inc)]).module is b.module
    c = SourceModule(src, options=[f"-I{inc}"])
    assert SourceModule(src, options=[f"-I{inc}"]).module is c.module
    (inc / "k.h").write_text("#define K 4 \n")
    assert SourceModule(src, options=[f"-I{inc}"]).module is not c.module


def test_memo_recreation_is_fast(ctx, cache):
    """While one SourceModule of a source lives, another of it reuses its
    loaded module (the memo holds modules only weakly)."""
    keep = SourceModule(DOUBLE)
    n = 2000
    t = min(timeit.repeat(lambda: SourceModule(DOUBLE), number=n, repeat=3)) / n
    # the target is 5 µs; leave room for a loaded shared CI machine
    assert t < 50e-6, f"{t * 1e6:.1f} µs per memo hit"
    assert SourceModule(DOUBLE).module is keep.module


def test_source_module_alone_on_a_memo_hit_runs_no_python_of_pycudac(ctx, cache):
    """SourceModule(src) with the source alone is SourceModuleBase's C
    __init__ (src/compile/cache_warm.c): a re-create runs no Python frame of
    pycudac's but the simulator's check-mode flag, which the key needs (a
    Python __init__ cost as much as the C call it made)."""
    keep = SourceModule(DOUBLE)
    SourceModule(DOUBLE)
    root = os.path.dirname(compiler.__file__)
    ran = []

    def profile(frame, event, arg):
        if event == "call" and frame.f_code.co_filename.startswith(root):
            ran.append(frame.f_code.co_name)

    sys.setprofile(profile)
    try:
        again = SourceModule(DOUBLE)
    finally:
        sys.setprofile(None)
    assert again.module is keep.module
    assert [n for n in ran if n != "_instrumented"] == []
    # anything more than the source is compiler.py's general path
    sys.setprofile(profile)
    try:
        SourceModule(DOUBLE, no_extern_c=False)
    finally:
        sys.setprofile(None)
    assert "_source_module_init" in ran


def test_a_miss_of_the_one_call_path_is_not_looked_up_again(ctx, cache):
    """SourceModule(src) that misses in C goes to compiler.py's general path
    told so (_tried): the memo and disk lookup are not made a second time."""
    src = f"// {uuid.uuid4().hex}\n" + DOUBLE
    calls = []

    def profile(frame, event, arg):
        if event == "c_call" and getattr(arg, "__name__", "") == "warm_source_module":
            calls.append(arg)

    sys.setprofile(profile)
    try:
        mod = SourceModule(src)
    finally:
        sys.setprofile(None)
    assert calls == [] and mod.module is not None
    assert "_tried" not in __import__("inspect").signature(SourceModule).parameters


def test_the_one_call_path_leaves_absolute_includes_to_the_general_path(ctx, tmp_path,
                                                                       monkeypatch):
    """warm_source_module answers None, before the memo, for a source that
    may include a header by absolute path (its headers go into the key, which
    only the general path builds): the C test of compiler._hidden_include_dirs's
    condition, which costs the fast path nothing (Python's `in` took 10-40 µs
    over a kernel's text)."""
    monkeypatch.setenv("PYCUDAC_CACHE_DIR", str(tmp_path / "c"))
    compiler.clear_memo()
    plain = "__global__ void k(int *p) { *p = 1; }\n"
    for src, fast in ((plain, True),
                      ('// not an #include "/abs/x.h": a comment\n' + plain, False),
                      ("// include </x>\n" + plain, False),
                      ('// "/x" include\n' + plain, False),
                      ('// "/x"\n' + plain, True), ("// include /x\n" + plain, True)):
        held = SourceModule(src)  # in the memo, under the key both paths build
        got = _driver.warm_source_module(src, False, None, compiler._memo, compiler._stats,
                                         compiler.CACHE_FORMAT_VERSION)
        assert (got is held.module) == fast and (got is None) == (not fast), src
    compiler.clear_memo()


def test_the_memo_is_swept_when_modules_die_whatever_it_held_before():
    """The sweep waited for the dict to double what the last sweep left: a
    memo once full of live modules (an earlier test's) then grew to twice
    that with dead entries (test_scale saw 162 entries, one alive). It is
    swept once 32 modules have died."""
    class Mod:
        pass

    memo = {}
    live = [Mod() for _ in range(100)]
    for i, m in enumerate(live):
        _driver.memo_put(memo, ("a", i), m)
    del live, m  # 100 die
    for i in range(300):
        _driver.memo_put(memo, ("b", i), Mod())  # each dies at once
        assert len(memo) <= 64, (i, len(memo))


def test_the_memo_holds_nothing_alive_and_sweeps_the_dead():
    """compiler._memo (issue 21): key -> weak reference; a dead entry is a
    miss, and dead entries are swept as the dict grows, so that a service
    compiling many variants keeps neither modules nor their keys."""
    class Mod:
        pass

    memo, keep = {}, []
    for i in range(500):
        m = Mod()
        _driver.memo_put(memo, ("k", i), m)
        if i % 100 == 0:
            keep.append((i, m))
    assert len(memo) < 140
    for i, m in keep:
        assert _driver.memo_get(memo, ("k", i)) is m
    assert _driver.memo_get(memo, ("k", 1)) is None
    with pytest.raises(TypeError):
        _driver.memo_get([], 1)
