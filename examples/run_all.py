"""Run the gallery: every example in order, each in its own process, on the
backend PYCUDAC_BACKEND picks (the GPU when there is one, else the CPU
simulator). Fails when an example exits non-zero, runs past its time
limit, or does not write the PNG it should.

    python3 examples/run_all.py              # all of them
    python3 examples/run_all.py 06 heat      # those whose names contain 06 or heat
    python3 examples/run_all.py --list

The examples import pycudac from the path: this script puts the tree it
sits in first on PYTHONPATH when that tree holds a built pycudac (make
build), else leaves the installed one to be found. PNGs go to
$PYCUDAC_EXAMPLES_OUT, else examples/out/.
"""
import argparse
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

# (file, PNGs it writes), in order of difficulty
GALLERY = [
    ("01_hello_threads.py", []),
    ("02_vector_add.py", []),
    ("03_gpuarray.py", []),
    ("04_index_2d.py", []),
    ("05_index_3d.py", []),
    ("06_mandelbrot.py", ["mandelbrot.png"]),
    ("07_matmul_tiled.py", []),
    ("08_transpose.py", []),
    ("09_reduction.py", []),
    ("10_scan.py", []),
    ("11_histogram.py", []),
    ("12_warp_shuffle.py", []),
    ("13_streams_events.py", []),
    ("14_graphs.py", []),
    ("15_heat_diffusion.py", ["heat_0.png", "heat_300.png"]),
    ("16_monte_carlo_pi.py", []),
    ("17_nbody.py", ["nbody.png"]),
    ("18_kmeans.py", ["kmeans.png"]),
    ("19_timing_plot.py", ["timing.png"]),
    # PyCUDA's first program and random numbers, and `make demo`'s, under their own names
    ("hello_gpu.py", []),
    ("random_numbers.py", []),
    ("demo.py", []),
]


def has_built_tree():
    pkg = os.path.join(ROOT, "pycudac")
    return os.path.isdir(pkg) and any(f.startswith("_driver") and f.endswith(".so")
                                      for f in os.listdir(pkg))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("match", nargs="*", help="run only examples whose file name contains one")
    ap.add_argument("--list", action="store_true", help="list the gallery and exit")
    ap.add_argument("--timeout", type=float, default=300, help="seconds per example")
    ap.add_argument("-v", "--verbose", action="store_true", help="show every example's output")
    args = ap.parse_args(argv)

    chosen = [(f, pngs) for f, pngs in GALLERY if not args.match
              or any(m in f for m in args.match)]
    if args.list:
        for f, _ in chosen:
            print(f)
        return 0
    if not chosen:
        print(f"no example matches {args.match}", file=sys.stderr)
        return 2
    missing = sorted(set(f for f in os.listdir(HERE) if f.endswith(".py") and f[:2].isdigit())
                     - {f for f, _ in GALLERY})
    if missing:
        print(f"examples not in run_all.py's GALLERY: {missing}", file=sys.stderr)
        return 2

    env = dict(os.environ)
    if has_built_tree():
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [ROOT, env.get("PYTHONPATH")]))
    out_dir = env.setdefault("PYCUDAC_EXAMPLES_OUT", os.path.join(HERE, "out"))
    os.makedirs(out_dir, exist_ok=True)

    failed, t_all = [], time.monotonic()
    for f, pngs in chosen:
        for png in pngs:
            try:
                os.remove(os.path.join(out_dir, png))
            except FileNotFoundError:
                pass
        t0 = time.monotonic()
        try:
            r = subprocess.run([sys.executable, os.path.join(HERE, f)], env=env,
                               capture_output=True, text=True, timeout=args.timeout)
            rc, out = r.returncode, r.stdout + r.stderr
        except subprocess.TimeoutExpired as exc:
            rc, out = "timeout", (exc.stdout or b"").decode(errors="replace")
        dt = time.monotonic() - t0
        bad_png = [p for p in pngs if not _is_png(os.path.join(out_dir, p))]
        status = "ok" if rc == 0 and not bad_png else (
            f"FAILED (exit {rc})" if rc != 0 else f"FAILED (no PNG: {', '.join(bad_png)})")
        print(f"{f:24s} {dt:6.1f} s  {status}", flush=True)
        if args.verbose or status != "ok":
            print("    " + out.rstrip().replace("\n", "\n    "), flush=True)
        if status != "ok":
            failed.append(f)
    print(f"{len(chosen) - len(failed)} of {len(chosen)} examples passed in "
          f"{time.monotonic() - t_all:.1f} s; PNGs in {out_dir}")
    return 1 if failed else 0


def _is_png(path):
    try:
        with open(path, "rb") as f:
            return f.read(8) == b"\x89PNG\r\n\x1a\n"
    except OSError:
        return False


if __name__ == "__main__":
    sys.exit(main())
