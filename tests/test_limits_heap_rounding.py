"""Context limits (Context.set_limit/get_limit, driver.limit), device-side
malloc/free, and the directed-rounding intrinsics (__fadd_rd, __fsqrt_ru,
__ddiv_rz ...) checked against exact references (fractions.Fraction).
Backend-neutral: the same on the simulator and on a GPU."""
import math
import struct
import subprocess
import sys
from fractions import Fraction

import numpy as np
import pytest

drv = pytest.importorskip("pycudac.driver")


def SourceModule(src, **kw):
    from pycudac.compiler import SourceModule as SM
    return SM(src, **kw)


def test_limit_names_are_pycudas():
    assert drv.limit.STACK_SIZE == 0 and drv.limit.PRINTF_FIFO_SIZE == 1
    assert drv.limit.MALLOC_HEAP_SIZE == 2


def test_get_and_set_limit(ctx):
    assert drv.Context.get_limit(drv.limit.STACK_SIZE) > 0
    assert drv.Context.get_limit(drv.limit.PRINTF_FIFO_SIZE) > 0
    old = drv.Context.get_limit(drv.limit.STACK_SIZE)
    drv.Context.set_limit(drv.limit.STACK_SIZE, 4096)
    assert drv.Context.get_limit(drv.limit.STACK_SIZE) >= 4096
    drv.Context.set_limit(drv.limit.STACK_SIZE, old)
    with pytest.raises(drv.Error):
        drv.Context.get_limit(12345)
    # -1 and 2**64 wrapped to sizes the driver took; a float or a str was an
    # unnamed error (found by an adversarial review)
    for value, exc in ((-1, ValueError), (2 ** 64, OverflowError), (1.5, TypeError),
                       ("4096", TypeError), (True, TypeError)):
        with pytest.raises(exc, match="set_limit: value must be"):
            drv.Context.set_limit(drv.limit.STACK_SIZE, value)
    assert drv.Context.get_limit(drv.limit.STACK_SIZE) == old


HEAP_KERNEL = r"""
__global__ void grab(unsigned long long *ptrs, int bytes)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int *p = (int *)malloc(bytes);
    if (p != NULL)
        p[0] = i;
    ptrs[i] = (unsigned long long)p;
}
__global__ void check_and_free(const unsigned long long *ptrs, int *ok)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    /* freed by another block than the one that allocated */
    int j = (i + blockDim.x) % (blockDim.x * gridDim.x);
    int *p = (int *)ptrs[j];
    ok[j] = p != NULL && p[0] == j && ((unsigned long long)p % 16) == 0;
    if (p != NULL)
        free(p);
}
"""


def _heap_run(mod, nthreads, nbytes):
    ptrs = np.zeros(nthreads, np.uint64)
    ok = np.zeros(nthreads, np.int32)
    d_ptrs = drv.mem_alloc(ptrs.nbytes)
    mod.get_function("grab")(d_ptrs, np.int32(nbytes), block=(32, 1, 1), grid=(nthreads // 32, 1))
    drv.memcpy_dtoh(ptrs, d_ptrs)
    mod.get_function("check_and_free")(d_ptrs, drv.Out(ok), block=(32, 1, 1),
                                       grid=(nthreads // 32, 1))
    return ptrs, ok


def test_device_malloc_across_blocks_is_reused_and_bounded():
    """In a fresh process: a heap of 64 KiB (or what the driver grants) holds
    32 blocks of 1/64 of it but not 128; what is freed (by other blocks than
    the allocating ones) can be allocated again."""
    code = r"""
import numpy as np, pycudac.autoinit, pycudac.driver as drv, sys
sys.path.insert(0, %r)
import test_limits_heap_rounding as t
drv.Context.set_limit(drv.limit.MALLOC_HEAP_SIZE, 64 * 1024)
granted = drv.Context.get_limit(drv.limit.MALLOC_HEAP_SIZE)
assert granted >= 64 * 1024
size = granted // 64                         # 128 of them ask for twice the heap
mod = t.SourceModule(t.HEAP_KERNEL)
ptrs, ok = t._heap_run(mod, 32, size)
assert (ptrs != 0).all() and ok.all(), (ptrs, ok)
ptrs, ok = t._heap_run(mod, 128, size)
assert 32 <= (ptrs != 0).sum() < 128, (ptrs != 0).sum()
ptrs, ok = t._heap_run(mod, 32, size)       # everything was freed: all fit again
assert (ptrs != 0).all() and ok.all()
try:
    drv.Context.set_limit(drv.limit.MALLOC_HEAP_SIZE, 1 << 20)
except drv.Error:
    print("fixed")
"""
    import os
    here = os.path.dirname(os.path.abspath(__file__))
    r = subprocess.run([sys.executable, "-c", code % here], capture_output=True, text=True,
                       timeout=300)
    assert r.returncode == 0, r.stderr[-3000:]
    assert "fixed" in r.stdout  # the heap size cannot change once a kernel used it


def test_stack_size_limit_lets_deep_recursion_run(ctx, backend):
    """A recursion that needs ~2 MiB of stack per thread runs once the
    context's stack limit asks for it. On the simulator the limit sizes the
    simulated thread's stack (the default one is far smaller); a GPU would
    reserve 3 MiB for every resident thread, more than it has."""
    if backend != "sim":
        pytest.skip("3 MiB of stack for every resident GPU thread does not fit a GPU")
    src = r"""
__device__ int deep(int n) {
    volatile char pad[4096];
    pad[0] = (char)n;
    return n == 0 ? pad[0] : deep(n - 1) + 1 + pad[0] * 0;
}
__global__ void run(int *out, int n) { out[threadIdx.x] = deep(n); }
"""
    mod = SourceModule(src)
    old = drv.Context.get_limit(drv.limit.STACK_SIZE)
    drv.Context.set_limit(drv.limit.STACK_SIZE, 3 << 20)
    try:
        out = np.zeros(4, np.int32)
        mod.get_function("run")(drv.Out(out), np.int32(400), block=(4, 1, 1), grid=(1, 1))
        drv.Context.synchronize()
        assert (out == 400).all()
    finally:
        drv.Context.set_limit(drv.limit.STACK_SIZE, old)


# ---- directed rounding ------------------------------------------------------

def _f32(x):
    return struct.unpack("f", struct.pack("f", x))[0]


def _round_to(q, kind, mode):
    """Fraction q rounded to a float32 ('f') or float64 ('d') in mode rn/rz/ru/rd."""
    if q == 0:
        return 0.0
    lo = float(q) if kind == "d" else _f32(float(q))  # round to nearest first
    if kind == "d":
        up, down = math.nextafter(lo, math.inf), math.nextafter(lo, -math.inf)
    else:
        up = float(np.nextafter(np.float32(lo), np.float32(np.inf)))
        down = float(np.nextafter(np.float32(lo), np.float32(-np.inf)))
    exact = Fraction(lo)
    if mode == "rn" or exact == q:
        return lo
    if mode == "rz":
        mode = "rd" if q > 0 else "ru"
    if mode == "rd":
        return lo if exact < q else down
    return lo if exact > q else up


OPS = {
    "add": (2, lambda a, b: a + b),
    "sub": (2, lambda a, b: a - b),
    "mul": (2, lambda a, b: a * b),
    "div": (2, lambda a, b: a / b),
    "fma": (3, None),
    "rcp": (1, lambda a: 1 / a),
    "sqrt": (1, None),
}


def _kernel_src(kind):
    t = "float" if kind == "f" else "double"
    names = {
        "f": {"add": "__fadd", "sub": "__fsub", "mul": "__fmul", "div": "__fdiv", "fma": "__fmaf",
              "rcp": "__frcp", "sqrt": "__fsqrt"},
        "d": {"add": "__dadd", "sub": "__dsub", "mul": "__dmul", "div": "__ddiv", "fma": "__fma",
              "rcp": "__drcp", "sqrt": "__dsqrt"},
    }[kind]
    lines = []
    col = 0
    for op in OPS:
        for mode in ("rn", "rz", "ru", "rd"):
            args = {1: "a[i]", 2: "a[i], b[i]", 3: "a[i], b[i], c[i]"}[OPS[op][0]]
            if op == "sqrt":
                args = "fabs(a[i])" if kind == "d" else "fabsf(a[i])"
            lines.append(f"    o[{col} * n + i] = {names[op]}_{mode}({args});")
            col += 1
    body = "\n".join(lines)
    return (f"__global__ void rnd(const {t} *a, const {t} *b, const {t} *c, {t} *o, int n)\n"
            f"{{\n    int i = blockIdx.x * blockDim.x + threadIdx.x;\n    if (i >= n) return;\n"
            f"{body}\n}}\n")


def _exact_sqrt(x, kind, mode):
    lo = math.sqrt(x)
    if kind == "f":
        lo = _f32(lo)
    cands = [lo]
    for _ in range(2):
        nx = [float(np.nextafter(np.float32(c) if kind == "f" else c,
                                 np.float32(s) if kind == "f" else s))
              for c in cands for s in (math.inf, -math.inf)]
        cands = sorted(set(cands + nx))
    q = Fraction(x)
    below = max(c for c in cands if Fraction(c) ** 2 <= q)
    above = min(c for c in cands if Fraction(c) ** 2 >= q)
    if below == above or mode in ("rd", "rz"):
        return below
    if mode == "ru":
        return above
    # nearest: compare against the midpoint
    mid = (Fraction(below) + Fraction(above)) / 2
    return below if q < mid * mid else above


@pytest.mark.parametrize("kind", ["f", "d"])
def test_directed_rounding_is_exact(ctx, kind):
    dt = np.float32 if kind == "f" else np.float64
    r = np.random.default_rng(7 if kind == "f" else 8)
    n = 256
    a = (r.standard_normal(n) * 10.0 ** r.integers(-3, 4, n)).astype(dt)
    b = (r.standard_normal(n) * 10.0 ** r.integers(-3, 4, n)).astype(dt)
    c = (r.standard_normal(n) * 10.0 ** r.integers(-3, 4, n)).astype(dt)
    b[:8] = dt(3)  # divisions and products that are surely inexact
    ncol = 4 * len(OPS)
    o = np.zeros(ncol * n, dt)
    SourceModule(_kernel_src(kind)).get_function("rnd")(
        drv.In(a), drv.In(b), drv.In(c), drv.Out(o), np.int32(n), block=(64, 1, 1),
        grid=(n // 64, 1))
    o = o.reshape(ncol, n)
    col = 0
    differ = 0
    for op, (arity, fn) in OPS.items():
        for mode in ("rn", "rz", "ru", "rd"):
            for i in range(n):
                fa, fb, fc = Fraction(float(a[i])), Fraction(float(b[i])), Fraction(float(c[i]))
                if op == "sqrt":
                    want = _exact_sqrt(abs(float(a[i])), kind, mode)
                else:
                    q = {1: lambda: fn(fa), 2: lambda: fn(fa, fb),
                         3: lambda: fa * fb + fc}[arity]()
                    want = _round_to(q, kind, mode)
                got = float(o[col, i])
                assert got == want, (op, mode, a[i], b[i], c[i], got, want)
            col += 1
        # the modes must differ somewhere for inexact operations
        if op in ("div", "rcp", "sqrt"):
            rd, ru = o[col - 1], o[col - 2]
            differ += int((rd != ru).sum())
    assert differ > 0


def test_directed_rounding_conversions(ctx):
    src = r"""
__global__ void cvt(const long long *x, float *f, double *d)
{
    int i = threadIdx.x;
    f[4 * i] = __ll2float_rn(x[i]); f[4 * i + 1] = __ll2float_rz(x[i]);
    f[4 * i + 2] = __ll2float_ru(x[i]); f[4 * i + 3] = __ll2float_rd(x[i]);
    d[2 * i] = __ll2double_ru(x[i]); d[2 * i + 1] = __ll2double_rd(x[i]);
}
"""
    x = np.array([(1 << 60) + 12345, -((1 << 55) + 3), 16777217, 7], np.int64)
    f = np.zeros(16, np.float32)
    d = np.zeros(8, np.float64)
    SourceModule(src).get_function("cvt")(drv.In(x), drv.Out(f), drv.Out(d), block=(4, 1, 1),
                                          grid=(1, 1))
    for i, v in enumerate(x):
        q = Fraction(int(v))
        assert [float(t) for t in f[4 * i:4 * i + 4]] == [_round_to(q, "f", m)
                                                         for m in ("rn", "rz", "ru", "rd")]
        assert [float(t) for t in d[2 * i:2 * i + 2]] == [_round_to(q, "d", m) for m in ("ru", "rd")]
