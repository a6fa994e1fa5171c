"""Two builds of pycudac side by side on the GPU: which one launches faster.

    python3 bench/ab_launch.py ROOT_A ROOT_B [--children N] [--rounds R]

ROOT_A and ROOT_B are source trees with pycudac built in place (python3
setup.py build_ext --inplace). Child processes alternate between the two
(A B, B A, A B...); each times the empty, prepared and 16-parameter launch
loops of bench/bench_launch.py in rotating rounds, each beside the Python
floor (the same loop calling bench/code_lines.c's Launcher), so that every
figure is a ratio to a floor measured a moment apart. Printed: per build
and loop, the median ratio to the Python floor over all rounds, and B over
A, the median of child-by-child quotients, with their spread.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def child(rounds, calls):
    sys.path.insert(0, HERE)
    import pycudac.autoinit  # noqa: F401
    import pycudac.driver as drv
    from pycudac.compiler import SourceModule
    from pycudac.gpuarray import vec
    from bench_launch import SRC, empty_loop, k16_loop, make_launcher, prepared_loop

    mod = SourceModule(SRC)
    f0, f16 = mod.get_function("empty"), mod.get_function("k16")
    f0.prepare("Pi")
    s = drv.Stream(flags=1)
    ptr = drv.mem_alloc(4096)
    v4 = vec.make_float4(1, 2, 3, 4)
    l0 = make_launcher(f0, s, (ptr, 1000))
    l16 = make_launcher(f16, s, (ptr, ptr, ptr, ptr, 1, 2, 3, 4, 1.5, 2.5, 3.5, 4.5, v4, 6.25,
                                 7, -8))
    loops = {"empty": (empty_loop(l0, ptr, s), empty_loop(f0, ptr, s)),
             "prepared": (empty_loop(l0, ptr, s), prepared_loop(f0, ptr, s)),
             "k16": (k16_loop(l16, ptr, s, v4), k16_loop(f16, ptr, s, v4))}
    for floor, own in loops.values():
        floor(300)
        own(300)
    out = {k: [] for k in loops}
    keys = list(loops)
    for r in range(rounds):
        for k in keys[r % len(keys):] + keys[:r % len(keys)]:
            floor, own = loops[k]
            if r % 2 == 0:
                fl, ow = floor(calls), own(calls)
            else:
                ow = own(calls)
                fl = floor(calls)
            out[k].append((fl, ow))
    print(json.dumps(out))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("roots", nargs="*")
    ap.add_argument("--children", type=int, default=6)
    ap.add_argument("--rounds", type=int, default=15)
    ap.add_argument("--calls", type=int, default=2000)
    ap.add_argument("--child", action="store_true")
    a = ap.parse_args()
    if a.child:
        child(a.rounds, a.calls)
        return 0
    if len(a.roots) != 2:
        ap.error("two source trees, A and B")
    roots = [os.path.abspath(r) for r in a.roots]
    per = {0: [], 1: []}  # per build: one dict of per-round ratios per child
    for c in range(a.children):
        for which in ((0, 1) if c % 2 == 0 else (1, 0)):
            env = dict(os.environ, PYTHONPATH=roots[which])
            r = subprocess.run([sys.executable, os.path.abspath(__file__), "--child",
                                "--rounds", str(a.rounds), "--calls", str(a.calls)],
                               env=env, capture_output=True, text=True, cwd=roots[which])
            if r.returncode != 0:
                print(r.stdout, r.stderr, file=sys.stderr)
                return 1
            data = json.loads(r.stdout.strip().splitlines()[-1])
            per[which].append({k: [own / floor for floor, own in v] for k, v in data.items()})
    print(f"{a.children} children per build, {a.rounds} rounds of {a.calls} calls each")
    for k in per[0][0]:
        ra = [statistics.median(ch[k]) for ch in per[0]]
        rb = [statistics.median(ch[k]) for ch in per[1]]
        q = [b / x for x, b in zip(ra, rb)]
        all_a = statistics.median(x for ch in per[0] for x in ch[k])
        all_b = statistics.median(x for ch in per[1] for x in ch[k])
        print(f"{k:9} A {all_a:.4f}x  B {all_b:.4f}x of the Python floor;  "
              f"B/A {statistics.median(q):.4f} (children {min(q):.4f}..{max(q):.4f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
