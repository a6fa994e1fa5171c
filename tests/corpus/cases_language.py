"""The corpus's cases for the language's corners: recursion, printf, device malloc,
struct parameters, dynamic shared memory, launch bounds, kernels named like C
library functions, clock() and cuda::std.

Each module appends its cases to registry.CASES when imported (cases.py
imports them all)."""
import math

import numpy as np

from registry import In, InOut, Out, Val, case


# ---- recursion.cu, printf.cu, malloc.cu ------------------------------------------------------------------

def _fib(k):
    a, b = 0, 1
    for _ in range(k):
        a, b = b, a + b
    return a


case(id="recursive_factorial_fib", src="recursion.cu", kernel="recursive_math",
     make=lambda r: dict(n=np.arange(21, dtype=np.int32), f=np.zeros(21, np.uint64),
                         fib=np.zeros(21, np.int32), c=np.int32(21)),
     args=(In("n"), Out("f"), Out("fib"), Val("c")), block=(32, 1, 1), grid=(1, 1),
     expect=lambda d: {"f": np.array([math.factorial(k) for k in range(21)], np.uint64),
                       "fib": [_fib(k) for k in range(21)]},
     tags=("recursion",))

case(id="recursive_quicksort_segments", src="recursion.cu", kernel="segment_quicksort",
     make=lambda r: dict(x=r.integers(-1000, 1000, 64 * 100).astype(np.int32), seg=np.int32(64),
                         nseg=np.int32(100)),
     args=(InOut("x"), Val("seg"), Val("nseg")), block=(32, 1, 1), grid=(4, 1),
     expect=lambda d: {"x": np.sort(d["x"].reshape(100, 64), axis=1).ravel()},
     tags=("recursion", "sort"))

case(id="simplePrintf", src="printf.cu", kernel="testKernel",
     make=lambda r: dict(v=np.int32(10)), args=(Val("v"),), block=(2, 2, 1), grid=(2, 2),
     stdout=lambda d: [f"[{b}, {t}]:\t\tValue is:10" for b in range(4) for t in range(4)],
     tags=("printf",))

case(id="printf_formats", src="printf.cu", kernel="print_mixed",
     make=lambda r: dict(f=np.float32(1.5), d=np.float64(2.5e-3), ll=np.int64(-1234567890123)),
     args=(Val("f"), Val("d"), Val("ll")), block=(32, 1, 1), grid=(2, 1),
     stdout=lambda d: ["f=1.500 d=2.500000e-03 ll=-1234567890123 u=4000000000 x=ff c=Z s=device"],
     tags=("printf",))

case(id="malloc_per_thread", src="malloc.cu", kernel="mallocPerThread",
     make=lambda r: dict(o=np.zeros(128, np.int32), c=np.int32(10)),
     args=(Out("o"), Val("c")), block=(64, 1, 1), grid=(2, 1),
     expect=lambda d: {"o": 10 * np.arange(128) + 45}, tags=("malloc",))

case(id="malloc_per_block", src="malloc.cu", kernel="mallocPerBlock",
     make=lambda r: dict(o=np.zeros(192, np.int32)),
     args=(Out("o"),), block=(64, 1, 1), grid=(3, 1),
     expect=lambda d: {"o": np.tile(16 * ((np.arange(64) + 1) % 64) + 120, 3)},
     tags=("malloc", "shared_pointer"))


# ---- struct_param.cu, dynamic_shared.cu, launch_bounds.cu -------------------------------------------------

SIM_PARAMS = np.dtype([("gain", np.float32), ("steps", np.int32), ("offset", np.float64)],
                      align=True)

case(id="struct_by_value", src="struct_param.cu", kernel="apply_params",
     make=lambda r: dict(x=r.standard_normal(500), y=np.zeros(500, np.float64),
                         p=np.array((1.5, 3, 0.25), SIM_PARAMS)[()], n=np.int32(500),
                         bias=np.float32(0.5)),
     args=(In("x"), Out("y"), Val("p"), Val("n"), Val("bias")), block=(128, 1, 1), grid=(4, 1),
     expect=lambda d: {"y": d["x"] * 1.5 * 1.5 * 1.5 + 0.25 + 0.5}, rtol=1e-15,
     tags=("struct_param",))

case(id="staticReverse", src="dynamic_shared.cu", kernel="staticReverse",
     make=lambda r: dict(d=r.integers(0, 1000, 64).astype(np.int32), n=np.int32(64)),
     args=(InOut("d"), Val("n")), block=(64, 1, 1), grid=(1, 1),
     expect=lambda d: {"d": d["d"][::-1]}, tags=("shared",))

case(id="dynamicReverse", src="dynamic_shared.cu", kernel="dynamicReverse",
     make=lambda r: dict(d=r.integers(0, 1000, 64).astype(np.int32), n=np.int32(64)),
     args=(InOut("d"), Val("n")), block=(64, 1, 1), grid=(1, 1), shared=64 * 4,
     expect=lambda d: {"d": d["d"][::-1]}, tags=("dynamic_shared",))


def _three_ref(d):
    t = np.arange(16)
    return {"o": d["dd"][(t + 1) % 5] + d["ff"][(t + 2) % 7].astype(np.float64) +
            d["cc"][(t + 3) % 9]}


case(id="dynamic_shared_three_arrays", src="dynamic_shared.cu", kernel="threeArrays",
     make=lambda r: dict(dd=r.standard_normal(5), ff=r.standard_normal(7).astype(np.float32),
                         cc=r.integers(-100, 100, 9).astype(np.int8), o=np.zeros(16),
                         nd=np.int32(5), nf=np.int32(7), ni=np.int32(9)),
     args=(In("dd"), In("ff"), In("cc"), Out("o"), Val("nd"), Val("nf"), Val("ni")),
     block=(16, 1, 1), grid=(1, 1), shared=5 * 8 + 7 * 4 + 9, expect=_three_ref,
     tags=("dynamic_shared",))


def _blend_ref(d):
    t = d["t"].astype(np.float64)
    s = t * t * (3 - 2 * t)
    return {"o": d["a"] + s * (d["b"].astype(np.float64) - d["a"])}


case(id="launch_bounds_blend", src="launch_bounds.cu", kernel="blend",
     make=lambda r: dict(a=r.random(1000).astype(np.float32), b=r.random(1000).astype(np.float32),
                         t=r.random(1000).astype(np.float32), o=np.zeros(1000, np.float32),
                         n=np.int32(1000)),
     args=(In("a"), In("b"), In("t"), Out("o"), Val("n")), block=(256, 1, 1), grid=(4, 1),
     expect=_blend_ref, rtol=1e-5, atol=1e-6,
     tags=("launch_bounds", "ldg", "restrict", "forceinline", "noinline"))

case(id="launch_bounds_scale_rows", src="launch_bounds.cu", kernel="scale_rows",
     make=lambda r: dict(m=r.standard_normal((20, 300)).astype(np.float32),
                         s=r.standard_normal(20).astype(np.float32), rows=np.int32(20),
                         cols=np.int32(300)),
     args=(InOut("m"), In("s"), Val("rows"), Val("cols")), block=(128, 1, 1), grid=(1, 20),
     expect=lambda d: {"m": d["m"] * d["s"][:, None]}, tags=("launch_bounds", "ldg", "2d"))


# ---- kernels named like C library functions ---------------------------------------------------------------

case(id="kernel_named_div", src="name_div.cu", kernel="div",
     make=lambda r: dict(o=np.zeros(1000, np.float32), a=r.standard_normal(1000).astype(np.float32),
                         b=(r.random(1000) + 0.5).astype(np.float32), n=np.int32(1000)),
     args=(Out("o"), In("a"), In("b"), Val("n")), block=(256, 1, 1), grid=(4, 1),
     expect=lambda d: {"o": d["a"] / d["b"]}, tags=("c_library_name",))

case(id="kernel_named_index", src="name_index.cu", kernel="index",
     make=lambda r: dict(o=np.zeros(1000, np.int32), n=np.int32(1000), s=np.int32(-7)),
     args=(Out("o"), Val("n"), Val("s")), block=(256, 1, 1), grid=(4, 1),
     expect=lambda d: {"o": np.arange(1000) - 7}, tags=("c_library_name",))

case(id="std_c_headers_popcount64", src="std_c_headers.cu", kernel="popcount64",
     make=lambda r: dict(x=r.integers(0, 2**63, 1000, dtype=np.uint64),
                         b=np.zeros(1000, np.uint32), n=np.int32(1000)),
     args=(In("x"), Out("b"), Val("n")), block=(128, 1, 1), grid=(8, 1),
     expect=lambda d: {"b": np.array([bin(int(v)).count("1") for v in d["x"]], np.uint32)})


def _wang(seed):
    s = seed.astype(np.uint64)
    m = np.uint64(0xffffffff)
    s = (s ^ np.uint64(61)) ^ (s >> np.uint64(16))
    s = (s * np.uint64(9)) & m
    s = s ^ (s >> np.uint64(4))
    s = (s * np.uint64(0x27d4eb2d)) & m
    s = s ^ (s >> np.uint64(15))
    return s.astype(np.uint32)


case(id="kernel_named_random", src="name_random.cu", kernel="random",
     make=lambda r: dict(o=np.zeros(1000, np.uint32), n=np.int32(1000), seed=np.uint32(2024)),
     args=(Out("o"), Val("n"), Val("seed")), block=(256, 1, 1), grid=(4, 1),
     expect=lambda d: {"o": _wang(np.uint32(2024) + np.arange(1000, dtype=np.uint32))},
     tags=("c_library_name",))


# ---- clock_timing.cu, cuda_std.cu ----------------------------------------------------------------------------

def _clock_check(d, b):
    np.testing.assert_array_equal(d["out"], np.full(4, b["x"].min()))
    t = d["timer"]
    assert (t[4:] >= t[:4]).all(), t


case(id="timedReduction_clock64", src="clock_timing.cu", kernel="timedReduction",
     make=lambda r: dict(x=r.standard_normal(256).astype(np.float32), out=np.zeros(4, np.float32),
                         timer=np.zeros(8, np.int64)),
     args=(In("x"), Out("out"), Out("timer")), block=(128, 1, 1), grid=(4, 1), shared=2 * 128 * 4,
     check=_clock_check, tags=("clock64",))

case(id="cuda_std_limits_type_traits", src="cuda_std.cu", kernel="block_min_clamp",
     make=lambda r: dict(i=r.integers(-500, 500, 1000).astype(np.int32), o=np.zeros(4, np.int32),
                         c=np.zeros(1000, np.int32), n=np.int32(1000)),
     args=(In("i"), Out("o"), Out("c"), Val("n")), block=(256, 1, 1), grid=(4, 1),
     expect=lambda d: {"o": [d["i"][256 * b:256 * (b + 1)].min() for b in range(4)],
                       "c": np.clip(d["i"], -100, 100)},
     tags=("cuda_std",))


def _sort4_make(r):
    x = (r.standard_normal(400) * 2).astype(np.float32)
    x[::37] = np.nan
    return dict(x=x, n4=np.int32(100))


case(id="cuda_std_pair_swap_array", src="cuda_std.cu", kernel="clamp_sort4",
     make=_sort4_make, args=(InOut("x"), Val("n4")), block=(64, 1, 1), grid=(2, 1),
     expect=lambda d: {"x": np.sort(np.clip(np.nan_to_num(d["x"], nan=-1.0), -1, 1).reshape(100, 4),
                                    axis=1).ravel()},
     tags=("cuda_std",))
