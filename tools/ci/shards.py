#!/usr/bin/env python3
"""tools/ci/shards.py — the whole suite in parallel pytest processes.

On a fresh GPU host every test compiles cold (the compile cache is empty),
and the suite in one process ran past gpu-check's time; the host has 16
cores and the GPU takes several processes at once. On CI's two cores, two
processes take the suite from 160 to 95 s and the ASan stage likewise (a
test waits on a child process or a compile as often as it computes). The
test files are dealt to N processes, largest first, each to the one with
least so far; the files that measure the whole device's free memory (a
neighbour's allocation would look like their leak) run afterwards, one
process, alone.

    python3 tools/ci/shards.py [-n N] [--logs DIR] [--skip FILE ...] [pytest args...]

Exit status: 0 when every process passed; otherwise the first non-zero
status seen (pytest's: 1 tests failed, 2 interrupted, 5 nothing collected).
Each process's summary and failures are printed, in order, at the end.
"""
import argparse
import glob
import os
import signal
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# device-wide memory measured before and after: alone, after the others
ALONE = ("test_driver.py", "test_driver_memory.py", "test_driver_host_memory.py",
         "test_faults_load.py", "test_leaks.py", "test_scale.py")


def deal(files, n):
    """Files to n shards, largest first, each to the lightest shard."""
    shards = [[] for _ in range(n)]
    weight = [0] * n
    for f in sorted(files, key=os.path.getsize, reverse=True):
        k = weight.index(min(weight))
        shards[k].append(f)
        weight[k] += os.path.getsize(f)
    return [s for s in shards if s]


def summary(log):
    """The lines of a pytest log worth printing: failures and the count."""
    with open(log, errors="replace") as f:
        lines = f.read().splitlines()
    keep = [ln for ln in lines if ln.startswith(("FAILED ", "ERROR "))]
    tail = [ln for ln in lines[-5:] if " in " in ln and ("passed" in ln or "failed" in ln
                                                          or "error" in ln or "skipped" in ln)]
    return keep + tail[-1:]


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-n", type=int, default=4, help="parallel processes (default 4)")
    ap.add_argument("--logs", default=None, help="folder for the processes' logs")
    ap.add_argument("--tests", default=os.path.join(ROOT, "tests"))
    ap.add_argument("--skip", action="append", default=[], metavar="FILE",
                    help="a test file (its name) to leave out; repeatable")
    args, pytest_args = ap.parse_known_args(argv)
    if args.n < 1:
        ap.error("-n must be at least 1")
    logs = args.logs or os.path.join(ROOT, "bench", "out", "shards")
    os.makedirs(logs, exist_ok=True)
    files = [f for f in sorted(glob.glob(os.path.join(args.tests, "test_*.py")))
             if os.path.basename(f) not in args.skip]
    alone = [f for f in files if os.path.basename(f) in ALONE]
    rest = [f for f in files if f not in alone]
    cmd = [sys.executable, "-m", "pytest", "-rfE", *pytest_args]

    def start(k, group):
        log = os.path.join(logs, f"shard{k}.log")
        out = open(log, "w")
        p = subprocess.Popen(cmd + group, stdout=out, stderr=subprocess.STDOUT, cwd=ROOT)
        out.close()
        return p, log

    runs = []

    def stop(signum, frame):
        # a time limit (gpu_check.sh's timeout) ends the processes too
        for p, _ in runs:
            p.kill()
        sys.exit(128 + signum)

    signal.signal(signal.SIGTERM, stop)
    t0 = time.monotonic()
    runs.extend(start(k, g) for k, g in enumerate(deal(rest, args.n)))
    codes = [p.wait() for p, _ in runs]
    if alone:
        p, log = start(len(runs), alone)
        runs.append((p, log))
        codes.append(p.wait())
    for (p, log), rc in zip(runs, codes):
        print(f"-- {os.path.basename(log)}: rc={rc}")
        for ln in summary(log):
            print("   " + ln)
    print(f"shards: {len(runs)} processes, {time.monotonic() - t0:.0f} s")
    bad = [rc for rc in codes if rc != 0]
    return bad[0] if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
