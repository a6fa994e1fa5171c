"""pycudac.scan — prefix sums with any associative operator (PyCUDA's
InclusiveScanKernel / ExclusiveScanKernel).

Reduce-then-scan in three launches of one kernel, reading the input twice
and writing it once (3 passes of memory traffic, against 4 for
scan-then-propagate):

1. G blocks each reduce their contiguous chunk to one value (mode 2).
2. One block: exclusive scan of the G chunk totals in place.
3. G blocks each scan their chunk tile by tile, starting from their
   chunk's prefix (carry), and write the result.

Elements are always combined left to right, so the operator needs to be
associative, not commutative (affine maps for linear recurrences work).

A tile is BLOCK*ITEMS elements: loaded coalesced into shared memory, each
thread scans ITEMS consecutive elements serially, the BLOCK thread totals
are scanned in shared memory (Hillis–Steele), and the prefixes are added
back before a coalesced store. ITEMS is odd, so the serial phase has no
shared-memory bank conflicts for 4-byte types.

    knl = InclusiveScanKernel(numpy.int32, "a+b")
    knl(x)            # in place
    knl(x, out)       # into out
"""
import builtins

import numpy as np

from pycudac import elementwise as _ew
from pycudac import tools
from pycudac.tools import dtype_to_ctype

BLOCK = 256
ITEMS = 7

# ======================================================================
# Templates
# ======================================================================

_SCAN_SRC = """
__device__ inline T {p}_op(T a, T b)
{{
    return ({scan_expr});
}}

/* Block b walks its chunk [b*chunk, min((b+1)*chunk, n)) tile by tile,
 * combining elements strictly left to right (the operator need only be
 * associative). mode 0: inclusive scan into out, mode 1: exclusive scan,
 * both starting from carry_in[b] (neutral when carry_in is NULL); mode 2:
 * only the chunk's total, into sums[b]. */
extern "C" __global__ void {p}_scan(T *out, const T *in, const T *__restrict__ carry_in,
                                    T *__restrict__ sums, long long n, long long chunk,
                                    int mode)
{{
    __shared__ T tile_[{block} * {items}];
    __shared__ T part_[{block}];
    const unsigned int tid = threadIdx.x;
    const long long lo = (long long)blockIdx.x * chunk;
    const long long hi = lo + chunk < n ? lo + chunk : n;
    T carry = carry_in ? carry_in[blockIdx.x] : {neutral};
    for (long long base = lo; base < hi; base += {block} * {items}) {{
        const long long count = hi - base < {block} * {items} ? hi - base : {block} * {items};
        T mine[{items}];    /* this thread's loads, kept for the inclusive result */
        for (int k = 0; k < {items}; ++k) {{
            const long long j = (long long)k * {block} + tid;
            mine[k] = j < count ? in[base + j] : {neutral};
            tile_[j] = mine[k];
        }}
        __syncthreads();
        /* serial scan of this thread's ITEMS consecutive elements */
        T run = {neutral};
        for (int k = 0; k < {items}; ++k) {{
            const T v = tile_[tid * {items} + k];
            tile_[tid * {items} + k] = run;           /* exclusive, within the thread */
            run = {p}_op(run, v);
        }}
        part_[tid] = run;
        __syncthreads();
        /* Hillis-Steele inclusive scan of the thread totals */
        for (unsigned int off = 1; off < {block}; off <<= 1) {{
            T add = tid >= off ? part_[tid - off] : {neutral};
            __syncthreads();
            if (tid >= off) part_[tid] = {p}_op(add, part_[tid]);
            __syncthreads();
        }}
        if (mode == 2) {{
            carry = {p}_op(carry, part_[{block} - 1]);
            __syncthreads();
            continue;
        }}
        const T before = {p}_op(carry, tid ? part_[tid - 1] : {neutral});
        for (int k = 0; k < {items}; ++k) {{
            const int j = tid * {items} + k;
            tile_[j] = {p}_op(before, tile_[j]);      /* exclusive prefix of element j */
        }}
        __syncthreads();
        for (int k = 0; k < {items}; ++k) {{
            const long long j = (long long)k * {block} + tid;
            if (j < count) {{
                out[base + j] = mode ? tile_[j] : {p}_op(tile_[j], mine[k]);
            }}
        }}
        carry = {p}_op(carry, part_[{block} - 1]);
        __syncthreads();
    }}
    if (mode == 2 && tid == 0) sums[blockIdx.x] = carry;
}}
"""


def _resident_blocks(fn, ctx):
    """Blocks of BLOCK threads the whole device runs at once: one wave of
    chunks, so no SM idles through a second, partial wave."""
    try:
        min_grid, block = fn.max_potential_block_size(0, BLOCK)
        if block == BLOCK and min_grid > 0:
            return int(min_grid)
    except Exception:
        pass
    return builtins.max(1, _ew._max_blocks(ctx) // 2)


class _ScanKernel:
    exclusive = 0

    def __init__(self, dtype, scan_expr, neutral=None, name_prefix="scan", options=None,
                 preamble="", devices=None):
        self.dtype = tools.check_dtype(dtype, f"{type(self).__name__}: dtype")
        if neutral is None:
            if self.exclusive:
                raise ValueError("ExclusiveScanKernel: neutral is required")
            neutral = "0" if self.dtype.kind not in "c" else (
                "pcc_c64(0, 0)" if self.dtype == np.complex64 else "pcc_c128(0, 0)")
        ctype = dtype_to_ctype(self.dtype)
        if self.dtype == np.float16:
            raise TypeError(f"{type(self).__name__}: float16 is not supported (scan in "
                            f"float32 and convert)")
        self.name_prefix = name_prefix
        self.options = options
        tag = tools.unique_tag((ctype, scan_expr, neutral, preamble))
        self._p = f"{name_prefix}{tag}"
        self.source = (tools.KERNEL_PREAMBLE + f"\ntypedef {ctype} T;\n" + preamble + "\n"
                       + _SCAN_SRC.format(p=self._p, scan_expr=scan_expr, neutral=neutral,
                                          block=BLOCK, items=ITEMS))
        self._fns = {}

    def _functions(self, ctx):
        fns = self._fns.get(ctx)
        if fns is None:
            kw = {} if self.options is None else {"options": self.options}
            mod = _ew.source_module(self.source, **kw)
            fn = mod.get_function(f"{self._p}_scan")
            fns = self._fns[ctx] = (fn, _resident_blocks(fn, ctx))
        return fns

    def __call__(self, input_ary, output_ary=None, allocator=None, stream=None):
        from pycudac.gpuarray import GPUArray
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
        scan_fn, resident = self._functions(ctx)
        tile = BLOCK * ITEMS
        ntiles = (n + tile - 1) // tile
        groups = min(ntiles, resident, tile)
        chunk = ((ntiles + groups - 1) // groups) * tile
        groups = (n + chunk - 1) // chunk
        blk = (BLOCK, 1, 1)
        if groups == 1:
            scan_fn(output_ary.ptr, input_ary.ptr, 0, 0, n, chunk, self.exclusive, block=blk,
                    grid=(1, 1), stream=stream)
            return output_ary
        sums = GPUArray((groups,), self.dtype)
        scan_fn(0, input_ary.ptr, 0, sums.ptr, n, chunk, 2, block=blk, grid=(groups, 1),
                stream=stream)
        scan_fn(sums.ptr, sums.ptr, 0, 0, groups, groups, 1, block=blk, grid=(1, 1),
                stream=stream)
        scan_fn(output_ary.ptr, input_ary.ptr, sums.ptr, 0, n, chunk, self.exclusive,
                block=blk, grid=(groups, 1), stream=stream)
        return output_ary


class InclusiveScanKernel(_ScanKernel):
    """out[i] = in[0] (op) in[1] (op) ... (op) in[i]."""
    exclusive = 0


class ExclusiveScanKernel(_ScanKernel):
    """out[i] = neutral (op) in[0] (op) ... (op) in[i-1]."""
    exclusive = 1
