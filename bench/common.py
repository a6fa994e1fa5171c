"""Shared pieces of the benchmarks in bench/: argument parsing, timing with
the discipline of the device method (warm-up, then the median of many
batches), JSON-lines output, and "n/a: reason" instead of a crash.

Every bench prints one human line per metric and, with --json PATH, appends
one JSON object per metric to PATH (bench/report.py reads those):

    {"bench": "pycudac", "metric": "launch_empty_call_us", "value": 3.9,
     "unit": "us", "n": 21, "min": ..., "max": ...}
    {"bench": "cupy", "metric": "...", "value": null, "na": "why"}
"""
import argparse
import ctypes
import json
import os
import statistics
import sys
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
KERNELS = os.path.join(HERE, "kernels")
DEFAULT_FLOOR_LIB = os.path.join(HERE, "out", "libfloor.so")

if ROOT not in sys.path:  # run from anywhere: `python3 bench/bench_x.py`
    sys.path.append(ROOT)  # last: PYTHONPATH (gpu_check.sh sets it) comes first

now = time.perf_counter


def parse_args(description, extra=None):
    p = argparse.ArgumentParser(description=description)
    p.add_argument("--quick", action="store_true",
                   help="small sizes and few repetitions (a smoke run, e.g. on the simulator)")
    p.add_argument("--json", metavar="PATH", help="append JSON lines to PATH")
    p.add_argument("--floor-lib", metavar="PATH", default=DEFAULT_FLOOR_LIB,
                   help="bench/out/libfloor.so (the C floor, loaded in-process)")
    if extra:
        extra(p)
    return p.parse_args()


class Recorder:
    """Collects and prints results; never raises from its own methods."""

    def __init__(self, args):
        self.json_path = getattr(args, "json", None)
        self.quick = bool(getattr(args, "quick", False))
        self.seen = set()

    def _write(self, rec):
        if self.quick:
            rec["quick"] = True
        self.seen.add((rec["bench"], rec["metric"]))
        if self.json_path:
            try:
                with open(self.json_path, "a") as f:
                    f.write(json.dumps(rec) + "\n")
            except OSError as exc:
                print(f"  (cannot write {self.json_path}: {exc})", file=sys.stderr)

    def value(self, bench, metric, value, unit, samples=None, **extra):
        rec = {"bench": bench, "metric": metric, "value": float(value), "unit": unit}
        if samples:
            rec.update(n=len(samples), min=float(min(samples)), max=float(max(samples)))
        rec.update(extra)
        print(f"  {bench:<12} {metric:<34} {fmt(value):>10} {unit}"
              + (f"   (n={len(samples)}, {fmt(min(samples))}..{fmt(max(samples))})"
                 if samples else ""), flush=True)
        self._write(rec)

    def na(self, bench, metric, why):
        why = " ".join(str(why).split())[:300]
        print(f"  {bench:<12} {metric:<34} n/a: {why}", flush=True)
        self._write({"bench": bench, "metric": metric, "value": None, "na": why})

    def info(self, bench, metric, **fields):
        print(f"  {bench:<12} {metric:<34} " + ", ".join(f"{k}={v}" for k, v in fields.items()),
              flush=True)
        rec = {"bench": bench, "metric": metric, "value": None}
        rec.update(fields)
        self._write(rec)

    def guard(self, bench, metrics, fn, *args, **kwargs):
        """Runs fn; on any exception every metric in `metrics` not yet
        recorded becomes n/a with the exception as the reason."""
        try:
            return fn(*args, **kwargs)
        except Exception as exc:  # a benchmark must never stop the run
            why = f"{type(exc).__name__}: {exc}"
            if os.environ.get("PYCUDAC_BENCH_TRACE"):
                traceback.print_exc()
            for m in metrics:
                if (bench, m) not in self.seen:
                    self.na(bench, m, why)
            return None


def fmt(x):
    if x is None:
        return "n/a"
    x = float(x)
    if x == 0:
        return "0"
    if abs(x) >= 1000:
        return f"{x:.0f}"
    if abs(x) >= 100:
        return f"{x:.1f}"
    if abs(x) >= 1:
        return f"{x:.3g}" if abs(x) < 10 else f"{x:.2f}"
    return f"{x:.3g}"


def median(xs):
    return statistics.median(xs)


def paired(ratios):
    """The JSON fields of a paired ratio: the median of per-round (or
    per-child) ratios to the floor measured beside each, and their spread."""
    if not ratios:
        return {}
    return {"paired_ratio": median(ratios), "paired_min": min(ratios),
            "paired_max": max(ratios), "paired_rounds": len(ratios)}


def repeat(fn, warm, reps):
    """Calls fn() `warm` times untimed, then `reps` times; returns the list of
    whatever fn returns (fn times itself and returns its sample)."""
    for _ in range(warm):
        fn()
    return [fn() for _ in range(reps)]


def load_floor(path, nvrtc_hint=None):
    """The C floor as a library in this process (same context as pycudac,
    CuPy and cuda.core: the device's primary context). Returns (lib, None)
    or (None, why)."""
    if not path or not os.path.exists(path):
        return None, f"{path} not built (cc -O2 -fPIC -shared -Iinclude bench/floor/*.c -ldl)"
    try:
        lib = ctypes.CDLL(path)
        lib.floor_init.argtypes = [ctypes.c_char_p]
        lib.floor_init.restype = ctypes.c_int
        lib.floor_error.restype = ctypes.c_char_p
        lib.floor_launch_us.argtypes = [ctypes.c_int] * 4
        lib.floor_launch_us.restype = ctypes.c_double
        lib.floor_param_size.argtypes = [ctypes.c_int]
        lib.floor_param_size.restype = ctypes.c_long
        lib.floor_htod_small_us.argtypes = [ctypes.c_int]
        lib.floor_htod_small_us.restype = ctypes.c_double
        lib.floor_copy_GBps.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
        lib.floor_copy_GBps.restype = ctypes.c_double
    except OSError as exc:
        return None, f"cannot load {path}: {exc}"
    hint = nvrtc_hint or os.environ.get("FLOOR_NVRTC")
    rc = lib.floor_init(hint.encode() if hint else None)
    if rc < 0:
        return None, lib.floor_error().decode(errors="replace")
    if rc > 0:
        return lib, lib.floor_error().decode(errors="replace")  # copies work, kernels don't
    return lib, None


def pycudac_nvrtc_path():
    """Where pycudac found NVRTC (so the floor can use the same library)."""
    try:
        from pycudac import _driver
        p = _driver._nvrtc_path()
        return p.split(" (")[0]
    except Exception:
        return None


def device_arch():
    """'sm_XY' of the current pycudac device, or None."""
    try:
        import pycudac.driver as drv
        major, minor = drv.Context.get_device().compute_capability()
        return f"sm_{major}{minor}"
    except Exception:
        return None


def sync():
    import pycudac.driver as drv
    drv.Context.synchronize()


def gpu_timer():
    """Returns a function timing fn() in ms: pycudac events when they work,
    else the host clock after Context.synchronize()."""
    import pycudac.driver as drv
    try:
        start, end = drv.Event(), drv.Event()
        start.record()
        end.record()
        end.synchronize()
        start.time_till(end)

        def timed(fn):
            start.record()
            fn()
            end.record()
            end.synchronize()
            return start.time_till(end)
        return timed, "events"
    except Exception:
        def timed(fn):
            drv.Context.synchronize()
            t0 = now()
            fn()
            drv.Context.synchronize()
            return (now() - t0) * 1e3
        return timed, "host clock"


def backend_name():
    try:
        import pycudac.driver as drv
        return drv.get_backend()
    except Exception as exc:
        return f"unavailable ({type(exc).__name__}: {exc})"


def header(rec, title):
    print(f"== {title} (backend: {backend_name()})", flush=True)
