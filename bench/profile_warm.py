"""Where a warm cache hit in a fresh process spends its time: runs
SourceModule(bench/kernels/compile_src.cu) once to fill the cache, then
profiles the same call in a fresh child (cProfile, top entries by
cumulative time, in microseconds). Diagnostic aid for bench_compile's warm_fresh_process_us."""
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SRC = os.path.join(ROOT, "bench", "kernels", "compile_src.cu")
CHILD = r"""
import cProfile, pstats, sys, time
import pycudac.autoinit
import pycudac.driver as drv
from pycudac.compiler import SourceModule
src = open(sys.argv[1]).read()
drv.Context.synchronize()
prof = cProfile.Profile()
t0 = time.perf_counter()
prof.enable()
mod = SourceModule(src)
prof.disable()
t1 = time.perf_counter()
print(f"SourceModule warm: {(t1 - t0) * 1e6:.1f} us (from_cache={mod.from_cache})")
pstats.f8 = lambda x: "%8.1f" % (x * 1e6)  # microseconds
pstats.Stats(prof).sort_stats("cumulative").print_stats(22)
"""


def main():
    env = dict(os.environ, PYTHONPATH=ROOT, PYCUDAC_CACHE_DIR=tempfile.mkdtemp(prefix="pw-"))
    for _ in range(2):
        subprocess.run([sys.executable, "-c", CHILD, SRC], env=env, capture_output=True)
    r = subprocess.run([sys.executable, "-c", CHILD, SRC], env=env, capture_output=True,
                       text=True)
    print(r.stdout[-6000:], r.stderr[-2000:])


if __name__ == "__main__":
    main()
