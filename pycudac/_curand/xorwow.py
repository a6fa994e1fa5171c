"""XORWOW: Marsaglia's xorshift on 160 bits plus a Weyl sequence ("Xorshift
RNGs", J. Stat. Soft. 8, 2003), the generator cuRAND calls XORWOW, in
kernel source of our own.

A stream's state is five words v[0..4] and the Weyl word d. A draw is

    t = v0 ^ (v0 >> 2); (v0..v3) = (v1..v4); v4 = (v4 ^ (v4 << 4)) ^ (t ^ (t << 1))
    d += 362437; return v4 + d

Seeding (ours, not cuRAND's: same quality, not the same numbers): the
int32 seed through SplitMix64 gives v0..v4 and d. Stream t then jumps to
subsequence t, 2**67 * t draws on, and `offset` draws further. A jump of n
draws multiplies v by M**n, M the 160x160 bit matrix of one draw (d just
adds 362437 n); M**(2**k) for k < 64 and M**(2**(67 + k)) are computed here
in NumPy and kept in device memory (128 matrices, 400 KiB a context), so a
jump costs one matrix-vector product per set bit of n.

XorwowReference is the same generator in NumPy, for the tests.
"""
import functools

import numpy as np

from pycudac import tools
from pycudac._curand import base

WEYL = 362437
SEQUENCE_LOG2 = 67          # subsequences are 2**67 draws apart
_MASK32 = 0xFFFFFFFF

GENERATOR = r"""
struct pcc_rng_t { unsigned int v[5]; unsigned int d; };

__device__ inline void pcc_rng_load(pcc_rng_t &r, const unsigned int *S, const void *,
                                    long long t, long long T)
{
    for (int w = 0; w < 5; ++w) r.v[w] = S[w * T + t];
    r.d = S[5 * T + t];
}
__device__ inline void pcc_rng_save(const pcc_rng_t &r, unsigned int *S, long long t, long long T)
{
    for (int w = 0; w < 5; ++w) S[w * T + t] = r.v[w];
    S[5 * T + t] = r.d;
}

__device__ inline unsigned int pcc_rng_u32(pcc_rng_t &r)
{
    const unsigned int t = r.v[0] ^ (r.v[0] >> 2);
    r.v[0] = r.v[1];
    r.v[1] = r.v[2];
    r.v[2] = r.v[3];
    r.v[3] = r.v[4];
    r.v[4] = (r.v[4] ^ (r.v[4] << 4)) ^ (t ^ (t << 1));
    r.d += 362437u;
    return r.v[4] + r.d;
}

__device__ inline void pcc_rng_seed(pcc_rng_t &r, unsigned int seed)
{
    unsigned long long s = seed;
    const unsigned long long a = pcc_splitmix64(s), b = pcc_splitmix64(s), c = pcc_splitmix64(s);
    r.v[0] = (unsigned int)a; r.v[1] = (unsigned int)(a >> 32);
    r.v[2] = (unsigned int)b; r.v[3] = (unsigned int)(b >> 32);
    r.v[4] = (unsigned int)c; r.d = (unsigned int)(c >> 32);
    if ((r.v[0] | r.v[1] | r.v[2] | r.v[3] | r.v[4]) == 0u) r.v[0] = 1u;  /* the one dead state */
}

/* v <- P v, P a 160x160 bit matrix stored by columns of five words (the
   loops over words unrolled, so that the state stays in registers) */
__device__ inline void pcc_xorwow_apply(pcc_rng_t &r, const unsigned int *P)
{
    unsigned int o[5] = {0u, 0u, 0u, 0u, 0u};
#pragma unroll
    for (int w = 0; w < 5; ++w)
        for (int b = 0; b < 32; ++b) {
            const unsigned int mask = 0u - ((r.v[w] >> b) & 1u);
            const unsigned int *col = P + (w * 32 + b) * 5;
#pragma unroll
            for (int k = 0; k < 5; ++k) o[k] ^= col[k] & mask;
        }
#pragma unroll
    for (int k = 0; k < 5; ++k) r.v[k] = o[k];
}

/* aux: M^(2^k) at k * 800 words, M^(2^(67 + k)) at (64 + k) * 800 */
__device__ inline void pcc_rng_skip(pcc_rng_t &r, const void *aux, unsigned long long n)
{
    const unsigned int *J = (const unsigned int *)aux;
    r.d += 362437u * (unsigned int)n;
    for (int k = 0; n; ++k, n >>= 1)
        if (n & 1ull) pcc_xorwow_apply(r, J + k * 800);
}
__device__ inline void pcc_rng_skip_seq(pcc_rng_t &r, const void *aux, unsigned long long n)
{
    const unsigned int *J = (const unsigned int *)aux + 64 * 800;
    for (int k = 0; n; ++k, n >>= 1)     /* 2^67 n draws: d moves by a multiple of 2^32 */
        if (n & 1ull) pcc_xorwow_apply(r, J + k * 800);
}
__device__ inline void pcc_rng_skip_stream(pcc_rng_t &r, const void *aux, unsigned long long n)
{
    pcc_rng_skip_seq(r, aux, n);
}
"""


# ======================================================================
# The jump matrices (NumPy)
# ======================================================================

def _draw_words(v):
    """The linear part of one draw on five words (Python ints)."""
    t = v[0] ^ (v[0] >> 2)
    return [v[1], v[2], v[3], v[4], (v[4] ^ (v[4] << 4) ^ t ^ (t << 1)) & _MASK32]


def step_matrix():
    """M, the 160x160 bit matrix (uint8) of one draw: bit 32w + b of the
    state is bit b of v[w]."""
    m = np.zeros((160, 160), dtype=np.uint8)
    for j in range(160):
        v = [0] * 5
        v[j >> 5] = 1 << (j & 31)
        out = _draw_words(v)
        for i in range(160):
            m[i, j] = (out[i >> 5] >> (i & 31)) & 1
    return m


def _pack_columns(p):
    """A 160x160 bit matrix as 160 columns of five little-endian words."""
    cols = np.ascontiguousarray(p.T, dtype=np.uint8)
    return np.packbits(cols, axis=1, bitorder="little").view("<u4")


def gf2_matmul(a, b):
    """a @ b over GF(2) for 0/1 uint8 matrices: row i of the product is the
    XOR of the rows of b where row i of a has a 1 (b's rows packed)."""
    nbytes = -(-b.shape[1] // 64) * 8
    packed = np.zeros((b.shape[0], nbytes), dtype=np.uint8)
    packed[:, :-(-b.shape[1] // 8)] = np.packbits(b, axis=1, bitorder="little")
    words = packed.view("<u8")
    terms = np.where(a.astype(bool)[:, :, None], words[None, :, :], np.uint64(0))
    rows = np.ascontiguousarray(np.bitwise_xor.reduce(terms, axis=1)).view(np.uint8)
    return np.unpackbits(rows, axis=1, bitorder="little", count=b.shape[1])


@functools.lru_cache(maxsize=None)
def jump_matrices():
    """(M**(2**k) for k < 64, then M**(2**(67 + k)) for k < 64) as 0/1 uint8
    matrices, shape (128, 160, 160), by repeated squaring."""
    p = step_matrix()
    out = np.empty((128, 160, 160), dtype=np.uint8)
    for e in range(SEQUENCE_LOG2 + 64):
        if e < 64:
            out[e] = p
        if e >= SEQUENCE_LOG2:
            out[64 + e - SEQUENCE_LOG2] = p
        p = gf2_matmul(p, p)
    return out


@functools.lru_cache(maxsize=None)
def jump_table():
    """jump_matrices() packed for the device: (128, 160, 5) uint32."""
    return np.ascontiguousarray(np.stack([_pack_columns(m) for m in jump_matrices()]))


@tools.context_dependent_memoize
def _device_jump_table():
    from pycudac import gpuarray
    return gpuarray.to_gpu(jump_table())


# ======================================================================
# NumPy reference
# ======================================================================

def splitmix64(s):
    """SplitMix64 on a uint64 array of states: (new states, outputs)."""
    s = s + np.uint64(0x9E3779B97F4A7C15)
    z = (s ^ (s >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return s, z ^ (z >> np.uint64(31))


def _apply(words, matrix):
    """words (N, 5) uint32 <- matrix (160x160 bits) applied to each row."""
    bits = np.unpackbits(np.ascontiguousarray(words, dtype="<u4").view(np.uint8), axis=1,
                         bitorder="little")
    out = gf2_matmul(bits, np.ascontiguousarray(matrix.T))
    return np.packbits(out, axis=1, bitorder="little").view("<u4").astype(np.uint32)


class XorwowReference:
    """The device generator's streams in NumPy: seeds (int32, one per stream),
    stream t at subsequence t, then offset draws. `streams` names the
    streams the seeds are for (default 0, 1, ...), to follow a few of many."""

    def __init__(self, seeds, offset=0, streams=None):
        seeds = np.asarray(seeds).astype(np.int64).astype(np.uint32).astype(np.uint64)
        s = seeds.copy()
        s, a = splitmix64(s)
        s, b = splitmix64(s)
        s, c = splitmix64(s)
        lo = np.uint64(_MASK32)
        v = np.stack([a & lo, a >> np.uint64(32), b & lo, b >> np.uint64(32), c & lo], axis=1)
        v = v.astype(np.uint32)
        dead = ~v.any(axis=1)
        v[dead, 0] = 1
        self.v = v
        self.d = (c >> np.uint64(32)).astype(np.uint32)
        mats = jump_matrices()
        t = np.arange(len(seeds)) if streams is None else np.asarray(streams)
        t = t.astype(np.uint64)
        for k in range(64):
            sel = ((t >> np.uint64(k)) & np.uint64(1)).astype(bool)
            if sel.any():
                self.v[sel] = _apply(self.v[sel], mats[64 + k])
        self.skip(offset)

    def skip(self, n):
        """Every stream n draws on."""
        self.d = (self.d + np.uint32((WEYL * n) & _MASK32)).astype(np.uint32)
        mats = jump_matrices()
        for k in range(64):
            if (n >> k) & 1:
                self.v = _apply(self.v, mats[k])

    def state(self):
        """(6, streams) uint32: the device's state layout."""
        return np.concatenate([self.v.T, self.d[None, :]]).astype(np.uint32)

    def next_u32(self, count):
        """The next `count` draws of every stream: (count, streams) uint32."""
        out = np.empty((count, len(self.d)), dtype=np.uint32)
        v = [self.v[:, w].copy() for w in range(5)]
        d = self.d.copy()
        for i in range(count):
            t = v[0] ^ (v[0] >> np.uint32(2))
            v = v[1:] + [(v[4] ^ (v[4] << np.uint32(4))) ^ (t ^ (t << np.uint32(1)))]
            d = d + np.uint32(WEYL)
            out[i] = v[4] + d
        self.v = np.stack(v, axis=1)
        self.d = d
        return out


# ======================================================================
# The generator
# ======================================================================

class XORWOWRandomNumberGenerator(base._PseudoRandomNumberGeneratorBase):
    """XORWOW streams (PyCUDA's class and signature): seed_getter(count)
    gives one int32 seed per stream (default: random ones), offset the
    draws to skip in each. call_skip_ahead_sequence(i) jumps 2**67 * i."""

    _NAME = "xorwow"
    _GENERATOR = GENERATOR
    _SKIPS = ("", "_seq")
    _STATE_WORDS = 6

    def __init__(self, seed_getter=None, offset=0):
        self._jumps = None
        super().__init__(seed_getter, offset)

    def _setup(self):
        super()._setup()
        self._jumps = _device_jump_table()
        self._aux = self._jumps.ptr
