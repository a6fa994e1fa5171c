"""What pycudac's NVTX ranges cost a launch when no profiler is attached
(issue 25): two source trees side by side on the stub driver (CPU only).

    python3 bench/nvtx_overhead.py ROOT_A ROOT_B [--children N] [--rounds R]

ROOT_A and ROOT_B are trees with pycudac built in place, e.g. the commit
before the NVTX ranges and this one. Child processes alternate between the
two (A B, B A, ...); each times, in rotating rounds, pycudac's own host time
per call (ns) of the general launch path — f(..., shared=0), which takes
launch_general, where the ranges are — and of the fast path (the plain
f(...), which has none), on tests/c/stub_libcuda.c, whose launch returns at
once. Printed: per path, each tree's median and B/A, the median of the
child-by-child quotients. With no tool, B/A should be 1 within the noise
(the range costs one load and one branch per general launch).
"""
import argparse
import glob
import json
import os
import statistics
import subprocess
import sys
import sysconfig

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
SRC = "__global__ void empty(int *p, int n) { if (n < 0) p[0] = n; }"


def child(rounds, calls):
    import time
    import pycudac.autoinit  # noqa: F401
    import pycudac.driver as drv
    from pycudac.compiler import SourceModule
    f = SourceModule(SRC, cache_dir=False).get_function("empty")
    ptr = drv.mem_alloc(64)
    block, grid = (1, 1, 1), (1, 1)

    def general(n):
        t = time.perf_counter_ns()
        for _ in range(n):
            f(ptr, 1000, block=block, grid=grid, shared=0)
        return (time.perf_counter_ns() - t) / n

    def fast(n):
        t = time.perf_counter_ns()
        for _ in range(n):
            f(ptr, 1000, block=block, grid=grid)
        return (time.perf_counter_ns() - t) / n

    loops = {"general": general, "fast": fast}
    for fn in loops.values():
        fn(2000)
    out = {k: [] for k in loops}
    keys = list(loops)
    for r in range(rounds):
        for k in keys[r % 2:] + keys[:r % 2]:
            out[k].append(loops[k](calls))
    print(json.dumps({k: statistics.median(v) for k, v in out.items()}))


def stub():
    cc = os.environ.get("CC") or (sysconfig.get_config_var("CC") or "cc").split()[0]
    out = os.path.join(HERE, "out", "libstub_cuda.so")
    os.makedirs(os.path.dirname(out), exist_ok=True)
    sources = sorted(glob.glob(os.path.join(ROOT, "tests", "c", "stub_*.c")))
    subprocess.check_call([cc, "-O2", "-fPIC", "-shared", "-I", os.path.join(ROOT, "include"),
                           *sources, "-o", out])
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("roots", nargs="*")
    ap.add_argument("--children", type=int, default=10)
    ap.add_argument("--rounds", type=int, default=15)
    ap.add_argument("--calls", type=int, default=20000)
    ap.add_argument("--child", action="store_true")
    a = ap.parse_args()
    if a.child:
        child(a.rounds, a.calls)
        return 0
    if len(a.roots) != 2:
        ap.error("two source trees, A and B")
    lib = stub()
    roots = [os.path.abspath(r) for r in a.roots]
    per = {0: [], 1: []}
    for c in range(a.children):
        for which in ((0, 1) if c % 2 == 0 else (1, 0)):
            env = dict(os.environ, PYTHONPATH=roots[which], PYCUDAC_BACKEND="cuda",
                       PYCUDAC_LIBCUDA=lib, OPENBLAS_NUM_THREADS="1")
            env.pop("NVTX_INJECTION64_PATH", None)
            r = subprocess.run([sys.executable, os.path.abspath(__file__), "--child",
                                "--rounds", str(a.rounds), "--calls", str(a.calls)],
                               env=env, capture_output=True, text=True, cwd=roots[which])
            if r.returncode != 0:
                print(r.stdout, r.stderr, file=sys.stderr)
                return 1
            per[which].append(json.loads(r.stdout.strip().splitlines()[-1]))
    print(f"{a.children} children per tree, {a.rounds} rounds of {a.calls} calls, stub driver")
    for k in per[0][0]:
        ra, rb = [ch[k] for ch in per[0]], [ch[k] for ch in per[1]]
        q = [b / x for x, b in zip(ra, rb)]
        print(f"{k:8} A {statistics.median(ra):7.1f} ns  B {statistics.median(rb):7.1f} ns  "
              f"B/A {statistics.median(q):.4f} (children {min(q):.4f}..{max(q):.4f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
