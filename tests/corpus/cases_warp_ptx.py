"""The corpus's cases for warp_shuffle.cu and inline_ptx.cu. warp_shuffle.cu: shuffles
with a width (out-of-range lanes, srcLane modulo width, xor across segments) on 4- and
8-byte types, warp and logical-warp scans and reductions, partial masks in divergent
branches, warp match on 32/64-bit and float keys. inline_ptx.cu: inline PTX (bit fields,
byte permute, lop3, funnel shifts, bit scans, carry chains, %laneid and the lane masks,
vote.sync and shfl.sync with its predicate).

References come from the documented semantics, in Python integers: shuffles from the PTX
ISA's shfl.sync pseudo-code with the c operand the CUDA headers build from `width`
(((32 - width) << 8) | 31 for idx/down/bfly, (32 - width) << 8 for up), and every PTX
instruction from its definition in the PTX ISA.

Each module appends its cases to registry.CASES when imported (cases.py imports them all).
"""
import numpy as np

from registry import In, InOut, Out, Val, case

M32 = (1 << 32) - 1
M64 = (1 << 64) - 1

# The simulator refuses inline PTX (`asm`) when it compiles inline_ptx.cu, so no kernel of
# that file runs there (docs/simulator.md, "What it cannot run"); cases.SOURCES records it.
# warp_shuffle.cu has no asm: its kernels run on the simulator.
ASM_REFUSED = ("the simulator refuses the file's inline PTX: CompileError 'inline assembly "
               "(`asm`: PTX) cannot run on the pycudac CPU simulator'")
ASM_RAISES = ("CompileError",)


# ---- the shuffle, as the PTX ISA defines shfl.sync ------------------------------------------

def _shfl_c(mode, width):
    seg = (32 - width) << 8
    return seg if mode == "up" else seg | 31


def _shfl(warp, lane, mode, b, width):
    """The value lane `lane` gets from shfl.sync.`mode` of `warp` (its 32 lanes' values),
    operand b (lane, offset or xor mask) and the c that CUDA's __shfl_*_sync builds for
    `width`."""
    c = _shfl_c(mode, width)
    bval, cval, segmask = b & 31, c & 31, (c >> 8) & 31
    max_lane = (lane & segmask) | (cval & ~segmask & 31)
    min_lane = lane & segmask
    if mode == "up":
        j = lane - bval
        ok = j >= max_lane
    elif mode == "down":
        j = lane + bval
        ok = j <= max_lane
    elif mode == "bfly":
        j = lane ^ bval
        ok = j <= max_lane
    else:
        j = min_lane | (bval & ~segmask & 31)
        ok = j <= max_lane
    return warp[j] if ok else warp[lane]


def _warps(a):
    return a.reshape(-1, 32)


def _src_lanes(r, n):
    s = r.integers(-70, 70, n).astype(np.int32)
    s[:12] = [-1, -8, -32, -33, 32, 33, 63, 64, 7, 15, -2 ** 31, 2 ** 31 - 1]
    return s


# ---- shfl_int_edges -------------------------------------------------------------------------

def _shfl_int_make(r):
    n = 128
    x = r.integers(-2 ** 31, 2 ** 31, n, dtype=np.int64).astype(np.int32)
    return dict(x=x, src=_src_lanes(r, n), delta=np.int32(2), o=np.zeros(8 * n, np.int32),
                ou=np.zeros(4 * n, np.uint32))


def _shfl_int_ref(d):
    delta = int(d["delta"])
    o, ou = [], []
    for xw, sw in zip(_warps(d["x"]), _warps(d["src"])):
        v = [int(t) for t in xw]
        u = [(t * 2654435761) & M32 for t in v]
        for lane in range(32):
            s = int(sw[lane])
            o += [_shfl(v, lane, "idx", s, 8), _shfl(v, lane, "idx", s, 32),
                  _shfl(v, lane, "up", 3, 8), _shfl(v, lane, "down", 5, 16),
                  _shfl(v, lane, "bfly", 8, 8), _shfl(v, lane, "bfly", 20, 16),
                  _shfl(v, lane, "down", delta, 8), _shfl(v, lane, "up", 16, 16)]
            ou += [_shfl(u, lane, "idx", 31 - lane, 32), _shfl(u, lane, "down", 31, 32),
                   _shfl(u, lane, "idx", s, 1), _shfl(u, lane, "up", delta, 4)]
    return {"o": np.array(o, np.int32), "ou": np.array(ou, np.uint32)}


case(id="warp_shuffle_shfl_width_int_unsigned", src="warp_shuffle.cu",
     kernel="shfl_int_edges",
     make=_shfl_int_make, args=(In("x"), In("src"), Val("delta"), Out("o"), Out("ou")),
     block=(64, 1, 1), grid=(2, 1), expect=_shfl_int_ref,
     tags=("warp_shuffle", "shfl_width"))


# ---- shfl_wide_edges ------------------------------------------------------------------------

def _shfl_wide_make(r):
    n = 128
    f = (r.standard_normal(n) * 10.0 ** r.integers(-5, 6, n)).astype(np.float32)
    f[:6] = [-0.0, np.inf, -np.inf, 1e-45, np.finfo(np.float32).max, 0.0]
    fb = f.view(np.uint32)
    fb[6] = 0x7fc00001                           # NaNs with payloads: moved as bits
    fb[40] = 0xffbadbad
    d = r.standard_normal(n) * 10.0 ** r.integers(-300, 300, n)
    d[:5] = [-0.0, np.inf, 5e-324, -np.finfo(np.float64).max, 1.0 + 2 ** -52]
    d.view(np.uint64)[5] = 0x7ff8dead0000beef
    lo = r.integers(-2 ** 63, 2 ** 63, n, dtype=np.int64)
    lo[:4] = [-2 ** 63, 2 ** 63 - 1, -1, 0x00000001ffffffff]   # halves that differ
    return dict(f=f, d=d, l=lo, src=_src_lanes(r, n), of=np.zeros(4 * n, np.float32),
                od=np.zeros(3 * n), ol=np.zeros(3 * n, np.int64))


def _shfl_wide_check(d, b):
    of, od, ol = [], [], []
    for fw, dw, lw, sw in zip(_warps(b["f"].view(np.uint32)), _warps(b["d"].view(np.uint64)),
                              _warps(b["l"]), _warps(b["src"])):
        f, dd, ll = [int(t) for t in fw], [int(t) for t in dw], [int(t) for t in lw]
        for lane in range(32):
            s = int(sw[lane])
            of += [_shfl(f, lane, "idx", s, 16), _shfl(f, lane, "down", 1, 8),
                   _shfl(f, lane, "bfly", 1, 2), _shfl(f, lane, "up", 7, 8)]
            od += [_shfl(dd, lane, "idx", s, 8), _shfl(dd, lane, "up", 2, 16),
                   _shfl(dd, lane, "bfly", 4, 4)]
            ol += [_shfl(ll, lane, "idx", s, 16), _shfl(ll, lane, "down", 3, 8),
                   _shfl(ll, lane, "bfly", 16, 16)]
    # bit for bit: -0.0 and NaN payloads must arrive unchanged
    np.testing.assert_array_equal(d["of"].view(np.uint32), np.array(of, np.uint32), "float")
    np.testing.assert_array_equal(d["od"].view(np.uint64), np.array(od, np.uint64), "double")
    np.testing.assert_array_equal(d["ol"], np.array(ol, np.int64), "long long")


case(id="warp_shuffle_shfl_width_float_double_longlong", src="warp_shuffle.cu",
     kernel="shfl_wide_edges",
     make=_shfl_wide_make,
     args=(In("f"), In("d"), In("l"), In("src"), Out("of"), Out("od"), Out("ol")),
     block=(128, 1, 1), grid=(1, 1), check=_shfl_wide_check,
     tags=("warp_shuffle", "shfl_width", "double", "long_long"))


# ---- block_scan_shfl ------------------------------------------------------------------------

def _block_scan_ref(d):
    x = d["x"].astype(np.int64)
    n, bs = x.size, 128
    pad = np.concatenate([x, np.zeros(-n % bs, np.int64)]).reshape(-1, bs)
    incl = np.cumsum(pad, axis=1)
    return {"incl": incl.ravel()[:n], "excl": (incl - pad).ravel()[:n], "tot": incl[:, -1]}


case(id="warp_shuffle_block_scan_shfl_up", src="warp_shuffle.cu", kernel="block_scan_shfl",
     make=lambda r: dict(x=r.integers(-1000, 1000, 347).astype(np.int32),
                         incl=np.zeros(347, np.int32), excl=np.zeros(347, np.int32),
                         tot=np.zeros(3, np.int32), n=np.int32(347)),
     args=(In("x"), Out("incl"), Out("excl"), Out("tot"), Val("n")), block=(128, 1, 1),
     grid=(3, 1), expect=_block_scan_ref, tags=("warp_shuffle", "scan"))


# ---- subwarp_scan_reduce --------------------------------------------------------------------

def _subwarp_make(r):
    n = 256
    dv = r.integers(-2 ** 40, 2 ** 40, n).astype(np.float64)    # integers: exact sums
    fv = r.standard_normal(n).astype(np.float32) * 100
    fv[20:36] = -np.inf                                           # a whole 16-lane segment
    fv[50] = np.inf
    iv = r.integers(-2 ** 31, 2 ** 31, n, dtype=np.int64).astype(np.int32)
    iv[64:72] = -2 ** 31
    return dict(dv=dv, fv=fv, iv=iv, dscan8=np.zeros(n), fmax16=np.zeros(n, np.float32),
                fsum8=np.zeros(n, np.float32), imax8=np.zeros(n, np.int32))


def _subwarp_ref(d):
    seg8 = d["dv"].reshape(-1, 8)
    f16 = d["fv"].reshape(-1, 16)
    f8 = d["fv"].reshape(-1, 8).astype(np.float64)
    with np.errstate(invalid="ignore"):
        fsum = np.repeat(f8.sum(axis=1), 8)
    return {"dscan8": np.cumsum(seg8, axis=1).ravel(),
            "fmax16": np.maximum.accumulate(f16, axis=1).ravel(),
            "fsum8": fsum.astype(np.float32),
            "imax8": np.repeat(d["iv"].reshape(-1, 8).max(axis=1), 8)}


def _subwarp_make_sums(r):
    d = _subwarp_make(r)
    # the float butterfly sum adds in a different order per lane: keep it exact with
    # integer values (the infinities stay: inf + finite is inf in any order)
    fin = np.isfinite(d["fv"])
    d["fv"][fin] = np.round(d["fv"][fin])
    return d


case(id="warp_shuffle_subwarp_scan8_max16_xor8", src="warp_shuffle.cu",
     kernel="subwarp_scan_reduce",
     make=_subwarp_make_sums,
     args=(In("dv"), In("fv"), In("iv"), Out("dscan8"), Out("fmax16"), Out("fsum8"), Out("imax8")),
     block=(128, 1, 1), grid=(2, 1), expect=_subwarp_ref,
     tags=("warp_shuffle", "shfl_width", "scan", "reduction", "partial_mask"))


# ---- divergent_ballot_filter ----------------------------------------------------------------

def _filter_make(r):
    n = 256
    v = r.integers(-20, 21, n).astype(np.int32)
    v[0:32] = r.integers(1, 50, 32)          # warp 0: every lane positive
    v[32:64] = -r.integers(0, 5, 32)         # warp 1: none (zeros among them)
    v[64:96] = 0
    v[64 + 13] = 7                           # warp 2: one positive lane
    v[96:128] = np.where(np.arange(32) % 3 == 0, 5, -1)
    return dict(v=v, info=np.zeros(4 * n, np.uint32), out=np.zeros(n, np.int32),
                count=np.zeros(1, np.int32))


def _filter_check(d, b):
    v = b["v"]
    info = []
    for w in _warps(v):
        w = [int(t) for t in w]
        pos = [k for k in range(32) if w[k] > 0]
        rest = [k for k in range(32) if w[k] <= 0]
        pm, rm = sum(1 << k for k in pos), sum(1 << k for k in rest)
        odd = sum(1 << k for k in pos if w[k] & 1)
        zero = sum(1 << k for k in rest if w[k] == 0)
        for lane in range(32):
            if w[lane] > 0:
                above = [k for k in pos if k > lane]
                nxt = above[0] if above else pos[0]
                info += [pm, odd, bin(odd).count("1"), w[nxt] & M32]
            else:
                info += [rm, zero, bin(zero).count("1"), w[rest[0]] & M32]
    np.testing.assert_array_equal(d["info"], np.array(info, np.uint32), "info")
    want = np.sort(v[v > 0])
    assert int(d["count"][0]) == want.size, (int(d["count"][0]), want.size)
    # the groups' atomics land in any order: the kept values are the positive ones
    np.testing.assert_array_equal(np.sort(d["out"][:want.size]), want, "out")
    np.testing.assert_array_equal(d["out"][want.size:], 0, "out tail")


case(id="warp_shuffle_divergent_ballot_aggregated_filter", src="warp_shuffle.cu",
     kernel="divergent_ballot_filter", make=_filter_make,
     args=(In("v"), Out("info"), InOut("out"), InOut("count")), block=(128, 1, 1), grid=(2, 1),
     check=_filter_check,
     tags=("warp_vote", "activemask", "partial_mask", "syncwarp", "atomics"))


# ---- match_peers_histogram ------------------------------------------------------------------

def _match_make(r):
    n = 128
    key = r.integers(0, 16, n).astype(np.int32)
    key[0:32] = 9                                    # warp 0: one key (match_all holds)
    key[32:64] = r.integers(0, 3, 32)                # warp 1: three groups
    key[96:128] = np.arange(32) % 16                 # warp 3: pairs
    key[96:112] = 4 + (np.arange(16) & 3)            # low half: keys 4..7, k >> 2 == 1
    key64 = r.integers(0, 4, n).astype(np.uint64)
    key64[32:64] |= (r.integers(0, 2, 32).astype(np.uint64) << np.uint64(40))  # high bits only
    key64[64:96] = np.where(np.arange(32) % 2, np.uint64(0x7fffffff00000000),
                             np.uint64(0xffffffff00000000))
    fkey = r.integers(0, 3, n).astype(np.float32)
    fkey[0:8] = [0.0, -0.0, 0.0, -0.0, 1.0, 1.0, 2.0, 0.0]
    fb = fkey.view(np.uint32)
    fb[8:12] = [0x7fc00000, 0x7fc00000, 0x7fc00001, 0xffc00000]  # NaNs: equal bits match
    z = np.zeros(n, np.int32)
    u = np.zeros(n, np.uint32)
    return dict(key=key, val=r.integers(-1000, 1000, n).astype(np.int32), key64=key64, fkey=fkey,
                peers=u.copy(), psum=z.copy(), all=u.copy(), pred=z.copy(),
                all16=np.full(n, 0xdeadbeef, np.uint32), pred16=np.full(n, -7, np.int32),
                peers64=u.copy(), peersf=u.copy(), hist=np.zeros(16, np.int32))


def _peers(w):
    return [sum(1 << j for j in range(len(w)) if w[j] == w[k]) for k in range(len(w))]


def _match_ref(d):
    peers, psum, allm, pred, all16, pred16, p64, pf = ([] for _ in range(8))
    for kw, vw, k64, fk in zip(_warps(d["key"]), _warps(d["val"]), _warps(d["key64"]),
                               _warps(d["fkey"].view(np.uint32))):
        k = [int(t) for t in kw]
        p = _peers(k)
        peers += p
        psum += [sum(int(vw[j]) for j in range(32) if p[lane] >> j & 1) for lane in range(32)]
        same = len(set(k)) == 1
        allm += [M32 if same else 0] * 32
        pred += [int(same)] * 32
        same16 = len({t >> 2 for t in k[:16]}) == 1
        all16 += [0xffff if same16 else 0] * 16 + [0xdeadbeef] * 16
        pred16 += [int(same16)] * 16 + [-7] * 16
        p64 += _peers([int(t) for t in k64])
        pf += _peers([int(t) for t in fk])
    return {"peers": peers, "psum": psum, "all": allm, "pred": pred, "all16": all16,
            "pred16": pred16, "peers64": p64, "peersf": pf,
            "hist": np.bincount(d["key"], minlength=16)}


case(id="warp_shuffle_match_any_all_peer_aggregation", src="warp_shuffle.cu",
     kernel="match_peers_histogram",
     make=_match_make,
     args=(In("key"), In("val"), In("key64"), In("fkey"), Out("peers"), Out("psum"), Out("all"),
           Out("pred"), InOut("all16"), InOut("pred16"), Out("peers64"), Out("peersf"),
           InOut("hist")),
     block=(64, 1, 1), grid=(2, 1), expect=_match_ref,
     tags=("warp_match", "partial_mask", "atomics"))


# ---- ptx_bit_ops ----------------------------------------------------------------------------

def _bit(v, k):
    return v >> k & 1


def _bfe(a, b, c, signed):
    pos, ln = b & 0xff, c & 0xff
    sbit = _bit(a, min(pos + ln - 1, 31)) if signed and ln else 0
    return sum((_bit(a, pos + k) if k < ln and pos + k <= 31 else sbit) << k for k in range(32))


def _bfi(a, b, c, d):
    pos, ln = c & 0xff, d & 0xff
    f = b
    for k in range(ln):
        if pos + k > 31:
            break
        f = (f & ~(1 << pos + k)) | (_bit(a, k) << pos + k)
    return f & M32


def _prmt(a, b, c):
    src = (a | b << 32).to_bytes(8, "little")
    out = 0
    for k in range(4):
        sel = c >> 4 * k & 0xf
        byte = src[sel & 7]
        if sel & 8:
            byte = 0xff if byte & 0x80 else 0
        out |= byte << 8 * k
    return out


def _lop3(a, b, c, lut):
    return sum(_bit(lut, _bit(a, k) << 2 | _bit(b, k) << 1 | _bit(c, k)) << k for k in range(32))


def _s32(v):
    v &= M32
    return v - (1 << 32) if v >> 31 else v


def _bfind_s(a):
    a = _s32(a)
    if a < 0:
        a = ~a
    return a.bit_length() - 1 if a else M32


def _dp4a(a, b, c):
    def sbyte(v, k):
        return ((v >> 8 * k & 0xff) ^ 0x80) - 0x80
    return (_s32(c) + sum(sbyte(a, k) * sbyte(b, k) for k in range(4))) & M32


def _bit_ops_ref(d):
    out = []
    for a, b, c, p, ln in zip(*(d[k].tolist() for k in ("a", "b", "c", "pos", "len"))):
        v = b << 32 | a
        out += [_bfe(a, p, ln, False), _bfe(a, p, ln, True), _bfi(a, b, p, ln), _prmt(a, b, c),
                _lop3(a, b, c, 0x96), _lop3(a, b, c, 0xE8), _lop3(a, b, c, 0xCA),
                _lop3(a, b, c, 0x1E),
                (v << (p & 31)) >> 32 & M32, v >> min(p, 32) & M32,
                int(format(a, "032b")[::-1], 2), bin(a).count("1"), 32 - a.bit_length(),
                a.bit_length() - 1 if a else M32, 32 - a.bit_length() if a else M32,
                _bfind_s(a), (_s32(a) * _s32(b) + _s32(c)) & M32, _dp4a(a, b, c)]
    return {"o": np.array(out, np.uint32)}


def _words32(r, n, edges):
    w = r.integers(0, 2 ** 32, n, dtype=np.uint64) >> r.integers(0, 32, n).astype(np.uint64)
    w[:len(edges)] = edges
    return w.astype(np.uint32)


def _bit_ops_make(r):
    n = 600
    edges = [0, 1, M32, 0x80000000, 0x7fffffff, 0x00ff00ff, 0xdeadbeef, 0x80808080, 0x7f7f7f7f,
             0x00000100, 0x12345678, 0xfffffffe]
    pos = r.integers(0, 40, n).astype(np.uint32)
    ln = r.integers(0, 40, n).astype(np.uint32)
    pos[:16] = [0, 31, 32, 33, 255, 256, 0x120, 0x105, 28, 1, 16, 0, 31, 24, 8, 4]
    ln[:16] = [32, 1, 5, 0, 255, 8, 4, 0x108, 8, 31, 16, 0, 33, 0x100, 255, 28]
    pos[16:24] = r.integers(0, 2 ** 32, 8, dtype=np.uint64)    # shift counts past 32
    c = _words32(r, n, [0x3210, 0x7654, 0x8888, 0xfedcba98, 0x0000b1f0, 0x89ab4567, 0, M32,
                        0x5140, 0xcccc, 0x0123, 0x9a5e])
    c[100:200] = r.integers(0, 2 ** 16, 100)                   # selectors of any nibbles
    return dict(a=_words32(r, n, edges), b=_words32(r, n, edges[::-1]), c=c, pos=pos, len=ln,
                o=np.zeros(18 * n, np.uint32), n=np.int32(n))


case(id="inline_ptx_bfe_bfi_prmt_lop3_shf_bfind", src="inline_ptx.cu", kernel="ptx_bit_ops",
     make=_bit_ops_make,
     args=(In("a"), In("b"), In("c"), In("pos"), In("len"), Out("o"), Val("n")),
     block=(128, 1, 1), grid=(5, 1), expect=_bit_ops_ref,
     xfail_sim=ASM_REFUSED, raises=ASM_RAISES,
     tags=("inline_ptx", "intrinsics", "bfe", "prmt", "lop3", "funnelshift"))


# ---- ptx_carry_chain ------------------------------------------------------------------------

def _carry_make(r):
    n = 500
    x = r.integers(0, 2 ** 64, n, dtype=np.uint64, endpoint=False)
    y = r.integers(0, 2 ** 64, n, dtype=np.uint64, endpoint=False)
    x >>= r.integers(0, 64, n).astype(np.uint64)
    edges = [(0, 0), (M64, 1), (M32, 1), (1, 2), (1 << 63, 1 << 63), (M64, M64), (0, M64),
             (M32, M32), (1 << 32, 1), (0x80000000, 0x80000000)]
    for k, (p, q) in enumerate(edges):
        x[k], y[k] = p, q
    a = r.integers(0, 2 ** 32, 4 * n, dtype=np.uint64).astype(np.uint32)
    b = r.integers(0, 2 ** 32, 4 * n, dtype=np.uint64).astype(np.uint32)
    a[:8] = [M32, M32, M32, M32, M32, M32, M32, 0x7fffffff]   # carries through every limb
    b[:8] = [1, 0, 0, 0, 1, 0, 0, 0]
    return dict(x=x, y=y, a=a, b=b, o64=np.zeros(5 * n, np.uint64),
                o128=np.zeros(9 * n, np.uint32), n=np.int32(n))


def _limbs(v, k):
    return [v >> 32 * j & M32 for j in range(k)]


def _carry_ref(d):
    o64, o128 = [], []
    a, b = d["a"].reshape(-1, 4).tolist(), d["b"].reshape(-1, 4).tolist()
    for x, y, la, lb in zip(d["x"].tolist(), d["y"].tolist(), a, b):
        o64 += [(x + y) & M64, (x - y) & M64, M32 if x < y else 0,
                (_s32(x) * _s32(y)) & M64, (x >> 32) * (y >> 32)]
        s = sum(w << 32 * j for j, w in enumerate(la)) + sum(w << 32 * j for j, w in enumerate(lb))
        o128 += _limbs(s, 5) + _limbs(x * y, 4)
    return {"o64": np.array(o64, np.uint64), "o128": np.array(o128, np.uint32)}


case(id="inline_ptx_addc_carry_chain_mul_wide", src="inline_ptx.cu",
     kernel="ptx_carry_chain",
     make=_carry_make,
     args=(In("x"), In("y"), In("a"), In("b"), Out("o64"), Out("o128"), Val("n")),
     block=(128, 1, 1), grid=(4, 1), expect=_carry_ref,
     xfail_sim=ASM_REFUSED, raises=ASM_RAISES,
     tags=("inline_ptx", "carry_chain", "mul_wide"))


# ---- ptx_warp_scan --------------------------------------------------------------------------

def _ptx_scan_make(r):
    n = 2 * 96
    v = r.integers(-100, 100, n).astype(np.int32)
    v[96:128] = np.abs(v[96:128])            # a warp without negatives
    v[160:192] = -1 - np.abs(v[160:192])     # and one all negative
    return dict(v=v, o=np.zeros(8 * n, np.uint32), s=np.zeros(n, np.int32),
                t=np.zeros(n, np.int32))


def _ptx_scan_ref(d):
    o, s, t = [], [], []
    for w in _warps(d["v"]):       # block (8, 12): linear thread ids, three warps a block
        w = [int(x) for x in w]
        neg = sum(1 << k for k in range(32) if w[k] < 0)
        for lane in range(32):
            lt = (1 << lane) - 1
            o += [lane, lt, lt | 1 << lane, M32 & ~(lt | 1 << lane), M32 & ~lt, 1 << lane, neg,
                  bin(neg & lt).count("1")]
        for h in (w[:16], w[16:]):
            c = np.cumsum(h).tolist()
            s += c
            t += [c[-1]] * 16
    return {"o": np.array(o, np.uint32), "s": s, "t": t}


case(id="inline_ptx_laneid_lanemask_vote_shfl_pred_scan", src="inline_ptx.cu",
     kernel="ptx_warp_scan", make=_ptx_scan_make,
     args=(In("v"), Out("o"), Out("s"), Out("t")), block=(8, 12, 1), grid=(2, 1),
     expect=_ptx_scan_ref, xfail_sim=ASM_REFUSED, raises=ASM_RAISES,
     tags=("inline_ptx", "laneid", "warp_vote", "warp_shuffle", "scan", "block_2d"))
