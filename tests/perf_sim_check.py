"""What check mode costs (issue 22's target: within 20x of the unchecked
simulator on the corpus), and what a launch costs with the watchdog on.

    PYCUDAC_BACKEND=sim .venv/bin/python tests/perf_sim_check.py [--repeat N] [-k SUBSTR]
    PYCUDAC_BACKEND=sim .venv/bin/python -m pytest -m perf tests/perf_sim_check.py

Every runnable case of the kernel corpus (tests/corpus/cases.py) runs with
its module built plainly and built for check mode, compiles excluded: the
best of N runs of the case (its copies, launches and comparison inputs) with
no check, and with all four checks on. Prints a table per case, then the
geometric mean, median and worst ratio, and the ratio of the totals.
Not collected by a plain `pytest tests` (the file is not test_*.py)."""
import argparse
import math
import os
import statistics
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "corpus"))

try:
    import pytest
except ImportError:  # run as a script without pytest installed
    pytest = None

TARGET = 20.0


def _setup():
    import pycudac.autoinit  # noqa: F401
    import pycudac.driver as drv
    import test_corpus  # noqa: F401  (its launcher)
    import test_sim_check_corpus as tcc
    return drv, tcc


def _best(fn, repeat):
    best = math.inf
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    return best


def measure(repeat=3, only=None, out=print):
    drv, tcc = _setup()
    import test_corpus
    rows = []
    for c in tcc.runnable():
        if only and only not in c.id:
            continue
        plain = test_corpus.load(c.src)
        checked = tcc.load_checked(c.src)

        def run_plain():
            tcc.run_case(c, plain)

        def run_checked():
            with drv.sim_check("all", raise_errors=False):
                tcc.run_case(c, checked)

        run_plain()  # warm: first launches start the worker pool, touch pages
        run_checked()
        t0 = _best(run_plain, repeat)
        t1 = _best(run_checked, repeat)
        rows.append((c.id, t0, t1, t1 / t0))
    reports = drv.check_report(clear=True)
    out(f"{'case':40s} {'plain ms':>10s} {'checked ms':>11s} {'ratio':>7s}")
    for name, t0, t1, r in rows:
        out(f"{name:40s} {t0 * 1e3:10.2f} {t1 * 1e3:11.2f} {r:7.1f}")
    ratios = [r for *_, r in rows]
    geo = math.exp(sum(math.log(r) for r in ratios) / len(ratios))
    total = sum(t1 for _, _, t1, _ in rows) / sum(t0 for _, t0, _, _ in rows)
    out(f"\n{len(rows)} cases: geometric mean {geo:.1f}x, median {statistics.median(ratios):.1f}x, "
        f"worst {max(ratios):.1f}x ({max(rows, key=lambda r: r[3])[0]}), "
        f"total time {total:.1f}x; target {TARGET:.0f}x; reports {len(reports)}")
    return rows, geo, total, reports


def launch_overhead(n=2000, out=print):
    """Microseconds per launch of an empty one-thread kernel: plain, and under
    check mode (an instrumented module; the per-launch set-up is the cost)."""
    drv, _ = _setup()
    from pycudac.compiler import SourceModule
    src = "__global__ void nop(int *p) { if (p) *p = 1; }"
    plain = SourceModule(src).get_function("nop")
    with drv.sim_check("all"):
        checked = SourceModule(src + "\n").get_function("nop")
    res = {}
    for name, f, checks in (("plain", plain, None), ("check mode", checked, "all")):
        def loop():
            for _ in range(n):
                f(np.intp(0), block=(1, 1, 1))
        if checks:
            with drv.sim_check(checks):
                loop()
                res[name] = _best(loop, 3) / n * 1e6
        else:
            loop()
            res[name] = _best(loop, 3) / n * 1e6
    for k, v in res.items():
        out(f"launch, {k:12s}: {v:7.2f} us")
    return res


if pytest is not None:
    @pytest.mark.perf
    def test_check_mode_costs_within_target(backend):
        if backend != "sim":
            pytest.skip("check mode is the simulator's")
        rows, geo, total, reports = measure(repeat=3)
        launch_overhead()
        assert reports == []
        assert geo <= TARGET, f"check mode costs {geo:.1f}x (target {TARGET}x)"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("-k", dest="only", default=None, help="only cases whose id contains this")
    a = ap.parse_args()
    measure(a.repeat, a.only)
    launch_overhead()


if __name__ == "__main__":
    main()
