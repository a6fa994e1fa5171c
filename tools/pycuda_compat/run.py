"""Run PyCUDA's own test_driver.py, test_gpuarray.py and test_cumath.py
against pycudac, in one process, through the `pycuda` -> `pycudac` alias
(issue 21): make gpu-check's `pycuda_tests` stage, and by hand on the
simulator.

    python tools/pycuda_compat/run.py [--tree DIR] [--big-apart LOG] [pytest args]

--big-apart LOG (the GPU stage): the five tests of differences.TOO_BIG, which
fill 8 and 16 GB arrays and check them with NumPy on the host (minutes of
host time, most of it NumPy's), run in a second process beside the first,
which runs every other test; the second writes to LOG as it goes (so that a
run cut by a time limit keeps it) and LOG is printed after the first's
output. Without it, one process runs all of them.

The known, deliberate differences (differences.py) are marked xfail with
their reasons; every other failure fails the run (exit 1).
"""
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
FILES = ("test_driver.py", "test_gpuarray.py", "test_cumath.py")
sys.path.insert(0, HERE)
from differences import TOO_BIG  # noqa: E402


def main(argv):
    tree = None
    if argv[:1] == ["--tree"]:
        tree, argv = argv[1], argv[2:]
    big_log = None
    if "--big-apart" in argv:
        k = argv.index("--big-apart")
        if k + 1 >= len(argv):
            print("run.py: --big-apart needs the path of its log", file=sys.stderr)
            return 2
        big_log, argv = argv[k + 1], argv[:k] + argv[k + 2:]
    if tree is None:
        out = subprocess.run([sys.executable, os.path.join(HERE, "fetch.py")],
                             capture_output=True, text=True)
        if out.returncode != 0:
            print(out.stderr, file=sys.stderr)
            return 2
        tree = out.stdout.strip().splitlines()[-1]
    test_dir = os.path.join(os.path.abspath(tree), "test")   # pytest runs in it
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (HERE, ROOT, env.get("PYTHONPATH")) if p)
    cmd = [sys.executable, "-m", "pytest", "-c", os.path.join(HERE, "pytest.ini"),
           "--rootdir", test_dir, "-p", "pycuda_alias", "-p", "pycuda_differences",
           "-p", "no:cacheprovider", "-rfEX", *argv]
    if big_log is None:
        return subprocess.run(cmd + list(FILES), cwd=test_dir, env=env).returncode
    big = sorted(TOO_BIG)
    with open(big_log, "w+", errors="replace") as log:
        second = subprocess.Popen(cmd + big, cwd=test_dir, env=env, stdout=log,
                                  stderr=subprocess.STDOUT)
        try:
            rc = subprocess.run(cmd + [a for t in big for a in ("--deselect", t)] + list(FILES),
                                cwd=test_dir, env=env).returncode
            rc2 = second.wait()
        finally:
            if second.poll() is None:
                second.kill()
        log.seek(0)
        print(f"\n==== the {len(big)} big tests, in a second process (exit {rc2}) ====")
        sys.stdout.write(log.read())
    # 5: pytest collected nothing there (the simulator leaves the big ones out)
    return rc or (0 if rc2 == 5 else rc2)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
