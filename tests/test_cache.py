"""The on-disk compile cache (src/compile/cache.c + pycudac/compiler.py):
entries stored and loaded atomically, recovery from bad entries (damaged, of
another key, format or checksum, too large, symbolic links), eviction,
clearing and the statistics. The key is test_cache_key.py's, the directory
and the settings test_cache_dirs.py's, several processes and warm starts
test_cache_warm.py's. Compiles go through NVRTC with an explicit arch, so
none of this needs a GPU or the simulator."""
import os
import random
import stat
import time

import pytest

from pycudac import _driver, compiler

import _cache_setup
from _cache_setup import counts, delta, entries, unique_src

cache = _cache_setup.cache  # a fixture: pytest finds it in this module


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
# statistics and clearing

def test_stats_and_clear(cache):
    compiler.compile(unique_src(), arch="sm_90")
    compiler.compile(unique_src(), arch="sm_90")
    st = compiler.cache_stats()
    assert st["path"] == str(cache) and st["entries"] == 2 and st["bytes"] > 0
    assert st["enabled"] and st["refused"] is None
    assert compiler.cache_clear() == 2
    assert compiler.cache_stats()["entries"] == 0


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
