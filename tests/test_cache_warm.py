"""The compile cache across processes: sixteen processes compiling one new
source, stores in other processes while this one clears, and a fresh
process's warm start (NVRTC never loaded; on the CUDA backend, over the stub
driver, one C call)."""
import json
import os
import subprocess
import sys
import textwrap
import uuid

from pycudac import _driver, compiler

from _cache_setup import SRC, entries, unique_src

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


# ---------------------------------------------------------------------------
# concurrency

def test_sixteen_processes_compile_the_same_source(tmp_path):
    d = tmp_path / "cache"
    src = unique_src()
    script = textwrap.dedent(f"""
        import hashlib, sys
        from pycudac import compiler
        img = compiler.compile({src!r}, arch="sm_90")
        assert img[:4] == b"\\x7fELF"
        print(hashlib.sha256(img).hexdigest())
    """)
    env = dict(os.environ, PYCUDAC_CACHE_DIR=str(d))
    env.pop("PYCUDAC_DISABLE_CACHE", None)
    procs = [subprocess.Popen([sys.executable, "-c", script], cwd=ROOT, env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for _ in range(16)]
    outs = [p.communicate(timeout=300) for p in procs]
    for p, (out, err) in zip(procs, outs):
        assert p.returncode == 0, err
    assert len({out.strip() for out, _ in outs}) == 1
    names = os.listdir(d)
    assert len(names) == 1 and names[0].endswith(".pcc"), names  # no temp file left
    assert _driver.cache_verify(str(d), names[0][:-4]) == "ok"


def test_clear_during_concurrent_stores_warns_nothing(tmp_path):
    """Writers in other processes storing while this one clears, over and
    over: no writer sees its store fail."""
    d = tmp_path / "cache"
    script = textwrap.dedent("""
        import uuid, warnings
        from pycudac import compiler
        warnings.simplefilter("error")
        for i in range(12):
            compiler.compile(f"// {uuid.uuid4().hex}\\n" + %r, arch="sm_90")
        print("ok", compiler.cache_stats()["process"]["store_errors"])
    """ % SRC)
    env = dict(os.environ, PYCUDAC_CACHE_DIR=str(d))
    env.pop("PYCUDAC_DISABLE_CACHE", None)
    procs = [subprocess.Popen([sys.executable, "-c", script], cwd=ROOT, env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for _ in range(3)]
    while any(p.poll() is None for p in procs):
        if d.is_dir():
            compiler.cache_clear(str(d))
    for p in procs:
        out, err = p.communicate(timeout=300)
        assert p.returncode == 0, err
        assert out.split() == ["ok", "0"], out + err


# ---------------------------------------------------------------------------
# warm starts in a fresh process

def test_warm_hit_in_a_fresh_process_does_not_load_nvrtc(tmp_path):
    """The key names NVRTC by its file alone: a warm start reads, verifies
    and returns the entry without dlopen-ing the 100 MB library."""
    code = ("from pycudac import compiler\n"
            "img = compiler.compile('__global__ void k(int *a) { *a = 1; }', arch='sm_90')\n"
            "loaded = any('libnvrtc.so' in l for l in open('/proc/self/maps'))\n"
            "print(img[:4] == b'\\x7fELF', compiler.cache_stats()['process']['hits'], loaded)\n")
    env = dict(os.environ, PYCUDAC_CACHE_DIR=str(tmp_path / "c"))
    env.pop("PYCUDAC_DISABLE_CACHE", None)
    first = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                           text=True, timeout=120, cwd=ROOT)
    assert first.stdout.split() == ["True", "0", "True"], first.stderr
    second = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                            text=True, timeout=120, cwd=ROOT)
    assert second.stdout.split() == ["True", "1", "False"], second.stderr


STUB_CHILD = textwrap.dedent("""
    import json, sys
    import pycudac.autoinit
    from pycudac import _driver, compiler
    from pycudac.compiler import SourceModule
    src = sys.argv[1]
    general_path = compiler._compile_cached
    if sys.argv[2] == "fast-only":
        def refuse(*a, **k):
            raise AssertionError("the general path ran")
        compiler._compile_cached = refuse
    mod = SourceModule(src, options=["-DX=2"], name_expressions=["t<int>"], no_extern_c=True)
    # no argument but the source: the memo and the disk in one C call
    plain_src = src.splitlines()[0] + "\\n__global__ void p(float *x) { x[0] = 1; }\\n"
    plain = [SourceModule(plain_src) for _ in range(2)]
    compiler._compile_cached = general_path
    out_plain = [plain[0].from_cache, plain[1].module is plain[0].module]
    out = {n: getattr(mod, n) for n in ("from_cache", "target", "arch", "options", "cache_key",
                                        "lowered", "log", "ptx", "keep_dir")}
    out["cubin"] = mod.cubin == mod.image and mod.image[:4] == b"\\x7fELF"
    out["hits"] = compiler.cache_stats()["process"]["hits"]
    mod.get_function("t<int>")
    # the device from the caller's Context, or (anything else) from the driver
    opts = compiler.normalize_options(["-DX=2"])[0]
    keys = [getattr(_driver.cache_module(None, src, opts, ("t<int>",), True,
                                         compiler.CACHE_FORMAT_VERSION, *ctx), "cache_key", None)
            for ctx in ((), (_driver.Context.get_current(),), (None,), (object(),))]
    out["context_keys"] = keys.count(mod.cache_key)
    out["plain"] = out_plain
    compiler.clear_memo()
    general = SourceModule(src, options=["-DX=2"], name_expressions=["t<int>"],
                           no_extern_c=True, arch=mod.arch)
    out["same"] = [n for n in out if n not in ("hits", "cubin", "from_cache", "context_keys",
                                               "plain")
                   and getattr(general, n) != out[n]]
    print("RESULT " + json.dumps(out))
""")


def test_warm_start_in_one_c_call_on_the_cuda_backend(tmp_path, stub_driver):
    """On the CUDA backend (here the stub driver, so CI runs the C code), a
    fresh process's warm SourceModule is cache_module alone: the general
    path is not called, and the module agrees with the one the general path
    gives for the same entry. A damaged entry falls back, recompiles and
    is replaced."""
    src = (f"// {uuid.uuid4().hex}\n"
           "template <class T> __global__ void t(T *a) { a[0] = X; }\n")
    env = dict(os.environ, PYCUDAC_BACKEND="cuda", PYCUDAC_LIBCUDA=stub_driver,
               PYCUDAC_CACHE_DIR=str(tmp_path / "c"))
    env.pop("PYCUDAC_DISABLE_CACHE", None)

    def child(mode):
        r = subprocess.run([sys.executable, "-c", STUB_CHILD, src, mode], env=env, cwd=ROOT,
                           capture_output=True, text=True, timeout=300)
        assert r.returncode == 0, r.stderr[-3000:]
        return json.loads(r.stdout.split("RESULT ", 1)[1])

    cold = child("any")
    assert cold["from_cache"] is False and cold["hits"] == 0 and cold["same"] == []
    warm = child("fast-only")
    # two warm starts from disk (the templated one and plain_src's); memo hits apart
    assert warm["from_cache"] is True and warm["hits"] == 2 and warm["same"] == []
    assert warm["cubin"] and warm["target"] == "cubin" and warm["arch"] == "sm_90"
    assert warm["cache_key"] == cold["cache_key"] and warm["options"] == cold["options"]
    assert warm["lowered"] == cold["lowered"] and "t<int>" in warm["lowered"]
    # the warm start keeps the PTX as bytes until it is read: the same text
    assert warm["ptx"] == cold["ptx"] and ".entry" in warm["ptx"]
    assert warm["context_keys"] == 4
    assert cold["plain"] == [False, True] and warm["plain"] == [True, True]
    name = cold["cache_key"] + ".pcc"  # the templated source's entry (plain_src has one too)
    assert name in entries(tmp_path / "c")
    path = tmp_path / "c" / name
    data = path.read_bytes()
    path.write_bytes(data[:-1] + bytes([data[-1] ^ 0xFF]))
    again = child("any")
    assert again["from_cache"] is False and again["cache_key"] == cold["cache_key"]
    assert _driver.cache_verify(str(tmp_path / "c"), name[:-4]) == "ok"
