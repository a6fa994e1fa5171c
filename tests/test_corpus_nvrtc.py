"""Every corpus source (tests/corpus/*.cu) through both compilers: NVRTC (for
sm_90, no GPU needed) and the simulator's. NVRTC's verdict is the reference:
each valid source compiles, each deliberately invalid one (invalid_*.cu) is
refused. The simulator must say the same ("it accepts exactly the CUDA C that
NVRTC accepts, and refuses what NVRTC refuses", DESIGN.md); where it does not
today, cases.SOURCES says how (strict xfail)."""
import os
import subprocess
import sys
import textwrap

import pytest

pytest.importorskip("pycudac.driver")

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus"))
import cases as corpus  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

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


CG_FP16 = r"""
#include <cooperative_groups.h>
#include <cuda_fp16.h>
namespace cg = cooperative_groups;
__global__ void k(__half *x)
{
    cg::thread_block b = cg::this_thread_block();
    x[b.thread_rank()] = __hadd(x[b.thread_rank()], __float2half(1.0f));
}
"""


def _toolkit_nvrtc():
    lib = os.path.join(os.environ.get("CUDA_HOME") or "/usr/local/cuda", "lib64")
    return lib if os.path.isfile(os.path.join(lib, "libnvrtc.so.13")) or \
        os.path.isfile(os.path.join(lib, "libnvrtc.so.12")) else None


def test_cooperative_groups_and_fp16_compile_with_a_wheels_nvrtc(tmp_path):
    """Issue 20: with NVRTC from a pip wheel (nvidia/cu13/lib beside an
    include/ without CCCL, as the H100 machine has it), <cooperative_groups.h>
    failed with 'cannot open source file "nv/target"'. CCCL is found where
    it is (a toolkit's include/cccl, or the nvidia-cuda-cccl wheel), as with
    the toolkit's own NVRTC."""
    lib = _toolkit_nvrtc()
    if lib is None:
        pytest.skip("no CUDA toolkit NVRTC to lay out as a wheel")
    inc = os.path.join(os.path.dirname(lib), "include")
    wheel = tmp_path / "site" / "nvidia" / "cu13"
    (wheel / "lib").mkdir(parents=True)
    (wheel / "include").mkdir()
    for name in os.listdir(lib):
        if name.startswith("libnvrtc"):
            os.symlink(os.path.join(lib, name), wheel / "lib" / name)
    for name in os.listdir(inc):
        if name not in ("cccl", "nv", "cuda", "cub", "thrust"):  # a wheel has no CCCL
            os.symlink(os.path.join(inc, name), wheel / "include" / name)
    nvrtc = sorted(p for p in os.listdir(wheel / "lib") if p.startswith("libnvrtc.so."))[0]
    code = textwrap.dedent(f"""
        from pycudac import compiler, _driver
        print(_driver._nvrtc_path())
        for src in ({CG_FP16!r},):
            img = compiler.compile(src, arch="sm_90", cache_dir=False)
            assert img[:4] == b"\\x7fELF", img[:4]
        print("ok")
    """)
    for nvrtc_path in (str(wheel / "lib" / nvrtc), os.path.join(lib, nvrtc)):
        env = dict(os.environ, PYCUDAC_NVRTC=nvrtc_path,
                   PYTHONPATH=os.pathsep.join([ROOT, str(tmp_path / "site")]))
        r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                           env=env, timeout=300)
        assert r.returncode == 0, r.stderr[-3000:]
        assert r.stdout.split()[0].startswith(nvrtc_path) and r.stdout.split()[-1] == "ok"


def test_missing_cccl_says_what_provides_it(monkeypatch, tmp_path):
    """Where CCCL is nowhere, NVRTC's 'cannot open source file "nv/target"'
    comes with what provides it."""
    from pycudac import compiler
    lib = _toolkit_nvrtc()
    if lib is None:
        pytest.skip("no CUDA toolkit NVRTC")
    inc = os.path.join(os.path.dirname(lib), "include")
    bare = tmp_path / "include"
    bare.mkdir()
    for name in os.listdir(inc):
        if name not in ("cccl", "nv", "cuda", "cub", "thrust"):
            os.symlink(os.path.join(inc, name), bare / name)
    monkeypatch.setattr(compiler._cache, "_system_includes",
                        lambda c: [f"-I{bare}"] if c == "nvrtc" else [])
    with pytest.raises(compiler.CompileError, match=r"nv/target(.|\n)*nvidia-cuda-cccl"):
        compiler.compile(CG_FP16, arch="sm_90", cache_dir=False)


# an <mma.h> kernel: the corpus's (the Programming Guide's example and a tiled GEMM)
with open(os.path.join(corpus.HERE, "wmma_gemm.cu")) as _f:
    WMMA = _f.read()


def _wheel_without_crt(tmp_path):
    """NVRTC laid out as CUDA 13's nvidia-cuda-nvrtc wheel without
    nvidia-cuda-crt beside it (as the torch environment on the GPU machine
    has it): include/ has mma.h, include/crt has no mma.h. (wheel root, the
    NVRTC library's path), or None without a toolkit NVRTC."""
    lib = _toolkit_nvrtc()
    if lib is None:
        return None
    inc = os.path.join(os.path.dirname(lib), "include")
    wheel = tmp_path / "site" / "nvidia" / "cu13"
    (wheel / "lib").mkdir(parents=True)
    (wheel / "include" / "crt").mkdir(parents=True)
    for name in os.listdir(lib):
        if name.startswith("libnvrtc"):
            os.symlink(os.path.join(lib, name), wheel / "lib" / name)
    for name in os.listdir(inc):
        if name != "crt":
            os.symlink(os.path.join(inc, name), wheel / "include" / name)
    for name in os.listdir(os.path.join(inc, "crt")):
        if not name.startswith("mma."):
            os.symlink(os.path.join(inc, "crt", name), wheel / "include" / "crt" / name)
    nvrtc = sorted(p for p in os.listdir(wheel / "lib") if p.startswith("libnvrtc.so."))[0]
    return wheel, str(wheel / "lib" / nvrtc)


def _compile_in_child(tmp_path, nvrtc_path, **env_extra):
    code = textwrap.dedent(f"""
        from pycudac import compiler
        img = compiler.compile({WMMA!r}, arch="sm_90", cache_dir=False)
        assert img[:4] == b"\\x7fELF", img[:4]
        print("ok")
    """)
    env = dict(os.environ, PYCUDAC_NVRTC=nvrtc_path,
               PYTHONPATH=os.pathsep.join([ROOT, str(tmp_path / "site")]), **env_extra)
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=env, timeout=300, cwd=str(tmp_path))


def test_mma_h_compiles_with_a_wheels_nvrtc_without_crt_headers(tmp_path):
    """On the GPU machine (NVRTC from torch's nvidia/cu13 wheels, no
    nvidia-cuda-crt) every <mma.h> kernel failed: 'cannot open source file
    "crt/mma.h"'. The crt headers now come from a toolkit of the same CUDA
    version (or the nvidia-cuda-crt wheel), after NVRTC's own include/."""
    laid = _wheel_without_crt(tmp_path)
    if laid is None:
        pytest.skip("no CUDA toolkit NVRTC to lay out as a wheel")
    r = _compile_in_child(tmp_path, laid[1])
    assert r.returncode == 0 and r.stdout.split()[-1] == "ok", r.stderr[-3000:]


def test_missing_crt_says_what_provides_it(monkeypatch, tmp_path):
    """Where nothing provides the crt headers either, the compile error names
    nvidia-cuda-crt."""
    from pycudac import compiler
    laid = _wheel_without_crt(tmp_path)
    if laid is None:
        pytest.skip("no CUDA toolkit NVRTC to lay out as a wheel")
    monkeypatch.setattr(compiler._cache, "_system_includes",
                        lambda c: [f"-I{laid[0] / 'include'}"] if c == "nvrtc" else [])
    with pytest.raises(compiler.CompileError, match=r"crt/mma\.h(.|\n)*nvidia-cuda-crt"):
        compiler.compile(WMMA, arch="sm_90", cache_dir=False)
