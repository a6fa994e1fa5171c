"""Check mode has no false reports: every case of the kernel corpus
(tests/corpus/cases.py: kernels written the way public CUDA code writes them,
reductions, scans, stencils, histograms with atomics, warp shuffles,
cooperative groups, device malloc, __threadfence ...) runs under all four
checks, built instrumented, and must give its usual answer with no report.
Cases that fail on the simulator without check mode (xfail) are left out."""
import copy
import os
import sys

import numpy as np
import pytest

drv = pytest.importorskip("pycudac.driver")

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "corpus"))
import cases as corpus  # noqa: E402
import test_corpus  # noqa: E402  (its launcher and comparison)


@pytest.fixture(scope="module")
def ctx(backend):
    if backend != "sim":
        pytest.skip("check mode is the simulator's")
    import pycudac.autoinit  # noqa: F401
    return drv.Context.get_current()


_modules = {}


def load_checked(src_name):
    """The corpus source compiled for check mode (one module per source)."""
    from pycudac.compiler import SourceModule
    if src_name not in _modules:
        s = corpus.SOURCES[src_name]
        kw = dict(no_extern_c=s.no_extern_c)
        if s.options:
            kw["options"] = list(s.options)
        if s.name_expressions:
            kw["name_expressions"] = list(s.name_expressions)
        if s.toolkit:
            kw["include_dirs"] = corpus.toolkit_includes()
        with drv.sim_check("all"):
            _modules[src_name] = SourceModule(corpus.source_text(src_name), **kw)
    return _modules[src_name]


def run_case(c, mod):
    """One corpus case as test_corpus runs it; returns the data dict and the
    inputs it started from."""
    from pycudac import gpuarray
    d = c.make(np.random.default_rng(c.seed))
    before = copy.deepcopy(d)
    if c.setup is not None:
        c.setup(mod, d, drv)
    if c.run is not None:
        c.run(mod, d, drv, gpuarray)
        drv.Context.synchronize()
    else:
        test_corpus._launch(c, mod, d)
    return d, before


def runnable():
    return [c for c in corpus.CASES if not c.xfail and not c.xfail_sim]


@pytest.mark.parametrize("c", runnable(), ids=lambda c: c.id)
def test_corpus_case_has_no_report(ctx, c, capfd):
    mod = load_checked(c.src)
    with drv.sim_check("all", raise_errors=False) as chk:
        d, before = run_case(c, mod)
    capfd.readouterr()  # device printf of the printing cases
    assert chk.reports == [], "\n".join(r["message"] for r in chk.reports)
    assert mod.module is not test_corpus._modules.get(c.src, None)
    if c.expect is not None:
        for key, want in c.expect(before).items():
            test_corpus._compare(key, d[key], want, c)
    if c.check is not None:
        c.check(d, before)
