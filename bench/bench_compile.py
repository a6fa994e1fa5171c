"""Compile and cache (issue 3), on bench/kernels/compile_src.cu:

  cold_sourcemodule_ms  SourceModule(src) with nothing cached (a new source
                        each time: a tag comment), into a fresh cache dir
  cold_compile_ms       pycudac.compiler.compile(src, arch=...) -> CUBIN bytes
  warm_fresh_process_us source -> loaded module in a NEW process with a warm
                        disk cache; timed inside the child around SourceModule(...)
  recreate_us           SourceModule(same src) again in the same process while one
                        of it lives (the memo; it keeps no module nobody uses)

beside CuPy RawModule (cold, warm in a fresh process, re-created). The floor
(bench/out/floor --src bench/kernels/compile_src.cu) gives nvrtc_compile_ms
and module_load_us for the same source.
"""
import ctypes
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from common import KERNELS, ROOT, Recorder, device_arch, header, median, now, paired, \
    parse_args  # noqa: E402

SRC_PATH = os.path.join(KERNELS, "compile_src.cu")
FUNC = "saxpy"

CHILD_PYCUDAC = r"""
import json, sys, time
import pycudac.autoinit
import pycudac.driver as drv
from pycudac.compiler import SourceModule
src = open(sys.argv[1]).read()
drv.Context.synchronize()
t0 = time.perf_counter()
mod = SourceModule(src)
t1 = time.perf_counter()
mod.get_function(sys.argv[2])
hit = None
for name in ("cache_hit", "from_cache", "cached"):
    if hasattr(mod, name):
        hit = getattr(mod, name)
        break
print("RESULT " + json.dumps({"us": (t1 - t0) * 1e6, "hit": hit}))
"""

# The driver's part of a warm hit in a pycudac process: the same CUBIN
# (read from a file before the clock starts) through module_from_buffer,
# as the first load of a fresh process. Warm hit minus this is pycudac's
# own work; this against the floor is the process around the load.
CHILD_LOAD = r"""
import json, sys, time
import pycudac.autoinit
import pycudac.driver as drv
from pycudac import compiler
image = open(sys.argv[1], "rb").read()
drv.Context.synchronize()
t0 = time.perf_counter()
mod = compiler.module_from_buffer(image)
t1 = time.perf_counter()
mod.get_function(sys.argv[2])
print("RESULT " + json.dumps({"us": (t1 - t0) * 1e6}))
"""

CHILD_CUPY = r"""
import json, sys, time
import cupy as cp
src = 'extern "C" {\n' + open(sys.argv[1]).read() + '\n}\n'
cp.empty(1)  # the context exists before the clock starts
cp.cuda.Device().synchronize()
t0 = time.perf_counter()
mod = cp.RawModule(code=src)
mod.get_function(sys.argv[2])
t1 = time.perf_counter()
print("RESULT " + json.dumps({"us": (t1 - t0) * 1e6}))
"""


def run_child(code, env, path=SRC_PATH, timeout=120):
    """The child's RESULT, given `path` (the source, or CHILD_LOAD's image)
    and the kernel's name as its arguments."""
    # cwd is not the tree: PYTHONPATH (which child_env ends with ROOT) decides
    p = subprocess.run([sys.executable, "-c", code, path, FUNC], env=env,
                       cwd=tempfile.gettempdir(),
                       capture_output=True, text=True, timeout=timeout)
    for line in p.stdout.splitlines():
        if line.startswith("RESULT "):
            return json.loads(line[7:])
    raise RuntimeError(f"child exited {p.returncode}: "
                       + " ".join((p.stderr or p.stdout).strip().splitlines()[-3:]))


def child_env(**extra):
    env = dict(os.environ)
    env["PYTHONPATH"] = (env["PYTHONPATH"] + os.pathsep if env.get("PYTHONPATH") else "") + ROOT
    env.pop("PYCUDAC_DISABLE_CACHE", None)
    env.update(extra)
    return env


def floor_in_process():
    """bench/out/libfloor.so loaded here (None when absent or on the sim)."""
    path = os.path.join(ROOT, "bench", "out", "libfloor.so")
    if not os.path.exists(path):
        return None
    from common import load_floor
    lib, why = load_floor(path, os.environ.get("FLOOR_NVRTC") or None)
    if lib is None or why:
        return None
    lib.floor_compile_ms.argtypes = [ctypes.c_char_p, ctypes.c_int]
    lib.floor_compile_ms.restype = ctypes.c_double
    return lib


def bench_pycudac(rec, quick, tmp):
    src = open(SRC_PATH).read()
    reps = 3 if quick else 7
    # a fresh process's warm start varies by tens of µs from one child to the
    # next (the floor read 0.92-1.02x of itself over 21): more children for
    # it and for its floor
    fresh_reps = 5 if quick else 31
    # a compile takes ~15 ms and a stray one 70 here: cheap to take more
    cold_reps = 3 if quick else 15
    cache = os.path.join(tmp, "pycudac-cache")
    os.environ["PYCUDAC_CACHE_DIR"] = cache
    os.environ.pop("PYCUDAC_DISABLE_CACHE", None)
    import pycudac.autoinit  # noqa: F401
    from pycudac import compiler
    from pycudac.compiler import SourceModule

    arch = device_arch()

    floor_lib = floor_in_process()

    def floor_compile(tag):
        ms = floor_lib.floor_compile_ms(src.encode(), tag)
        if ms < 0:
            raise RuntimeError(floor_lib.floor_error().decode(errors="replace"))
        return ms

    def cold_sourcemodule():
        SourceModule(src + "\n// warm-up 0\n")  # loads NVRTC (or the sim compiler)
        s, fl = [], []
        for i in range(cold_reps):
            # the floor's compile alternates with ours, under the same load
            if floor_lib is not None:
                fl.append(floor_compile(1000 + i))
            tagged = src + f"\n// cold {i}\n"
            t0 = now()
            mod = SourceModule(tagged)
            s.append((now() - t0) * 1e3)
            mod.get_function(FUNC)
        # paired: the median of (ours / the floor's compile just before it)
        rec.value("pycudac", "cold_sourcemodule_ms", median(s), "ms", s,
                  **paired([a / b for a, b in zip(s, fl)]))
        if fl:
            rec.value("floor-inproc", "nvrtc_compile_ms", median(fl), "ms", fl)
    rec.guard("pycudac", ["cold_sourcemodule_ms"], cold_sourcemodule)

    def cold_compile():
        s = []
        kw = {"arch": arch} if arch else {}
        size = None
        for i in range(cold_reps):
            tagged = src + f"\n// compile-only {i}\n"
            t0 = now()
            image = compiler.compile(tagged, **kw)
            s.append((now() - t0) * 1e3)
            size = len(image)
        rec.value("pycudac", "cold_compile_ms", median(s), "ms", s, arch=arch, image_bytes=size)
    rec.guard("pycudac", ["cold_compile_ms"], cold_compile)

    def recreate():
        # the memo holds modules only while in use (issue 21): one is held,
        # as a program that re-creates a SourceModule it already has does
        keep = SourceModule(src)
        SourceModule(src)
        n, batches = (20, 5) if quick else (200, 15)
        s = []
        for _ in range(batches):
            t0 = now()
            for _ in range(n):
                SourceModule(src)
            s.append((now() - t0) * 1e6 / n)
        # its C call alone (src/compile/cache_warm.c): the rest is
        # SourceModule's Python frame (re-create read 0.45-1.0 µs on the H100
        # hosts until 27a, 1.77 µs on 2026-11-28: which part moved?)
        from pycudac import _driver
        from pycudac._compiler import cache
        c = []
        for _ in range(batches):
            t0 = now()
            for _ in range(n):
                _driver.warm_source_module(src, False, None, compiler._memo, compiler._stats,
                                           cache.CACHE_FORMAT_VERSION)
            c.append((now() - t0) * 1e6 / n)
        del keep
        rec.value("pycudac", "recreate_us", median(s), "us", s)
        rec.value("pycudac", "recreate_c_us", median(c), "us", c)
    rec.guard("pycudac", ["recreate_us", "recreate_c_us"], recreate)

    def floor_first_load_us():
        """The floor for a warm hit: a fresh C process whose first
        cuModuleLoadData is of the same CUBIN (bench/out/floor --only firstload)."""
        exe = os.path.join(ROOT, "bench", "out", "floor")
        if not os.path.exists(exe):
            raise RuntimeError("bench/out/floor is not built")
        cmd = [exe, "--only", "firstload", "--src", SRC_PATH]
        if os.environ.get("FLOOR_NVRTC"):
            cmd += ["--nvrtc", os.environ["FLOOR_NVRTC"]]
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=120).stdout
        rows = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
        vals = [r["value"] for r in rows if r.get("metric") == "module_first_load_us"
                and r.get("value") is not None]
        if not vals:
            raise RuntimeError("floor printed no module_first_load_us: " + out[-300:])
        return vals[0]

    def fresh_process():
        """pycudac's child, the floor's child and the floor's again, in a
        rotating order. A fresh process reads tens of µs apart from the next
        and the machine drifts, so besides the medians each figure gets a
        paired ratio: the median of (child / the floor child of its turn)."""
        wcache = os.path.join(tmp, "pycudac-warm")
        env = child_env(PYCUDAC_CACHE_DIR=wcache)
        first = run_child(CHILD_PYCUDAC, env)  # fills the cache
        mine, floor, again, hits, load = [], [], [], [], []
        image = os.path.join(tmp, "warm.cubin")
        with open(image, "wb") as f:
            f.write(SourceModule(src).image)

        def pycudac_child():
            r = run_child(CHILD_PYCUDAC, env)
            mine.append(r["us"])
            hits.append(r.get("hit"))
        children = [pycudac_child, lambda: load.append(run_child(CHILD_LOAD, env, image)["us"])]
        if os.path.exists(os.path.join(ROOT, "bench", "out", "floor")):
            children += [lambda: floor.append(floor_first_load_us()),
                         lambda: again.append(floor_first_load_us())]
        for i in range(fresh_reps):
            # the order rotates: a child after a Python child read slower
            # than after a C one (the floor 0.92x of itself when always second)
            k = i % len(children)
            for child in children[k:] + children[:k]:
                child()

        def to_floor(xs):
            return paired([x / f for x, f in zip(xs, floor)])
        def raw(xs):  # each child's figure, in the order run (for later analysis)
            return [round(x, 1) for x in xs]
        rec.value("pycudac", "warm_fresh_process_us", median(mine), "us", mine,
                  first_process_us=first["us"], hits=hits, children_us=raw(mine),
                  **to_floor(mine))
        rec.value("pycudac", "load_fresh_process_us", median(load), "us", load,
                  children_us=raw(load), **to_floor(load))
        if floor:
            rec.value("floor", "module_first_load_us", median(floor), "us", floor,
                      children_us=raw(floor))
            rec.value("floor", "module_first_load_again_us", median(again), "us", again,
                      children_us=raw(again), **to_floor(again))
    rec.guard("pycudac", ["warm_fresh_process_us"], fresh_process)
    if ("floor", "module_first_load_us") not in rec.seen:
        def floor_only():
            s = [floor_first_load_us() for _ in range(fresh_reps)]
            rec.value("floor", "module_first_load_us", median(s), "us", s)
        rec.guard("floor", ["module_first_load_us"], floor_only)


def bench_cupy(rec, quick, tmp):
    import cupy as cp

    src = 'extern "C" {\n' + open(SRC_PATH).read() + "\n}\n"
    reps = 3 if quick else 7
    ccache = os.path.join(tmp, "cupy-cache")
    os.environ["CUPY_CACHE_DIR"] = ccache
    cp.empty(1)

    def cold():
        s = []
        cp.RawModule(code=src + "\n// warm-up\n").get_function(FUNC)
        for i in range(reps):
            t0 = now()
            cp.RawModule(code=src + f"\n// cold {i}\n").get_function(FUNC)
            s.append((now() - t0) * 1e3)
        rec.value("cupy", "cold_sourcemodule_ms", median(s), "ms", s)
    rec.guard("cupy", ["cold_sourcemodule_ms"], cold)

    def recreate():
        cp.RawModule(code=src).get_function(FUNC)
        n, batches = (20, 5) if quick else (200, 15)
        s = []
        for _ in range(batches):
            t0 = now()
            for _ in range(n):
                cp.RawModule(code=src).get_function(FUNC)
            s.append((now() - t0) * 1e6 / n)
        rec.value("cupy", "recreate_us", median(s), "us", s)
    rec.guard("cupy", ["recreate_us"], recreate)

    def fresh():
        env = child_env(CUPY_CACHE_DIR=os.path.join(tmp, "cupy-warm"))
        first = run_child(CHILD_CUPY, env)
        s = [run_child(CHILD_CUPY, env)["us"] for _ in range(reps)]
        rec.value("cupy", "warm_fresh_process_us", median(s), "us", s,
                  first_process_us=first["us"])
    rec.guard("cupy", ["warm_fresh_process_us"], fresh)


def main():
    args = parse_args(__doc__.splitlines()[0])
    rec = Recorder(args)
    header(rec, "compile and cache")
    tmp = tempfile.mkdtemp(prefix="pycudac-bench-")
    os.chmod(tmp, 0o700)
    try:
        rec.guard("pycudac", ["cold_sourcemodule_ms", "cold_compile_ms", "recreate_us",
                              "recreate_c_us", "warm_fresh_process_us"], bench_pycudac, rec, args.quick, tmp)
        rec.guard("cupy", ["cold_sourcemodule_ms", "recreate_us", "warm_fresh_process_us"],
                  bench_cupy, rec, args.quick, tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
