"""The CPU simulator's runtime (src/sim/): what only the simulator
does or says. Faults inside kernels — out-of-bounds accesses, a barrier
not reached by every thread, a simulated thread's stack overflow, assert —
become the sticky CUDA error at the next synchronizing call, with a
description naming the kernel, block, thread and allocation; the process
survives. Each such case runs in a subprocess, since a sticky error poisons
the process it happens in. Also: the simulated device's identity, warp
operations on partial warps, barrier reductions, block and grid indexing
across the worker threads, device printf, copy range checks, and that a
segfault outside any kernel still reaches the previous handler."""
import os
import re
import subprocess
import sys
import textwrap

import numpy as np
import pytest

drv = pytest.importorskip("pycudac.driver")

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


@pytest.fixture(scope="module")
def ctx(backend):
    if backend != "sim":
        pytest.skip("simulator-specific behaviour (the cuda backend is in use)")
    import pycudac.autoinit  # noqa: F401
    return drv.Context.get_current()


def source_module(src, **kw):
    from pycudac.compiler import SourceModule
    return SourceModule(src, **kw)


def run_sim(code, timeout=120):
    """Runs `code` in a fresh interpreter on the simulator; returns it."""
    env = dict(os.environ, PYCUDAC_BACKEND="sim")
    env["PYTHONPATH"] = ROOT + os.pathsep + env.get("PYTHONPATH", "")
    prelude = textwrap.dedent("""
        import numpy as np
        import pycudac.autoinit
        import pycudac.driver as drv
        from pycudac.compiler import SourceModule
    """)
    return subprocess.run([sys.executable, "-c", prelude + textwrap.dedent(code)],
                          capture_output=True, text=True, timeout=timeout, env=env, cwd=ROOT)


def expect_sticky(code, *fragments, name="CUDA_ERROR_ILLEGAL_ADDRESS"):
    """Runs code that ends with a faulting launch and checks the error the
    next synchronize raises, and that the process then exits normally."""
    tail = textwrap.dedent(f"""
        try:
            drv.Context.synchronize()
        except drv.LaunchError as e:
            print("ERROR:", e)
            print("POISONED:", drv.is_poisoned())
            try:
                drv.mem_alloc(16)
            except drv.Error as e2:
                print("LATER:", e2)
        else:
            print("NO ERROR")
        print("SURVIVED")
    """)
    r = run_sim(textwrap.dedent(code) + tail)
    out = r.stdout
    assert r.returncode == 0, (r.returncode, out, r.stderr)
    assert "SURVIVED" in out and "NO ERROR" not in out, out + r.stderr
    err_line = next(line for line in out.splitlines() if line.startswith("ERROR:"))
    assert name in err_line, err_line
    for frag in fragments:
        assert frag in err_line, (frag, err_line)
    assert "POISONED: True" in out
    later = next(line for line in out.splitlines() if line.startswith("LATER:"))
    assert name in later, later
    return err_line


# ----------------------------------------------------------------- device

def test_device_identity(ctx):
    dev = drv.Device(0)
    assert dev.name() == "pycudac CPU simulator"
    assert dev.compute_capability() == (9, 0)
    a = drv.device_attribute
    assert dev.get_attribute(a.WARP_SIZE) == 32
    assert dev.get_attribute(a.MAX_THREADS_PER_BLOCK) == 1024
    assert dev.get_attribute(a.MAX_BLOCK_DIM_Z) == 64
    assert dev.get_attribute(a.MAX_GRID_DIM_X) == 2**31 - 1
    assert dev.get_attribute(a.MAX_SHARED_MEMORY_PER_BLOCK) == 48 * 1024
    assert dev.get_attribute(a.MULTIPROCESSOR_COUNT) >= 1
    assert dev.get_attribute(a.UNIFIED_ADDRESSING) == 1
    assert dev.get_attribute(a.MANAGED_MEMORY) == 1
    assert dev.pci_bus_id() == "0000:00:00.0"
    assert dev.total_memory() > 0


# ------------------------------------------------------------- copy checks

def test_copy_past_allocation_is_refused(ctx):
    # pycudac may refuse first (ValueError); else the simulator does, as the
    # driver would (CUDA_ERROR_INVALID_VALUE). Either way nothing is written.
    buf = drv.mem_alloc(4000)
    with pytest.raises((drv.Error, ValueError), match="INVALID_VALUE|holds only"):
        drv.memcpy_htod(buf, np.zeros(1001, np.float32))
    with pytest.raises((drv.Error, ValueError), match="INVALID_VALUE|holds only"):
        drv.memcpy_dtoh(np.zeros(10, np.float32), int(buf) + 3980)
    with pytest.raises((drv.Error, ValueError)):
        drv.memset_d32(int(buf) + 8, 0, 999)
    host = np.arange(1000, dtype=np.float32)
    drv.memcpy_htod(buf, host)
    back = np.empty_like(host)
    drv.memcpy_dtoh(back, buf)
    np.testing.assert_array_equal(back, host)
    assert not drv.is_poisoned()


# ------------------------------------------------------ kernels that work

WORKING = r"""
__global__ void ids(unsigned int *out)
{
    unsigned int bx = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
    unsigned int tx = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
    unsigned int nt = blockDim.x * blockDim.y * blockDim.z;
    out[bx * nt + tx] = bx * 100000u + tx;
}

__global__ void warp_partial(const int *in, int *sums, unsigned int *ballots,
                             unsigned int *active)
{
    int v = in[threadIdx.x], sum = 0;
    unsigned int m = __activemask();
    for (int lane = 0; lane < 32; lane++)
        if (m >> lane & 1u)
            sum += __shfl_sync(m, v, lane);
    v = sum;
    unsigned int b = __ballot_sync(m, in[threadIdx.x] & 1);
    if (threadIdx.x % 32 == 0) {
        sums[threadIdx.x / 32] = v;
        ballots[threadIdx.x / 32] = b;
        active[threadIdx.x / 32] = m;
    }
}

__global__ void votes(int *out)
{
    int c = __syncthreads_count(threadIdx.x % 3 == 0);
    int a = __syncthreads_and(threadIdx.x < 1000);
    int o = __syncthreads_or(threadIdx.x == 7);
    int z = __syncthreads_or(0);
    if (threadIdx.x == 0) { out[0] = c; out[1] = a; out[2] = o; out[3] = z; }
}

__global__ void shared_sum(const float *in, float *out, int n)
{
    extern __shared__ float s[];
    int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
    s[t] = i < n ? in[i] : 0.0f;
    __syncthreads();
    for (int k = blockDim.x / 2; k > 0; k >>= 1) {
        if (t < k) s[t] += s[t + k];
        __syncthreads();
    }
    if (t == 0) out[blockIdx.x] = s[0];
}

__global__ void hello(int tag)
{
    printf("hello %d from block %d thread %d\n", tag, blockIdx.x, threadIdx.x);
}
"""


@pytest.fixture(scope="module")
def working(ctx):
    return source_module(WORKING)


@pytest.mark.parametrize("grid,block", [((7, 1, 1), (64, 1, 1)),
                                        ((3, 5, 2), (4, 3, 2)),
                                        ((2, 2, 3), (32, 2, 1))])
@pytest.mark.tsan
def test_every_thread_of_every_block_runs_once(working, grid, block):
    nb = grid[0] * grid[1] * grid[2]
    nt = block[0] * block[1] * block[2]
    out = np.zeros(nb * nt, np.uint32)
    working.get_function("ids")(drv.InOut(out), block=block, grid=grid)
    want = (np.arange(nb, dtype=np.uint32)[:, None] * 100000
            + np.arange(nt, dtype=np.uint32)[None, :]).ravel()
    np.testing.assert_array_equal(out, want)


@pytest.mark.tsan
def test_warp_ops_in_a_partial_warp(working):
    n = 72  # two full warps and one of 8 lanes
    data = np.arange(n, dtype=np.int32) * 3 + 1
    sums = np.zeros(3, np.int32)
    ballots = np.zeros(3, np.uint32)
    active = np.zeros(3, np.uint32)
    working.get_function("warp_partial")(drv.In(data), drv.Out(sums), drv.Out(ballots),
                                         drv.Out(active), block=(n, 1, 1), grid=(1, 1))
    np.testing.assert_array_equal(active, [0xFFFFFFFF, 0xFFFFFFFF, 0xFF])
    np.testing.assert_array_equal(sums, [data[0:32].sum(), data[32:64].sum(), data[64:].sum()])
    for w in range(3):
        lanes = data[32 * w:32 * w + 32]
        want = sum(1 << i for i, x in enumerate(lanes) if x & 1)
        assert ballots[w] == want


@pytest.mark.tsan
def test_syncthreads_count_and_or(working):
    out = np.zeros(4, np.int32)
    working.get_function("votes")(drv.Out(out), block=(100, 1, 1), grid=(1, 1))
    assert list(out) == [34, 1, 1, 0]


@pytest.mark.tsan
def test_dynamic_shared_memory_reduction(working):
    n = 10000
    data = np.random.default_rng(1).random(n).astype(np.float32)
    nb = (n + 127) // 128
    out = np.zeros(nb, np.float32)
    working.get_function("shared_sum")(drv.In(data), drv.Out(out), np.int32(n),
                                       block=(128, 1, 1), grid=(nb, 1), shared=128 * 4)
    assert abs(out.sum() - data.sum()) < 1e-2


def test_device_printf_reaches_stdout(working, capfd):
    working.get_function("hello")(np.int32(7), block=(2, 1, 1), grid=(2, 1))
    drv.Context.synchronize()
    out = capfd.readouterr().out
    for b in range(2):
        for t in range(2):
            assert f"hello 7 from block {b} thread {t}\n" in out


def test_too_much_dynamic_shared_memory_is_refused(working):
    # Past the opt-in limit (227 KiB): refused by pycudac or the simulator.
    f = working.get_function("shared_sum")
    with pytest.raises((drv.Error, ValueError)):
        f(drv.In(np.zeros(4, np.float32)), drv.Out(np.zeros(1, np.float32)), np.int32(4),
          block=(4, 1, 1), grid=(1, 1), shared=228 * 1024)
    assert not drv.is_poisoned()


def test_more_dynamic_shared_memory_than_the_function_allows_is_refused(ctx):
    """A function's MAX_DYNAMIC_SHARED_SIZE_BYTES lowered below the default
    48 KiB: pycudac lets a launch within 48 KiB through, and the simulator
    refuses one past the function's own limit, as the driver does — a
    launch error that leaves the context usable (tools/mutate.py V4: the
    simulator's check had no test)."""
    mod = source_module(r"""
    __global__ void dyn(float *out)
    {
        extern __shared__ float buf[];
        buf[threadIdx.x] = threadIdx.x;
        __syncthreads();
        out[threadIdx.x] = buf[blockDim.x - 1 - threadIdx.x];
    }""")
    f = mod.get_function("dyn")
    out = drv.mem_alloc(4 * 64)
    f.set_attribute(drv.function_attribute.MAX_DYNAMIC_SHARED_SIZE_BYTES, 1024)
    assert f.get_attribute(drv.function_attribute.MAX_DYNAMIC_SHARED_SIZE_BYTES) == 1024
    f(out, block=(64, 1, 1), shared=1024)
    with pytest.raises(drv.Error, match="INVALID_VALUE"):
        f(out, block=(64, 1, 1), shared=2048)
    assert not drv.is_poisoned()
    f(out, block=(64, 1, 1), shared=256)
    host = np.empty(64, np.float32)
    drv.memcpy_dtoh(host, out)
    np.testing.assert_array_equal(host, np.arange(63, -1, -1, dtype=np.float32))


# ------------------------------------------- faults: sticky, described, survived

def test_out_of_bounds_write_names_kernel_block_thread_allocation():
    line = expect_sticky("""
        mod = SourceModule('''
        __global__ void overrun(float *a, int n)
        {
            int i = blockIdx.x * blockDim.x + threadIdx.x;
            if (i <= n) a[i] = 1.0f;   /* one past the end */
        }''')
        a = drv.mem_alloc(4000)
        mod.get_function("overrun")(a, np.int32(1000), block=(256, 1, 1), grid=(4, 1))
        print("LAUNCHED")
    """, "kernel 'overrun'", "block (3,0,0)", "thread (232,0,0)",
        "offset 4000 of the 4000-byte device allocation", "just past its end", "write")
    assert "[simulator:" in line


def test_out_of_bounds_read_before_the_start():
    expect_sticky("""
        mod = SourceModule('''
        __global__ void underrun(const float *a, float *b)
        {
            b[threadIdx.x] = a[(int)threadIdx.x - 1100];
        }''')
        # The block ends at the upper guard page; 4400 bytes before the start
        # of a 64-byte block is inside the lower one.
        a = drv.mem_alloc(64)
        b = drv.mem_alloc(64)
        mod.get_function("underrun")(a, b, block=(16, 1, 1), grid=(1, 1))
    """, "kernel 'underrun'", "thread (0,0,0)", "4400 bytes before the start of the 64-byte device allocation",
        "read")


def test_launch_itself_succeeds_and_the_next_sync_reports():
    r = run_sim("""
        mod = SourceModule('''
        __global__ void bad(int *p) { p[4] = 1; }''')
        mod.get_function("bad")(None, block=(1, 1, 1), grid=(1, 1))
        print("LAUNCH RETURNED", drv.is_poisoned())
        try:
            drv.Context.synchronize()
        except drv.LaunchError as e:
            print("SYNC:", e.code if hasattr(e, "code") else e)
    """)
    assert r.returncode == 0, r.stderr
    assert "LAUNCH RETURNED False" in r.stdout
    assert "SYNC: 700" in r.stdout or "ILLEGAL_ADDRESS" in r.stdout, r.stdout


def test_partial_barrier_names_the_block():
    expect_sticky("""
        mod = SourceModule('''
        __global__ void early_exit(float *a)
        {
            if (blockIdx.x == 1 && threadIdx.x == 5) return;
            __syncthreads();
            a[threadIdx.x] = 1.0f;
        }''')
        a = drv.mem_alloc(4096)
        mod.get_function("early_exit")(a, block=(64, 1, 1), grid=(3, 1))
    """, "kernel 'early_exit'", "block (1,0,0)", "__syncthreads() not reached by every thread",
        name="CUDA_ERROR_LAUNCH_FAILED")


# A thread that exits before a barrier the others reach is a fault however
# the threads interleave: the simulator checks when a waiting thread sees an
# exited one (the exiting thread first: thread 0 runs first) and when an
# exiting thread sees waiting ones (the test above). The case:
# `if (threadIdx.x == 0) return; __syncthreads();` ran with no error when the
# first check was missing.
@pytest.mark.parametrize("exits, block", [
    ("threadIdx.x == 0", 32),         # the first thread to run exits first
    ("threadIdx.x < 32", 64),         # a whole warp exits before the other waits
    ("threadIdx.x == blockDim.x - 1", 8),  # the last thread, after all others wait
])
def test_a_thread_that_exits_before_a_barrier_is_a_fault(exits, block):
    expect_sticky(f"""
        mod = SourceModule('''
        __global__ void exit_first(float *a)
        {{
            if ({exits}) return;
            __syncthreads();
            a[threadIdx.x] = 1.0f;
        }}''')
        a = drv.mem_alloc(4096)
        mod.get_function("exit_first")(a, block=({block}, 1, 1), grid=(1, 1))
    """, "kernel 'exit_first'", "block (0,0,0)", "__syncthreads() not reached by every thread",
        name="CUDA_ERROR_LAUNCH_FAILED")


def test_threads_that_exit_after_the_last_barrier_are_no_fault(ctx):
    """The barrier check's counterpart: returning after every barrier (and
    before none) is legal, in any order."""
    mod = source_module(r"""
    __global__ void late_exit(int *a)
    {
        __shared__ int s[64];
        s[threadIdx.x] = threadIdx.x;
        __syncthreads();
        if (threadIdx.x % 3 == 0) return;
        a[threadIdx.x] = s[63 - threadIdx.x];
    }""")
    out = np.full(64, -1, np.int32)
    mod.get_function("late_exit")(drv.InOut(out), block=(64, 1, 1), grid=(2, 1))
    want = np.where(np.arange(64) % 3 == 0, -1, 63 - np.arange(64))
    assert (out == want).all()
    assert not drv.is_poisoned()


def test_mismatched_warp_masks_deadlock_is_reported():
    expect_sticky("""
        mod = SourceModule('''
        __global__ void stuck(int *a)
        {
            int v = threadIdx.x;
            if (threadIdx.x < 16) v = __shfl_sync(0xffffffffu, v, 0);
            else __syncthreads();
            a[threadIdx.x] = v;
        }''')
        a = drv.mem_alloc(4096)
        mod.get_function("stuck")(a, block=(32, 1, 1), grid=(1, 1))
    """, "kernel 'stuck'", "deadlock", name="CUDA_ERROR_LAUNCH_FAILED")


GRID_SYNC_SRC = r"""#include <cooperative_groups.h>
namespace cg = cooperative_groups;
__global__ void k(int *x, int mode)
{
    cg::grid_group grid = cg::this_grid();
    if (mode == 1 && blockIdx.x == 1)
        return;                                  /* a block that never arrives */
    if (mode == 2 && threadIdx.x == 5)
        return;                                  /* a thread that never arrives */
    if (mode == 3 && blockIdx.x == 2 && threadIdx.x == 3)
        *(volatile int *)(size_t)mode = 1;       /* a fault while others wait */
    if (mode == 4 && threadIdx.x >= 32)
        __syncthreads();                         /* half the block elsewhere */
    else
        grid.sync();
    x[grid.thread_rank()] = 1;
}
"""
GRID_SYNC = f"""
    f = SourceModule({GRID_SYNC_SRC!r}).get_function("k")
    x = drv.mem_alloc(4 * 4 * 64)
"""


@pytest.mark.tsan
@pytest.mark.parametrize("mode, coop, fragments", [
    (0, False, ("kernel 'k'", "grid.sync() at line 15 needs a cooperative launch",
                "cooperative=True")),
    (1, True, ("kernel 'k'", "grid.sync()", "never complete")),
    (2, True, ("grid.sync() (line 15) not reached by every thread of the block",
               "have already exited")),
    (4, True, ("wait at grid.sync() (line 15) and 32 at __syncthreads()",)),
])
def test_grid_sync_that_can_never_complete_is_an_error_not_a_hang(mode, coop, fragments):
    """grid.sync() outside a cooperative launch (on a GPU it traps), or where a
    block or a thread can never arrive, or half a block waits at another
    barrier: a launch error naming the kernel and the line."""
    expect_sticky(GRID_SYNC + f"""
    f(x, np.int32({mode}), block=(64, 1, 1), grid=(4, 1), cooperative={coop})
    """, *fragments, name="CUDA_ERROR_LAUNCH_FAILED")


def test_a_fault_while_other_blocks_wait_at_grid_sync():
    expect_sticky(GRID_SYNC + """
    f(x, np.int32(3), block=(64, 1, 1), grid=(4, 1), cooperative=True)
    """, "kernel 'k'", "block (2,0,0)", "thread (3,0,0)")


def test_a_cooperative_launch_that_may_not_fit(ctx):
    """On the simulator the largest cooperative grid is its occupancy answer
    times its multiprocessors (one per CPU core), and that grid runs (a
    thread per block)."""
    from pycudac.compiler import SourceModule
    f = SourceModule("__global__ void k(int *x) { }").get_function("k")
    per_sm = f.max_active_blocks_per_multiprocessor(256)
    sms = drv.Context.get_device().get_attribute(drv.device_attribute.MULTIPROCESSOR_COUNT)
    with pytest.raises(drv.LaunchError, match="at most %d such blocks" % (per_sm * sms)):
        f(np.intp(0), block=(256, 1, 1), grid=(per_sm * sms + 1, 1), cooperative=True)
    f(np.intp(0), block=(256, 1, 1), grid=(per_sm * sms, 1), cooperative=True)
    assert not drv.is_poisoned()


def test_assert_in_kernel_is_710_with_the_condition():
    expect_sticky("""
        mod = SourceModule('''
        #include <assert.h>
        __global__ void checks(const int *a)
        {
            assert(a[threadIdx.x] >= 0);
        }''')
        data = np.zeros(32, np.int32)
        data[9] = -1
        mod.get_function("checks")(drv.In(data), block=(32, 1, 1), grid=(1, 1))
    """, "kernel 'checks'", "thread (9,0,0)", name="CUDA_ERROR_ASSERT")


def test_stack_overflow_of_a_simulated_thread():
    expect_sticky("""
        mod = SourceModule('''
        __device__ int deep(int n, volatile char *p)
        {
            volatile char buf[4096];
            buf[0] = (char)n;
            p[0] = buf[0];
            return n > 0 ? deep(n - 1, buf) + buf[1] : 0;
        }
        __global__ void recurse(int *out)
        {
            volatile char c;
            __syncthreads();
            out[threadIdx.x] = deep(100000, &c);
        }''')
        out = drv.mem_alloc(64 * 4)
        mod.get_function("recurse")(out, block=(4, 1, 1), grid=(1, 1))
    """, "kernel 'recurse'", "stack overflow")


def test_dynamic_shared_memory_overrun():
    expect_sticky("""
        mod = SourceModule('''
        __global__ void shover(int n)
        {
            extern __shared__ float s[];
            s[threadIdx.x + n] = 1.0f;
        }''')
        mod.get_function("shover")(np.int32(64), block=(64, 1, 1), grid=(1, 1), shared=256)
    """, "kernel 'shover'", "dynamic shared memory")


def test_integer_division_by_zero_does_not_kill_the_process():
    expect_sticky("""
        mod = SourceModule('''
        __global__ void divide(int *a, int n)
        {
            a[threadIdx.x] = 100 / (n - (int)threadIdx.x);
        }''')
        a = drv.mem_alloc(64 * 4)
        mod.get_function("divide")(a, np.int32(7), block=(32, 1, 1), grid=(1, 1))
    """, "kernel 'divide'", "thread (7,0,0)", "division by zero", name="CUDA_ERROR_LAUNCH_FAILED")


@pytest.mark.tsan
def test_launches_from_several_python_threads(working):
    import threading
    n = 4096
    errors = []
    ctx = drv.Context.get_current()

    def run(seed):
        ctx.push()
        try:
            data = np.random.default_rng(seed).random(n).astype(np.float32)
            out = np.zeros(n // 256, np.float32)
            for _ in range(5):
                working.get_function("shared_sum")(drv.In(data), drv.Out(out), np.int32(n),
                                                   block=(256, 1, 1), grid=(n // 256, 1),
                                                   shared=256 * 4)
                assert abs(out.sum() - data.sum()) < 1e-2
        except Exception as exc:  # reported below
            errors.append(exc)
        finally:
            drv.Context.pop()

    threads = [threading.Thread(target=run, args=(s,)) for s in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []


def test_segfault_outside_kernels_still_reaches_faulthandler():
    # The simulator's SIGSEGV handler must pass faults that are not inside a
    # kernel on to the handler that was there before (here faulthandler).
    env = dict(os.environ, PYCUDAC_BACKEND="sim")
    env["PYTHONPATH"] = ROOT + os.pathsep + env.get("PYTHONPATH", "")
    # A deliberate crash: under the ASan stage (tools/ci/asan.sh) its report
    # belongs on this child's stderr, read here, not in the stage's logs,
    # where any error fails the stage.
    if "ASAN_OPTIONS" in env:
        env["ASAN_OPTIONS"] = ":".join(o for o in env["ASAN_OPTIONS"].split(":")
                                       if not o.startswith("log_path="))
    code = textwrap.dedent("""
        import ctypes, numpy as np
        import pycudac.autoinit
        import pycudac.driver as drv
        from pycudac.compiler import SourceModule
        mod = SourceModule('__global__ void k(int *a) { a[threadIdx.x] = 1; }')
        a = drv.mem_alloc(64)
        mod.get_function("k")(a, block=(16, 1, 1), grid=(1, 1))
        drv.Context.synchronize()
        print("KERNEL OK", flush=True)
        ctypes.string_at(16)
    """)
    r = subprocess.run([sys.executable, "-X", "faulthandler", "-c", code], capture_output=True,
                       text=True, timeout=120, env=env, cwd=ROOT)
    assert "KERNEL OK" in r.stdout, r.stderr
    assert r.returncode != 0
    assert "Segmentation fault" in r.stderr, r.stderr


# ----------------------------------------------------------------- environment

@pytest.mark.tsan
def test_environment_changes_reach_the_simulator_and_race_with_nothing(tmp_path):
    """The simulator reads TMPDIR and PYCUDAC_SIM_KEEP_TMP with the GIL
    released, from a copy taken at each call (getenv there could race with
    os.environ changes in other threads): a change made between two compiles
    is seen by the second, and a thread changing os.environ all the time does
    not disturb compiles and launches."""
    r = run_sim(f"""
        import os, threading
        from pycudac import compiler
        src = "__global__ void k(int *a) {{ a[threadIdx.x] = threadIdx.x; }}\\n"
        os.environ["TMPDIR"] = {str(tmp_path)!r}
        os.environ["PYCUDAC_SIM_KEEP_TMP"] = "1"
        compiler.compile(src + "// 1\\n", cache_dir=False)
        kept = [n for n in os.listdir({str(tmp_path)!r}) if n.startswith("pycudac-sim-")]
        del os.environ["PYCUDAC_SIM_KEEP_TMP"]
        compiler.compile(src + "// 2\\n", cache_dir=False)
        after = [n for n in os.listdir({str(tmp_path)!r}) if n.startswith("pycudac-sim-")]
        print("KEPT", len(kept), len(after))
        stop = threading.Event()
        def churn():
            i = 0
            while not stop.is_set():
                os.environ["PYCUDAC_CHURN_%d" % (i % 64)] = "x" * (i % 300)
                i += 1
        t = threading.Thread(target=churn)
        t.start()
        try:
            a = drv.mem_alloc(4 * 32)
            for i in range(20):
                mod = SourceModule(src + "// %d\\n" % i, cache_dir=False)
                mod.get_function("k")(a, block=(32, 1, 1), grid=(1, 1))
            out = np.zeros(32, np.int32)
            drv.memcpy_dtoh(out, a)
            print("OK", (out == np.arange(32)).all())
        finally:
            stop.set()
            t.join()
    """, timeout=300)
    assert r.returncode == 0, r.stderr
    assert "KEPT 1 1" in r.stdout and "OK True" in r.stdout, r.stdout + r.stderr


# ---- asynchronous copies ------------------------------------------------------------------

@pytest.mark.parametrize("size, zfill, what", [(12, 0, "must be 4, 8 or 16"),
                                               (8, 9, "zfill at most size_and_align"),
                                               (16, 0, "misaligned address")])
def test_a_pipeline_copy_outside_its_rules_stops_the_kernel(size, zfill, what):
    """__pipeline_memcpy_async takes 4, 8 or 16 bytes, aligned so, zfill at
    most that: the simulator stops the kernel and names the rule (the GPU's
    result is undefined, or a misaligned-address fault)."""
    off = 4 if what == "misaligned address" else 0
    expect_sticky(f"""
        mod = SourceModule('''
        #include <cuda_pipeline.h>
        __global__ void stage(const char *in, int *out)
        {{
            __shared__ __align__(16) char s[64];
            __pipeline_memcpy_async(s + {off}, in, {size}, {zfill});
            __pipeline_commit();
            __pipeline_wait_prior(0);
            out[0] = s[0];
        }}''')
        out = drv.mem_alloc(64)
        mod.get_function("stage")(out, out, block=(1, 1, 1), grid=(1, 1))
    """, "kernel 'stage'", what,
        name="CUDA_ERROR_MISALIGNED_ADDRESS" if off else "CUDA_ERROR_LAUNCH_FAILED")


@pytest.mark.parametrize("spelled", ["cuda/barrier", "cuda/./barrier", "cuda//barrier",
                                     "cuda/std/../barrier"])
def test_cuda_barrier_is_refused_not_a_hang(ctx, spelled):
    """cuda::barrier's threads wait for each other by spinning, and the
    simulator runs a block's threads one at a time between barriers: a
    kernel with arrive_and_wait() never finished (the launch hung). Its
    header is refused at compile time, naming what runs instead, however
    the path spells it (<cuda/std/../barrier> was "cannot write the
    simulator's sources ... File exists")."""
    src = """
    #include <%s>
    __global__ void k(float *out)
    {
        __shared__ cuda::barrier<cuda::thread_scope_block> bar;
        if (threadIdx.x == 0)
            init(&bar, blockDim.x);
        __syncthreads();
        bar.arrive_and_wait();
        out[threadIdx.x] = 1.0f;
    }""" % spelled
    with pytest.raises(drv.CompileError, match=r"<cuda/barrier> cannot run on the pycudac CPU "
                                               r"simulator: its threads wait for one another"):
        source_module(src)


@pytest.mark.parametrize("spelled", ["cuda/std/cstdint/", "cuda/std/", "cuda/std/..",
                                     "cuda/std/../../cuda_fp16.h"])
def test_a_header_name_that_names_no_libcu_header_is_not_found(ctx, spelled):
    """A name that ends in a directory, or leaves cuda/: the preprocessor's
    own 'No such file' (a review: the wrapper made a directory of the file's
    name, "cannot write the simulator's sources ... Is a directory", or
    replaced the simulator's cuda_fp16.h)."""
    with pytest.raises(drv.CompileError, match=r"%s: No such file" % re.escape(spelled)):
        source_module("#include <%s>\n__global__ void k(int *p) { }" % spelled)


@pytest.mark.parametrize("spelled", ["cuda/../../etc/passwd", "cuda/std/../../../x"])
def test_a_header_name_that_climbs_out_is_named(ctx, spelled):
    """An #include <cuda/...> whose ".." leave the include directory: a
    CompileError naming it (it was "cannot write the simulator's sources
    ... File exists", from an errno of an earlier call)."""
    with pytest.raises(drv.CompileError, match=r"#include <%s>: the name climbs out of the "
                                               r"include directory" % re.escape(spelled)):
        source_module("#include <%s>\n__global__ void k(int *p) { }" % spelled)


def test_a_wait_on_a_thread_of_the_same_block_ends_instead_of_hanging():
    """libcu++'s atomic wait spins, yielding, until another thread stores;
    the simulator runs a block's threads one at a time between barriers, so
    a wait on a thread of the same block hung the launch (a review). A
    thread that keeps yielding or sleeping for 2 s now ends the launch with
    an error that says why."""
    expect_sticky("""
        mod = SourceModule(r'''
        #include <cuda/std/atomic>
        __global__ void k(float *out)
        {
            __shared__ int flag;
            if (threadIdx.x == 0)
                flag = 0;
            __syncthreads();
            cuda::std::atomic_ref<int> f(flag);
            if (threadIdx.x == 0)
                f.wait(0);
            else if (threadIdx.x == 1) {
                f.store(1);
                f.notify_all();
            }
            out[threadIdx.x] = 1.0f;
        }''')
        out = drv.mem_alloc(4 * 32)
        mod.get_function("k")(out, block=(32, 1, 1), grid=(1, 1))
    """, "kernel 'k'", "a thread waited 2 s for another", name="CUDA_ERROR_LAUNCH_FAILED")
