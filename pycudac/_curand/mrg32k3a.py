"""MRG32k3a: L'Ecuyer's combined multiple recursive generator ("Good
parameters and implementations for combined multiple recursive random
number generators", Operations Research 47, 1999), in kernel source of our
own.

Two recurrences of order 3, x1 modulo m1 = 2**32 - 209 and x2 modulo
m2 = 2**32 - 22853:

    x1[n] = (1403580 x1[n-2] - 810728 x1[n-3]) mod m1
    x2[n] = (527612 x2[n-1] - 1370589 x2[n-3]) mod m2
    z = x1[n] - x2[n] (mod m1), in 1..m1

and a draw is z as a 32-bit word (z never exceeds m1, so the 209 words
above it never appear: a bias of 5e-8, below what any float output
resolves). Each recurrence is a 3x3 matrix A_j on its last three values,
so a jump of n draws multiplies by A_j**n mod m_j: the powers for 2**k draws
(k < 64), 2**(76 + k) (substreams) and 2**(127 + k) (streams, cuRAND's
"sequences") are computed in Python with exact integers and kept in device
memory (27 KiB a context).

Seeding (ours, not cuRAND's): SplitMix64 of the int32 seed gives six values
in 1..m-1; stream t then jumps to substream t, then `offset` draws on.
Mrg32k3aReference is the same generator in NumPy, for the tests.
"""
import functools

import numpy as np

from pycudac import tools
from pycudac._curand import base
from pycudac._curand.xorwow import splitmix64

M1, M2 = 4294967087, 4294944443
A12, A13N, A21, A23N = 1403580, 810728, 527612, 1370589
SUBSEQUENCE_LOG2, SEQUENCE_LOG2 = 76, 127

# one draw: the new state (s0, s1, s2) <- A (s0, s1, s2), oldest first
A1 = ((0, 1, 0), (0, 0, 1), (M1 - A13N, A12, 0))
A2 = ((0, 1, 0), (0, 0, 1), (M2 - A23N, 0, A21))

GENERATOR = r"""
#define PCC_MRG_M1 4294967087ull
#define PCC_MRG_M2 4294944443ull

struct pcc_rng_t { unsigned long long s1[3], s2[3]; };

__device__ inline void pcc_rng_load(pcc_rng_t &r, const unsigned int *S, const void *,
                                    long long t, long long T)
{
    for (int j = 0; j < 3; ++j) {
        r.s1[j] = S[j * T + t];
        r.s2[j] = S[(3 + j) * T + t];
    }
}
__device__ inline void pcc_rng_save(const pcc_rng_t &r, unsigned int *S, long long t, long long T)
{
    for (int j = 0; j < 3; ++j) {
        S[j * T + t] = (unsigned int)r.s1[j];
        S[(3 + j) * T + t] = (unsigned int)r.s2[j];
    }
}

/* Products of values below 2^32 fit 64 bits; each is reduced before a sum. */
__device__ inline unsigned int pcc_rng_u32(pcc_rng_t &r)
{
    const unsigned long long p1 =
        (1403580ull * r.s1[1] + (PCC_MRG_M1 - 810728ull) * r.s1[0] % PCC_MRG_M1) % PCC_MRG_M1;
    r.s1[0] = r.s1[1];
    r.s1[1] = r.s1[2];
    r.s1[2] = p1;
    const unsigned long long p2 =
        (527612ull * r.s2[2] + (PCC_MRG_M2 - 1370589ull) * r.s2[0] % PCC_MRG_M2) % PCC_MRG_M2;
    r.s2[0] = r.s2[1];
    r.s2[1] = r.s2[2];
    r.s2[2] = p2;
    return (unsigned int)(p1 > p2 ? p1 - p2 : p1 + PCC_MRG_M1 - p2);
}

__device__ inline void pcc_rng_seed(pcc_rng_t &r, unsigned int seed)
{
    unsigned long long s = seed;
    for (int j = 0; j < 3; ++j) r.s1[j] = pcc_splitmix64(s) % (PCC_MRG_M1 - 1ull) + 1ull;
    for (int j = 0; j < 3; ++j) r.s2[j] = pcc_splitmix64(s) % (PCC_MRG_M2 - 1ull) + 1ull;
}

__device__ inline void pcc_mrg_apply(unsigned long long s[3], const unsigned long long *A,
                                     unsigned long long m)
{
    unsigned long long o[3];
    for (int i = 0; i < 3; ++i) {
        unsigned long long acc = 0;
        for (int j = 0; j < 3; ++j) acc = (acc + A[i * 3 + j] * s[j] % m) % m;
        o[i] = acc;
    }
    for (int i = 0; i < 3; ++i) s[i] = o[i];
}

/* aux: [family][k][A1, A2] of 9 words each; family 0: 2^k draws,
   1: 2^(76 + k) (substreams), 2: 2^(127 + k) (streams) */
__device__ inline void pcc_mrg_jump(pcc_rng_t &r, const void *aux, int family,
                                    unsigned long long n)
{
    const unsigned long long *J = (const unsigned long long *)aux + family * 64 * 18;
    for (int k = 0; n; ++k, n >>= 1)
        if (n & 1ull) {
            pcc_mrg_apply(r.s1, J + k * 18, PCC_MRG_M1);
            pcc_mrg_apply(r.s2, J + k * 18 + 9, PCC_MRG_M2);
        }
}
__device__ inline void pcc_rng_skip(pcc_rng_t &r, const void *aux, unsigned long long n)
{
    pcc_mrg_jump(r, aux, 0, n);
}
__device__ inline void pcc_rng_skip_subseq(pcc_rng_t &r, const void *aux, unsigned long long n)
{
    pcc_mrg_jump(r, aux, 1, n);
}
__device__ inline void pcc_rng_skip_seq(pcc_rng_t &r, const void *aux, unsigned long long n)
{
    pcc_mrg_jump(r, aux, 2, n);
}
__device__ inline void pcc_rng_skip_stream(pcc_rng_t &r, const void *aux, unsigned long long n)
{
    pcc_mrg_jump(r, aux, 1, n);
}
"""


# ======================================================================
# The jump matrices (exact integers)
# ======================================================================

def mat_mul(a, b, m):
    return tuple(tuple(sum(a[i][k] * b[k][j] for k in range(3)) % m for j in range(3))
                 for i in range(3))


def mat_pow(a, e, m):
    """a**e mod m, by squaring (exact Python integers)."""
    result = ((1, 0, 0), (0, 1, 0), (0, 0, 1))
    while e:
        if e & 1:
            result = mat_mul(result, a, m)
        a = mat_mul(a, a, m)
        e >>= 1
    return result


@functools.lru_cache(maxsize=None)
def jump_table():
    """(3, 64, 2, 9) uint64: A_j**(2**(base + k)) mod m_j for the bases 0,
    76 and 127 (draws, substreams, streams), k < 64, j = 1, 2."""
    out = np.zeros((3, 64, 2, 9), dtype=np.uint64)
    for j, (a, m) in enumerate(((A1, M1), (A2, M2))):
        p = a
        for e in range(SEQUENCE_LOG2 + 64):
            for f, start in enumerate((0, SUBSEQUENCE_LOG2, SEQUENCE_LOG2)):
                if start <= e < start + 64:
                    out[f, e - start, j] = [x for row in p for x in row]
            p = mat_mul(p, p, m)
    return out


@tools.context_dependent_memoize
def _device_jump_table():
    from pycudac import gpuarray
    return gpuarray.to_gpu(jump_table())


# ======================================================================
# NumPy reference (Python integers: exact and plain)
# ======================================================================

class Mrg32k3aReference:
    """The device generator's streams: seeds (int32, one per stream), stream t
    at substream t, then offset draws. `streams` names the streams the seeds
    are for (default 0, 1, ...), to follow a few of many."""

    def __init__(self, seeds, offset=0, streams=None):
        seeds = np.asarray(seeds).astype(np.int64).astype(np.uint32).astype(np.uint64)
        s = seeds.copy()
        vals = []
        for _ in range(6):
            s, z = splitmix64(s)
            vals.append(z)
        self.s1 = [[int(vals[j][t]) % (M1 - 1) + 1 for j in range(3)] for t in range(len(seeds))]
        self.s2 = [[int(vals[3 + j][t]) % (M2 - 1) + 1 for j in range(3)]
                   for t in range(len(seeds))]
        ids = range(len(seeds)) if streams is None else [int(x) for x in streams]
        for t, stream in enumerate(ids):
            self._jump(t, 1, stream)
        self.skip(offset)

    def _jump(self, t, family, n):
        """Stream t by n draws (family 0), substreams (1) or streams (2),
        through jump_table() as the device does."""
        table = jump_table()
        for k in range(64):
            if (n >> k) & 1:
                for j, (s, m) in enumerate(((self.s1, M1), (self.s2, M2))):
                    p = [int(x) for x in table[family, k, j]]
                    s[t] = [sum(p[3 * i + c] * s[t][c] for c in range(3)) % m for i in range(3)]

    def skip(self, n, family=0):
        for t in range(len(self.s1)):
            self._jump(t, family, n)

    def state(self):
        """(6, streams) uint32: the device's state layout."""
        return np.array([[s[j] for s in self.s1] for j in range(3)]
                        + [[s[j] for s in self.s2] for j in range(3)], dtype=np.uint32)

    def next_u32(self, count):
        """The next `count` draws of every stream: (count, streams) uint32."""
        out = np.empty((count, len(self.s1)), dtype=np.uint32)
        for t, (s1, s2) in enumerate(zip(self.s1, self.s2)):
            for i in range(count):
                p1 = (A12 * s1[1] - A13N * s1[0]) % M1
                p2 = (A21 * s2[2] - A23N * s2[0]) % M2
                s1[:] = [s1[1], s1[2], p1]
                s2[:] = [s2[1], s2[2], p2]
                out[i, t] = p1 - p2 if p1 > p2 else p1 - p2 + M1
        return out


# ======================================================================
# The generator
# ======================================================================

class MRG32k3aRandomNumberGenerator(base._PseudoRandomNumberGeneratorBase):
    """MRG32k3a streams (PyCUDA's class and signature): seed_getter(count)
    gives one int32 seed per stream (default: random ones), offset the
    draws to skip in each. call_skip_ahead_subsequence(i) jumps 2**76 * i
    draws, call_skip_ahead_sequence(i) 2**127 * i."""

    _NAME = "mrg32k3a"
    _GENERATOR = GENERATOR
    _SKIPS = ("", "_subseq", "_seq")
    _STATE_WORDS = 6

    def __init__(self, seed_getter=None, offset=0):
        self._jumps = None
        super().__init__(seed_getter, offset)

    def _setup(self):
        super()._setup()
        self._jumps = _device_jump_table()
        self._aux = self._jumps.ptr

    def call_skip_ahead_subsequence(self, i, stream=None):
        """Skip i substreams (2**76 draws each) in every stream."""
        self._skip("_subseq", f"{type(self).__name__}.call_skip_ahead_subsequence", i, stream)

    def call_skip_ahead_subsequence_array(self, i, stream=None):
        self._skip_array("_subseq", f"{type(self).__name__}.call_skip_ahead_subsequence_array",
                         i, stream)
