"""The Sobol generators of pycudac.curandom: Joe and Kuo's table as stored,
the direction vectors, the known first points, the low-discrepancy
properties (one point per elementary interval, (0, m, 2)-nets, a star
discrepancy far below random points'), scrambling keeping them, the
layout (stream t = dimension t), offsets and skip-ahead."""
import math

import numpy as np
import pytest

from pycudac._curand import joe_kuo, sobol

pytestmark = pytest.mark.usefixtures("autoinit")

PLAIN = ("Sobol32RandomNumberGenerator", "Sobol64RandomNumberGenerator")
SCRAMBLED = ("ScrambledSobol32RandomNumberGenerator", "ScrambledSobol64RandomNumberGenerator")
ALL = PLAIN + SCRAMBLED


def make(name, **kw):
    from pycudac import curandom
    return getattr(curandom, name)(**kw)


def bits_of(name):
    return 64 if "64" in name else 32


def points(gen, count, dims=None):
    """The next `count` points (rows) of the generator's integer sequence,
    dims columns (all by default): uint32 or uint64, the raw words."""
    dt = np.uint64 if gen._BITS == 64 else np.uint32
    t = gen.generator_count
    rows = gen.gen_uniform(count * t, dt).get().reshape(count, t)
    return rows if dims is None else rows[:, :dims]


# ----------------------------------------------------------------------
# the table and the direction vectors
# ----------------------------------------------------------------------

def _poly_mulmod(a, b, f, deg):
    r = 0
    while b:
        if b & 1:
            r ^= a
        b >>= 1
        a <<= 1
        if a >> deg & 1:
            a ^= f
    return r


def _is_primitive(f, deg):
    """x has order 2**deg - 1 modulo f over GF(2)."""
    order = (1 << deg) - 1
    n, factors, p = order, set(), 3
    while p * p <= n:
        while n % p == 0:
            factors.add(p)
            n //= p
        p += 2
    if n > 1:
        factors.add(n)

    def xpow(e):
        result, base = 1, 2 if deg > 1 else 2 ^ f
        while e:
            if e & 1:
                result = _poly_mulmod(result, base, f, deg)
            base = _poly_mulmod(base, base, f, deg)
            e >>= 1
        return result
    return xpow(order) == 1 and all(xpow(order // q) != 1 for q in factors)


def test_joe_kuo_table_is_every_primitive_polynomial_in_order():
    """Dimensions 2..1024: each polynomial x**s + a_1 x**(s-1) + ... + 1 is
    primitive, degrees rise, a rises within a degree, and each degree
    holds all phi(2**s - 1) / s of them (the table's own structure, which
    the packing relies on); each m_k is odd and below 2**k."""
    rows = joe_kuo.rows()
    assert len(rows) == joe_kuo.DIMENSIONS - 1
    assert rows[:5] == ((1, 0, (1,)), (2, 1, (1, 3)), (3, 1, (1, 3, 1)), (3, 2, (1, 1, 1)),
                        (4, 1, (1, 1, 3, 3)))
    assert rows[-1] == (13, 3538, (1, 1, 5, 11, 11, 33, 37, 29, 263, 1019, 657, 1453, 7807))
    seen = set()
    for (s, a, m), nxt in zip(rows, rows[1:] + ((99, 0, ()),)):
        f = (1 << s) | (a << 1) | 1
        assert _is_primitive(f, s), (s, a)
        assert f not in seen
        seen.add(f)
        assert (s, a) < (nxt[0], nxt[1])
        assert all(mk & 1 and mk < 1 << k for k, mk in enumerate(m, 1))
    full = [s for s, _, _ in rows if s < 13]
    for s in range(1, 13):
        assert full.count(s) == joe_kuo._phi(2 ** s - 1) // s


@pytest.mark.parametrize("direction, shape, dtype", [
    (None, (5, 32), np.uint32),
    (sobol.direction_vector_set.VECTOR_32, (5, 32), np.uint32),
    (sobol.direction_vector_set.SCRAMBLED_VECTOR_32, (5, 32), np.uint32),
    (sobol.direction_vector_set.VECTOR_64, (5, 64), np.uint64),
    (sobol.direction_vector_set.SCRAMBLED_VECTOR_64, (5, 64), np.uint64)])
def test_generate_direction_vectors(direction, shape, dtype):
    """PyCUDA's generate_direction_vectors(count, direction): a GPUArray of
    one row per dimension; row t does not depend on the count; every
    vector has its own top bit (the generator matrices are invertible)."""
    from pycudac import curandom, gpuarray
    v = curandom.generate_direction_vectors(5, direction)
    assert isinstance(v, gpuarray.GPUArray)
    a = v.get()
    assert a.shape == shape and a.dtype == dtype
    big = curandom.generate_direction_vectors(2000, direction).get()
    np.testing.assert_array_equal(big[:5], a)
    bits = shape[1]
    plain = direction in (None, sobol.direction_vector_set.VECTOR_32,
                          sobol.direction_vector_set.VECTOR_64)
    for row in big[[0, 1, 2, 500, 1023, 1999]]:
        cols = [int(x) for x in row]
        if plain:   # upper triangular with a unit diagonal: v_k's lowest bit is 2**(bits-1-k)
            assert all((c >> (bits - 1 - k)) & 1 and c % (1 << (bits - 1 - k)) == 0
                       for k, c in enumerate(cols))
        assert _gf2_rank(cols) == bits          # scrambled or not: invertible
    if plain:
        # dimension t + 1024 repeats dimension t (the table holds 1024)
        np.testing.assert_array_equal(big[1024:1029], big[:5])
        assert (big[0] == (np.array(1, dtype) << np.arange(bits - 1, -1, -1).astype(dtype))).all()
    else:
        assert not np.array_equal(big[1024:1029], big[:5])


def _gf2_rank(vectors):
    rank, rows = 0, list(vectors)
    while rows:
        pivot = max(rows)
        rows.remove(pivot)
        if pivot == 0:
            break
        rank += 1
        top = pivot.bit_length() - 1
        rows = [r ^ pivot if r >> top & 1 else r for r in rows]
    return rank


def test_scramble_constants():
    from pycudac import curandom
    a = curandom.generate_scramble_constants32(300).get()
    b = curandom.generate_scramble_constants64(300).get()
    assert a.dtype == np.uint32 and b.dtype == np.uint64 and a.shape == b.shape == (300,)
    assert len(np.unique(a)) == 300 and len(np.unique(b)) == 300
    np.testing.assert_array_equal(curandom.generate_scramble_constants32(10).get(), a[:10])
    assert (a >= 2 ** 31).any() and (b >= 2 ** 63).any()


# ----------------------------------------------------------------------
# the sequence
# ----------------------------------------------------------------------

@pytest.mark.parametrize("name", PLAIN)
def test_first_points_are_the_known_sobol_sequence(name):
    """Dimensions 1-3 in Gray-code order, as every Sobol implementation
    gives them (e.g. Joe and Kuo's sobol.cc and SciPy's): dimension 1 is
    van der Corput's."""
    bits = bits_of(name)
    rows = points(make(name), 8, 3).astype(np.float64) / 2.0 ** bits
    np.testing.assert_array_equal(rows[:, 0], [0, .5, .75, .25, .375, .875, .625, .125])
    np.testing.assert_array_equal(rows[:, 1], [0, .5, .25, .75, .375, .875, .125, .625])
    np.testing.assert_array_equal(rows[:, 2], [0, .5, .25, .75, .625, .125, .875, .375])
    u = make(name).gen_uniform(2 * make(name).generator_count, np.float64).get()
    assert u[0] == 0.5 * 2.0 ** -(bits - 12 * (bits == 64))   # the middle of the first cell
    assert u[make(name).generator_count] == 0.5 + u[0]


@pytest.mark.parametrize("name", ALL)
def test_every_dimension_is_equidistributed(name):
    """The first 2**m points of each dimension put exactly one point in each
    interval [j 2**-m, (j + 1) 2**-m), m = 1..10 (and the float32/float64
    outputs too), scrambled or not."""
    gen = make(name)
    dims = min(gen.generator_count, 1024)
    bits = bits_of(name)
    rows = points(gen, 1024, dims)
    for m in (1, 4, 10):
        head = rows[:1 << m] >> np.array(bits - m, dtype=rows.dtype)
        assert (np.sort(head, axis=0) == np.arange(1 << m)[:, None]).all(), m
    # float32 only for the plain ones: a scrambled point's low bits may round
    # a float32 up onto the next cell's edge
    for dtype in (np.float32, np.float64) if name in PLAIN else (np.float64,):
        u = make(name).gen_uniform(1024 * gen.generator_count, dtype).get()
        cells = np.floor(u.reshape(1024, -1)[:, :dims] * 1024).astype(np.int64)
        assert (np.sort(cells, axis=0) == np.arange(1024)[:, None]).all(), dtype


def _elementary_counts(x, y, bits, m):
    """For each split m = a + b, the counts of points in the 2**a x 2**b
    elementary intervals."""
    for a in range(m + 1):
        cx = (x >> np.array(bits - a, dtype=x.dtype)).astype(np.int64) if a else np.zeros(len(x), np.int64)
        b = m - a
        cy = (y >> np.array(bits - b, dtype=y.dtype)).astype(np.int64) if b else np.zeros(len(y), np.int64)
        yield a, np.bincount(cx * (1 << b) + cy, minlength=1 << m)


@pytest.mark.parametrize("name", ALL)
def test_first_two_dimensions_form_0_m_2_nets(name):
    """Dimensions 1 and 2 of Sobol's sequence are a (0, 2)-sequence: the
    first 2**m points have exactly one point in each elementary interval
    of area 2**-m (m = 10), and linear scrambling plus a digital shift keep it."""
    gen = make(name)
    rows = points(gen, 1 << 10, 2)
    for a, counts in _elementary_counts(rows[:, 0], rows[:, 1], bits_of(name), 10):
        assert (counts == 1).all(), a


def _l2_star_discrepancy(x):
    """Warnock's formula for the L2 star discrepancy of points in [0, 1]^d."""
    n, d = x.shape
    one = np.prod((1 - x ** 2) / 2, axis=1).sum()
    pair = np.prod(1 - np.maximum(x[:, None, :], x[None, :, :]), axis=2).sum()
    return math.sqrt(3.0 ** -d - 2 * one / n + pair / n ** 2)


@pytest.mark.parametrize("name", ("Sobol32RandomNumberGenerator",
                                  "ScrambledSobol64RandomNumberGenerator"))
def test_star_discrepancy_beats_random_points(name):
    """The L2 star discrepancy of the first 1024 points against the value
    expected of independent uniform points, sqrt((2**-d - 3**-d) / N): in 2
    dimensions Sobol's is about 0.07 of it, in 4 about 0.2 (in 8, at this N,
    the corners dominate and the gain is small); XORWOW's points are near 1."""
    from pycudac import curandom, gpuarray
    n = 1024
    gen = make(name)
    t = gen.generator_count
    x = gen.gen_uniform(n * t, np.float64).get().reshape(n, t)
    pseudo = curandom.XORWOWRandomNumberGenerator(
        lambda k: gpuarray.to_gpu(np.arange(k, dtype=np.int32)))
    y = pseudo.gen_uniform(n * t, np.float64).get().reshape(n, t)
    for d, bound in ((2, 0.15), (4, 0.35)):
        random_level = math.sqrt((2.0 ** -d - 3.0 ** -d) / n)
        assert _l2_star_discrepancy(x[:, :d]) < bound * random_level, d
        assert 0.5 * random_level < _l2_star_discrepancy(y[:, :d]) < 2 * random_level, d


@pytest.mark.parametrize("name", ALL)
def test_layout_offset_and_skip_ahead(name):
    """Element i of a fill is point i // T of dimension i % T (the reference
    sequence from the same direction vectors); offset k starts at point k;
    call_skip_ahead(k) and call_skip_ahead_array match drawing."""
    from pycudac import gpuarray
    gen = make(name, offset=5)
    t = gen.generator_count
    scramble = None if gen.scramble_vector is None else gen.scramble_vector.get()
    want = sobol.reference_points(gen.dir_vector.get(), 4, scramble, offset=5)
    np.testing.assert_array_equal(points(gen, 4), want)
    gen.call_skip_ahead(1000)
    want = sobol.reference_points(gen.dir_vector.get(), 2, scramble, offset=1009)
    np.testing.assert_array_equal(points(gen, 2), want)
    skips = (np.arange(t) % 7).astype(np.uint32)
    gen.call_skip_ahead_array(gpuarray.to_gpu(skips))
    rows = sobol.reference_points(gen.dir_vector.get(), 8, scramble, offset=1011)
    np.testing.assert_array_equal(points(gen, 1)[0], rows[skips, np.arange(t)])


@pytest.mark.parametrize("name", [n for n in ALL if "32" in n])
def test_sobol32_repeats_after_2_to_the_32_points(name):
    """The 32-bit sequence has 2**32 points: offset 2**32 started at another
    point than offset 0 and the step past point 2**32 - 1 took v[0], so the
    sequence went on as no Sobol sequence (found by an adversarial review).
    Offsets count modulo 2**32, and the last point steps back to the first."""
    first = points(make(name), 3)
    np.testing.assert_array_equal(points(make(name, offset=2 ** 32), 3), first)
    np.testing.assert_array_equal(points(make(name, offset=5 * 2 ** 32 + 1), 2), first[1:])
    gen = make(name, offset=2 ** 32 - 2)
    scramble = None if gen.scramble_vector is None else gen.scramble_vector.get()
    want = sobol.reference_points(gen.dir_vector.get(), 4, scramble, offset=2 ** 32 - 2)
    got = points(gen, 4)
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(got[2:], first[:2])


@pytest.mark.parametrize("name", ALL)
def test_scrambling_changes_points_not_structure(name):
    """Scrambled generators draw other points than plain ones, the same
    from run to run (fixed scrambles); the plain ones are the same too."""
    a = points(make(name), 4)
    b = points(make(name), 4)
    np.testing.assert_array_equal(a, b)
    plain = points(make(name.replace("Scrambled", "")), 4)
    assert np.array_equal(a, plain) == (name in PLAIN)


def test_sobol64_integer_outputs():
    """Sobol64 fills int64/uint64 with the whole word and int32/uint32 with
    its top half; Sobol32 refuses 64-bit integers."""
    from pycudac import curandom, gpuarray
    t = make("Sobol64RandomNumberGenerator").generator_count
    w64 = make("Sobol64RandomNumberGenerator").gen_uniform(4 * t, np.uint64).get()
    w32 = make("Sobol64RandomNumberGenerator").gen_uniform(4 * t, np.uint32).get()
    i64 = make("Sobol64RandomNumberGenerator").gen_uniform(4 * t, np.int64).get()
    np.testing.assert_array_equal(w32, (w64 >> np.uint64(32)).astype(np.uint32))
    np.testing.assert_array_equal(i64.view(np.uint64), w64)
    with pytest.raises(TypeError, match="int64"):
        curandom.Sobol32RandomNumberGenerator().fill_uniform(gpuarray.empty(4, np.int64))
