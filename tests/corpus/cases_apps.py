"""The corpus's cases for whole small programs and warp- and block-level features:
Mandelbrot and Julia, Black-Scholes, Monte Carlo pi, vector types, half and
bfloat16, warp vote and match, cooperative groups, atomics and sync counts.

Each module appends its cases to registry.CASES when imported (cases.py
imports them all)."""
import math

import numpy as np

from cases_samples import _check_filter
from registry import In, InOut, Out, Val, case, cdiv, chunk_sums, grid_stride_block_sums, \
    ints_as_floats


# ---- mandelbrot.cu --------------------------------------------------------------------------

def _mandel_ref(d):
    w, h, it_max = int(d["w"]), int(d["h"]), int(d["it"])
    f = np.float32
    cr = (f(d["x0"]) + np.arange(w, dtype=f) * f(d["s"]))[None, :].repeat(h, 0)
    ci = (f(d["y0"]) + np.arange(h, dtype=f) * f(d["s"]))[:, None].repeat(w, 1)
    zr = np.zeros((h, w), f)
    zi = np.zeros((h, w), f)
    its = np.zeros((h, w), np.int32)
    for _ in range(it_max):
        live = zr * zr + zi * zi <= f(4)
        t = zr * zr - zi * zi + cr
        zi = np.where(live, f(2) * zr * zi + ci, zi)
        zr = np.where(live, t, zr)
        its += live
    return its


def _check_mostly_equal(key, ref, frac):
    def check(d, before):
        got, want = d[key], ref(before)
        bad = np.count_nonzero(got != want)
        assert bad <= frac * got.size, f"{bad} of {got.size} pixels differ"
        assert np.any(want != want.flat[0])  # a picture, not a constant
    return check


case(id="mandelbrot", src="mandelbrot.cu", kernel="mandelbrot",
     make=lambda r: dict(out=np.zeros((64, 96), np.int32), w=np.int32(96), h=np.int32(64),
                         x0=np.float32(-2.0), y0=np.float32(-1.0), s=np.float32(3.0 / 96),
                         it=np.int32(64)),
     args=(Out("out"), Val("w"), Val("h"), Val("x0"), Val("y0"), Val("s"), Val("it")),
     block=(16, 16, 1), grid=(6, 4),
     check=_check_mostly_equal("out", _mandel_ref, 0.01), tags=("fractal", "2d"))


def _julia_ref(d):
    dim = int(d["dim"])
    f = np.float32
    x = np.arange(dim)
    jx = (f(1.5) * (dim // 2 - x).astype(f) / f(dim // 2))[None, :].repeat(dim, 0)
    jy = (f(1.5) * (dim // 2 - x).astype(f) / f(dim // 2))[:, None].repeat(dim, 1)
    ar, ai = jx.copy(), jy.copy()
    alive = np.ones((dim, dim), bool)
    with np.errstate(over="ignore", invalid="ignore"):
        for _ in range(200):
            ar, ai = ar * ar - ai * ai + f(-0.8), ai * ar + ar * ai + f(0.156)
            alive &= ~(ar * ar + ai * ai > 1000)
    return np.where(alive, 255, 0).astype(np.uint8)


case(id="julia_kernel", src="mandelbrot.cu", kernel="julia_kernel",
     make=lambda r: dict(bmp=np.zeros((64, 64), np.uint8), dim=np.int32(64)),
     args=(Out("bmp"), Val("dim")), block=(1, 1, 1), grid=(64, 64),
     check=_check_mostly_equal("bmp", _julia_ref, 0.01), tags=("fractal", "struct_methods"))


# ---- black_scholes.cu -------------------------------------------------------------------------

def _bs_make(r):
    n = 4000
    return dict(call=np.zeros(n, np.float32), put=np.zeros(n, np.float32),
                s=r.uniform(5, 30, n).astype(np.float32), x=r.uniform(1, 100, n).astype(np.float32),
                t=r.uniform(0.25, 10, n).astype(np.float32), rf=np.float32(0.02),
                v=np.float32(0.30), n=np.int32(n))


def _bs_ref(d):
    S, X, T = (d[k].astype(np.float64) for k in ("s", "x", "t"))
    R, V = float(d["rf"]), float(d["v"])

    def cnd(z):
        k = 1.0 / (1.0 + 0.2316419 * np.abs(z))
        c = 0.3989422804014327 * np.exp(-0.5 * z * z) * (
            k * (0.31938153 + k * (-0.356563782 + k * (1.781477937 + k * (-1.821255978 +
                                                                          k * 1.330274429)))))
        return np.where(z > 0, 1.0 - c, c)

    d1 = (np.log(S / X) + (R + 0.5 * V * V) * T) / (V * np.sqrt(T))
    d2 = d1 - V * np.sqrt(T)
    e = np.exp(-R * T)
    return {"call": S * cnd(d1) - X * e * cnd(d2),
            "put": X * e * (1.0 - cnd(d2)) - S * (1.0 - cnd(d1))}


case(id="BlackScholesGPU", src="black_scholes.cu", kernel="BlackScholesGPU", make=_bs_make,
     args=(Out("call"), Out("put"), In("s"), In("x"), In("t"), Val("rf"), Val("v"), Val("n")),
     block=(128, 1, 1), grid=(16, 1), expect=_bs_ref, rtol=1e-3, atol=2e-3,
     tags=("finance", "intrinsics"))


# ---- monte_carlo_pi.cu --------------------------------------------------------------------------

def _pi_ref(kind, nthreads, trials, seed):
    tid = np.arange(nthreads, dtype=np.uint64)
    m32 = np.uint64(0xffffffff)
    if kind == "lcg":
        s = (np.uint64(seed) ^ ((tid * np.uint64(2654435761)) & m32)) & m32
    else:
        s = (np.uint64(seed) + tid * np.uint64(747796405) + np.uint64(1)) & m32
    hits = np.zeros(nthreads, np.uint64)

    def step(s):
        if kind == "lcg":
            s = (np.uint64(1664525) * s + np.uint64(1013904223)) & m32
        else:
            s = s ^ ((s << np.uint64(13)) & m32)
            s = s ^ (s >> np.uint64(17))
            s = s ^ ((s << np.uint64(5)) & m32)
        return s

    for _ in range(trials):
        s = step(s)
        x = s >> np.uint64(20)
        s = step(s)
        y = s >> np.uint64(20)
        hits += (x * x + y * y < np.uint64(4096 * 4096))
    return int(hits.sum())


def _pi_check(kind):
    def check(d, before):
        count = int(d["total"][0])
        assert count == _pi_ref(kind, 8 * 256, int(before["trials"]), int(before["seed"]))
        assert abs(4.0 * count / (8 * 256 * int(before["trials"])) - math.pi) < 0.02
    return check


for _kind in ("lcg", "xorshift"):
    case(id=f"pi_{_kind}", src="monte_carlo_pi.cu", kernel=f"pi_{_kind}",
         make=lambda r: dict(total=np.zeros(1, np.uint64), trials=np.int32(64),
                             seed=np.uint32(12345)),
         args=(InOut("total"), Val("trials"), Val("seed")), block=(256, 1, 1), grid=(8, 1),
         check=_pi_check(_kind), tags=("monte_carlo", "atomics", "rng"))


# ---- vector_types.cu ------------------------------------------------------------------------------

case(id="device_copy_vector4_kernel", src="vector_types.cu", kernel="device_copy_vector4_kernel",
     make=lambda r: dict(o=np.zeros(1003, np.int32), i=r.integers(-10**9, 10**9, 1003).astype(np.int32),
                         n=np.int32(1003)),
     args=(Out("o"), In("i"), Val("n")), block=(128, 1, 1), grid=(2, 1),
     expect=lambda d: {"o": d["i"]}, tags=("int4", "vector_types"))


def _integrate_ref(d):
    p = d["pos"].copy()
    p[:, :3] = p[:, :3] + d["vel"][:, :3] * d["dt"]
    return {"pos": p}


case(id="integrate_float4", src="vector_types.cu", kernel="integrate_float4",
     make=lambda r: dict(pos=r.standard_normal((500, 4)).astype(np.float32),
                         vel=r.standard_normal((500, 4)).astype(np.float32),
                         dt=np.float32(0.01), n=np.int32(500)),
     args=(InOut("pos"), In("vel"), Val("dt"), Val("n")), block=(128, 1, 1), grid=(4, 1),
     expect=_integrate_ref, rtol=1e-6, atol=1e-6, tags=("float4", "vector_types"))


def _cmul_ref(d):
    a = d["a"][:, 0].astype(np.complex128) + 1j * d["a"][:, 1]
    b = d["b"][:, 0].astype(np.complex128) + 1j * d["b"][:, 1]
    c = a * b * float(d["s"])
    return {"c": np.stack([c.real, c.imag], axis=1)}


case(id="complex_pointwise_mul_float2", src="vector_types.cu", kernel="complex_pointwise_mul",
     make=lambda r: dict(a=r.standard_normal((777, 2)).astype(np.float32),
                         b=r.standard_normal((777, 2)).astype(np.float32),
                         c=np.zeros((777, 2), np.float32), s=np.float32(0.5), n=np.int32(777)),
     args=(In("a"), In("b"), Out("c"), Val("s"), Val("n")), block=(64, 1, 1), grid=(4, 1),
     expect=_cmul_ref, rtol=1e-5, atol=1e-5, tags=("float2", "vector_types"))


def _grey_ref(d):
    p = d["rgba"].astype(np.float32)
    g = np.float32(.299) * p[..., 0] + np.float32(.587) * p[..., 1] + np.float32(.114) * p[..., 2]
    return {"grey": g.astype(np.uint8)}


case(id="rgba_to_greyscale_uchar4", src="vector_types.cu", kernel="rgba_to_greyscale",
     make=lambda r: dict(rgba=r.integers(0, 256, (40, 50, 4)).astype(np.uint8),
                         grey=np.zeros((40, 50), np.uint8), rows=np.int32(40), cols=np.int32(50)),
     args=(In("rgba"), Out("grey"), Val("rows"), Val("cols")), block=(16, 16, 1), grid=(4, 3),
     expect=_grey_ref, atol=1, tags=("uchar4", "vector_types", "2d"))


def _cx(r, n):
    return (r.standard_normal(n) + 1j * r.standard_normal(n)).astype(np.complex64)


case(id="cuComplex_pointwise_mul_scale", src="cucomplex.cu", kernel="ComplexPointwiseMulAndScale",
     make=lambda r: dict(a=_cx(r, 1000), b=_cx(r, 1000), n=np.int32(1000), s=np.float32(0.25)),
     args=(InOut("a"), In("b"), Val("n"), Val("s")), block=(128, 1, 1), grid=(4, 1),
     expect=lambda d: {"a": d["a"].astype(np.complex128) * np.conj(d["b"]) * 0.25},
     rtol=1e-5, atol=1e-5, tags=("cuComplex",))

case(id="cuComplex_magnitude", src="cucomplex.cu", kernel="spectrum_magnitude",
     make=lambda r: dict(x=_cx(r, 500), off=np.array([0.5 - 0.25j], np.complex64),
                         m=np.zeros(500, np.float32), n=np.int32(500)),
     args=(In("x"), In("off"), Out("m"), Val("n")), block=(128, 1, 1), grid=(4, 1),
     expect=lambda d: {"m": np.abs(d["x"].astype(np.complex128) + d["off"][0])},
     rtol=1e-5, atol=1e-6, tags=("cuComplex",))


# ---- half_precision.cu, bfloat16.cu ----------------------------------------------------------------

case(id="haxpy_half2", src="half_precision.cu", kernel="haxpy",
     make=lambda r: dict(n=np.int32(1001), a=np.float16(0.5),
                         x=(r.standard_normal(1001) * 4).astype(np.float16),
                         y=(r.standard_normal(1001) * 4).astype(np.float16)),
     args=(Val("n"), Val("a"), In("x"), InOut("y")), block=(128, 1, 1), grid=(4, 1),
     expect=lambda d: {"y": (float(d["a"]) * d["x"].astype(np.float64) + d["y"]).astype(np.float16)},
     rtol=1e-3, atol=1e-3, tags=("fp16", "half2"))

case(id="hdot_half2", src="half_precision.cu", kernel="hdot",
     make=lambda r: dict(n2=np.int32(2048), x=r.standard_normal(4096).astype(np.float16),
                         y=r.standard_normal(4096).astype(np.float16),
                         out=np.zeros(1, np.float32)),
     args=(Val("n2"), In("x"), In("y"), InOut("out")), block=(256, 1, 1), grid=(4, 1),
     expect=lambda d: {"out": [np.dot(d["x"].astype(np.float64), d["y"].astype(np.float64))]},
     rtol=1e-4, atol=2e-3, tags=("fp16", "half2", "warp_shuffle", "atomics"))

case(id="half_clamp", src="half_precision.cu", kernel="half_clamp",
     make=lambda r: dict(i=(r.standard_normal(300) * 3).astype(np.float32),
                         o=np.zeros(300, np.float16), lo=np.float32(-1.5), hi=np.float32(2.0),
                         n=np.int32(300)),
     args=(In("i"), Out("o"), Val("lo"), Val("hi"), Val("n")), block=(128, 1, 1), grid=(3, 1),
     expect=lambda d: {"o": np.clip(d["i"].astype(np.float16), np.float16(-1.5), np.float16(2.0))},
     tags=("fp16",))


def _to_bf16(x):
    u = np.asarray(x, np.float32).view(np.uint32).astype(np.uint64)
    return ((u + 0x7fff + ((u >> 16) & 1)) >> 16).astype(np.uint16)


def _from_bf16(b):
    return (np.asarray(b, np.uint16).astype(np.uint32) << 16).view(np.float32)


case(id="bf16_axpy", src="bfloat16.cu", kernel="bf16_axpy",
     make=lambda r: dict(a=np.float32(1.75), x=_to_bf16(r.standard_normal(1000)),
                         y=_to_bf16(r.standard_normal(1000)), n=np.int32(1000)),
     args=(Val("a"), In("x"), InOut("y"), Val("n")), block=(256, 1, 1), grid=(4, 1),
     check=lambda d, b: np.testing.assert_allclose(
         _from_bf16(d["y"]),
         _from_bf16(_to_bf16(np.float32(b["a"]) * _from_bf16(b["x"]) + _from_bf16(b["y"]))),
         rtol=2 ** -7, atol=1e-6),
     tags=("bf16",))


# ---- warp_vote.cu -------------------------------------------------------------------------------------

def _vote_input(r):
    v = np.zeros(256, np.uint32)
    v[32:64] = 1                     # warp 1: all
    v[70] = 5                        # warp 2: one lane
    v[96:128] = r.integers(0, 2, 32)  # warp 3: mixed
    v[96] = 0
    v[100] = 1
    return v


def _per_warp(v, fn):
    return np.repeat([fn(w) for w in v.reshape(-1, 32)], 32).astype(np.uint32)


case(id="VoteAnyKernel1", src="warp_vote.cu", kernel="VoteAnyKernel1",
     make=lambda r: dict(i=_vote_input(r), o=np.zeros(256, np.uint32), n=np.int32(256)),
     args=(In("i"), Out("o"), Val("n")), block=(64, 1, 1), grid=(4, 1),
     expect=lambda d: {"o": _per_warp(d["i"], lambda w: int(np.any(w)))}, tags=("warp_vote",))

case(id="VoteAllKernel2", src="warp_vote.cu", kernel="VoteAllKernel2",
     make=lambda r: dict(i=_vote_input(r), o=np.zeros(256, np.uint32), n=np.int32(256)),
     args=(In("i"), Out("o"), Val("n")), block=(64, 1, 1), grid=(4, 1),
     expect=lambda d: {"o": _per_warp(d["i"], lambda w: int(np.all(w)))}, tags=("warp_vote",))


def _ballot_ref(d):
    out = []
    for w in d["v"].reshape(-1, 32):
        b = sum(1 << k for k in range(32) if w[k] > 0)
        ob = sum(1 << k for k in range(1, 32, 2) if w[k] & 1)
        out += [b, bin(b).count("1"), (b & -b).bit_length(), ob]
    return {"o": np.array(out, np.uint32)}


def _ballot_make(r):
    v = r.integers(-3, 4, 128).astype(np.int32)
    v[64:96] = -np.abs(v[64:96])  # warp 2: no positive lane, __ffs(0) == 0
    return dict(v=v, o=np.zeros(16, np.uint32))


case(id="ballot_popc_ffs", src="warp_vote.cu", kernel="ballot_popc_ffs", make=_ballot_make,
     args=(In("v"), Out("o")), block=(64, 1, 1), grid=(2, 1), expect=_ballot_ref,
     tags=("warp_vote", "popc", "ffs"))

case(id="activemask_branch", src="warp_vote.cu", kernel="active_lanes",
     make=lambda r: dict(o=np.zeros(64, np.uint32), k=np.int32(20)),
     args=(Out("o"), Val("k")), block=(64, 1, 1), grid=(1, 1),
     expect=lambda d: {"o": np.tile(np.where(np.arange(32) < 20, 20, 0xffffffff), 2)},
     tags=("warp_vote", "activemask"))

case(id="shfl_broadcast", src="warp_vote.cu", kernel="shfl_broadcast",
     make=lambda r: dict(i=r.standard_normal(128).astype(np.float32), b=np.zeros(128, np.float32),
                         rot=np.zeros(128, np.float32), src=np.int32(5)),
     args=(In("i"), Out("b"), Out("rot"), Val("src")), block=(64, 1, 1), grid=(2, 1),
     expect=lambda d: {"b": np.repeat(d["i"].reshape(4, 32)[:, 5], 32),
                       "rot": np.roll(d["i"].reshape(4, 32), -1, axis=1).ravel()},
     tags=("warp_shuffle",))


def _match_ref(d):
    k = d["k"].reshape(-1, 32)
    v = d["v"].reshape(-1, 32)
    same = (k[:, :, None] == k[:, None, :]).sum(axis=2)
    return {"same": same.ravel(), "s": np.repeat(v.sum(axis=1), 32),
            "m": np.repeat(v.max(axis=1), 32)}


case(id="match_any_reduce_add_max", src="warp_vote.cu", kernel="match_and_reduce",
     make=lambda r: dict(k=r.integers(0, 3, 64).astype(np.int32),
                         v=r.integers(0, 1000, 64).astype(np.int32), same=np.zeros(64, np.int32),
                         s=np.zeros(64, np.int32), m=np.zeros(64, np.uint32)),
     args=(In("k"), In("v"), Out("same"), Out("s"), Out("m")), block=(64, 1, 1), grid=(1, 1),
     expect=_match_ref, tags=("warp_match", "warp_reduce"))


# ---- cooperative groups ---------------------------------------------------------------------------------

case(id="cg_tile32_sum", src="cg_tiles.cu", kernel="tile32_sum",
     make=lambda r: dict(i=r.integers(-100, 100, 256).astype(np.int32), o=np.zeros(256, np.int32)),
     args=(In("i"), Out("o")), block=(128, 1, 1), grid=(2, 1),
     expect=lambda d: {"o": np.repeat(d["i"].reshape(8, 32).sum(axis=1), 32)},
     tags=("cooperative_groups", "thread_block_tile", "template"))


def _tile4_ref(d):
    out = []
    for t in (d["i"] > 0).reshape(-1, 4):
        out += [int(t.any()), int(t.all()), sum(1 << k for k in range(4) if t[k])]
    return {"v": np.array(out, np.uint32)}


def _tile4_make(r):
    i = r.integers(-1, 2, 128).astype(np.int32)
    i[0:4] = 1   # a tile where all hold
    i[4:8] = 0   # a tile where none holds
    return dict(i=i, v=np.zeros(96, np.uint32))


case(id="cg_tile4_votes", src="cg_tiles.cu", kernel="tile4_votes", make=_tile4_make,
     args=(In("i"), Out("v")), block=(64, 1, 1), grid=(2, 1), expect=_tile4_ref,
     tags=("cooperative_groups", "thread_block_tile"))

case(id="cg_thread_group_block_sum", src="cg_thread_group.cu", kernel="sum_kernel_block",
     make=lambda r: dict(s=np.zeros(1, np.int32), i=r.integers(-50, 50, 4096).astype(np.int32),
                         n=np.int32(4096)),
     args=(InOut("s"), In("i"), Val("n")), block=(128, 1, 1), grid=(4, 1), shared=128 * 4,
     expect=lambda d: {"s": [d["i"].sum()]},
     tags=("cooperative_groups", "thread_group", "int4"))

case(id="cg_thread_group_dynamic_tiles", src="cg_thread_group.cu", kernel="sum_kernel_tiles",
     make=lambda r: dict(o=np.zeros(8, np.int32), i=r.integers(-50, 50, 256).astype(np.int32)),
     args=(Out("o"), In("i")), block=(128, 1, 1), grid=(2, 1), shared=128 * 4,
     expect=lambda d: {"o": d["i"].reshape(8, 32).sum(axis=1)},
     tags=("cooperative_groups", "thread_group", "tiled_partition_dynamic"))

case(id="cg_coalesced_threads_filter", src="cg_coalesced.cu", kernel="filter_coalesced",
     make=lambda r: dict(x=r.integers(-5, 6, 3000).astype(np.int32),
                         dst=np.zeros(3000, np.int32), nres=np.zeros(1, np.int32),
                         n=np.int32(3000)),
     args=(Out("dst"), InOut("nres"), In("x"), Val("n")), block=(128, 1, 1),
     grid=(cdiv(3000, 128), 1), check=_check_filter,
     tags=("cooperative_groups", "coalesced_group", "atomics"))


def _label_ref(d):
    cnt, rank = [], []
    for w in d["k"].reshape(-1, 32):
        for lane in range(32):
            same = w == w[lane]
            cnt.append(int(same.sum()))
            rank.append(int(same[:lane].sum()))
    return {"c": np.array(cnt, np.int32), "r": np.array(rank, np.int32)}


case(id="cg_labeled_partition", src="cg_partition.cu", kernel="label_groups",
     make=lambda r: dict(k=r.integers(0, 4, 64).astype(np.int32), c=np.zeros(64, np.int32),
                         r=np.zeros(64, np.int32)),
     args=(In("k"), Out("c"), Out("r")), block=(64, 1, 1), grid=(1, 1), expect=_label_ref,
     tags=("cooperative_groups", "labeled_partition"))


def _split_ref(d):
    cnt, tot = [], []
    for w in d["v"].reshape(-1, 32):
        for lane in range(32):
            side = (w >= 0) == (w[lane] >= 0)
            cnt.append(int(side.sum()))
            tot.append(int(w[side].sum()))
    return {"c": np.array(cnt, np.int32), "s": np.array(tot, np.int32)}


case(id="cg_binary_partition", src="cg_partition.cu", kernel="split_sign",
     make=lambda r: dict(v=r.integers(-9, 10, 64).astype(np.int32), c=np.zeros(64, np.int32),
                         s=np.zeros(64, np.int32)),
     args=(In("v"), Out("c"), Out("s")), block=(64, 1, 1), grid=(1, 1), expect=_split_ref,
     tags=("cooperative_groups", "binary_partition"))

case(id="cg_reduce_plus_block_sum", src="cg_reduce.cu", kernel="cg_block_sum",
     make=lambda r: dict(i=r.integers(-100, 100, 1000).astype(np.int32), o=np.zeros(4, np.int32),
                         n=np.int32(1000)),
     args=(In("i"), Out("o"), Val("n")), block=(256, 1, 1), grid=(4, 1),
     expect=lambda d: {"o": chunk_sums(d["i"], 256)},
     tags=("cooperative_groups", "cg_reduce"))

case(id="cg_reduce_greater_warp_max", src="cg_reduce.cu", kernel="cg_warp_max",
     make=lambda r: dict(i=r.standard_normal(256).astype(np.float32), o=np.zeros(8, np.float32)),
     args=(In("i"), Out("o")), block=(128, 1, 1), grid=(2, 1),
     expect=lambda d: {"o": d["i"].reshape(8, 32).max(axis=1)},
     tags=("cooperative_groups", "cg_reduce"))

case(id="cg_this_grid_ordinary_launch", src="cg_grid.cu", kernel="grid_scale",
     make=lambda r: dict(x=r.standard_normal(5000).astype(np.float32), s=np.float32(3.0),
                         n=np.int32(5000)),
     args=(InOut("x"), Val("s"), Val("n")), block=(128, 1, 1), grid=(8, 1),
     expect=lambda d: {"x": d["x"] * np.float32(3.0)},
     tags=("cooperative_groups", "grid_group"))

case(id="cg_grid_sync_cooperative_launch", src="cg_grid_sync.cu", kernel="reduce_grid_sync",
     make=lambda r: dict(x=ints_as_floats(r, 10_000), p=np.zeros(8, np.float32),
                         t=np.zeros(1, np.float32), n=np.int32(10_000)),
     args=(In("x"), Out("p"), Out("t"), Val("n")), block=(128, 1, 1), grid=(8, 1),
     shared=128 * 4, launch_kw={"cooperative": True},
     expect=lambda d: {"p": grid_stride_block_sums(d["x"], 8, 128),
                       "t": [d["x"].sum(dtype=np.float64)]},
     tags=("cooperative_groups", "grid_group", "cooperative"))


# ---- atomics.cu, sync_count.cu ------------------------------------------------------------------------

case(id="atomicAdd_double_cas", src="atomics.cu", kernel="sum_double_cas",
     make=lambda r: dict(x=r.integers(-800, 800, 3000) / 8.0, s=np.zeros(2, np.float64),
                         n=np.int32(3000)),
     args=(In("x"), InOut("s"), Val("n")), block=(128, 1, 1), grid=(cdiv(3000, 128), 1),
     expect=lambda d: {"s": [d["x"].sum(), d["x"].sum()]}, tags=("atomics", "atomicCAS"))


def _int_atomics_make(r):
    return dict(v=r.integers(-1000, 1001, 1000).astype(np.int32), n=np.int32(1000),
                st=np.array([2**31 - 1, -2**31, 0, 2**31 - 1, 0], np.int32),
                head=np.zeros(1, np.uint32), ring=np.zeros(8, np.int32), rs=np.uint32(8))


def _int_atomics_check(d, b):
    v = b["v"]
    st = d["st"]
    assert st[0] == v.min() and st[1] == v.max() and st[2] == np.abs(v).max()
    assert st[3] in set(v.tolist()) and st[4] == v.size - 1
    assert d["head"][0] == v.size % 8
    np.testing.assert_array_equal(d["ring"], np.full(8, v.size // 8))


case(id="int_atomics_inc_exch_min_max", src="atomics.cu", kernel="int_atomics",
     make=_int_atomics_make,
     args=(In("v"), Val("n"), InOut("st"), InOut("head"), InOut("ring"), Val("rs")),
     block=(128, 1, 1), grid=(8, 1), check=_int_atomics_check,
     tags=("atomics", "atomicInc", "atomicExch", "atomicMin", "atomicMax", "atomicCAS"))


def _run_device_counter(mod, d, drv, ga):
    ptr, size = mod.get_global("d_matches")
    assert size == 4
    drv.memcpy_htod(ptr, np.array([1000], np.uint32))  # cudaMemcpyToSymbol
    mod.get_function("count_matches")(drv.In(d["v"]), np.int32(d["v"].size), np.int32(3),
                                      block=(256, 1, 1), grid=(cdiv(d["v"].size, 256), 1))
    got = np.zeros(1, np.uint32)
    drv.memcpy_dtoh(got, ptr)  # cudaMemcpyFromSymbol
    d["count"] = got


case(id="device_global_symbol_copies", src="atomics.cu", kernel="count_matches",
     make=lambda r: dict(v=r.integers(0, 10, 3000).astype(np.int32)),
     run=_run_device_counter, expect=lambda d: {"count": [1000 + np.count_nonzero(d["v"] == 3)]},
     tags=("device_global", "atomics", "get_global"))


def _pred_make(r):
    x = r.random(1000).astype(np.float32)
    x[256:512] = 0.9   # block 1: all above
    x[512:768] = 0.1   # block 2: none above
    return dict(x=x, t=np.float32(0.5), o=np.zeros(12, np.int32), n=np.int32(1000))


def _pred_ref(d):
    out = []
    for b in range(4):
        p = d["x"][256 * b:256 * (b + 1)] > 0.5
        full = np.zeros(256, bool)
        full[:p.size] = p
        out += [int(full.sum()), int(full.all()), int(full.any())]
    return {"o": np.array(out, np.int32)}


case(id="syncthreads_count_and_or", src="sync_count.cu", kernel="block_predicates",
     make=_pred_make, args=(In("x"), Val("t"), Out("o"), Val("n")), block=(256, 1, 1),
     grid=(4, 1), expect=_pred_ref, tags=("syncthreads_count",))
