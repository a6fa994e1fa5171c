"""Every corpus source (tests/corpus/*.cu) through both compilers: NVRTC (for
sm_90, no GPU needed) and the simulator's. NVRTC's verdict is the reference:
each valid source compiles, each deliberately invalid one (invalid_*.cu) is
refused. The simulator must say the same ("it accepts exactly the CUDA C that
NVRTC accepts, and refuses what NVRTC refuses", DESIGN.md); where it does not
today, cases.SOURCES says how (strict xfail)."""
import os
import sys

import pytest

pytest.importorskip("pycudac.driver")

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus"))
import cases as corpus  # noqa: E402

ARCH = "sm_90"


def _nvrtc_or_skip():
    from pycudac import _driver
    try:
        return _driver._nvrtc_path()
    except Exception as exc:  # reported as the skip reason
        pytest.skip(f"NVRTC not found, nothing to compare with: {exc}")


def _compile(s, compiler, include_dirs=None):
    """(accepted, first error lines) of source `s` with 'nvrtc' or 'sim'."""
    from pycudac.compiler import CompileError, compile as cuda_compile
    kw = dict(no_extern_c=s.no_extern_c)
    if s.options:
        kw["options"] = list(s.options)
    if s.name_expressions:
        kw["name_expressions"] = list(s.name_expressions)
    if include_dirs is None and s.toolkit:
        include_dirs = corpus.toolkit_includes()
    if include_dirs:
        kw["include_dirs"] = include_dirs
    target = dict(arch=ARCH) if compiler == "nvrtc" else dict(target="sim")
    try:
        image = cuda_compile(corpus.source_text(s.file), **target, **kw)
    except CompileError as exc:
        lines = [ln for ln in str(exc).splitlines() if "error" in ln]
        return False, "\n".join(lines[:4]) or str(exc)[:400]
    assert image, s.file
    return True, ""


def _sources(with_marks):
    out = []
    for s in corpus.SOURCES.values():
        marks = []
        if with_marks and s.disagree:
            marks.append(pytest.mark.xfail(strict=True, reason=s.disagree,
                                           raises=AssertionError))
        out.append(pytest.param(s, id=s.file, marks=marks))
    return out


@pytest.mark.parametrize("s", _sources(False))
def test_nvrtc_verdict(s):
    """NVRTC accepts each valid source and refuses each invalid one."""
    _nvrtc_or_skip()
    ok, why = _compile(s, "nvrtc")
    assert ok == s.valid, (f"NVRTC {'accepted' if ok else 'refused'} {s.file}, which the corpus "
                           f"says is {'valid' if s.valid else 'invalid'}:\n{why}")


@pytest.mark.parametrize("s", _sources(True))
def test_simulator_agrees_with_nvrtc(s, backend):
    """The simulator's compiler gives NVRTC's verdict (test_nvrtc_verdict
    checks that verdict against s.valid)."""
    ok, why = _compile(s, "sim")
    assert ok == s.valid, (f"the simulator {'accepted' if ok else 'refused'} {s.file}, which "
                           f"NVRTC {'accepts' if s.valid else 'refuses'}:\n{why}")


def test_every_corpus_file_is_listed():
    files = {f for f in os.listdir(corpus.HERE) if f.endswith(".cu")}
    assert files == set(corpus.SOURCES), files ^ set(corpus.SOURCES)


@pytest.mark.parametrize("name", ["cg_tiles.cu", "cg_reduce.cu", "half_precision.cu",
                                  "bfloat16.cu", "constant_fir.cu", "cuda_std.cu"])
def test_nvrtc_finds_toolkit_headers_without_include_dirs(name):
    """pycudac passes NVRTC the toolkit's own include directories (those of
    the toolkit NVRTC came from, or CUDA_HOME/CUDA_PATH): <cooperative_groups.h>,
    <cuda_fp16.h>, <cuda_bf16.h>, <math_constants.h> and <cuda/std/...> compile
    with no include_dirs from the user."""
    _nvrtc_or_skip()
    s = corpus.SOURCES[name]
    assert s.toolkit
    ok, why = _compile(s, "nvrtc", include_dirs=[])
    assert ok, why
