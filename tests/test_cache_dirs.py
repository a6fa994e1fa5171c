"""Where the compile cache lives and when it is not used: unsafe directories
(writable by others, symbolic links, another user's) refused with one
warning and the compile made without the cache, read-only and full disks,
PYCUDAC_DISABLE_CACHE and cache_dir, the path's precedence, and arguments of
the wrong type to the cache's entry points."""
import os
import subprocess
import sys
import tempfile
import textwrap
import warnings

import pytest

from pycudac import _driver, compiler
from pycudac.compiler import CacheWarning

import _cache_setup
from _cache_setup import SRC, counts, delta, entries, unique_src

cache = _cache_setup.cache  # a fixture: pytest finds it in this module

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


# ---------------------------------------------------------------------------
# refused directories: one warning, compile without cache

def _compile_twice_expect_one_warning(src, match):
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        a = compiler.compile(src, arch="sm_90")
        b = compiler.compile(src, arch="sm_90")
    assert a == b and a[:4] == b"\x7fELF"
    cw = [x for x in w if issubclass(x.category, CacheWarning)]
    assert len(cw) == 1, [str(x.message) for x in w]
    assert match in str(cw[0].message)
    return cw[0]


def test_world_writable_dir_refused_with_one_warning(cache):
    cache.mkdir(mode=0o700)
    os.chmod(cache, 0o777)
    before = counts()
    _compile_twice_expect_one_warning(unique_src(), "writable")
    assert delta(before, "compiles") == 2
    assert entries(cache) == []


def test_group_writable_dir_refused(cache):
    cache.mkdir(mode=0o700)
    os.chmod(cache, 0o770)
    _compile_twice_expect_one_warning(unique_src(), "group")
    assert entries(cache) == []


def test_symlinked_dir_refused_with_one_warning(cache, tmp_path):
    real = tmp_path / "real"
    real.mkdir(mode=0o700)
    os.symlink(real, cache)
    _compile_twice_expect_one_warning(unique_src(), "symbolic link")
    assert entries(real) == []


def test_store_refuses_unsafe_dir_even_if_checked_before(cache):
    assert _driver.cache_check_dir(str(cache)) is None
    os.chmod(cache, 0o777)
    with pytest.raises(OSError, match="writable by group or others"):
        _driver.cache_store(str(cache), "ab" * 32, b"x")
    os.chmod(cache, 0o700)
    _driver.cache_store(str(cache), "ab" * 32, b"x")
    os.chmod(cache, 0o777)
    assert _driver.cache_load(str(cache), "ab" * 32) is None


@pytest.mark.parametrize("mode", [0o770, 0o720, 0o702, 0o707], ids=oct)
def test_store_and_load_refuse_a_dir_made_unsafe_after_its_check(cache, mode):
    """Every operation checks the directory it opens (not only the first):
    writable by the group alone is as unsafe as by others (a mutation that
    let a group-writable directory through, tools/mutate.py C3, passed the
    suite)."""
    assert _driver.cache_check_dir(str(cache)) is None
    _driver.cache_store(str(cache), "cd" * 32, b"y")
    os.chmod(cache, mode)
    with pytest.raises(OSError, match="writable by group or others"):
        _driver.cache_store(str(cache), "ab" * 32, b"x")
    assert _driver.cache_load(str(cache), "cd" * 32) is None
    os.chmod(cache, 0o700)
    assert _driver.cache_load(str(cache), "cd" * 32) == b"y"


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root to make a directory of another user")
def test_dir_of_another_user_refused(cache):
    cache.mkdir(mode=0o700)
    os.chown(cache, 65534, 65534)
    _compile_twice_expect_one_warning(unique_src(), "owned by uid 65534")


# Becomes user nobody once everything it needs is loaded (the interpreter
# itself may live where nobody cannot read).
DEMOTE = textwrap.dedent("""
    import os, hashlib, json, struct, tempfile, uuid, warnings
    from pycudac import _driver, compiler
    _driver.nvrtc_version()
    _driver.compiler_info("nvrtc")  # load NVRTC as root; the cache dir is first touched as nobody
    os.setgid(65534)
    os.setuid(65534)
""")


def _run_restricted(script, env_extra, demote):
    """Run `script` in a fresh interpreter; as user nobody when demote."""
    env = dict(os.environ, **env_extra)
    env.pop("PYCUDAC_DISABLE_CACHE", None)
    if demote:
        script = DEMOTE + script
    return subprocess.run([sys.executable, "-c", script], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=120)


CHILD = textwrap.dedent("""
    import warnings, uuid
    warnings.simplefilter("always")
    from pycudac import compiler
    src = "// %s\\n" % uuid.uuid4().hex + "__global__ void f(float *a) { a[0] = 1; }"
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        a = compiler.compile(src, arch="sm_90")
        b = compiler.compile(src, arch="sm_90")
    assert a == b and a[:4] == b"\\x7fELF"
    msgs = [str(x.message) for x in w if issubclass(x.category, compiler.CacheWarning)]
    print(len(msgs))
    print(msgs[0] if msgs else "")
""")


def test_read_only_dir_compiles_and_warns_once():
    base = tempfile.mkdtemp(prefix="pycudac-ro-")
    try:
        os.chmod(base, 0o755)
        d = os.path.join(base, "cache")
        os.mkdir(d, 0o500)
        demote = os.geteuid() == 0  # root writes anyway: run the child as nobody
        if demote:
            os.chown(d, 65534, 65534)
        r = _run_restricted(CHILD, {"PYCUDAC_CACHE_DIR": d}, demote)
        assert r.returncode == 0, r.stderr
        n, msg = r.stdout.splitlines()[:2]
        assert n == "1", r.stdout
        assert "Permission denied" in msg or "EACCES" in msg or "Errno 13" in msg, msg
        assert os.listdir(d) == []
    finally:
        os.chmod(base, 0o700)
        subprocess.run(["rm", "-rf", base])


def test_disk_full_compiles_and_warns_once(tmp_path):
    """RLIMIT_FSIZE makes writes fail with EFBIG, like a full disk."""
    script = textwrap.dedent("""
        import resource, signal
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (100, 100))
    """) + CHILD
    d = tmp_path / "cache"
    r = _run_restricted(script, {"PYCUDAC_CACHE_DIR": str(d)}, False)
    assert r.returncode == 0, r.stderr
    n, msg = r.stdout.splitlines()[:2]
    assert n == "1", r.stdout
    assert "could not write" in msg
    assert [x for x in os.listdir(d) if not x.startswith(".tmp-")] == []
    assert [x for x in os.listdir(d) if x.startswith(".tmp-")] == []  # temp file removed


# ---------------------------------------------------------------------------
# where the cache is, turning it off, arguments of the wrong type

def test_disable_cache(cache, monkeypatch):
    monkeypatch.setenv("PYCUDAC_DISABLE_CACHE", "1")
    before = counts()
    src = unique_src()
    compiler.compile(src, arch="sm_90")
    compiler.compile(src, arch="sm_90")
    assert delta(before, "compiles") == 2 and delta(before, "hits") == 0
    assert not cache.exists() or entries(cache) == []
    monkeypatch.delenv("PYCUDAC_DISABLE_CACHE")
    compiler.compile(src, arch="sm_90", cache_dir=False)
    assert not cache.exists() or entries(cache) == []


def test_cache_dir_argument(tmp_path, cache):
    other = tmp_path / "other"
    compiler.compile(unique_src(), arch="sm_90", cache_dir=str(other))
    assert len(entries(other)) == 1
    assert not cache.exists() or entries(cache) == []


def test_cache_path_precedence(monkeypatch, tmp_path):
    monkeypatch.setenv("PYCUDAC_CACHE_DIR", str(tmp_path / "a"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "x"))
    assert compiler.cache_path() == str(tmp_path / "a")
    assert compiler.cache_path(tmp_path / "c") == str(tmp_path / "c")
    monkeypatch.delenv("PYCUDAC_CACHE_DIR")
    assert compiler.cache_path() == str(tmp_path / "x" / "pycudac")
    monkeypatch.setenv("XDG_CACHE_HOME", "relative/xdg")  # not absolute: ignored
    monkeypatch.setenv("HOME", str(tmp_path / "h"))
    assert compiler.cache_path() == str(tmp_path / "h" / ".cache" / "pycudac")
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "h") + "//")
    assert compiler.cache_path() == str(tmp_path / "h" / ".cache" / "pycudac")
    monkeypatch.setenv("HOME", "/")
    assert compiler.cache_path() == "/.cache/pycudac"
    # the same answers as os.path for the spellings abspath normalizes
    monkeypatch.chdir(tmp_path)
    for spelling in ("rel/dir", "./a/../b", str(tmp_path) + "//x/./y/", "//net/share",
                     "/a/b/..", "/"):
        monkeypatch.setenv("PYCUDAC_CACHE_DIR", spelling)
        assert compiler.cache_path() == os.path.abspath(spelling), spelling
        assert compiler.cache_path(spelling) == os.path.abspath(spelling), spelling
    monkeypatch.delenv("PYCUDAC_CACHE_DIR")
    monkeypatch.delenv("HOME")  # the password database's home, as os.path.expanduser
    assert compiler.cache_path() == os.path.join(os.path.expanduser("~"), ".cache", "pycudac")


@pytest.mark.parametrize("value,off", [("1", True), (" TRUE ", True), ("yes", True),
                                       ("On", True), ("0", False), ("", False),
                                       ("no", False), ("1x", False)])
def test_disable_cache_spellings(monkeypatch, value, off):
    monkeypatch.setenv("PYCUDAC_DISABLE_CACHE", value)
    assert compiler._cache._cache_disabled() is off


def test_cache_dir_of_the_wrong_type_is_named():
    with pytest.raises(TypeError, match="cache_dir must be a path"):
        compiler.compile(SRC, arch="sm_90", cache_dir=123)
    with pytest.raises(TypeError, match="cache_dir must be a path"):
        compiler.cache_path(["/tmp"])


def test_cache_entry_points_refuse_garbage():
    """The C side of the key, the lookup and the payload codec: wrong types
    are TypeErrors that say what was expected (never a crash)."""
    args = list(compiler._cache._key_args(SRC, ["-DA"], (), "cubin", "sm_90", "nvrtc", "nvrtc",
                                   False, ()))
    def key_with(i, value):
        a = list(args)
        a[i] = value
        return lambda: _driver.cache_key(*a)
    for call, match in [
            (key_with(9, 5), "str"),                                  # source
            (key_with(6, 5), "sequences of str"),                     # options
            (key_with(6, [1]), "options must be str"),
            (key_with(7, [b"x"]), "name_expressions must be str"),
            (lambda: _driver.cache_key(args[0], "sim", None, *args[3:]), "only for NVRTC"),
            (lambda: _driver.cache_key(*args[:10], 5), "includes must be a list"),
            (lambda: _driver.cache_key(*args[:10], [("x",)]), "each include must be a tuple"),
            (lambda: _driver.cache_find(3, *args), "cache_dir must be a path"),
            (lambda: _driver.cache_find("/tmp"), "arguments"),
            (lambda: _driver.warm_source_module(SRC, False, None, [], {}, 3), "dict"),
            (lambda: _driver.warm_source_module(SRC, False, None, {}, None, 3), "dict"),
            (lambda: _driver.warm_source_module(SRC), "arguments"),
            (lambda: _driver.cache_module(None, SRC, (), (), False, 3), "list"),
            (lambda: _driver.cache_decode("x", "cubin", "sm_90"), "bytes"),
            (lambda: _driver.cache_encode("cubin", "sm_90", "", "img", None, [], None), "bytes"),
            (lambda: _driver.cache_encode("cubin", "sm_90", "", b"i", None, [1], None),
             "options must be a sequence of str"),
            (lambda: _driver.cache_encode("cubin", "sm_90", "", b"i", None, [], [1]),
             "lowered must be a dict"),
            (lambda: _driver.cache_encode("cubin", "sm_90", "", b"i", None, [], {1: "a"}),
             "lowered names must be str"),
            (lambda: _driver.cache_encode("cubin", "sm_90", 3, b"i", None, [], None),
             "log, ptx, target and arch"),
            (lambda: _driver.cache_path(3), "cache_dir must be a path")]:
        with pytest.raises(TypeError, match=match):
            call()
    assert _driver.cache_decode(b"", "cubin", "sm_90") is None
