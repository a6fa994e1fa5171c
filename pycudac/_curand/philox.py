"""Philox4x32-10 (Salmon et al., "Parallel random numbers: as easy as 1, 2,
3", SC'11; Random123) in kernel source: pycudac's own counter-based
generator, behind rand() (pycudac.curandom is the public face).

Output block j of a stream is philox(counter=(j_lo, j_hi, offset_lo,
offset_hi), key=(seed_lo, seed_hi)), so every thread computes its own
numbers with no state, and a seed gives the same numbers on the GPU and on
the simulator (uniforms bit for bit; normals up to the last bits of the
platform's log/sin/cos). No cuRAND.

    gen = PhiloxGenerator(seed=1234)
    x = gen.gen_uniform((1000,), numpy.float32)   # [0, 1)
    gen.fill_normal(y)                            # N(0, 1)

Each call advances the generator's offset by one, so successive calls give
independent blocks of the same stream.

philox4x32_reference() is a NumPy implementation used to check the kernel
(and the published known-answer vectors) in tests.
"""
import os

import numpy as np

from pycudac import elementwise as _ew
from pycudac import tools
from pycudac._curand import checks

M0, M1 = 0xD2511F53, 0xCD9E8D57
W0, W1 = 0x9E3779B9, 0xBB67AE85
BLOCK = 256

# ======================================================================
# Kernel source
# ======================================================================

_PHILOX_SRC = """
__device__ inline void pcc_philox4x32_10(unsigned int c[4], unsigned int k0, unsigned int k1)
{
    for (int r = 0; r < 10; ++r) {
        if (r) { k0 += 0x9E3779B9u; k1 += 0xBB67AE85u; }
        const unsigned long long p0 = (unsigned long long)0xD2511F53u * c[0];
        const unsigned long long p1 = (unsigned long long)0xCD9E8D57u * c[2];
        const unsigned int n0 = (unsigned int)(p1 >> 32) ^ c[1] ^ k0;
        const unsigned int n2 = (unsigned int)(p0 >> 32) ^ c[3] ^ k1;
        c[1] = (unsigned int)p1;
        c[3] = (unsigned int)p0;
        c[0] = n0;
        c[2] = n2;
    }
}

__device__ inline void pcc_philox_block(unsigned int c[4], long long j, unsigned long long off,
                                        unsigned int k0, unsigned int k1)
{
    c[0] = (unsigned int)j;
    c[1] = (unsigned int)((unsigned long long)j >> 32);
    c[2] = (unsigned int)off;
    c[3] = (unsigned int)(off >> 32);
    pcc_philox4x32_10(c, k0, k1);
}

/* [0, 1) with 24 (float) / 53 (double) random bits */
__device__ inline float pcc_u01f(unsigned int u) { return (u >> 8) * (1.0f / 16777216.0f); }
__device__ inline double pcc_u01d(unsigned int hi, unsigned int lo)
{
    return (double)((((unsigned long long)hi << 32) | lo) >> 11) * (1.0 / 9007199254740992.0);
}
/* (0, 1]: safe for log() */
__device__ inline float pcc_u01f_open(unsigned int u) { return ((u >> 8) + 1) * (1.0f / 16777216.0f); }
__device__ inline double pcc_u01d_open(unsigned int hi, unsigned int lo)
{
    return (double)(((((unsigned long long)hi << 32) | lo) >> 11) + 1) * (1.0 / 9007199254740992.0);
}

extern "C" __global__ void {p}_raw(unsigned int *out, unsigned int c0, unsigned int c1,
                                   unsigned int c2, unsigned int c3, unsigned int k0,
                                   unsigned int k1)
{
    unsigned int c[4] = {c0, c1, c2, c3};
    pcc_philox4x32_10(c, k0, k1);
    for (int t = 0; t < 4; ++t) out[t] = c[t];
}

/* float32: 4 numbers per Philox block; float64: 2. */
extern "C" __global__ void {p}_uniform_f32(float *out, long long n, unsigned int k0,
                                           unsigned int k1, unsigned long long off)
{
    const long long nthreads = (long long)gridDim.x * blockDim.x;
    for (long long j = (long long)blockIdx.x * blockDim.x + threadIdx.x; j * 4 < n;
         j += nthreads) {
        unsigned int c[4];
        pcc_philox_block(c, j, off, k0, k1);
        for (int t = 0; t < 4 && j * 4 + t < n; ++t) out[j * 4 + t] = pcc_u01f(c[t]);
    }
}

extern "C" __global__ void {p}_uniform_f64(double *out, long long n, unsigned int k0,
                                           unsigned int k1, unsigned long long off)
{
    const long long nthreads = (long long)gridDim.x * blockDim.x;
    for (long long j = (long long)blockIdx.x * blockDim.x + threadIdx.x; j * 2 < n;
         j += nthreads) {
        unsigned int c[4];
        pcc_philox_block(c, j, off, k0, k1);
        out[j * 2] = pcc_u01d(c[0], c[1]);
        if (j * 2 + 1 < n) out[j * 2 + 1] = pcc_u01d(c[2], c[3]);
    }
}

/* the raw 32-bit words (rand() of int32 / uint32: every value alike likely) */
extern "C" __global__ void {p}_bits_u32(unsigned int *out, long long n, unsigned int k0,
                                        unsigned int k1, unsigned long long off)
{
    const long long nthreads = (long long)gridDim.x * blockDim.x;
    for (long long j = (long long)blockIdx.x * blockDim.x + threadIdx.x; j * 4 < n;
         j += nthreads) {
        unsigned int c[4];
        pcc_philox_block(c, j, off, k0, k1);
        for (int t = 0; t < 4 && j * 4 + t < n; ++t) out[j * 4 + t] = c[t];
    }
}

/* Box-Muller on pairs of uniforms */
extern "C" __global__ void {p}_normal_f32(float *out, long long n, unsigned int k0,
                                          unsigned int k1, unsigned long long off)
{
    const long long nthreads = (long long)gridDim.x * blockDim.x;
    for (long long j = (long long)blockIdx.x * blockDim.x + threadIdx.x; j * 4 < n;
         j += nthreads) {
        unsigned int c[4];
        pcc_philox_block(c, j, off, k0, k1);
        for (int t = 0; t < 4; t += 2) {
            const float r = sqrtf(-2.0f * logf(pcc_u01f_open(c[t])));
            const float th = 6.283185307179586f * pcc_u01f(c[t + 1]);
            if (j * 4 + t < n) out[j * 4 + t] = r * cosf(th);
            if (j * 4 + t + 1 < n) out[j * 4 + t + 1] = r * sinf(th);
        }
    }
}

extern "C" __global__ void {p}_normal_f64(double *out, long long n, unsigned int k0,
                                          unsigned int k1, unsigned long long off)
{
    const long long nthreads = (long long)gridDim.x * blockDim.x;
    for (long long j = (long long)blockIdx.x * blockDim.x + threadIdx.x; j * 2 < n;
         j += nthreads) {
        unsigned int c[4];
        pcc_philox_block(c, j, off, k0, k1);
        const double r = sqrt(-2.0 * log(pcc_u01d_open(c[0], c[1])));
        const double th = 6.283185307179586 * pcc_u01d(c[2], c[3]);
        out[j * 2] = r * cos(th);
        if (j * 2 + 1 < n) out[j * 2 + 1] = r * sin(th);
    }
}
"""

_TAG = tools.unique_tag(("philox", 1))
_P = "pcc_philox" + _TAG


@tools.context_dependent_memoize
def _module():
    return _ew.source_module(_PHILOX_SRC.replace("{p}", _P))


def _fn(name):
    return _module().get_function(f"{_P}_{name}")


def philox_raw(counter, key):
    """Run Philox4x32-10 once on the device: 4 uint32 words."""
    from pycudac import gpuarray
    out = gpuarray.empty((4,), np.uint32)
    c = [int(x) & 0xFFFFFFFF for x in counter]
    k = [int(x) & 0xFFFFFFFF for x in key]
    _fn("raw")(out.ptr, *c, *k, block=(1, 1, 1), grid=(1, 1))
    return out.get()


# ======================================================================
# NumPy reference (for tests and for checking the published vectors)
# ======================================================================

def philox4x32_reference(counter, key, rounds=10):
    """Philox4x32-R on NumPy arrays: counter (..., 4) and key (..., 2)
    uint32 -> (..., 4) uint32."""
    c = np.array(counter, dtype=np.uint64) & 0xFFFFFFFF
    k = np.array(key, dtype=np.uint64) & 0xFFFFFFFF
    c0, c1, c2, c3 = (c[..., i].copy() for i in range(4))
    k0, k1 = k[..., 0].copy(), k[..., 1].copy()
    mask = np.uint64(0xFFFFFFFF)
    for r in range(rounds):
        if r:
            k0 = (k0 + np.uint64(W0)) & mask
            k1 = (k1 + np.uint64(W1)) & mask
        p0 = np.uint64(M0) * c0
        p1 = np.uint64(M1) * c2
        n0 = (p1 >> np.uint64(32)) ^ c1 ^ k0
        n2 = (p0 >> np.uint64(32)) ^ c3 ^ k1
        c0, c1, c2, c3 = n0, p1 & mask, n2, p0 & mask
    return np.stack([c0, c1, c2, c3], axis=-1).astype(np.uint32)


def reference_uniform(n, seed, offset=0, dtype=np.float32):
    """What PhiloxGenerator.gen_uniform produces, computed with NumPy."""
    dtype = np.dtype(dtype)
    per = 4 if dtype == np.float32 else 2
    nblocks = (n + per - 1) // per
    j = np.arange(nblocks, dtype=np.uint64)
    ctr = np.stack([j & 0xFFFFFFFF, j >> np.uint64(32),
                    np.full_like(j, offset & 0xFFFFFFFF), np.full_like(j, offset >> 32)], -1)
    key = np.array([seed & 0xFFFFFFFF, (seed >> 32) & 0xFFFFFFFF], dtype=np.uint64)
    words = philox4x32_reference(ctr, np.broadcast_to(key, (nblocks, 2)))
    if dtype == np.float32:
        return ((words >> 8).astype(np.float32) * np.float32(1.0 / 16777216.0)).reshape(-1)[:n]
    w = words.astype(np.uint64).reshape(-1, 2)
    bits = ((w[:, 0] << np.uint64(32)) | w[:, 1]) >> np.uint64(11)
    return (bits.astype(np.float64) * (1.0 / 9007199254740992.0))[:n]


# ======================================================================
# Generators
# ======================================================================

def _os_seed():
    """A random 64-bit key from the OS."""
    return int.from_bytes(os.urandom(8), "little")


_KINDS = {("uniform", np.dtype(np.float32)): ("uniform_f32", 4),
          ("uniform", np.dtype(np.float64)): ("uniform_f64", 2),
          ("normal", np.dtype(np.float32)): ("normal_f32", 4),
          ("normal", np.dtype(np.float64)): ("normal_f64", 2),
          ("bits", np.dtype(np.int32)): ("bits_u32", 4),
          ("bits", np.dtype(np.uint32)): ("bits_u32", 4)}


class PhiloxGenerator:
    """Counter-based generator: the same seed gives the same numbers on
    every backend. `offset` counts the calls made (one block of counters
    each)."""

    def __init__(self, seed=None, offset=0):
        if seed is None:
            seed = _os_seed()
        self.seed = checks.count("PhiloxGenerator", "seed", seed)
        self.offset = checks.count("PhiloxGenerator", "offset", offset)

    def _fill(self, kind, data, stream):
        from pycudac.gpuarray import GPUArray
        if not isinstance(data, GPUArray):
            raise TypeError(f"fill_{kind}: data must be a GPUArray, got {type(data).__name__}")
        entry = _KINDS.get((kind, data.dtype))
        if entry is None:
            ok = " or ".join(str(d) for k, d in _KINDS if k == kind)
            raise TypeError(f"fill_{kind}: dtype {data.dtype} is not supported ({ok})")
        if data._layout is None:
            raise ValueError(f"fill_{kind}: data must be contiguous")
        name, per = entry
        n = data.size
        off = self.offset
        self.offset += 1
        if n == 0:
            return data
        groups = (n + per - 1) // per
        ctx = tools.current_context()
        grid = max(1, min((groups + BLOCK - 1) // BLOCK, _ew._max_blocks(ctx)))
        _fn(name)(data.ptr, n, self.seed & 0xFFFFFFFF, self.seed >> 32, off,
                  block=(BLOCK, 1, 1), grid=(grid, 1), stream=stream)
        return data

    def fill_uniform(self, data, stream=None):
        """Uniform in [0, 1)."""
        return self._fill("uniform", data, stream)

    def fill_normal(self, data, stream=None):
        """Standard normal (Box–Muller)."""
        return self._fill("normal", data, stream)

    def gen_uniform(self, shape, dtype=np.float32, stream=None):
        from pycudac import gpuarray
        return self.fill_uniform(gpuarray.empty(shape, dtype), stream)

    def gen_normal(self, shape, dtype=np.float32, stream=None):
        from pycudac import gpuarray
        return self.fill_normal(gpuarray.empty(shape, dtype), stream)

    def skip_ahead(self, n):
        self.offset = checks.count("skip_ahead", "the new offset",
                               self.offset + checks.count("skip_ahead", "n", n))


# PyCUDA-style names
PhiloxRandomNumberGenerator = PhiloxGenerator
