"""Run PyCUDA's own test_driver.py, test_gpuarray.py and test_cumath.py
against pycudac, in one process, through the `pycuda` -> `pycudac` alias
(issue 21): make gpu-check's `pycuda_tests` stage, and by hand on the
simulator.

    python tools/pycuda_compat/run.py [--tree build/pycuda/pycuda-2026.1] [pytest args]

The known, deliberate differences (differences.py) are marked xfail with
their reasons; every other failure fails the run (exit 1).
"""
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
FILES = ("test_driver.py", "test_gpuarray.py", "test_cumath.py")


def main(argv):
    tree = None
    if argv[:1] == ["--tree"]:
        tree, argv = argv[1], argv[2:]
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
           "-p", "no:cacheprovider", "-rfEX", *argv, *FILES]
    return subprocess.run(cmd, cwd=test_dir, env=env).returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
