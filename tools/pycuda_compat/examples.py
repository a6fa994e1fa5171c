"""Run PyCUDA's own example programs (examples/ and examples/from-wiki/ of
its sdist, fetched by fetch.py) against pycudac through the `pycuda` ->
`pycudac` alias, each in a process of its own: `make test-pycuda` on the
simulator, gpu-check's pycuda_tests stage on the GPU.

    python tools/pycuda_compat/examples.py [--tree DIR] [-v]

Each example runs as PyCUDA's users run it, with `import pycuda.autoinit`
first: the examples had that line until PyCUDA's 2025 switch to ruff took
unused imports out, which left most of them making no context (they fail
on PyCUDA itself the same way). Its stdin is one empty line (convolution.py
waits for Enter), matplotlib draws to no display (MPLBACKEND=Agg).

EXPECT says what else happens and why: an example that needs a module this
machine lacks is skipped; one that is too large for the simulator's time
runs on a GPU only; one that fails on purpose (texture references, which
CUDA 12 removed; Python 2 code that PyCUDA refuses too) must fail with the
error named. Any other failure, or an expected one that did not come, fails
the run (exit 1).
"""
import argparse
import glob
import importlib.util
import os
import re
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

# name: {"needs": modules (skipped without them),
#        "fails": (regex of the last error line, why), or {backend: (regex, why)},
#        "gpu_only": why (the simulator would take too long),
#        "skip": why it cannot run here whatever pycudac does (an endless loop, a data
#                file it wants, a library API it was written for that is gone)}
TEXREF = "texture references, which CUDA 12 removed: pycudac refuses them by name"


def _numpy_major():
    import numpy
    return int(numpy.__version__.split(".")[0])


EXPECT = {
    "cai_cupy_arrays.py": {"needs": ["cupy"]},
    "cai_numba.py": {"needs": ["numba"],
                     "skip_if": (lambda: _numpy_major() >= 2,
                                 "written for NumPy 1: calls numpy.row_stack, which NumPy 2 "
                                 "removed")},
    "demo_cdpSimplePrint.py": {"fails": {
        "sim": (r"LogicError: DynamicModule needs a CUDA GPU",
                "device-side launches need the device runtime and a GPU's linker"),
        "cuda": (r"cuCtxSetLimit failed: CUDA_ERROR_UNSUPPORTED_LIMIT",
                 "sets DEV_RUNTIME_SYNC_DEPTH, the limit of CUDA 11's dynamic parallelism: "
                 "CUDA 12's has none, and the driver refuses it (PyCUDA gets the same error)")}},
    "demo_meta_codepy.py": {"needs": ["codepy", "cgen"]},
    "demo_meta_template.py": {"needs": ["jinja2"]},
    "fill_gpu_with_nans.py": {"gpu_only": "fills all free device memory: on the simulator "
                                          "that is the host's, tens of GB"},
    "2d_fft.py": {"needs": ["scipy", "pyfft"]},
    "arithmetic_example.py": {
        "fails": (r"TypeError: kernel 'func': grid\.x must be an int, not float",
                  "Python 2 code: grid=(N/1024 + 1, 1, 1) is a float in Python 3, which "
                  "PyCUDA's launch refuses too")},
    "demo_meta_cgen.py": {"needs": ["cgen"]},
    "demo_meta_matrixmul_cheetah.py": {"needs": ["Cheetah"]},
    "game_of_life.py": {"skip": "wants its size on the command line, then animates in a "
                                "`while True` loop"},
    "gl_interop.py": {"needs": ["OpenGL"]},
    "gpu_scalar_mult.py": {
        "fails": (r"LogicError: get_linear_combination_kernel reads its GPU scalars through "
                  r"texture references", TEXREF)},
    "light_field_3d_viewer.py": {"needs": ["Image"]},
    "mandelbrot.py": {"needs": ["Image"]},
    "mandelbrot_interactive.py": {"needs": ["matplotlib"],
                                  "skip": "written for matplotlib < 3.5: RectangleSelector's "
                                          "drawtype= is gone"},
    "matrix_transpose.py": {"needs": ["matplotlib", "pytools"],
                            "gpu_only": "transposes 4096 x 4096 arrays over and over: minutes "
                                        "on the simulator"},
    "measure_gpuarray_speed_random.py": {"needs": ["pytools"],
                                         "gpu_only": "times arrays up to 2^26 elements: a "
                                                     "minute on the simulator"},
    "plot_random_data.py": {"needs": ["matplotlib"]},
    "rotate.py": {"fails": (r"CompileError|LogicError", TEXREF)},
    "simple_rgb2gray.py": {"needs": ["matplotlib"],
                           "skip": "written for SciPy < 1.2: scipy.misc.imread is gone"},
    "simple_speed_test.py": {"gpu_only": "times kernels of 2^20 threads: half a minute on "
                                         "the simulator"},
    "sobel_filter.py": {"needs": ["Image"]},
    "sparse_solve.py": {"skip": "wants a Matrix Market file of a sparse matrix on its "
                                "command line"},
    "thrust_interop.py": {"needs": ["cgen", "codepy"]},
}

BOOT = r"""
import runpy, sys
sys.path.insert(0, {here!r})
import pycuda_alias  # noqa: F401
import pycuda.autoinit  # noqa: F401
sys.argv = [{path!r}]
runpy.run_path({path!r}, run_name="__main__")
"""


def last_error(text):
    """The exception line a traceback ends with (or the last line)."""
    lines = [ln for ln in text.strip().splitlines() if ln.strip()]
    for ln in reversed(lines):
        if re.match(r"^[\w.]+(Error|Exception|Warning)\b", ln) or ln.startswith("pycudac."):
            return ln.strip()
    return lines[-1].strip() if lines else ""


def run_one(path, backend, timeout):
    env = dict(os.environ, MPLBACKEND="Agg", PYCUDAC_BACKEND=backend)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (ROOT, env.get("PYTHONPATH")) if p)
    t0 = time.perf_counter()
    try:
        r = subprocess.run([sys.executable, "-c", BOOT.format(here=HERE, path=path)],
                           input="\n", capture_output=True, text=True, timeout=timeout,
                           env=env, cwd=os.path.dirname(path))
        rc, out = r.returncode, r.stdout + r.stderr
    except subprocess.TimeoutExpired as exc:
        rc, out = "timeout", (exc.stdout or b"").decode(errors="replace") if isinstance(
            exc.stdout, bytes) else (exc.stdout or "")
    return rc, out, time.perf_counter() - t0


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tree", help="PyCUDA's unpacked sdist (default: fetch.py's)")
    ap.add_argument("--timeout", type=int, default=240, help="seconds per example")
    ap.add_argument("-v", action="store_true", help="print each example's output tail")
    args = ap.parse_args(argv)
    if args.tree is None:
        out = subprocess.run([sys.executable, os.path.join(HERE, "fetch.py")],
                             capture_output=True, text=True)
        if out.returncode != 0:
            print(out.stderr, file=sys.stderr)
            return 2
        args.tree = out.stdout.strip().splitlines()[-1]
    args.tree = os.path.abspath(args.tree)  # each example runs in its own folder
    paths = sorted(glob.glob(os.path.join(args.tree, "examples", "*.py")) +
                   glob.glob(os.path.join(args.tree, "examples", "from-wiki", "*.py")))
    if not paths:
        print(f"examples.py: no examples under {args.tree}/examples (run fetch.py)",
              file=sys.stderr)
        return 2
    sys.path.insert(0, ROOT)
    from pycudac import driver
    backend = os.environ.get("PYCUDAC_BACKEND") or driver.get_backend()
    counts = {"ran": 0, "failed as expected": 0, "skipped": 0, "UNEXPECTED": 0}
    for path in paths:
        name = os.path.basename(path)
        exp = EXPECT.get(name, {})
        missing = [m for m in exp.get("needs", []) if importlib.util.find_spec(m) is None]
        if missing:
            print(f"  skipped  {name}: needs {', '.join(missing)}")
            counts["skipped"] += 1
            continue
        if backend == "sim" and "gpu_only" in exp:
            print(f"  skipped  {name}: GPU only ({exp['gpu_only']})")
            counts["skipped"] += 1
            continue
        cond, why = exp.get("skip_if", (None, None))
        why = exp.get("skip") or (why if cond and cond() else None)
        if why:
            print(f"  skipped  {name}: {why}")
            counts["skipped"] += 1
            continue
        fails = exp.get("fails")
        if isinstance(fails, dict):
            fails = fails.get(backend)
        rc, out, secs = run_one(path, backend, args.timeout)
        err = last_error(out)
        if fails is None and rc == 0:
            verdict, key = "ran", "ran"
        elif fails is not None and rc not in (0, "timeout") and re.search(fails[0], err):
            verdict, key = f"failed as expected ({fails[1]})", "failed as expected"
        else:
            want = f"expected /{fails[0]}/" if fails else "expected to run"
            verdict, key = f"UNEXPECTED: exit {rc}, {want}: {err[:300]}", "UNEXPECTED"
        counts[key] += 1
        print(f"  {secs:6.1f}s  {name}: {verdict}")
        if args.v or key == "UNEXPECTED":
            tail = "\n".join(out.strip().splitlines()[-12:])
            print("        " + tail.replace("\n", "\n        "))
    print(f"PyCUDA's examples on {backend}: " + ", ".join(f"{v} {k}" for k, v in counts.items()))
    return 1 if counts["UNEXPECTED"] else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
