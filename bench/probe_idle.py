"""Probe (diagnostic): does a launch cost the driver more when the caller is slower?

1. Time with no memory touched (a multiply chain) before each launch: does
   it add its own cost to a launch, or more?
2. Launches submitted while the GPU is held busy by a spinning kernel,
   against launches into an idle stream: does the driver's cost depend on
   whether the GPU has caught up?

    python3 bench/probe_idle.py [--rounds N]
"""
import argparse
import os
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

SPIN_SRC = r"""
__global__ void spin(unsigned long long ns)
{
    unsigned long long t0, t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
    do {
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    } while (t - t0 < ns);
}
"""


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=21)
    args = ap.parse_args()
    import code_lines
    Launcher = code_lines.build()
    import numpy as np
    import pycudac.autoinit  # noqa: F401
    from pycudac.compiler import SourceModule
    import bench_launch

    mod, s, ptr, v4, args16 = bench_launch.k16_setup()
    f16, fe = mod.get_function("k16"), mod.get_function("empty")
    spin = SourceModule(SPIN_SRC).get_function("spin")
    launch = bench_launch.launch_address()
    size = len(f16.pack(*args16))

    def k16(g):
        run = bench_launch.k16_loop(g, ptr, s, v4)
        return lambda n: run(n) * 1e3  # ns per call

    def lau(spin_iters=0, dry=False):
        return Launcher(0 if dry else launch, int(f16.handle), int(s.handle), size, 0, 0,
                        spin_iters)

    # part 1: spin before the launch, and the same spin with no launch
    v = {"launch": k16(lau()), "dry": k16(lau(dry=True))}
    for it in (100, 300, 900):
        v[f"launch+spin{it}"] = k16(lau(it))
        v[f"dry+spin{it}"] = k16(lau(it, dry=True))
    v["pycudac"] = k16(f16)
    rounds(v, args.rounds, 2000, "launch")
    res = v["_res"]
    for it in (100, 300, 900):
        spin_cost = statistics.median(
            a - b for a, b in zip(res[f"dry+spin{it}"], res["dry"]))
        in_launch = statistics.median(
            a - b for a, b in zip(res[f"launch+spin{it}"], res["launch"]))
        print(f"spin {it:4}: alone +{spin_cost:6.1f} ns, before a launch +{in_launch:6.1f} ns"
              f"  (x{in_launch / spin_cost:.2f})")

    # part 2: submission cost into an idle stream vs behind a spinning kernel
    N = 400

    def submit(g, busy, a):
        s.synchronize()
        if busy:
            spin(np.uint64(8_000_000), block=(1, 1, 1), grid=(1, 1), stream=s)
        t0 = time.perf_counter()
        for _ in range(N):
            g(*a, block=(1, 1, 1), grid=(1, 1), stream=s)
        t = (time.perf_counter() - t0) * 1e9 / N
        s.synchronize()
        return t

    plain = lau()
    w = {}
    for name, g, a in (("C launcher", plain, args16), ("pycudac k16", f16, args16),
                       ("pycudac empty", fe, (ptr, 1000))):
        w[f"{name} idle"] = (lambda g, a: lambda n: submit(g, False, a))(g, a)
        w[f"{name} busy"] = (lambda g, a: lambda n: submit(g, True, a))(g, a)
    rounds(w, args.rounds, N, None)
    res = w["_res"]
    for name in ("C launcher", "pycudac k16", "pycudac empty"):
        i, b = res[f"{name} idle"], res[f"{name} busy"]
        print(f"{name:14} submit idle {statistics.median(i):7.1f} ns  busy "
              f"{statistics.median(b):7.1f} ns  busy/idle "
              f"{statistics.median(x / y for x, y in zip(b, i)):.3f}")
    for st in ("idle", "busy"):
        print(f"pycudac k16 / C launcher, {st}: {statistics.median(x / y for x, y in zip(res[f'pycudac k16 {st}'], res[f'C launcher {st}'])):.4f}")
    return 0


def rounds(variants, n_rounds, n, base):
    keys = list(variants)
    for k in keys:
        variants[k](max(n // 4, 50))
    res = {k: [] for k in keys}
    for r in range(n_rounds):
        for k in keys[r % len(keys):] + keys[:r % len(keys)]:
            res[k].append(variants[k](n))
    variants["_res"] = res
    if base:
        for k in keys:
            extra = statistics.median(a - b for a, b in zip(res[k], res[base]))
            print(f"{k:18} {statistics.median(res[k]):8.1f} ns  {extra:+7.1f} ns")


if __name__ == "__main__":
    sys.exit(main())
