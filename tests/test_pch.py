"""NVRTC's precompiled headers (compile/pch.c, issue 25): which leading lines a
compile with PCH puts before the extern "C" block, the automatic choice, the
same image with and without PCH, the process's private PCH directory under
the cache directory, the heap grown when NVRTC asks for more, and the
fallback that keeps a PCH failure from failing a compile.

NVRTC only (no GPU needed), 12.8 or newer; skipped with the reason elsewhere.
Kernels include <cuda_fp16.h> (a PCH of ~6 MiB, made in ~0.1 s) rather than
<cooperative_groups.h> (~100 MiB, a second), except where the size matters."""
import hashlib
import os
import stat
import subprocess
import sys
import textwrap
import time

import pytest

from pycudac import _driver, compiler
from pycudac._compiler import toolkit as _toolkit
from pycudac.compiler import CompileError, SourceModule

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ARCH = "sm_90"


@pytest.fixture(scope="module")
def nvrtc():
    try:
        _driver._nvrtc_path()
    except Exception as exc:  # reported as the skip reason
        pytest.skip(f"NVRTC not found: {exc}")
    compiler.compile("__global__ void warm_up() {}", arch=ARCH, cache_dir=False)
    if not _driver.pch_info()["available"]:
        pytest.skip(f"NVRTC {_driver.nvrtc_version()} has no precompiled headers (12.8+)")


def fp16_source(tag, body="x[i] = __hadd(x[i], x[i]);"):
    return textwrap.dedent(f"""\
        #include <cuda_fp16.h>
        // {tag}
        __global__ void twice(__half *x, int n)
        {{
            int i = blockIdx.x * blockDim.x + threadIdx.x;
            if (i < n) {body}
        }}
        """)


def compile_nvrtc(src, pch, **kw):
    """compile_source's result for `src` as compiler.compile would run it
    (toolkit include directories, sm_90), without the cache."""
    opts = [f"--gpu-architecture={ARCH}"] + _toolkit._system_includes("nvrtc")
    return _driver.compile_source(src, opts + kw.pop("options", []), None, "cubin", "nvrtc",
                                  kw.pop("no_extern_c", False), pch, kw.pop("pch_root", None))


def tag():
    return f"{time.monotonic_ns()}"


# ---- the leading lines (no NVRTC needed) ------------------------------------------

@pytest.mark.parametrize("source,expected", [
    ("#include <a.h>\n#include <b.h>\nint x;", (2, 2)),
    ("// note\n#define N 4\n#include <a.h>\n__global__", (3, 1)),
    ("/* a\n   b */\n#include <a.h>\nx", (3, 1)),
    ("#ifdef X\n#include <a.h>\n#endif\n#include <b.h>\nint", (4, 2)),
    ("#define A \\\n  1\n#include <a.h>\nx", (3, 1)),
    ("#define A \\\r\n  1\r\n#include <a.h>\r\nx", (3, 1)),
    ("\r\n#include <a.h>\r\n\\\nx", (2, 1)),
    ("  #  include   <a.h>  \n", (1, 1)),
    ("#include <a.h>", (1, 1)),
    # a quoted header may be the user's own: its declarations keep C linkage
    ('#include "mine.h"\n#include <a.h>\n', (0, 0)),
    # a conditional left open would take the extern "C" block into it
    ("#ifdef X\n#include <a.h>\nint y;\n#endif\n", (0, 0)),
    # NVRTC makes no PCH when a #line is among the leading lines
    ("#line 4\n#include <a.h>\n", (0, 0)),
    ("__global__ void k() {}\n#include <a.h>\n", (0, 0)),
    ("/* a */ int x;\n#include <a.h>\n", (0, 0)),
])
def test_the_leading_directives(source, expected):
    """(lines, #include lines) of the leading run; its length in bytes is
    that of those lines."""
    lines, includes = expected
    length = len("".join(source.splitlines(keepends=True)[:lines]).encode())
    assert _driver._pch_prefix(source) == (length, lines, includes)


def test_pch_argument_types_are_checked():
    with pytest.raises(TypeError, match="pch must be True, False or None"):
        compiler.compile("__global__ void k() {}", arch=ARCH, pch="yes")
    with pytest.raises(TypeError, match="pch must be True, False or None"):
        SourceModule("__global__ void k() {}", pch=1)
    with pytest.raises(TypeError, match="pch must be True, False or None"):
        _driver.compile_source("__global__ void k() {}", None, None, "cubin", "nvrtc", False, 0)
    with pytest.raises(TypeError, match="pch_root must be str or None"):
        _driver.compile_source("__global__ void k() {}", None, None, "cubin", "nvrtc", False,
                               None, b"/tmp")


# ---- compiles ------------------------------------------------------------------------

def test_a_header_heavy_source_gets_a_pch_and_the_next_one_uses_it(nvrtc):
    first = compile_nvrtc(fp16_source(tag()), None)
    second = compile_nvrtc(fp16_source(tag()), None)
    assert (first["pch"], second["pch"]) in (("created", "used"), ("used", "used"))
    # NVRTC's own PCH messages name a per-process file: not in the log
    assert "precompiled header" not in first["log"] + second["log"]
    info = _driver.pch_info()
    assert info["created"] >= 1 and info["used"] >= 1
    assert os.path.isdir(info["dir"])


def test_pch_changes_nothing_in_the_image(nvrtc):
    """The same CUBIN and PTX with and without PCH, with line information
    too: the hoisted lines keep their numbers."""
    src = fp16_source(tag())
    for options in ([], ["--generate-line-info"]):
        made = [compile_nvrtc(src, pch, options=options) for pch in (True, True, False)]
        assert [m["pch"] for m in made] in (["created", "used", None], ["used", "used", None])
        assert len({hashlib.sha256(m["image"]).digest() for m in made}) == 1
        assert len({m["ptx"] for m in made}) == 1


def test_hoisting_keeps_c_linkage_and_line_numbers(nvrtc):
    made = compile_nvrtc(fp16_source(tag()), True)
    assert b"twice\0" in made["image"]  # unmangled: still inside extern "C"
    bad = fp16_source(tag(), body="x[i] = nope;")  # line 6 of the user's source
    with pytest.raises(CompileError) as info:
        compile_nvrtc(bad, True)
    assert "kernel.cu(6)" in str(info.value) and "nope" in str(info.value)


def test_automatic_pch_only_for_sources_that_start_with_includes(nvrtc):
    plain = "__global__ void k(float *a) { a[0] = 1; }\n// " + tag()
    assert compile_nvrtc(plain, None)["pch"] is None
    late = "__global__ void k(float *a) { a[0] = 1; }\n#include <cuda_fp16.h>\n// " + tag()
    assert compile_nvrtc(late, None)["pch"] is None
    assert compile_nvrtc(fp16_source(tag()), False)["pch"] is None
    # asked for, a source without includes gets one of NVRTC's own headers
    assert compile_nvrtc(plain + "x", True)["pch"] in ("created", "used")


def test_the_simulators_compiler_ignores_pch():
    image = compiler.compile("#include <cuda_fp16.h>\n__global__ void k(__half *x) {}\n",
                             target="sim", cache_dir=False, pch=True)
    assert image


def test_compile_and_source_module_take_pch(nvrtc, tmp_path, monkeypatch):
    monkeypatch.delenv("PYCUDAC_PCH", raising=False)
    before = dict(compiler._stats)
    compiler.compile(fp16_source(tag()), arch=ARCH, cache_dir=str(tmp_path), pch=True)
    compiler.compile(fp16_source(tag()), arch=ARCH, cache_dir=str(tmp_path))
    after = compiler._stats
    assert (after["pch_created"] - before["pch_created"]) + \
        (after["pch_used"] - before["pch_used"]) == 2
    monkeypatch.setenv("PYCUDAC_PCH", "0")
    compiler.compile(fp16_source(tag()), arch=ARCH, cache_dir=str(tmp_path))
    assert compiler._stats["pch_used"] == after["pch_used"]
    assert compiler._stats["pch_created"] == after["pch_created"]


# ---- the directory, the heap, the fallback: in fresh processes -------------------------

def run(code, env=None, timeout=300):
    """`code` (after CHILD_HEAD) in a fresh process; its stdout."""
    e = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    e.pop("PYCUDAC_PCH", None)
    e.update(env or {})
    r = subprocess.run([sys.executable, "-c", CHILD_HEAD + textwrap.dedent(code)], env=e,
                       capture_output=True, text=True, timeout=timeout)
    assert r.returncode == 0, r.stdout + r.stderr[-3000:]
    return r.stdout


CHILD_HEAD = """
import os, sys, json
from pycudac import _driver, compiler
from pycudac._compiler import toolkit as _toolkit
ARCH = "sm_90"
def src(n):
    return "#include <cuda_fp16.h>\\n// %d\\n__global__ void k(__half *x) { x[0] = __hadd(x[0], x[0]); }\\n" % n
def make(n, cache):
    return compiler.compile(src(n), arch=ARCH, cache_dir=cache)
"""


def test_the_directory_is_private_and_removed_at_exit(nvrtc, tmp_path):
    cache = tmp_path / "cache"
    out = run("""
    make(1, %r)
    make(2, %r)
    info = _driver.pch_info()
    st = os.stat(info["dir"])
    print(json.dumps([info["dir"], oct(st.st_mode & 0o777), info["created"], info["used"],
                      sorted(os.listdir(info["dir"]))]))
    """ % (str(cache), str(cache)))
    d, mode, created, used, files = __import__("json").loads(out)
    assert d.startswith(str(cache / "pch") + os.sep) and mode == "0o700"
    assert (created, used) == (1, 1) and files  # NVRTC's PCH file is in it
    assert not os.path.exists(d)  # removed when the process exited
    assert os.listdir(cache / "pch") == []


def test_directories_of_dead_processes_are_swept(nvrtc, tmp_path):
    base = tmp_path / "cache" / "pch"
    base.mkdir(parents=True, mode=0o700)
    dead = base / "4194000-abcdef"  # no such process (pid_max is at most 4194304)
    dead.mkdir(mode=0o700)
    (dead / "kernel_0.pch").write_bytes(b"x" * 100)
    young = base / "4194001-abcdef"
    young.mkdir(mode=0o700)
    old = time.time() - 3600
    os.utime(dead, (old, old))
    other = base / "not-ours"
    other.mkdir()
    os.utime(other, (old, old))
    run("make(3, %r)\n" % str(tmp_path / "cache"))
    left = sorted(os.listdir(base))
    assert left == ["4194001-abcdef", "not-ours"]  # a young one may be a live process's


def test_an_unsafe_pch_directory_is_not_used(nvrtc, tmp_path):
    base = tmp_path / "cache" / "pch"
    base.mkdir(parents=True)
    os.chmod(base, 0o777)  # writable by others: NVRTC would read what they put there
    out = run("""
    make(4, %r)
    print(_driver.pch_info()["dir"])
    """ % str(tmp_path / "cache"))
    assert out.strip() == "None"
    assert os.listdir(base) == []


def test_without_a_cache_the_directory_is_in_tmpdir(nvrtc, tmp_path):
    out = run("""
    make(5, False)
    print(_driver.pch_info()["dir"])
    """, env={"TMPDIR": str(tmp_path)})
    d = out.strip()
    assert os.path.dirname(d) == str(tmp_path) and \
        os.path.basename(d).startswith("pycudac-pch-")
    assert not os.path.exists(d)


def test_the_heap_grows_when_nvrtc_asks_for_more(nvrtc):
    """A 1 MiB heap: the first compile cannot make its PCH (status 14), the
    heap grows to what NVRTC asked for, and the compile runs once more so
    that the PCH exists: the next compile uses it."""
    out = run("""
    first = _driver.compile_source(src(6), ["--gpu-architecture=sm_90"] + _toolkit._system_includes("nvrtc"), None, "cubin", "nvrtc", False, True)
    second = _driver.compile_source(src(7), ["--gpu-architecture=sm_90"] + _toolkit._system_includes("nvrtc"), None, "cubin", "nvrtc", False, True)
    info = _driver.pch_info()
    print(json.dumps([first["pch"], second["pch"], info["heap_grown"], info["heap_size"]]))
    """, env={"PYCUDAC_PCH_HEAP": str(1 << 20)})
    first, second, grown, heap = __import__("json").loads(out)
    assert (first, second, grown) == ("created", "used", 1)
    assert heap > 1 << 20


def test_a_pch_failure_never_fails_a_compile(nvrtc, tmp_path):
    """NVRTC refuses a PCH directory that does not exist ("invalid PCH
    directory", a compile error): the compile runs again without PCH."""
    before = _driver.pch_info()["fallbacks"]
    _driver._pch_set_dir(str(tmp_path / "no" / "such" / "dir"))
    try:
        made = compile_nvrtc(fp16_source(tag()), True)
        assert made["image"][:4] == b"\x7fELF" and made["pch"] == "none"
        assert _driver.pch_info()["fallbacks"] == before + 1
        # a real error in the source is still the source's
        with pytest.raises(CompileError, match="nope"):
            compile_nvrtc(fp16_source(tag(), body="x[i] = nope;"), True)
    finally:
        _driver._pch_set_dir(None)
    with pytest.raises(TypeError):
        _driver._pch_set_dir(5)


def test_compiles_on_several_threads_share_the_pch(nvrtc):
    """NVRTC compiles without the GIL: several threads compiling sources
    with the same leading directives at once all get the image they would
    without PCH, and every compile after the first finds the PCH."""
    import concurrent.futures
    t = tag()

    def job(i):
        src = fp16_source(f"{t} {i}", body=f"x[i] = __hadd(x[i], __float2half({i % 3}.0f));")
        with_pch, without = compile_nvrtc(src, True), compile_nvrtc(src, False)
        return with_pch["pch"], with_pch["image"] == without["image"]

    with concurrent.futures.ThreadPoolExecutor(4) as pool:
        results = list(pool.map(job, range(8)))
    assert all(same for _, same in results), results
    assert all(p in ("created", "used") for p, _ in results), results
    assert sum(p == "created" for p, _ in results) <= 1, results
