"""What code and data run between driver launches cost (a diagnostic, GPU only).

The 16-parameter call of bench/bench_launch.py in a Python loop, made to
launchers (bench/code_lines.c) that ignore their arguments and, before
cuLaunchKernel, run N lines of code (16..64, a chain of jumps) or read M
lines of data, and to pycudac's Function; in rotating rounds, each against
the launcher that runs neither (ratios and ns, medians over rounds).

    python3 bench/code_lines.py [--rounds N]

Seen on the H100 hosts (2026-11-24): 32 lines of code cost +180 ns a launch
on one host and +8 ns on another; 16 lines of data +13..50 ns.
"""
import argparse
import os
import statistics
import subprocess
import sys
import sysconfig

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
OUT = os.path.join(HERE, "out")


def build():
    lib = os.path.join(OUT, "_code_lines" + sysconfig.get_config_var("EXT_SUFFIX"))
    src = os.path.join(HERE, "code_lines.c")
    if not os.path.exists(lib) or os.path.getmtime(src) > os.path.getmtime(lib):
        os.makedirs(OUT, exist_ok=True)
        cc = os.environ.get("CC") or (sysconfig.get_config_var("CC") or "cc").split()[0]
        subprocess.check_call([cc, "-O2", "-Wall", "-Wextra", "-fPIC", "-shared",
                               "-I" + sysconfig.get_paths()["include"], src, "-o", lib])
    sys.path.insert(0, OUT)
    from _code_lines import Launcher
    return Launcher


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=25)
    args = ap.parse_args()
    Launcher = build()
    import pycudac.autoinit  # noqa: F401
    import bench_launch

    mod, s, ptr, v4, args16 = bench_launch.k16_setup()
    f16 = mod.get_function("k16")
    launch = bench_launch.launch_address()
    size = len(f16.pack(*args16))

    def loop(g):
        run = bench_launch.k16_loop(g, ptr, s, v4)  # µs per call
        return lambda n: run(n) * 1e3

    def launcher(code, data):
        return loop(Launcher(launch, int(f16.handle), int(s.handle), size, code, data))

    variants = {"launch only": launcher(0, 0)}
    for c in (16, 32, 48, 64):
        variants[f"+{c} code lines"] = launcher(c, 0)
    for d in (16, 32, 64):
        variants[f"+{d} data lines"] = launcher(0, d)
    variants["pycudac f(...)"] = loop(f16)
    for run in variants.values():
        run(300)
    res = {k: [] for k in variants}
    keys = list(variants)
    for r in range(args.rounds):
        for k in keys[r % len(keys):] + keys[:r % len(keys)]:
            res[k].append(variants[k](2000))
    base = res["launch only"]
    for k in keys:
        ratio = statistics.median(a / b for a, b in zip(res[k], base))
        extra = statistics.median(a - b for a, b in zip(res[k], base))
        print(f"{k:18} {statistics.median(res[k]):8.1f} ns   {ratio:.4f}x  {extra:+7.1f} ns")
    return 0


if __name__ == "__main__":
    sys.exit(main())
