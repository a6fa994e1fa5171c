"""Runs every case of the kernel corpus (tests/corpus/cases.py: CUDA C written
the way cuda-samples, the Programming Guide, GPU Gems 3, CUDA by Example and
NVIDIA's blog write it) on the backend in use, launched the PyCUDA way, and
compares with NumPy. The same test runs on the simulator (CI) and on a GPU
(PYCUDAC_BACKEND=cuda).

What fails today is marked on its case (cases_*.py; xfail_sim: on the simulator only;
xfail: everywhere) with strict marks: when pycudac is fixed the case turns
XPASS, and the mark must go."""
import copy
import os
import sys

import numpy as np
import pytest

drv = pytest.importorskip("pycudac.driver")

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus"))
import cases as corpus  # noqa: E402


def _backend():
    try:
        return drv.get_backend()
    except Exception:  # no backend: the ctx fixture skips with the reason
        return None


def _exceptions(names):
    from pycudac.compiler import CompileError
    known = {"CompileError": CompileError, "TypeError": TypeError,
             "AssertionError": AssertionError, "LaunchError": drv.Error,
             "ValueError": ValueError, "LogicError": drv.LogicError}
    return tuple(known[n] for n in names) or None


def _params():
    backend = _backend()
    out = []
    for c in corpus.CASES:
        marks = []
        reason = c.xfail or (c.xfail_sim if backend == "sim" else None)
        if reason:
            marks.append(pytest.mark.xfail(strict=True, reason=reason,
                                           raises=_exceptions(c.raises)))
        out.append(pytest.param(c, id=c.id, marks=marks))
    return out


_modules = {}


def load(src_name):
    """The corpus source compiled as cases.SOURCES says (one module per source
    for the whole run)."""
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
        _modules[src_name] = SourceModule(corpus.source_text(src_name), **kw)
    return _modules[src_name]


def _value(v, d):
    return v(d) if callable(v) else v


def _launch(c, mod, d):
    from pycudac import gpuarray
    f = mod.get_function(c.kernel)
    gpu = {}
    args = []
    for a in c.args:
        if isinstance(a, corpus.In):
            args.append(drv.In(d[a.key]))
        elif isinstance(a, corpus.Out):
            args.append(drv.Out(d[a.key]))
        elif isinstance(a, corpus.InOut):
            args.append(drv.InOut(d[a.key]))
        elif isinstance(a, corpus.Gpu):
            gpu[a.key] = gpuarray.to_gpu(d[a.key])
            args.append(gpu[a.key])
        elif isinstance(a, corpus.Val):
            args.append(d[a.key])
        else:
            args.append(a)
    kw = dict(block=tuple(_value(c.block, d)), grid=tuple(_value(c.grid, d)))
    shared = _value(c.shared, d)
    if shared:
        kw["shared"] = shared
    kw.update(c.launch_kw)
    for _ in range(c.launches):
        f(*args, **kw)
    drv.Context.synchronize()
    for key, g in gpu.items():
        d[key] = g.get()


def _compare(key, got, want, c):
    got = np.asarray(got)
    want = np.asarray(want)
    assert got.shape == want.shape or got.size == want.size, (key, got.shape, want.shape)
    want = want.reshape(got.shape)
    if c.rtol == 0 and c.atol == 0:
        np.testing.assert_array_equal(got, want, err_msg=f"{c.id}: {key}")
    else:
        wide = np.complex128 if np.iscomplexobj(got) or np.iscomplexobj(want) else np.float64
        np.testing.assert_allclose(got.astype(wide), want.astype(wide),
                                   rtol=c.rtol, atol=c.atol, err_msg=f"{c.id}: {key}")


@pytest.mark.parametrize("c", _params())
def test_corpus_case(ctx, c, capfd):
    from pycudac import gpuarray
    mod = load(c.src)
    d = c.make(np.random.default_rng(c.seed))
    before = copy.deepcopy(d)
    if c.setup is not None:
        c.setup(mod, d, drv)
    if c.stdout is not None:
        capfd.readouterr()
    if c.run is not None:
        c.run(mod, d, drv, gpuarray)
        drv.Context.synchronize()
    else:
        _launch(c, mod, d)
    if c.stdout is not None:
        out = capfd.readouterr().out
        for line in c.stdout(before):
            assert line in out, f"{line!r} not printed; got {out[-500:]!r}"
    if c.expect is not None:
        for key, want in c.expect(before).items():
            _compare(key, d[key], want, c)
    if c.check is not None:
        c.check(d, before)


def test_every_source_has_a_case():
    """Each valid corpus source is run by at least one case, and every case
    names a source SOURCES knows."""
    valid = {s.file for s in corpus.SOURCES.values() if s.valid}
    used = {c.src for c in corpus.CASES}
    assert used <= set(corpus.SOURCES), used - set(corpus.SOURCES)
    assert valid == used, valid ^ used
    ids = [c.id for c in corpus.CASES]
    assert len(ids) == len(set(ids))
