#!/usr/bin/env python3
"""A longer local fuzzing run of tests/test_fuzz.py (and the parser fuzz
tests of test_sigparse.py / test_launch_args.py at their own budgets).

    .venv/bin/python tests/fuzz_long.py            # scale 50: ~10-20 minutes
    .venv/bin/python tests/fuzz_long.py --scale 5  # a quick one
    .venv/bin/python tests/fuzz_long.py --scale 200 -k pack

CI runs the same properties with scale 1 (derandomized, seconds). Here the
examples are random (a new seed each run) and Hypothesis keeps what it found
in .hypothesis/ so a rerun replays it first. Every failure is printed with
its minimal falsifying example; turn each into a named regression test in
the test file of the code it breaks (e.g. test_sigparse.py's
test_regression_unicode_digit), fix the code, and rerun."""
import argparse
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scale", type=float, default=50.0,
                    help="multiply every fuzz test's example count (default 50)")
    ap.add_argument("-k", default=None, help="pytest -k expression to pick properties")
    args = ap.parse_args()
    env = dict(os.environ, PYCUDAC_FUZZ_SCALE=str(args.scale))
    env.setdefault("PYCUDAC_BACKEND", "sim")
    cmd = [sys.executable, "-m", "pytest", "-q", "-x", "--hypothesis-show-statistics",
           "--hypothesis-seed", str(int(time.time())),
           os.path.join(HERE, "test_fuzz.py")]
    if args.k:
        cmd += ["-k", args.k]
    print("fuzz_long:", " ".join(cmd), f"(PYCUDAC_FUZZ_SCALE={args.scale})", flush=True)
    t0 = time.time()
    rc = subprocess.call(cmd, cwd=ROOT, env=env)
    print(f"fuzz_long: exit {rc} after {time.time() - t0:.0f} s", flush=True)
    if rc not in (0, 5):
        print("fuzz_long: a property failed — add the falsifying example above as a named "
              "regression test (tests/README.md, 'Fuzzing')", flush=True)
    return rc


if __name__ == "__main__":
    sys.exit(main())
