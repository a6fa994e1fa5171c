"""A simulated device cannot take Python down (issue 22): a kernel's abort()
or exit() becomes a sticky launch error naming it, as a trap is on a GPU; a
module's namespace-scope constructor never runs (the compiler refuses it,
as NVRTC does, and a loaded module's initializers are skipped); a runaway
kernel stops on Ctrl-C (KeyboardInterrupt within a second, the process
usable after) or at PYCUDAC_SIM_TIMEOUT (CUDA_ERROR_LAUNCH_TIMEOUT, not
sticky); a compile stops on Ctrl-C or at PYCUDAC_SIM_COMPILE_TIMEOUT, and
never reads a device, FIFO or /proc file it is asked to #include; a thread
that overflows its stack is the one named. Each case runs in its own
interpreter, which must exit normally."""
import os
import signal
import subprocess
import sys
import textwrap

import pytest

drv = pytest.importorskip("pycudac.driver")

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


@pytest.fixture(scope="module", autouse=True)
def sim_only(backend):
    if backend != "sim":
        pytest.skip("the simulator's isolation (a GPU is a separate device already)")


def run(code, timeout=120, **env):
    e = dict(os.environ, PYCUDAC_BACKEND="sim", **env)
    e["PYTHONPATH"] = ROOT + os.pathsep + e.get("PYTHONPATH", "")
    pre = textwrap.dedent("""
        import os, signal, sys, threading, time
        import numpy as np
        import pycudac.autoinit
        import pycudac.driver as drv
        from pycudac.compiler import SourceModule

        # Ctrl-C raises KeyboardInterrupt even where the parent ignores it
        # (a shell's `make test &` starts everything with SIGINT ignored)
        signal.signal(signal.SIGINT, signal.default_int_handler)

        def interrupt_in(seconds):
            pid = os.getpid()
            threading.Timer(seconds, lambda: os.kill(pid, signal.SIGINT)).start()
    """)
    r = subprocess.run([sys.executable, "-c", pre + textwrap.dedent(code)], capture_output=True,
                       text=True, timeout=timeout, env=e, cwd=ROOT)
    assert r.returncode == 0, f"exit {r.returncode}\n{r.stdout}\n{r.stderr}"
    return r.stdout


@pytest.mark.parametrize("call,name", [("abort()", "abort()"), ("exit(7)", "exit()"),
                                       ("_Exit(3)", "_Exit()"), ("quick_exit(1)", "quick_exit()")])
def test_a_kernel_that_ends_the_process_ends_its_launch(call, name):
    decl = {"abort()": "void abort(void);", "exit(7)": "void exit(int);",
            "_Exit(3)": "void _Exit(int);", "quick_exit(1)": "void quick_exit(int);"}[call]
    out = run(f"""
        m = SourceModule(r'''extern "C" {decl}
        __global__ void k(int *p) {{ if (threadIdx.x == 3) {call}; p[threadIdx.x] = 1; }}''')
        p = drv.mem_alloc(256)
        m.get_function("k")(p, block=(32, 1, 1))
        try:
            drv.Context.synchronize()
        except drv.LaunchError as e:
            print("CODE", e.code)
            print("MSG", e)
        print("POISONED", drv.is_poisoned())
    """)
    assert "CODE 719" in out and "POISONED True" in out
    assert f"thread (3,0,0): {name} was called in device code" in out


def test_a_kernel_named_exit_is_still_a_kernel():
    out = run("""
        m = SourceModule('__global__ void exit(int *p) { p[threadIdx.x] = 5; }')
        p = drv.mem_alloc(128)
        m.get_function("exit")(p, block=(32, 1, 1))
        r = np.empty(32, np.int32); drv.memcpy_dtoh(r, p)
        print("SUM", r.sum())
    """)
    assert "SUM 160" in out


@pytest.mark.parametrize("init", [
    "namespace { struct S { __device__ S() { *(volatile int *)8 = 1; } }; S s; }",
    "__device__ int f() { return *(volatile int *)8; } __device__ int g = f();",
])
def test_dynamic_initialization_is_refused_as_nvrtc_does(init):
    out = run(f"""
        try:
            SourceModule(r'''{init}
            __global__ void k(int *p) {{ p[0] = 1; }}''', options=["-default-device"])
        except drv.CompileError as e:
            print("REFUSED", e)
    """)
    assert "dynamic initialization is not supported for a __device__ variable" in out


def test_constant_initialization_is_fine():
    out = run("""
        m = SourceModule('''__device__ int g = 5; __constant__ float c[4] = {1, 2, 3, 4};
        struct T { int a; __device__ constexpr T(int x) : a(x) {} };
        __device__ T t(3);
        __global__ void k(int *p) { p[threadIdx.x] = g + (int)c[1] + t.a; }''')
        p = drv.mem_alloc(4)
        m.get_function("k")(p, block=(1, 1, 1))
        r = np.empty(1, np.int32); drv.memcpy_dtoh(r, p); print("VALUE", r[0])
    """)
    assert "VALUE 10" in out


SPIN = r'''
__global__ void spin(volatile int *flag, int *out)
{
    while (*flag == 0) { }
    out[threadIdx.x] = 1;
}
__global__ void spin_sync(volatile int *flag, int *out)
{
    __syncthreads();
    while (*flag == 0) { }
    out[threadIdx.x] = 1;
}
__global__ void ok(int *out) { out[threadIdx.x] = 2; }
'''


@pytest.mark.parametrize("kernel", ["spin", "spin_sync"])
def test_ctrl_c_interrupts_a_running_kernel(kernel):
    """Blocks spinning on every worker, as threads or as fibers: Ctrl-C stops
    them within a second, KeyboardInterrupt is raised, and the process goes
    on (nothing sticky)."""
    out = run(f"""
        m = SourceModule({SPIN!r})
        flag = drv.mem_alloc(4); drv.memset_d32(flag, 0, 1)
        out = drv.mem_alloc(4096)
        interrupt_in(1.0)
        t = time.time()
        try:
            m.get_function("{kernel}")(flag, out, block=(64, 1, 1), grid=(8, 1))
        except KeyboardInterrupt:
            print("INTERRUPTED after %.2f" % (time.time() - t - 1.0))
        m.get_function("ok")(out, block=(32, 1, 1))
        r = np.empty(32, np.int32); drv.memcpy_dtoh(r, out)
        print("AFTER", r.sum(), drv.is_poisoned())
    """)
    late = float(out.split("INTERRUPTED after ")[1].split()[0])
    assert late < 1.0, out
    assert "AFTER 64 False" in out


def test_ctrl_c_while_no_kernel_runs_is_plain_python():
    out = run("""
        m = SourceModule('__global__ void ok(int *out) { out[threadIdx.x] = 2; }')
        try:
            interrupt_in(0.2)
            time.sleep(5)
        except KeyboardInterrupt:
            print("PYTHON INTERRUPT")
        out = drv.mem_alloc(128)
        m.get_function("ok")(out, block=(32, 1, 1))
        print("OK")
    """)
    assert "PYTHON INTERRUPT" in out and "OK" in out


def test_ignored_sigint_stops_nothing():
    out = run(f"""
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        m = SourceModule({SPIN!r})
        flag = drv.mem_alloc(4); drv.memset_d32(flag, 0, 1)
        out = drv.mem_alloc(4096)
        interrupt_in(0.3)
        try:
            m.get_function("spin")(flag, out, block=(32, 1, 1))
        except drv.LaunchError as e:
            print("STOPPED BY", e.code)
    """, PYCUDAC_SIM_TIMEOUT="1.5")
    assert "STOPPED BY 702" in out  # the watchdog, not the ignored Ctrl-C


def test_watchdog_stops_a_runaway_kernel():
    out = run(f"""
        m = SourceModule({SPIN!r})
        flag = drv.mem_alloc(4); drv.memset_d32(flag, 0, 1)
        out = drv.mem_alloc(4096)
        for k in ("spin", "spin_sync"):
            t = time.time()
            try:
                m.get_function(k)(flag, out, block=(64, 1, 1), grid=(4, 1))
            except drv.LaunchError as e:
                print(k, "CODE", e.code, "%.1f" % (time.time() - t))
                print(k, "MSG", e)
        print("POISONED", drv.is_poisoned())
        m.get_function("ok")(out, block=(32, 1, 1))
        print("OK")
    """, PYCUDAC_SIM_TIMEOUT="1")
    assert "spin CODE 702 1." in out and "spin_sync CODE 702 1." in out
    assert "ran past PYCUDAC_SIM_TIMEOUT=1 s and was stopped" in out
    assert "POISONED False" in out and "OK" in out


def test_includes_of_special_files_are_refused(tmp_path):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    out = run(f"""
        for inc in ('"/dev/zero"', '"{fifo}"', '</proc/self/environ>'):
            try:
                SourceModule('#include ' + inc + '\\n__global__ void k() {{}}')
            except drv.CompileError as e:
                print("REFUSED", str(e).splitlines()[-1])
    """, timeout=60)
    assert out.count("REFUSED") == 3
    assert "names a FIFO" in out and "names a file of /dev, /proc or /sys" in out


def test_ctrl_c_and_the_time_limit_stop_a_compile(tmp_path):
    """A computed #include of a FIFO escapes the scan: the compiler blocks on
    it until Ctrl-C or the compile's time limit stops it."""
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    out = run(f"""
        src = '#define F "{fifo}"\\n#include F\\n__global__ void k(int x) {{}}'
        interrupt_in(1.0)
        t = time.time()
        try:
            SourceModule(src)
        except KeyboardInterrupt:
            print("INTERRUPTED after %.2f" % (time.time() - t - 1.0))
        os.environ["PYCUDAC_SIM_COMPILE_TIMEOUT"] = "1"
        try:
            SourceModule(src + "// again\\n")
        except drv.CompileError as e:
            print("LIMIT", str(e).splitlines()[-1])
        SourceModule("__global__ void fine(int *p) {{ p[0] = 1; }}")
        print("OK")
    """, timeout=60)
    assert float(out.split("INTERRUPTED after ")[1].split()[0]) < 1.0, out
    assert "ran past the simulator's compile time limit" in out and "OK" in out


def test_the_compiler_runs_without_the_processs_ld_preload(tmp_path):
    """The compiler is started without the interpreter's LD_PRELOAD: the
    ASan stage preloads libasan into Python, and ASan's runtime in the
    compiler could not reserve its shadow memory under the compile's memory
    limit (CI: the C++ compiler killed by SIGABRT)."""
    seen = tmp_path / "preload.txt"
    cxx = tmp_path / "cxx"
    cxx.write_text(f'#!/bin/sh\necho "[$LD_PRELOAD]" >> {seen}\nexec c++ "$@"\n')
    cxx.chmod(0o755)
    libm = next(p for p in ("/lib/x86_64-linux-gnu/libm.so.6", "/usr/lib64/libm.so.6",
                            "/lib64/libm.so.6") if os.path.exists(p))
    out = run("""
        SourceModule("__global__ void k(int *p) { p[0] = 2; }")
        print("OK")
    """, CXX=str(cxx), PYCUDAC_CACHE_DIR=str(tmp_path / "cache"),
        # after what is preloaded already (the ASan stage's runtime must come first)
        LD_PRELOAD=os.pathsep.join(filter(None, [os.environ.get("LD_PRELOAD"), libm])))
    assert "OK" in out
    assert seen.read_text().split() == ["[]"] * len(seen.read_text().split()) != [], \
        seen.read_text()


def test_stack_overflow_is_blamed_on_the_thread_that_overflowed():
    """A 64 KiB local array in every thread: the probes of
    -fstack-clash-protection meet the thread's own guard first. Run last to
    first, the first to overflow is thread 31: it is the one named."""
    if os.environ.get("PYCUDAC_UNDER_ASAN") == "1":
        pytest.skip("the ASan build's simulated threads have 256 KiB stacks (sim/fiber.c)")
    out = run("""
        m = SourceModule(r'''__global__ void big(float *out, int n)
        {
            float local[16384];
            for (int i = 0; i < n; i++)
                local[i] = (float)(i * threadIdx.x);
            __syncthreads();
            out[threadIdx.x] = local[n - 1 - threadIdx.x];
        }''')
        out = drv.mem_alloc(128)
        with drv.sim_check("", schedule="reverse"):
            m.get_function("big")(out, np.int32(16384), block=(32, 1, 1))
        try:
            drv.Context.synchronize()
        except drv.LaunchError as e:
            print("MSG", e)
    """)
    assert "thread (31,0,0)" in out and "stack overflow" in out, out
