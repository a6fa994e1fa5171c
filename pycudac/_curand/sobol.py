"""Sobol quasi-random sequences, 32 and 64 bits, plain and scrambled, in
kernel source of our own, with PyCUDA's classes and helpers.

As in PyCUDA, stream t of a generator is one dimension: it draws points
x_0, x_1, ... of dimension t's Sobol sequence in Gray-code order,

    x_{n+1} = x_n ^ v[c],  c = the index of the lowest zero bit of n,

from x_0 = the scramble constant (0 unscrambled), so element i of a fill is
coordinate i mod T of point i // T: reshape a fill of K * T numbers to
(K, T) and the rows are the first K points of a T-dimensional sequence.

Direction vectors: dimension 1 is van der Corput's; dimensions 2..1024 are
Joe and Kuo's new-joe-kuo-6.21201 (joe_kuo.py), whose polynomials and
initial numbers give v[k] = m_k << (B - k) for the first s and the usual
recurrence after. Past 1024 they repeat (dimension t is dimension t mod
1024), as PyCUDA's repeat cuRAND's 20000. The scrambled sets multiply each
dimension's generator matrix from the left by a random unit lower
triangular bit matrix (Matousek's linear scrambling), and the scramble
constants are random words XORed onto every point (a digital shift): both
keep every (t, m, s)-net property of the plain sequence. Their random bits
are fixed (SplitMix64 of the dimension's index), so row t of
generate_direction_vectors / generate_scramble_constants* never depends on
the count asked for.

Skipping n points is x ^= D(gray(n_old) ^ gray(n_new)), D the linear map of
the direction vectors: no loop over the points.
"""
import enum
import functools

import numpy as np

from pycudac._curand import base, checks, joe_kuo
from pycudac._curand.xorwow import splitmix64

_SOBOL32 = r"""
struct pcc_rng_t { unsigned int x; unsigned long long n; const unsigned int *v; };

__device__ inline void pcc_rng_load(pcc_rng_t &r, const unsigned int *S, const void *aux,
                                    long long t, long long T)
{
    r.x = S[t];
    r.n = S[T + t] | ((unsigned long long)S[2 * T + t] << 32);
    r.v = (const unsigned int *)aux + t * 32;
}
__device__ inline void pcc_rng_save(const pcc_rng_t &r, unsigned int *S, long long t, long long T)
{
    S[t] = r.x;
    S[T + t] = (unsigned int)r.n;
    S[2 * T + t] = (unsigned int)(r.n >> 32);
}

__device__ inline unsigned int pcc_rng_u32(pcc_rng_t &r)
{
    const unsigned int x = r.x;
    /* 2^32 points, then it repeats: the lowest zero bit of n's low word
     * (n = 2^32 - 1 gives none: v[31] takes the sequence back to point 0) */
    r.x ^= r.v[(__ffs(~(unsigned int)r.n) - 1) & 31];
    r.n += 1ull;
    return x;
}
__device__ inline double pcc_rng_ud(pcc_rng_t &r) { return pcc_qrand_d32(pcc_rng_u32(r)); }
__device__ inline float pcc_rng_uf(pcc_rng_t &r) { return (float)pcc_rng_ud(r); }

/* D(g): the XOR of v[k] over the set bits k of g */
__device__ inline unsigned int pcc_sobol_span(const unsigned int *v, unsigned long long g)
{
    unsigned int x = 0u;
    for (int k = 0; k < 32 && g; ++k, g >>= 1)
        if (g & 1ull) x ^= v[k];
    return x;
}
__device__ inline void pcc_rng_start(pcc_rng_t &r, const void *aux, const void *scramble,
                                     long long t, unsigned long long offset)
{
    const unsigned int o = (unsigned int)offset; /* the period: offset mod 2^32 */
    r.v = (const unsigned int *)aux + t * 32;
    r.n = o;
    r.x = (scramble ? ((const unsigned int *)scramble)[t] : 0u)
          ^ pcc_sobol_span(r.v, (unsigned long long)(o ^ (o >> 1)));
}
"""

_SOBOL64 = r"""
struct pcc_rng_t { unsigned long long x, n; const unsigned long long *v; };

__device__ inline void pcc_rng_load(pcc_rng_t &r, const unsigned int *S, const void *aux,
                                    long long t, long long T)
{
    r.x = S[t] | ((unsigned long long)S[T + t] << 32);
    r.n = S[2 * T + t] | ((unsigned long long)S[3 * T + t] << 32);
    r.v = (const unsigned long long *)aux + t * 64;
}
__device__ inline void pcc_rng_save(const pcc_rng_t &r, unsigned int *S, long long t, long long T)
{
    S[t] = (unsigned int)r.x;
    S[T + t] = (unsigned int)(r.x >> 32);
    S[2 * T + t] = (unsigned int)r.n;
    S[3 * T + t] = (unsigned int)(r.n >> 32);
}

__device__ inline unsigned long long pcc_rng_u64(pcc_rng_t &r)
{
    const unsigned long long x = r.x;
    r.x ^= r.v[(__ffsll((long long)~r.n) - 1) & 63];
    r.n += 1ull;
    return x;
}
__device__ inline unsigned int pcc_rng_u32(pcc_rng_t &r) { return (unsigned int)(pcc_rng_u64(r) >> 32); }
__device__ inline double pcc_rng_ud(pcc_rng_t &r) { return pcc_qrand_d64(pcc_rng_u64(r)); }
__device__ inline float pcc_rng_uf(pcc_rng_t &r) { return (float)pcc_rng_ud(r); }

__device__ inline unsigned long long pcc_sobol_span(const unsigned long long *v,
                                                    unsigned long long g)
{
    unsigned long long x = 0ull;
    for (int k = 0; k < 64 && g; ++k, g >>= 1)
        if (g & 1ull) x ^= v[k];
    return x;
}
__device__ inline void pcc_rng_start(pcc_rng_t &r, const void *aux, const void *scramble,
                                     long long t, unsigned long long offset)
{
    r.v = (const unsigned long long *)aux + t * 64;
    r.n = offset;
    r.x = (scramble ? ((const unsigned long long *)scramble)[t] : 0ull)
          ^ pcc_sobol_span(r.v, offset ^ (offset >> 1));
}
"""

_SKIP = r"""
__device__ inline void pcc_rng_skip(pcc_rng_t &r, const void *, unsigned long long k)
{
    const unsigned long long n = r.n + k;
    r.x ^= pcc_sobol_span(r.v, (r.n ^ (r.n >> 1)) ^ (n ^ (n >> 1)));
    r.n = n;
}
"""


class direction_vector_set(enum.IntEnum):  # noqa: N801 (PyCUDA's name)
    """The direction vector sets (cuRAND's numbers for them)."""
    VECTOR_32 = 101
    SCRAMBLED_VECTOR_32 = 102
    VECTOR_64 = 103
    SCRAMBLED_VECTOR_64 = 104


# ======================================================================
# Direction vectors and scramble constants (NumPy)
# ======================================================================

@functools.lru_cache(maxsize=None)
def _joe_kuo_vectors(bits):
    """(1024, bits) direction vectors, uint32 or uint64: row 0 is
    dimension 1 (van der Corput), row d - 1 Joe and Kuo's dimension d."""
    out = np.zeros((joe_kuo.DIMENSIONS, bits), dtype=np.uint64)
    out[0] = [1 << (bits - i) for i in range(1, bits + 1)]
    for d, (s, a, m) in enumerate(joe_kuo.rows(), 1):
        v = [0] * (bits + 1)              # v[i], 1-based as in the recurrence
        for i in range(1, min(s, bits) + 1):
            v[i] = m[i - 1] << (bits - i)
        for i in range(s + 1, bits + 1):
            x = v[i - s] ^ (v[i - s] >> s)
            for k in range(1, s):
                if (a >> (s - 1 - k)) & 1:
                    x ^= v[i - k]
            v[i] = x
        out[d] = v[1:]
    return out.astype(np.uint32 if bits == 32 else np.uint64)


def _random_words(count, salt, bits):
    """Fixed random words: SplitMix64 of (salt, index), row t the same for
    every count. Shape (count,) of uint32 or uint64."""
    idx = np.arange(count, dtype=np.uint64) + np.uint64(salt)
    _, z = splitmix64(idx * np.uint64(0x100000001B3))
    return z if bits == 64 else (z >> np.uint64(32)).astype(np.uint32)


def _scrambled(vectors, bits):
    """Each row's generator matrix times a random unit lower triangular bit
    matrix L_t (bit j of a word goes to bit j plus random lower bits)."""
    count = len(vectors)
    dt = np.uint32 if bits == 32 else np.uint64
    one = dt(1)
    out = np.zeros_like(vectors)
    for j in range(bits):
        low = (one << dt(j)) - one
        col = (_random_words(count, 0x5C0B01 + (j << 40), bits).astype(dt) & low) | (one << dt(j))
        has = ((vectors >> dt(j)) & one).astype(bool)
        out ^= np.where(has, col[:, None], dt(0))
    return out


def direction_vectors(count, direction):
    """The direction vectors of `count` dimensions as a NumPy array,
    (count, 32) uint32 or (count, 64) uint64."""
    direction = direction_vector_set(direction)
    bits = 64 if direction in (direction_vector_set.VECTOR_64,
                               direction_vector_set.SCRAMBLED_VECTOR_64) else 32
    table = _joe_kuo_vectors(bits)
    out = table[np.arange(count) % len(table)]
    if direction in (direction_vector_set.SCRAMBLED_VECTOR_32,
                     direction_vector_set.SCRAMBLED_VECTOR_64):
        out = _scrambled(out, bits)
    return np.ascontiguousarray(out)


def generate_direction_vectors(count, direction=None):
    """A GPUArray of `count` dimensions' direction vectors (PyCUDA's):
    (count, 32) uint32 for VECTOR_32 (the default) and SCRAMBLED_VECTOR_32,
    (count, 64) uint64 for VECTOR_64 and SCRAMBLED_VECTOR_64."""
    from pycudac import gpuarray
    count = checks.count("generate_direction_vectors", "count", count, 31)
    if direction is None:
        direction = direction_vector_set.VECTOR_32
    try:
        direction = direction_vector_set(direction)
    except ValueError:
        names = ", ".join(f"direction_vector_set.{d.name}" for d in direction_vector_set)
        raise ValueError(f"generate_direction_vectors: direction must be one of {names}, "
                         f"got {direction!r}") from None
    return gpuarray.to_gpu(direction_vectors(count, direction))


def generate_scramble_constants32(count):
    """A uint32 GPUArray of `count` scramble constants (fixed random words)."""
    from pycudac import gpuarray
    count = checks.count("generate_scramble_constants32", "count", count, 31)
    return gpuarray.to_gpu(_random_words(count, 0x5C7A3B1E, 32))


def generate_scramble_constants64(count):
    """A uint64 GPUArray of `count` scramble constants (fixed random words)."""
    from pycudac import gpuarray
    count = checks.count("generate_scramble_constants64", "count", count, 31)
    return gpuarray.to_gpu(_random_words(count, 0x5C7A3B1E, 64))


def reference_points(vectors, count, scramble=None, offset=0):
    """Points offset..offset + count - 1 of each dimension (a row of
    `vectors`) in Gray-code order, in NumPy: (count, dims)."""
    vectors = np.asarray(vectors)
    dt = vectors.dtype.type
    x = np.zeros(len(vectors), dtype=dt) if scramble is None else np.array(scramble, dtype=dt)
    out = np.empty((count, len(vectors)), dtype=dt)
    period = 1 << (8 * vectors.dtype.itemsize)  # Sobol32 repeats after 2**32 points
    for i in range(count):
        n = (offset + i) % period
        g = n ^ (n >> 1)
        row = x.copy()
        for k in range(vectors.shape[1]):
            if (g >> k) & 1:
                row ^= vectors[:, k]
        out[i] = row
    return out


# ======================================================================
# The generators
# ======================================================================

class _SobolBase(base._RandomNumberGeneratorBase):
    has_box_muller = False
    _FAMILY = "quasi"
    _BITS = 32
    _SCRAMBLED = False

    def __init__(self, dir_vector=None, scramble_vector=None, offset=0):
        from pycudac import gpuarray
        fn = type(self).__name__
        offset = checks.count(fn, "offset", offset)
        self._setup()
        n = self.generator_count
        dt = base.U32 if self._BITS == 32 else base.U64
        if dir_vector is None:
            sets = direction_vector_set
            which = {(32, False): sets.VECTOR_32, (32, True): sets.SCRAMBLED_VECTOR_32,
                     (64, False): sets.VECTOR_64, (64, True): sets.SCRAMBLED_VECTOR_64}
            dir_vector = generate_direction_vectors(n, which[self._BITS, self._SCRAMBLED])
        elif isinstance(dir_vector, np.ndarray):
            dir_vector = gpuarray.to_gpu(np.ascontiguousarray(dir_vector))
        checks.gpu_array(fn, "dir_vector", dir_vector, (dt,))
        if dir_vector.shape != (n, self._BITS):
            raise ValueError(f"{fn}: dir_vector must have shape ({n}, {self._BITS}) (one row of "
                             f"{self._BITS} direction numbers per generator), got "
                             f"{dir_vector.shape}")
        scramble_ptr = 0
        if self._SCRAMBLED:
            if scramble_vector is None:
                scramble_vector = (generate_scramble_constants32(n) if self._BITS == 32
                                   else generate_scramble_constants64(n))
            elif isinstance(scramble_vector, np.ndarray):
                scramble_vector = gpuarray.to_gpu(np.ascontiguousarray(scramble_vector))
            checks.gpu_array(fn, "scramble_vector", scramble_vector, (dt,), size=n)
            scramble_ptr = scramble_vector.ptr
        self.dir_vector = dir_vector
        self.scramble_vector = scramble_vector
        self.offset = offset
        self._aux = dir_vector.ptr
        self._launch("init", scramble_ptr, offset)


class Sobol32RandomNumberGenerator(_SobolBase):
    """Sobol32 quasi-random numbers (PyCUDA's class and signature): dimension
    t per stream; dir_vector (generator_count, 32) uint32, default
    generate_direction_vectors(generator_count, VECTOR_32); offset: the
    first point's index."""

    _NAME = "sobol32"
    _GENERATOR = _SOBOL32 + _SKIP
    _STATE_WORDS = 3

    def __init__(self, dir_vector=None, offset=0):
        super().__init__(dir_vector, None, offset)


class ScrambledSobol32RandomNumberGenerator(_SobolBase):
    """Scrambled Sobol32: scrambled direction vectors and a scramble constant
    (uint32, one per stream) XORed onto every point."""

    _NAME = "sobol32"
    _GENERATOR = _SOBOL32 + _SKIP
    _STATE_WORDS = 3
    _SCRAMBLED = True


_U64_KERNEL = [("uniform_u64", "unsigned long long", "", "pcc_rng_u64(r)")]


class Sobol64RandomNumberGenerator(_SobolBase):
    """Sobol64 quasi-random numbers: dir_vector (generator_count, 64) uint64;
    integer fills give the top 32 bits (int32/uint32) or all 64 (int64/uint64)."""

    _NAME = "sobol64"
    _GENERATOR = _SOBOL64 + _SKIP
    _EXTRA = _U64_KERNEL
    _STATE_WORDS = 4
    _BITS = 64
    _UNIFORM = {**base._RandomNumberGeneratorBase._UNIFORM,
                base.I64: "uniform_u64", base.U64: "uniform_u64"}

    def __init__(self, dir_vector=None, offset=0):
        super().__init__(dir_vector, None, offset)


class ScrambledSobol64RandomNumberGenerator(Sobol64RandomNumberGenerator):
    """Scrambled Sobol64: scrambled direction vectors and a uint64 scramble
    constant per stream."""

    _SCRAMBLED = True

    def __init__(self, dir_vector=None, scramble_vector=None, offset=0):
        _SobolBase.__init__(self, dir_vector, scramble_vector, offset)
