"""The compile cache's key (src/compile/cache_key.c): SHA-256 of the
documented fields, each of which changes it (source, options, name
expressions, target, arch, backend, NVRTC's identity, CUDA_HOME, the format
version, the headers included, through include_dirs, an absolute path or
CPATH), the same in every process; and an entry's payload codec."""
import json
import os
import subprocess
import sys
import textwrap
import zlib

import pytest

from pycudac import _driver, compiler
from pycudac._compiler import toolkit as _toolkit

from _cache_setup import SRC

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


# ---------------------------------------------------------------------------
# the key

BASE = dict(source=SRC, options=["--gpu-architecture=sm_90"], name_expressions=[],
            target="cubin", arch="sm_90", compiler="nvrtc", backend="nvrtc",
            no_extern_c=False, include_dirs=())


def test_key_is_sha256_hex_and_stable():
    k = compiler.cache_key(**BASE)
    assert len(k) == 64 and int(k, 16) >= 0
    assert compiler.cache_key(**BASE) == k


@pytest.mark.parametrize("field,value", [
    ("source", SRC + " "),
    ("options", ["--gpu-architecture=sm_90", "--use_fast_math"]),
    ("name_expressions", ["scale"]),
    ("target", "ptx"),
    ("arch", "sm_80"),
    ("backend", "sim-or-other"),
    ("no_extern_c", True),
])
def test_each_key_field_changes_the_key(field, value):
    assert compiler.cache_key(**dict(BASE, **{field: value})) != compiler.cache_key(**BASE)


def test_option_order_and_expression_boundaries_matter():
    a = compiler.cache_key(**dict(BASE, options=["-DA", "-DB"]))
    b = compiler.cache_key(**dict(BASE, options=["-DA-DB"]))
    assert a != b


def test_compiler_identity_and_format_version_change_the_key(monkeypatch):
    k = compiler.cache_key(**BASE)
    full = _driver.nvrtc_key_identity()
    ident = _toolkit._nvrtc_identity()
    assert full.startswith(ident + "\0CUDA_HOME=")
    # the key names NVRTC by its identity: the C side's own when given None
    base = {k: v for k, v in BASE.items() if k != "include_dirs"}
    args = list(compiler._cache._key_args(**base, includes=None))
    assert args[2] is None and _driver.cache_key(*args) == k
    args[2] = full
    assert _driver.cache_key(*args) == k
    # another NVRTC build: a different file, or the same path rewritten
    for other in ("/other/libnvrtc.so.13" + ident[ident.index(" size="):],
                  ident.replace(" size=", " size=1")):
        args[2] = other + full[len(ident):]
        assert _driver.cache_key(*args) != k
    # CUDA_HOME picks the toolkit headers a compile adds
    monkeypatch.setenv("CUDA_HOME", "/opt/elsewhere/cuda")
    assert compiler.cache_key(**BASE) != k
    monkeypatch.undo()
    monkeypatch.setattr(compiler._cache, "CACHE_FORMAT_VERSION", compiler.CACHE_FORMAT_VERSION + 1)
    assert compiler.cache_key(**BASE) != k


def test_key_is_sha256_of_the_documented_fields(tmp_path):
    """src/compile/cache_key.c hashes tag NUL length NUL bytes for each field in a
    fixed order; recomputed here with hashlib from that description."""
    import hashlib
    inc = tmp_path / "inc"
    inc.mkdir()
    (inc / "a.h").write_bytes(b"#define A 1\n")
    args = dict(BASE, options=["-DA", "--gpu-architecture=sm_90"], name_expressions=["f<1>"],
                source=SRC + "// \u00e9\n", include_dirs=[str(inc)])
    kind, identity = _toolkit._compiler_identity("nvrtc")
    fields = [(b"format", str(compiler.CACHE_FORMAT_VERSION)), (b"compiler.kind", kind),
              (b"compiler.identity", identity), (b"backend", "nvrtc"), (b"target", "cubin"),
              (b"arch", "sm_90"), (b"options", "-DA\0--gpu-architecture=sm_90"),
              (b"name_expressions", "f<1>"), (b"no_extern_c", "0"),
              (b"source", args["source"]), (b"include.0", "a.h"),
              (b"include.bytes", b"#define A 1\n")]
    h = hashlib.sha256()
    for tag, data in fields:
        data = data.encode("utf-8", "surrogatepass") if isinstance(data, str) else data
        h.update(b"%s\0%d\0" % (tag, len(data)) + data)
    # both ways of reaching OpenSSL's SHA-256 (src/compile/cache.c) give that digest;
    # the direct one is used wherever hashlib brought a libcrypto.so along
    with open("/proc/self/maps") as fh:
        mapped = any("/libcrypto.so" in line for line in fh)
    assert _driver.sha256_setup() == ("openssl" if mapped else "hashlib")
    try:
        assert compiler.cache_key(**args) == h.hexdigest()
        assert _driver.sha256_setup(False) == "hashlib"
        assert compiler.cache_key(**args) == h.hexdigest()
    finally:
        _driver.sha256_setup(True)


COMPRESSED_CHILD = r"""
import json, os, sys
import pycudac.autoinit
from pycudac import compiler
src, d = open(sys.argv[1]).read(), sys.argv[2]
cold = compiler.SourceModule(src, cache_dir=d)
(entry,) = [f for f in os.listdir(d) if f.endswith(".pcc")]
data = open(os.path.join(d, entry), "rb").read()
compiler._memo.clear()
warm = compiler.SourceModule(src, cache_dir=d)
print("RESULT " + json.dumps({"ptx": cold.ptx, "image": len(cold.image), "entry": len(data),
      "in_entry": cold.ptx.encode() in data, "from_cache": warm.from_cache,
      "same": warm.ptx == cold.ptx, "once": warm.ptx is warm.ptx}))
"""


def test_a_cubin_entrys_ptx_is_stored_compressed_and_read_when_wanted(tmp_path, stub_driver):
    """A CUBIN entry held its PTX as text, most of the bytes a warm start
    read and checked (10.6 of 24.7 KB for bench/kernels/compile_src.cu):
    it is zlib-compressed now (form 2 of the payload), and a module from
    the entry inflates it only when module.ptx is read. NVRTC's CUBIN over
    the stub driver (the CUDA backend's path, here without a GPU)."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env = dict(os.environ, PYCUDAC_BACKEND="cuda", PYCUDAC_LIBCUDA=stub_driver,
               PYTHONPATH=root + os.pathsep + os.environ.get("PYTHONPATH", ""))
    env.pop("PYCUDAC_DISABLE_CACHE", None)
    r = subprocess.run([sys.executable, "-c", COMPRESSED_CHILD,
                        os.path.join(root, "bench", "kernels", "compile_src.cu"), str(tmp_path)],
                       env=env, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    out = json.loads(r.stdout.split("RESULT ", 1)[1])
    assert len(out["ptx"]) > 4000 and not out["in_entry"]
    assert out["entry"] < out["image"] + len(out["ptx"]) // 2
    assert out["from_cache"] and out["same"] and out["once"]


def test_payload_round_trip_and_damage():
    """An entry's payload decodes to what was encoded; any damage (every
    truncation, flipped bytes) decodes to None (a miss) or to a dict, never
    a crash or an exception."""
    import random
    result = {"image": bytes(range(256)) * 3, "log": "warning: x\u00e9", "ptx": ".version 8",
              "options": ["-DA", "--gpu-architecture=sm_90"],
              "lowered": {"f<1>": "_Z1fILi1EEvv", "g": "g"}}
    p = compiler._cache._encode_payload(result, "cubin", "sm_90")
    assert _driver.cache_decode(p, "cubin", "sm_90") == result
    assert _driver.cache_decode(p, "cubin", "sm_80") is None
    assert _driver.cache_decode(p, "ptx", "sm_90") is None
    bare = dict(result, ptx=None, options=[], lowered={}, log="")
    assert _driver.cache_decode(compiler._cache._encode_payload(bare, "ptx", "compute_90"), "ptx",
                                "compute_90") == bare
    for n in range(len(p)):
        assert _driver.cache_decode(p[:n], "cubin", "sm_90") is None
    # the PTX goes in compressed (form 2); a stream zlib cannot read is a miss
    assert p[4] == 2 and zlib.compress(b".version 8", 6) in p
    broken = p.replace(zlib.compress(b".version 8", 6), b"\x78\x9c" + b"\0" * 16)
    broken = _driver.cache_encode("cubin", "sm_90", "", b"i", b"\x78\x9cnot zlib", [], None)
    assert broken[4] == 2 and _driver.cache_decode(broken, "cubin", "sm_90") is None
    rng = random.Random(7)
    for _ in range(3000):
        b = bytearray(p)
        for _ in range(rng.randint(1, 4)):
            b[rng.randrange(len(b))] = rng.randrange(256)
        out = _driver.cache_decode(bytes(b), "cubin", "sm_90")
        assert out is None or isinstance(out, dict)


def test_nvrtc_identity_tells_library_builds_apart(tmp_path):
    """The identity (which stands for NVRTC's version in the key) changes
    when the library file does: other bytes, another file at the same path.
    In a fresh process: once NVRTC is loaded, the loaded one is the answer."""
    code = textwrap.dedent("""
        import os, sys
        from pycudac import _driver
        lib = sys.argv[1]
        def write(path, n):
            with open(path, "wb") as f:
                f.write(bytes(n))
        write(lib, 100)
        os.environ["PYCUDAC_NVRTC"] = lib
        a = _driver.nvrtc_identity(False)
        # the documented form, digit for digit (the nanoseconds padded to 9)
        os.utime(lib, ns=(0, 1_700_000_000_000_000_042))
        st = os.stat(lib)
        exact = _driver.nvrtc_identity(False) == (
            f"{lib} size=100 mtime=1700000000.000000042 ino={st.st_ino} dev={st.st_dev}")
        write(lib, 101)
        b = _driver.nvrtc_identity(False)
        write(lib + ".new", 101)
        st = os.stat(lib)
        os.utime(lib + ".new", ns=(st.st_atime_ns, st.st_mtime_ns))
        os.replace(lib + ".new", lib)  # same path, size and mtime; another inode
        c = _driver.nvrtc_identity(False)
        # a path longer than any buffer is passed over, never cut short
        os.environ["PYCUDAC_NVRTC"] = lib + "/" + "x" * 3000
        long_ok = not (_driver.nvrtc_identity(False) or "").startswith(lib + "/x")
        print(a.startswith(lib + " size=100 "), b.startswith(lib + " size=101 "),
              len({a, b, c}), exact and long_ok)
    """)
    out = subprocess.run([sys.executable, "-c", code, str(tmp_path / "libnvrtc.so.13")],
                         cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert out.stdout.split() == ["True", "True", "3", "True"], out.stderr


def test_the_simulators_identity_follows_its_front_end(tmp_path):
    """The simulator's compiler identity (its cache entries' key) carries the
    digest of its compiler front's sources (src/sim/cc: its rewrites of the
    user's source): a changed front with the same prelude, flags and host
    compiler kept the key, and a cached module of the old rewrites ran (a
    mutation pass found it). The same sources built again (the sanitized
    builds, a copy of the package) keep it, and share the cache."""
    import glob
    import hashlib
    import shutil
    front = hashlib.sha256()
    for path in sorted(glob.glob(os.path.join(ROOT, "src", "sim", "cc", "*.[ch]"))):
        front.update(os.path.basename(path).encode() + b"\0")
        with open(path, "rb") as f:
            front.update(f.read() + b"\0")
    copy = tmp_path / "copy"
    shutil.copytree(os.path.join(ROOT, "pycudac"), copy / "pycudac",
                    ignore=shutil.ignore_patterns("__pycache__"))
    code = "from pycudac import _driver; print(_driver.compiler_info('sim')['identity'])"

    def identity(root):
        env = dict(os.environ, PYTHONPATH=str(root))
        out = subprocess.run([sys.executable, "-c", code], cwd=str(tmp_path), env=env,
                             capture_output=True, text=True, timeout=60)
        assert out.returncode == 0, out.stderr
        return out.stdout.strip()

    here = identity(ROOT)
    assert here.endswith(" front=" + front.hexdigest()[:16]), here
    assert identity(copy) == here


def test_nvrtc_found_in_the_wheel_of_site_packages(tmp_path):
    """The nvidia-cuda-nvrtc wheel's layouts (cu13/lib, and cuda_nvrtc/lib
    of the CUDA 12 wheels) under a sys.path entry named site-packages or
    dist-packages; any other sys.path entry is not searched."""
    code = textwrap.dedent("""
        import os, sys
        from pycudac import _driver
        root = sys.argv[1]
        def fake(path):
            os.makedirs(os.path.dirname(path), exist_ok=True)
            open(path, "wb").close()
            return path
        os.environ.pop("PYCUDAC_NVRTC", None)
        other = fake(os.path.join(root, "plain", "nvidia", "cu13", "lib", "libnvrtc.so.13"))
        sys.path.insert(0, os.path.join(root, "plain"))
        first = _driver.nvrtc_identity(False)
        cu12 = fake(os.path.join(root, "dist-packages", "nvidia", "cuda_nvrtc", "lib",
                                 "libnvrtc.so.12"))
        sys.path.insert(0, os.path.join(root, "dist-packages"))
        second = _driver.nvrtc_identity(False)
        cu13 = fake(os.path.join(root, "site-packages", "nvidia", "cu13", "lib",
                                 "libnvrtc.so.13"))
        sys.path.insert(0, os.path.join(root, "site-packages") + "/")
        third = _driver.nvrtc_identity(False)
        # a wheel directory holding another name than its own version's
        plain = fake(os.path.join(root, "b", "site-packages", "nvidia", "cuda_nvrtc", "lib",
                                  "libnvrtc.so"))
        sys.path.insert(0, os.path.join(root, "b", "site-packages"))
        fourth = _driver.nvrtc_identity(False)
        print(not (first or "").startswith(other + " "), second.startswith(cu12 + " size=0 "),
              third.startswith(cu13 + " size=0 "), fourth.startswith(plain + " size=0 "))
    """)
    out = subprocess.run([sys.executable, "-c", code, str(tmp_path)], cwd=ROOT,
                         capture_output=True, text=True, timeout=60)
    assert out.stdout.split() == ["True", "True", "True", "True"], out.stderr


def test_editing_an_included_header_changes_the_key(tmp_path):
    inc = tmp_path / "inc"
    (inc / "sub").mkdir(parents=True)
    (inc / "sub" / "scale.h").write_text("#define SCALE 2\n")
    args = dict(BASE, include_dirs=[str(inc)])
    k1 = compiler.cache_key(**args)
    assert compiler.cache_key(**args) == k1
    (inc / "sub" / "scale.h").write_text("#define SCALE 3\n")
    k2 = compiler.cache_key(**args)
    assert k2 != k1
    (inc / "extra.h").write_text("\n")
    assert compiler.cache_key(**args) not in (k1, k2)


def test_key_identical_across_processes():
    code = textwrap.dedent(f"""
        from pycudac import compiler
        print(compiler.cache_key(**{BASE!r}))
    """)
    keys = set()
    for _ in range(2):
        out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                             text=True, check=True)
        keys.add(out.stdout.strip())
    assert keys == {compiler.cache_key(**BASE)}


# ---- headers the key must see (issue 21) -----------------------------------------------

STALE_PROBE = r"""
import sys
import numpy as np
import pycudac.autoinit
import pycudac.driver as drv
from pycudac.compiler import SourceModule
src = open(sys.argv[1]).read()
out = np.zeros(1, np.int32)
SourceModule(src).get_function("k")(drv.Out(out), block=(1, 1, 1))
print(int(out[0]))
"""


def _probe(tmp_path, src, env_extra=None):
    probe = tmp_path / "probe.py"
    probe.write_text(STALE_PROBE)
    srcfile = tmp_path / "kernel.cu"
    srcfile.write_text(src)
    env = dict(os.environ, PYCUDAC_CACHE_DIR=str(tmp_path / "cache"),
               PYCUDAC_BACKEND=_driver.get_backend(), **(env_extra or {}))
    env["PYTHONPATH"] = ROOT + os.pathsep + env.get("PYTHONPATH", "")
    r = subprocess.run([sys.executable, str(probe), str(srcfile)], capture_output=True,
                       text=True, env=env, timeout=300)
    assert r.returncode == 0, r.stderr
    return int(r.stdout.split()[-1])


def test_a_header_included_by_absolute_path_is_in_the_key(tmp_path):
    """Issue 21: `#include "/path/x.h"` was not in the key: after an edit of
    the header, a new process ran the old kernel from the cache."""
    hdir = tmp_path / "hdr"
    hdir.mkdir()
    header = hdir / "value.h"
    nested = hdir / "nested.h"
    src = f'#include "{header}"\n__global__ void k(int *p) {{ *p = VALUE + NESTED; }}\n'
    nested.write_text("#define NESTED 100\n")
    header.write_text(f'#include "{nested}"\n#define VALUE 1\n')
    assert _probe(tmp_path, src) == 101
    header.write_text(f'#include "{nested}"\n#define VALUE 2\n')
    assert _probe(tmp_path, src) == 102
    nested.write_text("#define NESTED 300\n")  # a header that one includes, by path
    assert _probe(tmp_path, src) == 302


def test_headers_found_through_cpath_are_in_the_key(tmp_path):
    """The simulator's C++ compiler reads CPATH (and C_INCLUDE_PATH,
    CPLUS_INCLUDE_PATH); its headers go into the key. NVRTC reads no
    environment, so on the GPU such a source does not compile at all."""
    if _driver.get_backend() != "sim":
        pytest.skip("NVRTC does not search CPATH: only the simulator's compiler reads it")
    hdir = tmp_path / "cpath"
    hdir.mkdir()
    (hdir / "cpath_value.h").write_text("#define VALUE 5\n")
    src = '#include "cpath_value.h"\n__global__ void k(int *p) { *p = VALUE; }\n'
    assert _probe(tmp_path, src, {"CPATH": str(hdir)}) == 5
    (hdir / "cpath_value.h").write_text("#define VALUE 6\n")
    assert _probe(tmp_path, src, {"CPATH": str(hdir)}) == 6
