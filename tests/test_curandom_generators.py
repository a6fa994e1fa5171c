"""The pseudo-random generators of pycudac.curandom (XORWOW, MRG32k3a):
the kernels bit for bit against the NumPy references, the references
against the published definitions, the jump matrices against stepping,
reproducibility by seed and offset, skip-ahead, independent streams."""
import numpy as np
import pytest

from pycudac._curand import mrg32k3a, xorwow

pytestmark = pytest.mark.usefixtures("autoinit")

PSEUDO = ("XORWOWRandomNumberGenerator", "MRG32k3aRandomNumberGenerator")
REFERENCE = {"XORWOWRandomNumberGenerator": xorwow.XorwowReference,
             "MRG32k3aRandomNumberGenerator": mrg32k3a.Mrg32k3aReference}


def fixed_seeds(base, unique=True):
    """A seed_getter with known seeds (PyCUDA's signature: count -> int32 GPUArray)."""
    from pycudac import gpuarray

    def getter(n):
        seeds = np.arange(n, dtype=np.int64) * 7919 + base if unique else np.full(n, base)
        return gpuarray.to_gpu(seeds.astype(np.int32))
    return getter


def make(name, base=12345, offset=0, unique=True):
    from pycudac import curandom
    return getattr(curandom, name)(fixed_seeds(base, unique), offset)


def draws(gen, per_stream, dtype=np.uint32):
    """Each stream's next draws as rows: (per_stream, streams)."""
    t = gen.generator_count
    return gen.gen_uniform(per_stream * t, dtype).get().reshape(per_stream, t)


def device_state(gen):
    from pycudac import driver
    out = np.empty((gen._STATE_WORDS, gen.generator_count), dtype=np.uint32)
    driver.memcpy_dtoh(out, gen.state)
    return out


def followed(n):
    """The streams compared with a reference: all of the simulator's 1024, a
    sample of a GPU's tens of thousands (the first, the last, some between)."""
    if n <= 1024:
        return np.arange(n)
    rng = np.random.default_rng(n)
    return np.unique(np.concatenate([np.arange(256), np.arange(n - 256, n),
                                     rng.choice(n, 512, replace=False)]))


# ----------------------------------------------------------------------
# the references against the definitions
# ----------------------------------------------------------------------

def test_xorwow_reference_is_marsaglias_recurrence():
    """Marsaglia's xorwow with his example state (x, y, z, w, v, d), computed
    here in plain Python integers, against the reference's draw loop."""
    x, y, z, w, v, d = 123456789, 362436069, 521288629, 88675123, 5783321, 6615241
    expected = []
    for _ in range(20):
        t = x ^ (x >> 2)
        x, y, z, w = y, z, w, v
        v = (v ^ ((v << 4) & 0xFFFFFFFF)) ^ (t ^ ((t << 1) & 0xFFFFFFFF))
        d = (d + 362437) & 0xFFFFFFFF
        expected.append((v + d) & 0xFFFFFFFF)
    ref = xorwow.XorwowReference([0])
    ref.v = np.array([[123456789, 362436069, 521288629, 88675123, 5783321]], dtype=np.uint32)
    ref.d = np.array([6615241], dtype=np.uint32)
    assert ref.next_u32(20)[:, 0].tolist() == expected


def test_mrg32k3a_reference_known_answer():
    """L'Ecuyer's RngStreams from the seed 12345 x 6: the published first
    uniforms z / (m1 + 1) (z = 545508589 first)."""
    ref = mrg32k3a.Mrg32k3aReference([0])
    ref.s1, ref.s2 = [[12345] * 3], [[12345] * 3]
    z = ref.next_u32(5)[:, 0]
    assert z[0] == 545508589
    np.testing.assert_allclose(z / (mrg32k3a.M1 + 1.0),
                               [0.12701112204657714, 0.3185275653967945, 0.3091860155832701,
                                0.8258468629271136, 0.2216299157820229], rtol=0, atol=1e-15)


def test_xorwow_jump_matrices_are_powers_of_one_draw():
    """M**(2**k) from squaring equals k-fold stepping (small k) and
    composes: M**(2**k) M**(2**k) = M**(2**(k+1)) for the sequence jumps."""
    mats = xorwow.jump_matrices()
    m = xorwow.step_matrix().astype(np.int64)
    p = np.eye(160, dtype=np.int64)
    for n in range(1, 9):
        p = (p @ m) % 2
        if n in (1, 2, 4, 8):
            assert np.array_equal(mats[n.bit_length() - 1], p), n
    for k in (0, 5, 62):
        sq = (mats[64 + k].astype(np.int64) @ mats[64 + k].astype(np.int64)) % 2
        assert np.array_equal(sq, mats[64 + k + 1])
    sq = (mats[63].astype(np.int64) @ mats[63].astype(np.int64)) % 2       # 2**64
    sq = (sq @ sq) % 2                                                     # 2**65
    sq = (sq @ sq) % 2                                                     # 2**66
    sq = (sq @ sq) % 2                                                     # 2**67
    assert np.array_equal(sq, mats[64])


def test_xorwow_reference_skip_equals_drawing():
    ref_a = xorwow.XorwowReference([5, -7, 2 ** 31 - 1])
    ref_b = xorwow.XorwowReference([5, -7, 2 ** 31 - 1])
    ref_a.next_u32(77)
    ref_b.skip(77)
    assert np.array_equal(ref_a.next_u32(5), ref_b.next_u32(5))


def test_mrg32k3a_jump_table_is_exact_powers():
    """The device's matrices against A**n computed directly (exact integers),
    and a jump of n draws against drawing n."""
    table = mrg32k3a.jump_table()
    for family, start in enumerate((0, mrg32k3a.SUBSEQUENCE_LOG2, mrg32k3a.SEQUENCE_LOG2)):
        for k in (0, 1, 17, 63):
            for j, (a, m) in enumerate(((mrg32k3a.A1, mrg32k3a.M1), (mrg32k3a.A2, mrg32k3a.M2))):
                p = mrg32k3a.mat_pow(a, 1 << (start + k), m)
                assert [int(x) for x in table[family, k, j]] == [x for row in p for x in row]
    ref_a = mrg32k3a.Mrg32k3aReference([5, -7])
    ref_b = mrg32k3a.Mrg32k3aReference([5, -7])
    ref_a.next_u32(77)
    ref_b.skip(77)
    assert np.array_equal(ref_a.next_u32(5), ref_b.next_u32(5))


# ----------------------------------------------------------------------
# the kernels against the references
# ----------------------------------------------------------------------

@pytest.mark.parametrize("name", PSEUDO)
def test_kernels_match_the_reference_bit_for_bit(name):
    """Seeding, subsequence jumps, offset, draws and skips: the device state
    and the 32-bit draws equal the NumPy reference's."""
    gen = make(name, base=-99991, offset=12345)
    n = gen.generator_count
    sel = followed(n)
    seeds = fixed_seeds(-99991)(n).get()
    ref = REFERENCE[name](seeds[sel], 12345, streams=sel)
    assert np.array_equal(device_state(gen)[:, sel], ref.state())
    assert np.array_equal(draws(gen, 3)[:, sel], ref.next_u32(3))
    gen.call_skip_ahead(2 ** 40 + 3)
    ref.skip(2 ** 40 + 3)
    assert np.array_equal(device_state(gen)[:, sel], ref.state())
    assert np.array_equal(draws(gen, 2)[:, sel], ref.next_u32(2))


@pytest.mark.parametrize("name", PSEUDO)
def test_float_outputs_are_the_words_scaled(name):
    """float32 = ((w >> 8) + 1) 2**-24 from one draw, float64 from two
    (53 bits), both in (0, 1]."""
    words = draws(make(name, 7), 4)
    f32 = draws(make(name, 7), 4, np.float32)
    np.testing.assert_array_equal(f32, ((words >> 8) + 1).astype(np.float32) * np.float32(2 ** -24))
    f64 = draws(make(name, 7), 2, np.float64)
    hi, lo = words[0::2].astype(np.uint64), words[1::2].astype(np.uint64)
    bits = ((hi << np.uint64(32)) | lo) >> np.uint64(11)
    np.testing.assert_array_equal(f64, (bits + np.uint64(1)).astype(np.float64) * 2.0 ** -53)
    ints = draws(make(name, 7), 4, np.int32)
    np.testing.assert_array_equal(ints.view(np.uint32), words)


# ----------------------------------------------------------------------
# reproducibility, offsets, skip-ahead
# ----------------------------------------------------------------------

@pytest.mark.parametrize("name", PSEUDO)
def test_reproducible_by_seed_and_offset(name):
    """The same seeds give the same numbers; other seeds others; offset k
    starts where k draws of the offset-0 generator end (also for normals,
    which take two draws per pair)."""
    a = make(name, 1).gen_normal(5000, np.float32).get()
    b = make(name, 1).gen_normal(5000, np.float32).get()
    c = make(name, 2).gen_normal(5000, np.float32).get()
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, c)
    base = make(name, 3)
    draws(base, 10)
    np.testing.assert_array_equal(draws(base, 4), draws(make(name, 3, offset=10), 4))
    g1, g2 = make(name, 4), make(name, 4, offset=2)
    draws(g1, 2)
    np.testing.assert_array_equal(g1.gen_normal(2 * g1.generator_count, np.float64).get(),
                                  g2.gen_normal(2 * g2.generator_count, np.float64).get())


@pytest.mark.parametrize("name", PSEUDO)
def test_successive_calls_continue_each_stream(name):
    one = make(name, 5)
    whole = draws(one, 6)
    two = make(name, 5)
    parts = np.concatenate([draws(two, 2), draws(two, 1), draws(two, 3)])
    np.testing.assert_array_equal(whole, parts)


@pytest.mark.parametrize("name", PSEUDO)
def test_skip_ahead_equals_drawing(name):
    from pycudac import gpuarray
    a, b = make(name, 6), make(name, 6)
    draws(a, 37)
    b.call_skip_ahead(37)
    np.testing.assert_array_equal(draws(a, 3), draws(b, 3))
    # per-stream skips: stream t skips t % 5 draws (uint32 and uint64 arrays)
    n = a.generator_count
    skips = np.arange(n) % 5
    for dtype in (np.uint32, np.uint64):
        c, d = make(name, 8), make(name, 8)
        c.call_skip_ahead_array(gpuarray.to_gpu(skips.astype(dtype)))
        rows = draws(d, 8)
        got = draws(c, 3)
        want = np.stack([rows[skips + j, np.arange(n)] for j in range(3)])
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("name, what, log2", [
    ("XORWOWRandomNumberGenerator", "sequence", xorwow.SEQUENCE_LOG2),
    ("MRG32k3aRandomNumberGenerator", "subsequence", mrg32k3a.SUBSEQUENCE_LOG2),
    ("MRG32k3aRandomNumberGenerator", "sequence", mrg32k3a.SEQUENCE_LOG2)])
def test_sequence_skips_match_the_reference(name, what, log2):
    """call_skip_ahead_<what>(i) jumps 2**log2 * i draws: stream t of the
    same seeds starts at subsequence t, so with equal seeds stream 0 after
    skipping t sequences (XORWOW) / substreams (MRG32k3a) is stream t."""
    from pycudac import gpuarray
    gen = make(name, 77, unique=False)
    n = gen.generator_count
    sel = followed(n)
    ref = REFERENCE[name]([77] * len(sel), streams=sel)
    getattr(gen, f"call_skip_ahead_{what}")(3)
    if name.startswith("XORWOW"):
        for _ in range(3):
            ref.v = xorwow._apply(ref.v, xorwow.jump_matrices()[64])
    else:
        ref.skip(3, family=1 if what == "subsequence" else 2)
    assert np.array_equal(device_state(gen)[:, sel], ref.state())
    if log2 != mrg32k3a.SEQUENCE_LOG2:
        same = make(name, 77, unique=False)
        first = draws(same, 2)
        skipped = make(name, 77, unique=False)
        getattr(skipped, f"call_skip_ahead_{what}_array")(
            gpuarray.to_gpu(np.ones(n, dtype=np.uint64)))
        np.testing.assert_array_equal(draws(skipped, 2)[:, :-1], first[:, 1:])


# ----------------------------------------------------------------------
# independence of the streams
# ----------------------------------------------------------------------

@pytest.mark.parametrize("name", PSEUDO)
@pytest.mark.parametrize("unique", [False, True])
def test_streams_are_distinct_and_uncorrelated(name, unique):
    """No two streams alike, even from one seed (seed_getter_uniform):
    their first draws all differ, and neighbouring streams' uniforms are
    uncorrelated (|r| within 6 standard errors)."""
    gen = make(name, 31337, unique=unique)
    rows = draws(gen, 64)
    cols = {rows[:, t].tobytes() for t in range(rows.shape[1])}
    assert len(cols) == rows.shape[1]
    # first draws of distinct streams: only birthday collisions of 32-bit
    # words (T**2 / 2**33 expected: 1e-4 for 1024 streams, 0.5 for 67584)
    n = rows.shape[1]
    expected = n * n / 2.0 ** 33
    assert n - len(np.unique(rows[0])) <= expected + 6 * np.sqrt(expected) + 2
    u = draws(gen, 256, np.float64)
    a, b = u[:, :-1].ravel(), u[:, 1:].ravel()
    r = np.corrcoef(a, b)[0, 1]
    assert abs(r) < 6 / np.sqrt(a.size), r
    lag = np.corrcoef(u[:-1].ravel(), u[1:].ravel())[0, 1]        # within each stream
    assert abs(lag) < 6 / np.sqrt(u[:-1].size), lag


@pytest.mark.parametrize("name", PSEUDO)
def test_default_and_pycuda_seed_getters(name):
    """No seed_getter: random seeds (two generators differ); PyCUDA's
    seed_getter_uniform and seed_getter_unique work as seed_getters."""
    from pycudac import curandom
    cls = getattr(curandom, name)
    a = cls().gen_uniform(4096, np.uint32).get()
    b = cls().gen_uniform(4096, np.uint32).get()
    assert not np.array_equal(a, b)
    for getter in (curandom.seed_getter_uniform, curandom.seed_getter_unique):
        g = cls(seed_getter=getter)
        u = g.gen_uniform(4096, np.float32).get()
        assert u.min() > 0 and u.max() <= 1 and 0.45 < u.mean() < 0.55
    s = curandom.seed_getter_uniform(10).get()
    assert s.dtype == np.int32 and s.shape == (10,) and (s == s[0]).all()
    s = curandom.seed_getter_unique(1000).get()
    assert s.dtype == np.int32 and len(np.unique(s)) > 990 and s.min() >= 0


# ----------------------------------------------------------------------
# the CUDA side (NVRTC, no GPU needed)
# ----------------------------------------------------------------------

@pytest.mark.parametrize("name", ("XORWOWRandomNumberGenerator", "MRG32k3aRandomNumberGenerator",
                                  "Sobol32RandomNumberGenerator", "Sobol64RandomNumberGenerator"))
def test_kernels_compile_for_the_gpu(name):
    """NVRTC takes every generator's module (sm_90 PTX; skipped without
    NVRTC): every kernel is there, and none keeps its state in local memory
    (the jump's loops are unrolled so that it stays in registers)."""
    import re
    from pycudac import compiler, curandom
    from pycudac._curand import kernels
    try:
        compiler.compile('extern "C" __global__ void k() {}', arch="sm_90", target="ptx")
    except Exception as exc:  # no NVRTC library on this machine
        pytest.skip(f"NVRTC unavailable: {exc}")
    cls = getattr(curandom, name)
    src = kernels.render("pcc_t", cls._GENERATOR, cls._FAMILY, cls._SKIPS, cls._EXTRA)
    ptx = compiler.compile(src, arch="sm_90", target="ptx", no_extern_c=True).decode()
    bodies = {m.group(1): m.group(0) for m in re.finditer(r"\.entry (\w+)\(.*?\n}\n", ptx, re.S)}
    assert sorted(bodies) == sorted("pcc_t_" + k for k in cls._kernel_names())
    assert not [k for k, body in bodies.items() if ".local" in body]
