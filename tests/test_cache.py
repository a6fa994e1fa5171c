"""The on-disk compile cache (src/compile/cache.c + pycudac/compiler.py): keys, safe
directories, atomic entries, recovery from bad entries, eviction, and the
warnings when the cache cannot be used. Compiles go through NVRTC with an
explicit arch, so none of this needs a GPU or the simulator."""
import json
import os
import random
import stat
import subprocess
import sys
import tempfile
import textwrap
import time
import uuid
import warnings

import pytest

from pycudac import _driver, compiler
from pycudac.compiler import CacheWarning
from pycudac._compiler import toolkit as _toolkit

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
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


# ---------------------------------------------------------------------------
# store / load

def test_store_load_roundtrip_and_modes(cache):
    assert _driver.cache_check_dir(str(cache)) is None  # creates it
    assert stat.S_IMODE(os.stat(cache).st_mode) == 0o700
    key = "ab" * 32
    assert _driver.cache_store(str(cache), key, b"payload bytes") == 0
    assert _driver.cache_load(str(cache), key) == b"payload bytes"
    (name,) = entries(cache)
    assert name == key + ".pcc"
    assert stat.S_IMODE(os.stat(cache / name).st_mode) == 0o600
    assert _driver.cache_load(str(cache), "cd" * 32) is None
    assert _driver.cache_verify(str(cache), "cd" * 32) == "no entry"


def test_an_entry_in_a_directory_with_a_long_path_loads(tmp_path):
    """A directory whose path fits but not with "/<entry name>" after it: the
    read goes through the directory's descriptor (as the write does) instead
    of missing every time."""
    limit = os.pathconf("/", "PC_PATH_MAX") if hasattr(os, "pathconf") else 4096
    d = str(tmp_path)
    while len(d) < limit - 60:
        d = os.path.join(d, "d" * min(200, limit - 60 - len(d) - 1))
    if len(d) >= limit - 1:
        pytest.skip("cannot build a path of the right length here")
    os.makedirs(d, mode=0o700)
    key = "ef" * 32
    assert len(d) + 1 + len(key) + 4 >= limit
    assert _driver.cache_store(d, key, b"far away") == 0
    assert _driver.cache_load(d, key) == b"far away"
    assert _driver.cache_verify(d, key) == "ok"
    os.chmod(d, 0o777)
    assert "writable" in _driver.cache_verify(d, key)
    os.chmod(d, 0o700)


def test_bad_keys_are_value_errors(cache):
    _driver.cache_check_dir(str(cache))
    for bad in ("", "ab", "zz" * 32, "ab" * 33):
        with pytest.raises(ValueError, match="key"):
            _driver.cache_load(str(cache), bad)
        with pytest.raises(ValueError, match="key"):
            _driver.cache_store(str(cache), bad, b"x")


def test_nested_directory_is_created_0700(tmp_path):
    d = tmp_path / "a" / "b" / "pycudac"
    assert _driver.cache_check_dir(str(d)) is None
    assert stat.S_IMODE(os.stat(d).st_mode) == 0o700
    assert _driver.cache_check_dir(str(tmp_path / "x"), create=False) is not None


def test_compile_hits_the_cache(cache):
    src = unique_src()
    before = counts()
    a = compiler.compile(src, arch="sm_90")
    assert a[:4] == b"\x7fELF"
    assert delta(before, "compiles") == 1 and delta(before, "stores") == 1
    b = compiler.compile(src, arch="sm_90")
    assert a == b
    assert delta(before, "compiles") == 1 and delta(before, "hits") == 1
    assert len(entries(cache)) == 1


@pytest.mark.parametrize("damage", ["truncate", "garbage", "flip", "empty", "header_only"])
def test_bad_entry_is_a_miss_and_is_rewritten(cache, damage):
    src = unique_src()
    good = compiler.compile(src, arch="sm_90")
    (name,) = entries(cache)
    path = cache / name
    data = path.read_bytes()
    if damage == "truncate":
        path.write_bytes(data[:len(data) // 2])
    elif damage == "garbage":
        path.write_bytes(os.urandom(len(data)))
    elif damage == "flip":
        path.write_bytes(data[:-10] + bytes([data[-10] ^ 1]) + data[-9:])
    elif damage == "empty":
        path.write_bytes(b"")
    else:
        path.write_bytes(data[:88])
    os.chmod(path, 0o600)
    key = name[:-4]
    assert _driver.cache_verify(str(cache), key) != "ok"
    assert _driver.cache_load(str(cache), key) is None
    before = counts()
    again = compiler.compile(src, arch="sm_90")
    assert again == good
    assert delta(before, "compiles") == 1 and delta(before, "misses") == 1
    assert _driver.cache_verify(str(cache), key) == "ok"


@pytest.mark.parametrize("change", ["extended", "shortened", "length field"])
def test_entry_whose_length_disagrees_with_its_header_is_a_miss(cache, change):
    """The header's payload length is checked on its own: an entry extended
    or cut short whose checksum was recomputed over what it now holds (so
    that only the length can tell) is a miss (tools/mutate.py C8 survived:
    every damaged-entry test also broke the checksum)."""
    import struct
    _driver.cache_check_dir(str(cache))
    key = "ef" * 32
    payload = bytes(range(256)) * 4
    _driver.cache_store(str(cache), key, payload)
    path = cache / (key + ".pcc")
    data = path.read_bytes()
    header, body = bytearray(data[:88]), data[88:]
    assert struct.unpack_from("<Q", header, 48)[0] == len(payload) == len(body)
    if change == "extended":
        body = body + b"more"
    elif change == "shortened":
        body = body[:-4]
    else:
        struct.pack_into("<Q", header, 48, len(body) + 4)
    header[56:88] = struct.pack("<I", _driver._crc32c(body)) + bytes(28)
    path.write_bytes(bytes(header) + body)
    why = _driver.cache_verify(str(cache), key)
    assert why != "ok" and "length" in why, why
    assert _driver.cache_load(str(cache), key) is None


def _crc32c_reference(data):
    """CRC-32C bit by bit, straight from its definition (reflected
    polynomial 0x82F63B78, all-ones start and final XOR)."""
    crc = 0xFFFFFFFF
    for byte in data:
        crc ^= byte
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82F63B78 if crc & 1 else 0)
    return crc ^ 0xFFFFFFFF


def test_crc32c_both_paths_match_the_definition():
    """The entry checksum: the CPU instruction (where there is one) and the
    table-driven path agree with the definition and RFC 3720's check
    values, at every length and alignment around the 8-byte steps."""
    assert _driver._crc32c(b"123456789") == 0xE3069283
    assert _driver._crc32c(bytes(32)) == 0x8A9136AA
    assert _driver._crc32c(b"\xff" * 32) == 0x62A8AB43
    assert _driver._crc32c(b"") == 0 == _driver._crc32c(b"", False)
    rng = random.Random(7)
    blob = bytes(rng.randrange(256) for _ in range(300))
    view = memoryview(blob)
    for start in range(9):
        for n in (1, 7, 8, 9, 15, 16, 17, 63, 64, 65, 200):
            part = view[start:start + n]
            want = _crc32c_reference(part)
            assert _driver._crc32c(part) == want, (start, n)
            assert _driver._crc32c(part, False) == want, (start, n)
    with pytest.raises(TypeError):
        _driver._crc32c("text")


def test_crc32c_three_stripes_join_right():
    """The instruction path runs three 4096-byte stripes side by side and
    joins them (src/util/crc32c.c): at lengths around one and two 12 KB blocks
    and at odd alignments it agrees with the table path (itself held to the
    definition above), and a flipped byte in any stripe changes it."""
    rng = random.Random(11)
    blob = bytes(rng.randrange(256) for _ in range(2 * 12288 + 64))
    view = memoryview(blob)
    for start in (0, 1, 5):
        for n in (12287, 12288, 12289, 12295, 12296, 2 * 12288 - 1, 2 * 12288, 2 * 12288 + 57):
            part = view[start:start + n]
            assert _driver._crc32c(part) == _driver._crc32c(part, False), (start, n)
    base = _driver._crc32c(blob)
    for at in (0, 4095, 4096, 8191, 8192, 12287, 12288, len(blob) - 1):
        flipped = bytearray(blob)
        flipped[at] ^= 0x40
        assert _driver._crc32c(bytes(flipped)) != base, at
    assert _driver._crc32c(blob[:30000]) == _crc32c_reference(blob[:30000])


def test_entry_of_another_format_or_checksum_is_a_miss(cache):
    """The header says format 3 (CRC-32C checksums); an entry of format 1
    (SHA-256) or 2 (zlib's CRC-32), or a wrong CRC, is a miss, recompiled and
    replaced."""
    import struct
    src = unique_src()
    good = compiler.compile(src, arch="sm_90")
    (name,) = entries(cache)
    path, key = cache / name, name[:-4]
    data = path.read_bytes()
    assert data[:8] == b"PCCCACHE" and struct.unpack_from("<I", data, 8)[0] == 3
    crc = struct.unpack_from("<I", data, 56)[0]
    assert crc == _crc32c_reference(data[88:]) == _driver._crc32c(data[88:])
    assert data[60:88] == bytes(28)
    for old in (1, 2):
        path.write_bytes(data[:8] + struct.pack("<I", old) + data[12:])
        assert "format" in _driver.cache_verify(str(cache), key)
    path.write_bytes(data[:56] + struct.pack("<I", crc ^ 1) + data[60:])
    assert "checksum" in _driver.cache_verify(str(cache), key)
    before = counts()
    assert compiler.compile(src, arch="sm_90") == good
    assert delta(before, "compiles") == 1
    assert _driver.cache_verify(str(cache), key) == "ok"


def test_entry_with_another_key_is_a_miss(cache):
    s1, s2 = unique_src(), unique_src().replace("*= s", "+= s")
    img1 = compiler.compile(s1, arch="sm_90")
    (n1,) = entries(cache)
    img2 = compiler.compile(s2, arch="sm_90")
    n2 = [n for n in entries(cache) if n != n1][0]
    os.replace(cache / n1, cache / n2)  # entry for s1 under s2's name
    assert "another key" in _driver.cache_verify(str(cache), n2[:-4])
    before = counts()
    assert compiler.compile(s2, arch="sm_90") == img2 != img1
    assert delta(before, "compiles") == 1
    assert _driver.cache_verify(str(cache), n2[:-4]) == "ok"


def test_foreign_payload_with_valid_checksum_is_a_miss(cache):
    src = unique_src()
    compiler.compile(src, arch="sm_90")
    (name,) = entries(cache)
    _driver.cache_store(str(cache), name[:-4], b"not a pycudac payload")
    before = counts()
    assert compiler.compile(src, arch="sm_90")[:4] == b"\x7fELF"
    assert delta(before, "compiles") == 1
    assert compiler.compile(src, arch="sm_90")[:4] == b"\x7fELF"
    assert delta(before, "compiles") == 1 and delta(before, "hits") == 1


def test_symlinked_entry_is_never_read(cache, tmp_path):
    _driver.cache_check_dir(str(cache))
    key = "ef" * 32
    _driver.cache_store(str(cache), key, b"real")
    target = tmp_path / "elsewhere.pcc"
    os.replace(cache / (key + ".pcc"), target)
    os.symlink(target, cache / (key + ".pcc"))
    assert _driver.cache_load(str(cache), key) is None
    assert "symbolic link" in _driver.cache_verify(str(cache), key)
    # a store replaces the link itself, never writes through it
    _driver.cache_store(str(cache), key, b"new")
    assert not os.path.islink(cache / (key + ".pcc"))
    assert _driver.cache_load(str(cache), key) == b"new"
    assert target.read_bytes()[-4:] == b"real"


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


def test_stats_and_clear(cache):
    compiler.compile(unique_src(), arch="sm_90")
    compiler.compile(unique_src(), arch="sm_90")
    st = compiler.cache_stats()
    assert st["path"] == str(cache) and st["entries"] == 2 and st["bytes"] > 0
    assert st["enabled"] and st["refused"] is None
    assert compiler.cache_clear() == 2
    assert compiler.cache_stats()["entries"] == 0


# ---------------------------------------------------------------------------
# eviction

def _set_mtime(path, t):
    os.utime(path, ns=(t, t))


def test_eviction_keeps_the_cap_oldest_first(cache):
    _driver.cache_check_dir(str(cache))
    payload = b"x" * 1000  # entry = 88 + 1000 bytes
    keys = [f"{i:02x}" * 32 for i in range(6)]
    for i, k in enumerate(keys[:5]):
        _driver.cache_store(str(cache), k, payload)
        _set_mtime(cache / (k + ".pcc"), 1_000_000_000 * (i + 1))
    # a hit refreshes an old entry
    assert _driver.cache_load(str(cache), keys[0]) == payload
    cap = 3 * 1088
    evicted = _driver.cache_store(str(cache), keys[5], payload, cap)
    assert evicted == 3
    left = entries(cache)
    assert sum(os.path.getsize(cache / n) for n in left) <= cap
    assert left == sorted([keys[0] + ".pcc", keys[4] + ".pcc", keys[5] + ".pcc"])


def test_eviction_never_removes_the_entry_just_written(cache):
    _driver.cache_check_dir(str(cache))
    _driver.cache_store(str(cache), "01" * 32, b"a" * 500)
    _set_mtime(cache / ("01" * 32 + ".pcc"), 10**18)  # "newer" than the new one
    _driver.cache_store(str(cache), "02" * 32, b"b" * 500, 10)  # cap below one entry
    assert entries(cache) == ["02" * 32 + ".pcc"]


def test_cap_from_environment_applies_to_compiles(cache, monkeypatch):
    first = compiler.compile(unique_src(), arch="sm_90")
    size = os.path.getsize(cache / entries(cache)[0])
    monkeypatch.setenv("PYCUDAC_CACHE_MAX_BYTES", str(int(size * 2.5)))
    for _ in range(4):
        compiler.compile(unique_src(), arch="sm_90")
        total = sum(os.path.getsize(cache / n) for n in entries(cache))
        assert total <= size * 2.5 + 200
    assert len(entries(cache)) == 2
    assert first[:4] == b"\x7fELF"


def test_stale_temp_files_are_removed(cache):
    _driver.cache_check_dir(str(cache))
    stale = cache / ".tmp-deadbeef-1-1-1"
    stale.write_bytes(b"partial")
    _set_mtime(stale, 1_000_000_000)
    fresh = cache / ".tmp-deadbeef-2-2-2"
    fresh.write_bytes(b"partial")
    _driver.cache_store(str(cache), "03" * 32, b"c", 1 << 20)
    assert not stale.exists() and fresh.exists()


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


def test_clear_leaves_stores_in_flight_alone(cache):
    """Issue 21: cache_clear deleted other writers' temporary files, so a
    concurrent store failed with a spurious CacheWarning. A temporary file
    younger than CACHE_STALE_TMP_S is a store in flight; an older one was
    left by a crashed writer and goes."""
    compiler.compile(unique_src(), arch="sm_90")
    stale = cache / ".tmp-deadbeef-1-1-1"
    stale.write_bytes(b"partial")
    _set_mtime(stale, 1_000_000_000)
    fresh = cache / ".tmp-deadbeef-2-2-2"
    fresh.write_bytes(b"partial")
    assert compiler.cache_clear() == 2  # the entry and the stale one
    assert fresh.exists() and not stale.exists() and entries(cache) == []


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


def test_a_huge_entry_is_a_miss_not_a_memory_error(cache):
    """Issue 21: an entry whose header declares a huge payload (a sparse file
    that large) raised MemoryError from SourceModule; it is a miss like any
    damaged entry, refused before anything is allocated, and rewritten."""
    src = unique_src()
    good = compiler.compile(src, arch="sm_90")
    (name,) = entries(cache)
    path = cache / name
    header = bytearray(path.read_bytes()[:88])
    huge = (3 << 30) - 88
    header[48:56] = huge.to_bytes(8, "little")
    with open(path, "wb") as f:
        f.write(header)
        f.truncate(88 + huge)  # sparse: no disk used
    os.chmod(path, 0o600)
    assert _driver.cache_verify(str(cache), name[:-4]) != "ok"
    before = counts()
    t0 = time.perf_counter()
    assert _driver.cache_load(str(cache), name[:-4]) is None  # no 3 GiB read either
    assert time.perf_counter() - t0 < 1.0
    assert compiler.compile(src, arch="sm_90") == good
    assert delta(before, "misses") == 1 and delta(before, "compiles") == 1
    assert os.path.getsize(path) < 1 << 20


def test_cache_stats_skips_an_entry_removed_while_it_counts(tmp_path, monkeypatch):
    """An entry evicted or cleared by another process between the directory
    listing and its stat is not counted (it raised FileNotFoundError, which
    failed test_clear_during_concurrent_stores_warns_nothing once)."""
    d = tmp_path / "c"
    d.mkdir(mode=0o700)
    (d / ("a" * 64 + ".pcc")).write_bytes(b"x" * 10)
    (d / ("b" * 64 + ".pcc")).write_bytes(b"y" * 20)
    real = os.scandir

    class Gone:
        def __init__(self, e):
            self._e, self.name, self.path = e, e.name, e.path

        def is_file(self, follow_symlinks=True):
            return True

        def stat(self, follow_symlinks=True):
            if self.name.startswith("a"):
                raise FileNotFoundError(self.path)
            return self._e.stat(follow_symlinks=follow_symlinks)

    class Listing:
        def __init__(self, path):
            self._it = real(path)

        def __enter__(self):
            return (Gone(e) for e in self._it)

        def __exit__(self, *exc):
            self._it.close()

    monkeypatch.setattr(compiler.os, "scandir", Listing)
    stats = compiler.cache_stats(str(d))
    assert stats["entries"] == 1 and stats["bytes"] == 20
