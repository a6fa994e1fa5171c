"""Where a warm cache hit in a fresh process spends its time: runs
SourceModule(bench/kernels/compile_src.cu) once to fill the cache, then
times the same call in fresh children two ways:
  phases   every _driver call and the main compiler helpers wrapped with a
           clock (inclusive µs, first call of the process), no profiler;
  cprofile cProfile's view, top entries by cumulative time;
  syscalls the system calls made inside the call, each with its time
           (strace -T, when strace is installed; it slows each call).
Diagnostic aid for bench_compile's warm_fresh_process_us."""
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SRC = os.path.join(ROOT, "bench", "kernels", "compile_src.cu")
PHASES = r"""
import sys, time
clock = time.perf_counter
import pycudac.autoinit
import pycudac.driver as drv
from pycudac import compiler, _driver
spent = {}
def timed(name, fn):
    def wrapper(*a, **k):
        t0 = clock()
        try:
            return fn(*a, **k)
        finally:
            spent[name] = spent.get(name, 0.0) + (clock() - t0) * 1e6
    return wrapper
class Proxy:
    def __getattr__(self, name):
        v = getattr(_driver, name)
        return timed("_driver." + name, v) if callable(v) and not isinstance(v, type) else v
compiler._driver = Proxy()
for name in ("_key_args", "_compiler_identity", "_device_target", "_nvrtc_facts", "normalize_options",
             "_plan", "module_from_buffer", "_compile_cached", "_build_module",
             "_system_includes", "_current_context"):
    if hasattr(compiler, name):
        setattr(compiler, name, timed(name, getattr(compiler, name)))
src = open(sys.argv[1]).read()
drv.Context.synchronize()
t0 = clock()
mod = compiler.SourceModule(src)
t1 = clock()
print(f"SourceModule warm: {(t1 - t0) * 1e6:.1f} us (from_cache={mod.from_cache})")
for name, us in sorted(spent.items(), key=lambda kv: -kv[1]):
    print(f"  {us:8.1f} us  {name}")
"""
CPROFILE = r"""
import cProfile, pstats, sys, time
import pycudac.autoinit
import pycudac.driver as drv
from pycudac.compiler import SourceModule
src = open(sys.argv[1]).read()
drv.Context.synchronize()
prof = cProfile.Profile()
prof.enable()
mod = SourceModule(src)
prof.disable()
pstats.f8 = lambda x: "%8.1f" % (x * 1e6)  # microseconds
pstats.Stats(prof).sort_stats("cumulative").print_stats(22)
"""

SYSCALLS = r"""
import os, sys
import pycudac.autoinit
import pycudac.driver as drv
from pycudac.compiler import SourceModule
src = open(sys.argv[1]).read()
drv.Context.synchronize()
os.getppid()  # the markers around the call, in strace's log
mod = SourceModule(src)
os.getppid()
print("from_cache", mod.from_cache)
"""


def syscalls(env):
    """The system calls inside one warm SourceModule, from strace's log."""
    import shutil
    if shutil.which("strace") is None:
        print("syscalls: no strace here")
        return
    log = tempfile.mktemp(prefix="pw-strace-")
    r = subprocess.run(["strace", "-f", "-T", "-o", log, sys.executable, "-c", SYSCALLS, SRC],
                       env=env, capture_output=True, text=True)
    lines = open(log).read().splitlines()
    marks = [i for i, line in enumerate(lines) if "getppid()" in line]
    inside = lines[marks[0] + 1:marks[1]] if len(marks) >= 2 else lines[-40:]
    print(f"syscalls inside the warm call: {len(inside)} ({r.stdout.strip()})")
    for line in inside:
        print("  " + line.split(None, 1)[-1][:200])


def main():
    env = dict(os.environ, PYTHONPATH=ROOT, PYCUDAC_CACHE_DIR=tempfile.mkdtemp(prefix="pw-"))
    for _ in range(2):
        subprocess.run([sys.executable, "-c", PHASES, SRC], env=env, capture_output=True)
    for child in (PHASES, PHASES, CPROFILE):
        r = subprocess.run([sys.executable, "-c", child, SRC], env=env, capture_output=True,
                           text=True)
        print(r.stdout[-5000:], r.stderr[-1500:])
    syscalls(env)


if __name__ == "__main__":
    main()
