"""pycudac.scan — prefix sums with any associative operator (PyCUDA's
InclusiveScanKernel / ExclusiveScanKernel).

One pass over memory (read N, write N): a single-pass scan with decoupled
look-back (Merrill & Garland, "Single-pass Parallel Prefix Scan with
Decoupled Look-back", NVIDIA 2016).

- Each block scans one tile of BLOCK*items elements. The tile index comes
  from a global counter (atomicAdd), not from blockIdx: tiles are handed out
  in the order blocks start, so every tile a block waits for belongs to a
  block that is already running (forward progress without co-residency).
- Loads and stores are coalesced 16-byte vectors (uint4) where the type and
  the pointers allow: each warp stages its 32*items elements in shared
  memory (swizzled, no bank conflicts), then each lane takes `items`
  consecutive elements.
- Block scan: each lane reduces its items serially, the lane totals are
  scanned with warp shuffles, the warp totals through shared memory.
- Warp 0 publishes the tile's aggregate (status A), then looks back over
  its predecessors' descriptors, 32 at a time (lane 31 watches the nearest):
  it waits while any of them is still X (nothing published), combines the
  values from the nearest P (inclusive prefix) on, or all 32 A's and slides
  on. It publishes the tile's inclusive prefix (P) and every lane adds the
  tile prefix to its own before writing out.
- Descriptors: types of up to 4 bytes pack status and value into one 64-bit
  word (one atomic store, one load); larger types keep a status word per
  tile and the values apart, ordered by __threadfence on both sides.
  The counter and the descriptors are scratch from the memory pool, zeroed
  with memset_d32_async on the launch's stream (no extra kernel).

Elements are always combined left to right, so the operator needs to be
associative, not commutative (affine maps for linear recurrences work). The
inclusive scan never uses `neutral` (tiles past the end are padded with real
elements whose results are not stored); the exclusive scan writes it as the
first element.

    knl = InclusiveScanKernel(numpy.int32, "a+b")
    knl(x)            # in place
    knl(x, out)       # into out
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from numpy.typing import DTypeLike

    from pycudac._driver import Stream
    from pycudac.gpuarray import GPUArray

import numpy as np

from pycudac import elementwise as _ew
from pycudac import tools
from pycudac.tools import dtype_to_ctype

__all__ = ["InclusiveScanKernel", "ExclusiveScanKernel"]

BLOCK = 256            # threads per block (8 warps)
BYTES_PER_THREAD = 64  # items per thread = 64 // itemsize, at most MAX_ITEMS
MAX_ITEMS = 16         # int32: 16 items, a tile of 4096 elements
VECTOR_BYTES = 16      # uint4 loads and stores
SIM_WAIT_S = 30        # simulator only: longest wait for a predecessor (_LOOK_BACK_SRC)

# Descriptor status values (X must be 0: the scratch is zeroed before launch)
_X, _A, _P = 0, 1, 2

# ======================================================================
# Templates
# ======================================================================

_COMMON_SRC = """
#define {p}_X {x}u   /* nothing published yet */
#define {p}_A {a}u   /* the tile's aggregate */
#define {p}_P {pp}u  /* the tile's inclusive prefix */

__device__ inline T {p}_op(T a, T b)
{{
    return ({scan_expr});
}}

/* the neutral element as a T */
__device__ inline T {p}_to_T(T v) {{ return v; }}
{complex_to_T}
/* v from lane `src` (any T: moved as {words} 32-bit words) */
__device__ inline T {p}_shfl(T v, int src)
{{
    unsigned int w[{words}] = {{0}};
    memcpy(w, &v, sizeof(T));
    for (int i = 0; i < {words}; ++i) w[i] = __shfl_sync(0xffffffffu, w[i], src);
    memcpy(&v, w, sizeof(T));
    return v;
}}

/* Slot of vector q in a warp's staging area. The xor makes both access
 * patterns conflict-free: 32 lanes on 32 consecutive vectors (global <->
 * shared) and each lane on its own {vpt} consecutive vectors (shared <->
 * registers). */
__device__ inline unsigned int {p}_slot(unsigned int q)
{{
    return q ^ ((q >> 3) & {swizzle}u);
}}
"""

# Scratch: [0] tile counter, [1..3] unused, then the descriptors (below).
# Python's _scratch_layout() must agree.
_DESC_PACKED_SRC = """
/* One 64-bit descriptor per tile: the status in the high half, the value's
 * bits in the low half, so one store publishes and one load sees a
 * consistent pair. */
__device__ inline void {p}_publish(unsigned int *scratch, long long ntiles, unsigned int tile,
                                   unsigned int status, T v)
{{
    unsigned int bits = 0;
    memcpy(&bits, &v, sizeof(T));
    atomicExch((unsigned long long *)(scratch + 4) + tile,
               ((unsigned long long)status << 32) | bits);
}}

__device__ inline unsigned int {p}_peek(unsigned int *scratch, long long ntiles,
                                        unsigned int tile, T *v)
{{
    const unsigned long long d = ((volatile unsigned long long *)(scratch + 4))[tile];
    const unsigned int bits = (unsigned int)d;
    memcpy(v, &bits, sizeof(T));
    return (unsigned int)(d >> 32);
}}
"""

_DESC_SPLIT_SRC = """
/* A status word per tile; the values ({words} words each) come after the
 * status words (at a 16-byte boundary): the aggregates, then the inclusive
 * prefixes. Each value is written once, before its status. */
__device__ inline volatile unsigned int *{p}_value(unsigned int *scratch, long long ntiles,
                                                   unsigned int tile, unsigned int status)
{{
    unsigned int *values = scratch + 4 + ((ntiles + 3) & ~3LL);
    return values + ((status == {p}_P ? ntiles : 0) + tile) * {words};
}}

__device__ inline void {p}_publish(unsigned int *scratch, long long ntiles, unsigned int tile,
                                   unsigned int status, T v)
{{
    unsigned int w[{words}] = {{0}};
    memcpy(w, &v, sizeof(T));
    volatile unsigned int *dst = {p}_value(scratch, ntiles, tile, status);
    for (int i = 0; i < {words}; ++i) dst[i] = w[i];
    __threadfence();    /* the value before its status */
    atomicExch(scratch + 4 + tile, status);
}}

__device__ inline unsigned int {p}_peek(unsigned int *scratch, long long ntiles,
                                        unsigned int tile, T *v)
{{
    const unsigned int status = ((volatile unsigned int *)(scratch + 4))[tile];
    if (status != {p}_X) {{
        __threadfence();    /* the status before the value */
        const volatile unsigned int *src = {p}_value(scratch, ntiles, tile, status);
        unsigned int w[{words}];
        for (int i = 0; i < {words}; ++i) w[i] = src[i];
        memcpy(v, w, sizeof(T));
    }}
    return status;
}}
"""

_LOOK_BACK_SRC = """
/* Called while a predecessor is still X. On the GPU a fault ends the whole
 * grid; the simulator only stops handing out blocks, so a block already
 * waiting for a tile whose block faulted would wait forever: there it gives
 * up after {sim_wait_s} s (the fault, reported first, is the error seen). */
__device__ inline void {p}_waiting(long long *since)
{{
#ifdef __PYCUDAC_SIM__
    if (*since == 0) *since = clock64();
    else if (clock64() - *since > {sim_wait_s}000000000LL) __trap();
#else
    (void)since;
#endif
}}

/* The exclusive prefix of `tile` (> 0), computed by one warp: lane 31
 * watches tile-1, lane 30 tile-2, ... Once none of the 32 is X, the values
 * from the nearest P on are combined left to right; without a P, all 32
 * aggregates are, and the window slides 32 tiles further back. */
__device__ inline T {p}_look_back(unsigned int *scratch, long long ntiles, unsigned int tile)
{{
    const int lane = threadIdx.x & 31;
    T prefix, v;
    bool have = false;
    for (long long end = tile;; end -= 32) {{
        const long long j = end - 32 + lane;
        unsigned int status;
        long long since = 0;
        for (;;) {{    /* before tile 0 reads as P: tile 0 publishes P, so it is never used */
            status = j < 0 ? {p}_P : {p}_peek(scratch, ntiles, (unsigned int)j, &v);
            if (!__any_sync(0xffffffffu, status == {p}_X)) break;
            {p}_waiting(&since);
        }}
        const unsigned int ps = __ballot_sync(0xffffffffu, status == {p}_P);
        const int first = ps ? 31 - __clz((int)ps) : 0;
        for (int d = 1; d < 32; d <<= 1) {{
            const T up = {p}_shfl(v, lane - d);
            if (lane - d >= first) v = {p}_op(up, v);
        }}
        const T window = {p}_shfl(v, 31);
        prefix = have ? {p}_op(window, prefix) : window;
        have = true;
        if (ps) return prefix;
    }}
}}
"""

_KERNEL_SRC = """
extern "C" __global__ void __launch_bounds__({block})
{p}_scan(T *out, const T *in, long long n, unsigned int *scratch)
{{
    __shared__ {vec} stage_[{block} * {vpt}];   /* each warp's 32*{items} elements */
    __shared__ T warp_total_[{warps}];
    __shared__ T tile_prefix_;
    __shared__ unsigned int tile_;

    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const long long ntiles = (n + {tile_items} - 1) / {tile_items};
    if (threadIdx.x == 0) tile_ = atomicAdd(scratch, 1u);   /* launch order, not blockIdx */
    __syncthreads();
    const unsigned int tile = tile_;
    const long long base = (long long)tile * {tile_items} + (long long)warp * (32 * {items});
    const bool full = n - base >= 32 * {items};
    {vec} *stage = stage_ + warp * (32 * {vpt});
    T *stage_t = (T *)stage;

    /* 1. load: coalesced into shared memory, then {items} consecutive elements per lane */
    if (full && {aligned_in}) {{
        const {vec} *src = (const {vec} *)(in + base);
        {vec} w[{vpt}];     /* all loads in flight before the first store */
#pragma unroll
        for (int j = 0; j < {vpt}; ++j) w[j] = src[j * 32 + lane];
#pragma unroll
        for (int j = 0; j < {vpt}; ++j) stage[{p}_slot(j * 32 + lane)] = w[j];
    }} else {{    /* past the end: copies of the last element, results not stored */
#pragma unroll
        for (int k = 0; k < {items}; ++k) {{
            const int e = k * 32 + lane;
            const long long i = base + e < n ? base + e : n - 1;
            stage_t[{p}_slot(e / {v}) * {v} + e % {v}] = in[i];
        }}
    }}
    __syncwarp();
    T x[{items}];
#pragma unroll
    for (int j = 0; j < {vpt}; ++j) {{
        const {vec} w = stage[{p}_slot(lane * {vpt} + j)];
        memcpy(&x[j * {v}], &w, sizeof w);
    }}

    /* 2. lane totals, scanned across the warp; warp totals to shared memory */
    T incl = x[0];
#pragma unroll
    for (int k = 1; k < {items}; ++k) incl = {p}_op(incl, x[k]);
#pragma unroll
    for (int d = 1; d < 32; d <<= 1) {{
        const T up = {p}_shfl(incl, lane - d);
        if (lane >= d) incl = {p}_op(up, incl);
    }}
    const T lane_prefix = {p}_shfl(incl, lane - 1);     /* for lane > 0 */
    if (lane == 31) warp_total_[warp] = incl;
    __syncthreads();

    /* 3. warp 0 publishes the tile's aggregate and finds its prefix */
    T warp_prefix = warp_total_[0];                      /* for warp > 0 */
    for (int w = 1; w < warp; ++w) warp_prefix = {p}_op(warp_prefix, warp_total_[w]);
    if (warp == 0) {{
        T total = warp_total_[0];
#pragma unroll
        for (int w = 1; w < {warps}; ++w) total = {p}_op(total, warp_total_[w]);
        if (tile == 0) {{
            if (lane == 0) {p}_publish(scratch, ntiles, 0, {p}_P, total);
        }} else {{
            if (lane == 0) {p}_publish(scratch, ntiles, tile, {p}_A, total);
            const T prefix = {p}_look_back(scratch, ntiles, tile);
            if (lane == 0) {{
                {p}_publish(scratch, ntiles, tile, {p}_P, {p}_op(prefix, total));
                tile_prefix_ = prefix;
            }}
        }}
    }}
    __syncthreads();

    /* 4. this lane's prefix: tile (op) warp (op) lane, then its own items */
    bool has = tile != 0;
    T run = tile_prefix_;
    if (warp) {{ run = has ? {p}_op(run, warp_prefix) : warp_prefix; has = true; }}
    if (lane) {{ run = has ? {p}_op(run, lane_prefix) : lane_prefix; has = true; }}
#pragma unroll
    for (int k = 0; k < {items}; ++k) {{
{emit}
        has = true;
    }}

    /* 5. store: back through shared memory, coalesced */
#pragma unroll
    for (int j = 0; j < {vpt}; ++j) {{
        {vec} w;
        memcpy(&w, &x[j * {v}], sizeof w);
        stage[{p}_slot(lane * {vpt} + j)] = w;
    }}
    __syncwarp();
    if (full && {aligned_out}) {{
        {vec} *dst = ({vec} *)(out + base);
#pragma unroll
        for (int j = 0; j < {vpt}; ++j) dst[j * 32 + lane] = stage[{p}_slot(j * 32 + lane)];
    }} else {{
#pragma unroll
        for (int k = 0; k < {items}; ++k) {{
            const int e = k * 32 + lane;
            if (base + e < n) out[base + e] = stage_t[{p}_slot(e / {v}) * {v} + e % {v}];
        }}
    }}
}}
"""

_COMPLEX_TO_T_SRC = """\
__device__ inline T {p}_to_T(double re) {{ T z; z.x = re; z.y = 0; return z; }}  /* "0", "1" */
"""

_EMIT_INCLUSIVE = """\
        run = has ? {p}_op(run, x[k]) : x[k];
        x[k] = run;"""

_EMIT_EXCLUSIVE = """\
        const T v = x[k];
        x[k] = has ? run : {p}_to_T({neutral});
        run = has ? {p}_op(run, v) : v;"""


def _geometry(itemsize):
    """(items per thread, elements per vector, vectorized?) for a type."""
    items = max(1, min(MAX_ITEMS, BYTES_PER_THREAD // itemsize))
    vectorized = VECTOR_BYTES % itemsize == 0
    v = VECTOR_BYTES // itemsize if vectorized else 1
    if vectorized:
        items = max(items, v) // v * v
    return items, v, vectorized


def _scratch_layout(itemsize, ntiles):
    """(bytes, words to zero) of the scratch: counter, 3 spare words, then
    the descriptors as _DESC_PACKED_SRC / _DESC_SPLIT_SRC lay them out."""
    if itemsize <= 4:
        words = 4 + 2 * ntiles
        return 4 * words, words
    words = (itemsize + 3) // 4
    status_words = 4 + (ntiles + 3) // 4 * 4
    return 4 * (status_words + 2 * ntiles * words), 4 + ntiles


def render(p, ctype, itemsize, scan_expr, neutral, exclusive, preamble=""):
    """The scan module's source for T = ctype (itemsize bytes)."""
    items, v, vectorized = _geometry(itemsize)
    vpt = items // v
    complex_type = ctype.startswith("pcc_complex")
    fmt = dict(p=p, scan_expr=scan_expr, neutral=neutral, x=_X, a=_A, pp=_P,
               block=BLOCK, warps=BLOCK // 32, items=items, tile_items=BLOCK * items,
               v=v, vpt=vpt, vec="uint4" if vectorized else "T",
               swizzle=vpt - 1 if vectorized and vpt <= 8 else 0,
               aligned_in="!((unsigned long long)in & 15)" if vectorized else "true",
               aligned_out="!((unsigned long long)out & 15)" if vectorized else "true",
               words=(itemsize + 3) // 4, sim_wait_s=SIM_WAIT_S)
    fmt["complex_to_T"] = _COMPLEX_TO_T_SRC.format(**fmt) if complex_type else ""
    emit = (_EMIT_EXCLUSIVE if exclusive else _EMIT_INCLUSIVE).format(**fmt)
    desc = _DESC_PACKED_SRC if itemsize <= 4 else _DESC_SPLIT_SRC
    return (tools.KERNEL_PREAMBLE + f"\ntypedef {ctype} T;\n" + preamble + "\n"
            + _COMMON_SRC.format(**fmt) + desc.format(**fmt) + _LOOK_BACK_SRC.format(**fmt)
            + _KERNEL_SRC.format(emit=emit, **fmt))


class _ScanKernel:
    exclusive = 0

    def __init__(self, dtype: DTypeLike, scan_expr: str, neutral: str | None = None,
                 name_prefix: str = "scan", options: Sequence[str] | None = None,
                 preamble: str = "", devices: Any = None) -> None:
        self.dtype = tools.check_dtype(dtype, f"{type(self).__name__}: dtype")
        if neutral is None and self.exclusive:
            raise ValueError("ExclusiveScanKernel: neutral is required")
        ctype = dtype_to_ctype(self.dtype)
        if self.dtype == np.float16:
            raise TypeError(f"{type(self).__name__}: float16 is not supported (scan in "
                            f"float32 and convert)")
        self.name_prefix = name_prefix
        self.options = options
        self.neutral = neutral
        tag = tools.unique_tag((ctype, scan_expr, neutral, preamble, self.exclusive))
        self._p = f"{name_prefix}{tag}"
        itemsize = self.dtype.itemsize
        self.items_per_thread = _geometry(itemsize)[0]
        self.tile_items = BLOCK * self.items_per_thread
        self.source = render(self._p, ctype, itemsize, scan_expr, neutral, self.exclusive,
                             preamble)
        self._fns = {}

    def _function(self, ctx):
        fn = self._fns.get(ctx)
        if fn is None:
            kw = {} if self.options is None else {"options": self.options}
            mod = _ew.source_module(self.source, **kw)
            fn = self._fns[ctx] = mod.get_function(f"{self._p}_scan")
        return fn

    def __call__(self, input_ary: GPUArray, output_ary: GPUArray | None = None,
                 allocator: Callable[[int], Any] | None = None,
                 stream: Stream | None = None) -> GPUArray:
        from pycudac import driver
        from pycudac.gpuarray import GPUArray
        from pycudac._gpuarray.layout import default_pool as _default_pool
        if not isinstance(input_ary, GPUArray):
            raise TypeError(f"{type(self).__name__}: input_ary must be a GPUArray, got "
                            f"{type(input_ary).__name__}")
        if input_ary.dtype != self.dtype:
            raise TypeError(f"{type(self).__name__}: input_ary has dtype {input_ary.dtype}, "
                            f"the kernel was built for {self.dtype}")
        if output_ary is None:
            output_ary = input_ary
        if not isinstance(output_ary, GPUArray) or output_ary.dtype != self.dtype or \
                output_ary.shape != input_ary.shape:
            raise ValueError(f"{type(self).__name__}: output_ary must be a {self.dtype} "
                             f"GPUArray of shape {input_ary.shape}")
        for what, a in (("input_ary", input_ary), ("output_ary", output_ary)):
            if a._layout is None:
                raise ValueError(f"{type(self).__name__}: {what} must be contiguous")
        n = input_ary.size
        if n == 0:
            return output_ary
        ctx = tools.current_context()
        fn = self._function(ctx)
        ntiles = (n + self.tile_items - 1) // self.tile_items
        nbytes, zero_words = _scratch_layout(self.dtype.itemsize, ntiles)
        scratch = (allocator or _default_pool(ctx).allocate)(nbytes)
        driver.memset_d32_async(scratch, 0, zero_words, stream)
        fn(output_ary.ptr, input_ary.ptr, n, scratch, block=(BLOCK, 1, 1), grid=(ntiles, 1),
           stream=stream)
        if stream is not None:
            _ew.keep_for_capture(stream, output_ary, input_ary, scratch)
        return output_ary


class InclusiveScanKernel(_ScanKernel):
    """out[i] = in[0] (op) in[1] (op) ... (op) in[i]."""
    exclusive = 0


class ExclusiveScanKernel(_ScanKernel):
    """out[i] = neutral (op) in[0] (op) ... (op) in[i-1]."""
    exclusive = 1
