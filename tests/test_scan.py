"""Inclusive and exclusive scans (single pass, decoupled look-back), checked
against NumPy: tile boundaries, dtypes, non-commutative operators, streams,
unaligned views, one simulator thread and many, and NVRTC's PTX."""
import os
import re
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from pycudac import scan


pytestmark = pytest.mark.usefixtures("autoinit")  # ga and autoinit: conftest.py


@pytest.fixture(scope="module")
def int_sum():
    return scan.InclusiveScanKernel(np.int32, "a+b")


@pytest.fixture(scope="module")
def int_xsum():
    return scan.ExclusiveScanKernel(np.int32, "a+b", "0")


def _exclusive(inclusive, first):
    return np.concatenate([np.array([first], inclusive.dtype), inclusive[:-1]])


def _sizes(tile):
    return [1, 31, 32, 1000, tile - 1, tile, tile + 1, 2 * tile - 1, 2 * tile + 1]


TILE32 = scan.InclusiveScanKernel(np.int32, "a+b").tile_items


@pytest.mark.parametrize("n", [0] + _sizes(TILE32) + [33 * TILE32 + 7, (1 << 20) + 3])
def test_int32_inclusive_and_exclusive(ga, int_sum, int_xsum, n):
    x = np.random.default_rng(n).integers(-100, 100, n).astype(np.int32)
    want = np.cumsum(x, dtype=np.int32)
    a = ga.to_gpu(x)
    out = ga.empty_like(a)
    int_sum(a, out)
    np.testing.assert_array_equal(out.get(), want)
    np.testing.assert_array_equal(a.get(), x)      # input untouched
    if n:
        int_xsum(a, out)
        np.testing.assert_array_equal(out.get(), _exclusive(want, 0))
    int_sum(a)                                      # in place
    np.testing.assert_array_equal(a.get(), want)


DTYPES = [np.int8, np.uint8, np.int16, np.uint32, np.int64, np.uint64, np.float32, np.float64,
          np.complex64, np.complex128]


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_dtypes_against_cumsum(ga, dtype):
    """Small integers (exact in every dtype; integers wrap like NumPy) across
    several tiles, inclusive and exclusive, both descriptor layouts."""
    inc = scan.InclusiveScanKernel(dtype, "a+b")
    exc = scan.ExclusiveScanKernel(dtype, "a+b", "0")
    rng = np.random.default_rng(7)
    for n in (1, inc.tile_items - 1, 3 * inc.tile_items + 1):
        x = rng.integers(0, 5, n).astype(dtype)
        if np.dtype(dtype).kind == "c":
            x = x + 1j * rng.integers(-3, 4, n).astype(dtype)
        want = np.cumsum(x, dtype=dtype)
        a = ga.to_gpu(x)
        out = ga.empty_like(a)
        inc(a, out)
        np.testing.assert_array_equal(out.get(), want)
        exc(a, out)
        np.testing.assert_array_equal(out.get(), _exclusive(want, 0))


def test_bool_or(ga):
    knl = scan.InclusiveScanKernel(np.bool_, "a || b")
    x = np.zeros(3 * knl.tile_items + 5, np.bool_)
    x[knl.tile_items + 17] = True
    a = ga.to_gpu(x)
    knl(a)
    np.testing.assert_array_equal(a.get(), np.logical_or.accumulate(x))


def test_inclusive_needs_no_neutral(ga):
    """max over negative numbers: 0 would be wrong as a pad or a seed."""
    knl = scan.InclusiveScanKernel(np.int32, "a > b ? a : b")
    x = np.random.default_rng(2).integers(-10**9, -1, 2 * knl.tile_items + 3).astype(np.int32)
    a = ga.to_gpu(x)
    knl(a)
    np.testing.assert_array_equal(a.get(), np.maximum.accumulate(x))


def test_exclusive_max_int64(ga):
    knl = scan.ExclusiveScanKernel(np.int64, "a > b ? a : b", "-9223372036854775807LL - 1")
    x = np.random.default_rng(2).integers(-10**12, 10**12, 20000)
    a = ga.to_gpu(x)
    knl(a)
    np.testing.assert_array_equal(a.get(), _exclusive(np.maximum.accumulate(x), -2**63))


def _affine_u32(x):
    """Compose x -> m*x + c maps (m high, c low 16 bits) left to right."""
    out = np.empty_like(x)
    acc = None
    for i, v in enumerate(x.tolist()):
        if acc is None:
            acc = v
        else:
            m1, c1, m2, c2 = acc >> 16, acc & 0xffff, v >> 16, v & 0xffff
            acc = ((m1 * m2) & 0xffff) << 16 | ((m2 * c1 + c2) & 0xffff)
        out[i] = acc
    return out


AFFINE_U32 = ("((((a >> 16) * (b >> 16)) & 0xffffu) << 16)"
              " | (((b >> 16) * (a & 0xffffu) + (b & 0xffffu)) & 0xffffu)")


@pytest.mark.parametrize("exclusive", [False, True])
def test_non_commutative_packed(ga, exclusive):
    """Associative, not commutative, 4 bytes (status and value in one word)."""
    cls = scan.ExclusiveScanKernel if exclusive else scan.InclusiveScanKernel
    knl = cls(np.uint32, AFFINE_U32, "0x10000u")
    n = 5 * knl.tile_items + 11
    x = np.random.default_rng(4).integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32)
    a = ga.to_gpu(x)
    knl(a)
    want = _affine_u32(x)
    if exclusive:
        want = _exclusive(want, 0x10000)
    np.testing.assert_array_equal(a.get(), want)


@pytest.mark.parametrize("exclusive", [False, True])
def test_non_commutative_split(ga, exclusive):
    """Affine maps x -> m*x + c as complex128 (m, c) composed left to right:
    a linear recurrence; 16 bytes (status and value apart)."""
    cls = scan.ExclusiveScanKernel if exclusive else scan.InclusiveScanKernel
    knl = cls(np.complex128, "pcc_c128(a.x * b.x, a.y * b.x + b.y)", "pcc_c128(1, 0)")
    rng = np.random.default_rng(3)
    n = 20 * knl.tile_items + 3
    m = rng.choice([-1.0, 1.0], n)
    c = rng.integers(-3, 4, n).astype(np.float64)
    a = ga.to_gpu(m + 1j * c)
    knl(a)
    em, ec = np.cumprod(m), np.empty(n)
    pc = 0.0
    for i in range(n):
        pc = pc * m[i] + c[i]
        ec[i] = pc
    want = em + 1j * ec
    if exclusive:
        want = _exclusive(want, 1 + 0j)
    np.testing.assert_array_equal(a.get(), want)


def test_unaligned_views(ga, int_sum):
    """Views 4 bytes off 16-byte alignment take the scalar path, in and out."""
    n = 3 * TILE32 + 9
    x = np.random.default_rng(5).integers(-9, 9, n + 2).astype(np.int32)
    a = ga.to_gpu(x)
    out = ga.zeros(n + 2, np.int32)
    int_sum(a[1:n + 1], out[:n])         # input unaligned, output aligned
    np.testing.assert_array_equal(out.get()[:n], np.cumsum(x[1:n + 1], dtype=np.int32))
    int_sum(a[:n], out[2:n + 2])         # input aligned, output unaligned
    np.testing.assert_array_equal(out.get()[2:], np.cumsum(x[:n], dtype=np.int32))
    int_sum(a[1:])                       # in place, unaligned
    np.testing.assert_array_equal(a.get()[1:], np.cumsum(x[1:], dtype=np.int32))
    assert a.get()[0] == x[0]


def test_stream_and_allocator(ga, int_sum):
    from pycudac import driver, tools
    s = driver.Stream()
    pool = tools.DeviceMemoryPool()
    x = np.random.default_rng(6).integers(-50, 50, 5 * TILE32 + 1).astype(np.int32)
    a = ga.to_gpu(x)
    out = ga.empty_like(a)
    for _ in range(3):            # scratch reused from the pool on one stream
        out.fill(0)
        assert int_sum(a, out, allocator=pool.allocate, stream=s) is out
        s.synchronize()
        np.testing.assert_array_equal(out.get(), np.cumsum(x, dtype=np.int32))
    assert pool.managed_bytes > 0 and pool.active_blocks == 0


def test_empty_and_bad_input(ga, int_sum):
    e = ga.to_gpu(np.zeros(0, np.int32))
    assert int_sum(e).size == 0
    with pytest.raises(TypeError, match="dtype"):
        int_sum(ga.to_gpu(np.zeros(4, np.float32)))
    with pytest.raises(ValueError, match="contiguous"):
        int_sum(ga.to_gpu(np.zeros(8, np.int32))[::2])
    with pytest.raises(ValueError, match="output_ary"):
        int_sum(ga.to_gpu(np.zeros(8, np.int32)), ga.zeros(7, np.int32))
    with pytest.raises(ValueError, match="neutral"):
        scan.ExclusiveScanKernel(np.int32, "a+b")
    with pytest.raises(TypeError, match="GPUArray"):
        int_sum(np.zeros(3, np.int32))
    with pytest.raises(TypeError, match="float16"):
        scan.InclusiveScanKernel(np.float16, "a+b")


_SIM_THREADS_SCRIPT = textwrap.dedent("""
    import numpy as np
    import pycudac.autoinit
    from pycudac import gpuarray as ga, scan
    inc = scan.InclusiveScanKernel(np.int32, "a+b")
    exc = scan.ExclusiveScanKernel(np.float64, "a+b", "0")
    for n in (1, inc.tile_items + 1, (1 << 20) + 3):
        x = np.random.default_rng(n).integers(-9, 9, n).astype(np.int32)
        a = ga.to_gpu(x)
        inc(a)
        assert np.array_equal(a.get(), np.cumsum(x, dtype=np.int32)), n
        y = x.astype(np.float64)
        b = ga.to_gpu(y)
        exc(b)
        assert np.array_equal(b.get()[1:], np.cumsum(y)[:-1]) and b.get()[0] == 0, n
    print("ok")
""")


@pytest.mark.parametrize("threads", ["1", "7"])
def test_simulator_thread_counts(backend, threads):
    """One simulator thread (tiles strictly one after another: predecessors
    are always done) and more threads than cores (look-back waits)."""
    if backend != "sim":
        pytest.skip("PYCUDAC_SIM_THREADS is a simulator setting")
    env = dict(os.environ, PYCUDAC_BACKEND="sim", PYCUDAC_SIM_THREADS=threads)
    r = subprocess.run([sys.executable, "-c", _SIM_THREADS_SCRIPT], env=env,
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0 and r.stdout.strip() == "ok", r.stdout + r.stderr


# ---------------------------------------------------------------- real NVRTC

NVRTC_CASES = [
    (scan.InclusiveScanKernel, np.int32, "a+b", None, 4),
    (scan.ExclusiveScanKernel, np.int32, "a+b", "0", 4),
    (scan.InclusiveScanKernel, np.uint32, AFFINE_U32, None, 4),
    (scan.ExclusiveScanKernel, np.float64, "a+b", "0", 4),
    (scan.InclusiveScanKernel, np.complex128, "pcc_c128(a.x * b.x, a.y * b.x + b.y)", None, 4),
    (scan.InclusiveScanKernel, np.int8, "a+b", None, 1),
]


@pytest.mark.parametrize("cls,dtype,expr,neutral,vectors", NVRTC_CASES,
                         ids=lambda v: getattr(v, "__name__", str(v)))
def test_nvrtc_sm90_ptx_uses_128_bit_accesses(cls, dtype, expr, neutral, vectors):
    from pycudac import compiler
    knl = cls(dtype, expr, neutral)
    try:
        ptx = compiler.compile(knl.source, arch="sm_90", target="ptx", no_extern_c=True)
    except compiler.CompileError:
        raise
    except Exception as exc:   # no NVRTC on this machine
        pytest.skip(f"NVRTC unavailable: {exc}")
    ptx = ptx.decode()
    # the full-tile path: `vectors` 16-byte loads and stores per thread
    assert len(re.findall(r"ld\.global(?:\.nc)?\.v4\.", ptx)) >= vectors
    assert len(re.findall(r"st\.global\.v4\.", ptx)) >= vectors
    assert "atom.global.add.u32" in ptx                 # tile counter
    assert re.search(r"ld\.volatile\.global\.u(64|32)", ptx)   # descriptor look-back
    assert ".local" not in ptx                          # items stay in registers


# ------------------------------------------------- look-back, deterministic

def _compose_u32(vals):
    return int(_affine_u32(np.array(vals, np.uint32))[-1])


def _compose_c128(vals):
    m, c = 1.0, 0.0
    for v in vals:
        m, c = m * v.real, c * v.real + v.imag
    return complex(m, c)


@pytest.mark.parametrize("layout", ["packed", "split"])
@pytest.mark.parametrize("tile,p_tile", [(75, 5), (40, 33), (40, 0), (1, 0)])
def test_look_back_over_prepared_descriptors(ga, layout, tile, p_tile):
    """One block takes tile `tile` (the counter says so) behind prepared
    descriptors: an inclusive prefix (P) at p_tile, aggregates (A) after it,
    and before it aggregates that must not count. The block must combine P
    and the A's left to right, across 32-tile windows, and publish its own P."""
    from pycudac import tools
    if layout == "packed":
        knl = scan.InclusiveScanKernel(np.uint32, AFFINE_U32)
        rng = np.random.default_rng(tile)
        vals = rng.integers(0, 2**32, tile, dtype=np.uint64).astype(np.uint32)
        x = rng.integers(0, 2**32, (tile + 1) * knl.tile_items, dtype=np.uint64).astype(np.uint32)
        compose, words = _compose_u32, 1
    else:
        knl = scan.InclusiveScanKernel(np.complex128, "pcc_c128(a.x * b.x, a.y * b.x + b.y)")
        rng = np.random.default_rng(tile)
        vals = rng.choice([-1.0, 1.0], tile) + 1j * rng.integers(-3, 4, tile)
        x = rng.choice([-1.0, 1.0], (tile + 1) * knl.tile_items) + \
            1j * rng.integers(-3, 4, (tile + 1) * knl.tile_items)
        compose, words = _compose_c128, 4
    ntiles = tile + 1
    nbytes, _ = scan._scratch_layout(x.itemsize, ntiles)
    scratch = np.zeros(nbytes // 4, np.uint32)
    scratch[0] = tile                                 # the next tile handed out
    status = [scan._A] * tile
    status[p_tile] = scan._P

    def put(i, st, value):
        bits = np.frombuffer(np.array([value], x.dtype).tobytes(), np.uint32)
        if layout == "packed":
            scratch[4 + 2 * i], scratch[5 + 2 * i] = bits[0], st
        else:
            scratch[4 + i] = st
            at = 4 + (ntiles + 3) // 4 * 4 + ((ntiles if st == scan._P else 0) + i) * words
            scratch[at:at + words] = bits
    for i in range(tile):
        put(i, status[i], vals[i])
    d_scratch = ga.to_gpu(scratch)
    d_in = ga.to_gpu(x)
    d_out = ga.zeros_like(d_in)
    fn = knl._function(tools.current_context())
    fn(d_out.ptr, d_in.ptr, np.int64(x.size), d_scratch.ptr, block=(scan.BLOCK, 1, 1),
       grid=(1, 1))
    t = knl.tile_items
    prefix = compose(vals[p_tile:tile])
    chunk = x[tile * t:]
    if layout == "packed":
        want = _affine_u32(np.concatenate([[prefix], chunk]).astype(np.uint32))[1:]
    else:
        want, (m, c) = np.empty(t, complex), (prefix.real, prefix.imag)
        for k, v in enumerate(chunk):
            m, c = m * v.real, c * v.real + v.imag
            want[k] = complex(m, c)
    got = d_out.get()
    np.testing.assert_array_equal(got[tile * t:], want)
    assert not got[:tile * t].any()                   # only its own tile
    after = d_scratch.get()
    assert after[0] == tile + 1
    if layout == "packed":
        assert after[5 + 2 * tile] == scan._P and after[4 + 2 * tile] == want[-1]
    else:
        at = 4 + (ntiles + 3) // 4 * 4 + (ntiles + tile) * words
        assert after[4 + tile] == scan._P
        assert np.frombuffer(after[at:at + words].tobytes(), x.dtype)[0] == want[-1]


@pytest.mark.parametrize("n", [1, 5, 31, 33, TILE32 - 1, TILE32 + 1, 2 * TILE32 + 7])
@pytest.mark.parametrize("where", ["in place", "into another array"])
def test_nothing_is_written_past_the_end(ga, int_sum, int_xsum, n, where):
    """The scan of the first n elements of a longer buffer leaves the
    elements after them alone (a last partial tile that wrote one element
    past the end passed the suite, tools/mutate.py S4: the pool's blocks are
    rounded up, so the simulator's guard pages never saw it)."""
    sentinel = -12345
    for knl, want in ((int_sum, lambda x: np.cumsum(x, dtype=np.int32)),
                      (int_xsum, lambda x: _exclusive(np.cumsum(x, dtype=np.int32), 0))):
        x = np.arange(1, n + 1, dtype=np.int32)
        src = ga.to_gpu(np.concatenate([x, np.full(8, sentinel, np.int32)]))
        if where == "in place":
            dst = src
            knl(src[:n])
        else:
            dst = ga.to_gpu(np.full(n + 8, sentinel, np.int32))
            knl(src[:n], dst[:n])
        got = dst.get()
        np.testing.assert_array_equal(got[:n], want(x))
        assert (got[n:] == sentinel).all(), got[n:]
