"""The simulator as a sanitizer (issue 22): check mode's memcheck, racecheck,
initcheck and synccheck on kernels with one planted defect each
(tests/sancheck/planted.cu, launched as tests/sancheck/cases.py says), the
fixed kernels they were made from with no report, the reports' fields
(tool, kind, kernel, source line, block, thread, address, allocation), the
schedule option, the Python API (sim_check, check_report, CheckError) and the
environment (PYCUDAC_SIM_CHECK, PYCUDAC_SIM_SCHEDULE). The whole corpus under
every check, with no report, is tests/test_sim_check_corpus.py."""
import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

drv = pytest.importorskip("pycudac.driver")

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
# The ASan stage's simulator gives each thread 256 KiB of stack (sim/fiber.c:
# its instrumented runtime needs more), so a 64 KiB local array fits there.
BIG_STACKS = os.environ.get("PYCUDAC_UNDER_ASAN") == "1"
sys.path.insert(0, os.path.join(HERE, "sancheck"))
import planted_cases as planted  # noqa: E402


@pytest.fixture(scope="module")
def ctx(backend):
    if backend != "sim":
        pytest.skip("check mode is the simulator's (on a GPU: compute-sanitizer)")
    import pycudac.autoinit  # noqa: F401
    return drv.Context.get_current()


@pytest.fixture(scope="module")
def mod(ctx):
    """planted.cu built for check mode (instrumented): compiled inside it."""
    from pycudac.compiler import SourceModule
    with drv.sim_check("all"):
        return SourceModule(planted.source())


def run_case(mod, case, checks="all", schedule=None):
    """Runs a planted case under `checks`, errors collected, not raised:
    (the kernel's result, its reports)."""
    with drv.sim_check(checks, schedule=schedule, raise_errors=False) as chk:
        result = case.run(mod, drv, case.kernel)
    assert not drv.is_poisoned()
    return result, chk.reports


@pytest.mark.parametrize("case", [c for c in planted.CASES if not c.clean], ids=lambda c: c.name)
def test_planted_defect_is_reported(mod, case):
    if case.name == "local_array_64k" and BIG_STACKS:
        pytest.skip("the ASan build's simulated threads have 256 KiB stacks")
    if case.name == "far_write":  # where it lands depends on the process's other memory
        reports = reports_in_a_fresh_process(case.name)
    else:
        _, reports = run_case(mod, case)
    mine = [r for r in reports if r["tool"] == case.check]
    assert mine, f"{case.name}: no {case.check} report; got {reports}"
    assert all(r["kernel"] == case.kernel and r["error"] for r in mine)
    if case.kind:
        assert {r["kind"] for r in mine} == {case.kind}, mine
    first = mine[0]
    if case.check != "synccheck":  # a barrier has no access of its own to name
        assert first["file"] == "kernel.cu", first
        lines = {r["line"] for r in mine} | {r["other"]["line"] for r in mine if r["other"]}
        assert lines & set(case.lines), (case.lines, mine)
    assert first["message"].startswith(case.check + ":"), first["message"]
    for key in ("block", "thread"):
        assert len(first[key]) == 3 and all(isinstance(v, int) for v in first[key])


@pytest.mark.parametrize("case", [c for c in planted.CASES if c.clean], ids=lambda c: c.name)
def test_fixed_kernel_has_no_report(mod, case):
    _, reports = run_case(mod, case)
    assert reports == []


def test_fixed_reductions_still_compute_the_sum(mod):
    res, _ = run_case(mod, planted.BY_NAME["reduce_fixed"])
    assert list(res) == [256.0, 256.0]
    res, _ = run_case(mod, planted.BY_NAME["warp_reduce_fixed"])
    assert list(res) == [64.0, 64.0]


# Which allocation a report names is the one nearest the address, as
# compute-sanitizer names it; in a process with other live memory that can
# be another one (the suite's run named a neighbour 3.3 MiB below the far
# write). These two run the case in a fresh process, where the planted
# allocations are the only ones.
def reports_in_a_fresh_process(name):
    r = _run(f"""
        import json
        with drv.sim_check("all"):
            mod = SourceModule(cases.source())
        case = cases.BY_NAME[{name!r}]
        with drv.sim_check("all", raise_errors=False) as chk:
            case.run(mod, drv, case.kernel)
        print(json.dumps(chk.reports))
    """)
    assert r.returncode == 0, r.stderr[-3000:]
    import json
    reports = json.loads(r.stdout.strip().splitlines()[-1])
    for rep in reports:  # JSON made the tuples lists
        rep["block"], rep["thread"] = tuple(rep["block"]), tuple(rep["thread"])
    return reports


def test_a_read_past_an_allocation_is_global_whatever_lies_next_to_it(ctx):
    """Mappings go down from the top of the address space, each into the
    highest gap it fits: with the gaps above filled (3,000 small
    allocations), the workers' stacks come next, and the allocation after
    them lies just below the last worker's stack, its guard page in the band
    where a plain-mode thread's stack overflow lands. Every thread of 64
    blocks reads one past its end: each report must be global memory out of
    bounds, never a stack overflow (the ASan stage named one so on
    2026-11-28; this layout showed it every time before the fix)."""
    r = _run("""
        import json
        with drv.sim_check("memcheck"):
            mod = SourceModule(
                "__global__ void past(const float *p, float *out, int n)"
                "{ out[blockIdx.x * blockDim.x + threadIdx.x] = p[n]; }")
        f = mod.get_function("past")
        fill = [drv.mem_alloc(64) for _ in range(3000)]
        out = drv.mem_alloc(4 * 64 * 32)
        f(out, out, np.int32(1), block=(32, 1, 1), grid=(64, 1))  # the workers start
        kinds = set()
        for n in (16, 256, 1024):
            p = drv.mem_alloc(4 * n)
            with drv.sim_check("memcheck", raise_errors=False) as chk:
                f(p, out, np.int32(n), block=(32, 1, 1), grid=(64, 1))
            kinds |= {(rep["kind"], rep["space"]) for rep in chk.reports}
        print(json.dumps(sorted(kinds)))
    """)
    assert r.returncode == 0, r.stderr[-3000:]
    assert json.loads(r.stdout.strip().splitlines()[-1]) == [["out-of-bounds", "global"]]


def test_off_by_one_names_both_ends_with_thread_block_and_allocation(ctx):
    reports = reports_in_a_fresh_process("off_by_one_both_ends")
    by_thread = {(r["block"], r["thread"]): r for r in reports}
    low = by_thread[((0, 0, 0), (0, 0, 0))]
    high = by_thread[((1, 0, 0), (127, 0, 0))]
    for r in (low, high):
        assert r["space"] == "global" and not r["is_write"] and r["size"] == 4
        assert r["alloc_size"] == 1024 and r["alloc_kind"] == "device allocation"
    assert low["offset"] == -4 and low["address"] == low["alloc_base"] - 4
    assert "4 bytes before the start of the 1024-byte device allocation" in low["message"]
    assert high["offset"] == 1024
    assert "just past its end" in high["message"]


def test_an_access_that_starts_inside_and_runs_past_the_end(ctx):
    """A float4 at bytes 16..31 of a 20-byte allocation: aligned, starting
    inside it, ending 12 bytes past it (compute-sanitizer reports it as out
    of bounds, naming the allocation it starts in)."""
    from pycudac.compiler import SourceModule
    with drv.sim_check("memcheck", raise_errors=False) as chk:
        m = SourceModule("""
__global__ void tail4(const float *in, float *out)
{
    float4 v = reinterpret_cast<const float4 *>(in)[1];
    out[0] = v.x + v.w;
}""")
        a, o = drv.mem_alloc(20), drv.mem_alloc(4)
        m.get_function("tail4")(a, o, block=(1, 1, 1))
    (r,) = chk.reports
    assert (r["kind"], r["offset"], r["size"], r["alloc_size"]) == ("out-of-bounds", 16, 16, 20)
    assert r["address"] == int(a) + 16 and not r["is_write"] and r["line"] == 4
    assert "(offset 16), and runs 12 bytes past its end" in r["message"], r["message"]


def test_far_write_is_caught_before_it_happens(ctx):
    reports = reports_in_a_fresh_process("far_write")
    (r,) = reports
    assert r["is_write"] and r["offset"] == 4 << 20 and r["alloc_size"] == 256
    assert "4194048 bytes past its end" in r["message"]


def test_misaligned_float4_names_the_alignment(mod):
    _, reports = run_case(mod, planted.BY_NAME["misaligned_float4"])
    (r,) = reports
    assert r["size"] == 16 and r["address"] % 16 == 4 and r["space"] == "global"
    assert r["count"] == 32  # every thread's load
    assert "not aligned" in r["message"]


def test_use_after_free_names_the_freed_allocation(mod):
    _, reports = run_case(mod, planted.BY_NAME["use_after_free"])
    (r,) = reports
    assert r["alloc_size"] == 256 and r["offset"] == 0
    assert "which was freed before this launch" in r["message"]


def test_local_array_overflow_is_blamed_on_its_own_thread(mod):
    if BIG_STACKS:
        pytest.skip("the ASan build's simulated threads have 256 KiB stacks")
    _, reports = run_case(mod, planted.BY_NAME["local_array_64k"])
    (r,) = reports
    assert r["space"] == "local" and r["thread"] == (0, 0, 0)
    assert "stack" in r["message"] and "PYCUDAC_SIM_STACK_KB" in r["message"]


def test_racecheck_tells_the_two_sides_and_the_warp_case(mod):
    _, reports = run_case(mod, planted.BY_NAME["volatile_warp_reduce"])
    assert reports and all(r["space"] == "shared" for r in reports)
    for r in reports:
        assert r["other"]["thread"] != r["thread"]
        assert r["other"]["thread"][0] // 32 == r["thread"][0] // 32  # lanes of one warp
        assert "__syncwarp()" in r["message"]
    _, reports = run_case(mod, planted.BY_NAME["missing_syncthreads"])
    assert any(r["kind"] in ("write-after-read", "read-after-write") for r in reports)


def test_errors_raise_check_error_and_do_not_poison(mod):
    case = planted.BY_NAME["off_by_one_both_ends"]
    with drv.sim_check("memcheck") as chk:
        with pytest.raises(drv.CheckError) as ei:
            case.run(mod, drv, case.kernel)
    assert isinstance(ei.value, drv.LaunchError)
    assert "memcheck: invalid __global__ read of size 4 bytes at kernel.cu:" in str(ei.value)
    assert "check_report()" in str(ei.value)  # two reports: it says where the rest are
    assert len(chk.reports) == 2
    assert not drv.is_poisoned()
    # the process goes on: a clean launch and a copy work
    planted.BY_NAME["stencil_fixed"].run(mod, drv, "stencil_ok")
    a = drv.to_device(np.arange(4, dtype=np.float32))
    assert list(drv.from_device(a, (4,), np.float32)) == [0, 1, 2, 3]


def test_only_the_checks_asked_for_report(mod):
    _, reports = run_case(mod, planted.BY_NAME["uninitialized_read"], checks="memcheck")
    assert reports == []
    _, reports = run_case(mod, planted.BY_NAME["misaligned_float4"], checks="racecheck")
    assert reports == []
    _, reports = run_case(mod, planted.BY_NAME["missing_syncthreads"], checks="memcheck,initcheck")
    assert reports == []


def test_check_report_collects_and_clears(mod):
    drv.check_report(clear=True)
    run_case(mod, planted.BY_NAME["misaligned_float4"])
    run_case(mod, planted.BY_NAME["use_after_free"])
    kinds = [r["kind"] for r in drv.check_report()]
    assert kinds == ["misaligned", "use-after-free"]
    assert drv.check_report(clear=True) and drv.check_report() == []


def test_module_compiled_outside_check_mode_is_not_instrumented(ctx):
    from pycudac.compiler import SourceModule
    src = planted.source() + "\n// outside check mode\n"
    plain = SourceModule(src)
    case = planted.BY_NAME["misaligned_float4"]
    with drv.sim_check("memcheck", raise_errors=False) as chk:
        out = drv.mem_alloc(256)
        plain.get_function("far_write")(out, np.int64(64), block=(32, 1, 1))  # in bounds
    assert chk.reports == []
    with drv.sim_check("memcheck", raise_errors=False) as chk:
        checked = SourceModule(src)  # another module: the instrumented build
        assert checked.module is not plain.module
        case.run(checked, drv, case.kernel)
    assert [r["kind"] for r in chk.reports] == ["misaligned"]


def test_schedule_exposes_the_missing_barrier(mod):
    case = planted.BY_NAME["missing_sync_shift"]
    (right, forward), _ = run_case(mod, case, checks="", schedule="forward")
    (right2, reverse), _ = run_case(mod, case, checks="", schedule="reverse")
    # forward, each thread runs before its neighbour wrote; in reverse, after
    # it (but the last thread's neighbour, thread 0, runs last)
    assert not np.array_equal(forward, right)
    assert np.array_equal(reverse[:-1], right2[:-1]) and reverse[-1] != right2[-1]
    (r1, a), _ = run_case(mod, case, checks="", schedule="random:7")
    (r2, b), _ = run_case(mod, case, checks="", schedule="random:7")
    (r3, c), _ = run_case(mod, case, checks="", schedule="random:8")
    # the same seed, the same order: which threads read their neighbour's write
    assert np.array_equal(a == r1, b == r2) and not np.array_equal(a == r1, c == r3)
    # a correct kernel gives the same answer in every order
    for sched in ("forward", "reverse", "random:1", "random:2"):
        res, _ = run_case(mod, planted.BY_NAME["reduce_fixed"], checks="", schedule=sched)
        assert list(res) == [256.0, 256.0], sched


def test_the_schedule_reorders_fiber_blocks_too(mod):
    case = planted.BY_NAME["reduce_fixed"]
    for sched in ("reverse", "random:3"):
        res, reports = run_case(mod, case, checks="racecheck", schedule=sched)
        assert list(res) == [256.0, 256.0] and reports == []
    res, reports = run_case(mod, planted.BY_NAME["missing_syncthreads"], checks="racecheck",
                            schedule="reverse")
    assert reports


def test_configuration_is_restored_and_checked(ctx):
    import pycudac._driver as _d
    before = _d._sim_check_config()
    with drv.sim_check(["memcheck", "initcheck"], schedule="random:5") as chk:
        assert _d._sim_check_config() == ("memcheck,initcheck", "random:5", True)
    assert _d._sim_check_config() == before and chk.reports == []
    with pytest.raises(ValueError, match="unknown check 'memchek'"):
        drv.sim_check("memchek").__enter__()
    with pytest.raises(ValueError, match="unknown schedule"):
        drv.sim_check("memcheck", schedule="sideways").__enter__()
    with pytest.raises(ValueError, match="seed"):
        drv.sim_check("memcheck", schedule="random:x").__enter__()
    assert _d._sim_check_config() == before
    with pytest.raises(TypeError):
        drv.sim_check(3)


def _run(code, **env):
    e = dict(os.environ, PYCUDAC_BACKEND="sim", **env)
    e["PYTHONPATH"] = ROOT + os.pathsep + e.get("PYTHONPATH", "")
    pre = textwrap.dedent("""
        import sys
        sys.path.insert(0, %r)
        import numpy as np
        import pycudac.autoinit
        import pycudac.driver as drv
        from pycudac.compiler import SourceModule
        import planted_cases as cases
    """ % os.path.join(HERE, "sancheck"))
    return subprocess.run([sys.executable, "-c", pre + textwrap.dedent(code)],
                          capture_output=True, text=True, timeout=300, env=e, cwd=ROOT)


def test_environment_turns_check_mode_on(backend):
    if backend != "sim":
        pytest.skip("check mode is the simulator's")
    r = _run("""
        mod = SourceModule(cases.source())
        c = cases.BY_NAME["uninitialized_read"]
        try:
            c.run(mod, drv, c.kernel)
        except drv.CheckError as e:
            print("RAISED", e.code, str(e)[:60])
        print("REPORTS", [(x["tool"], x["line"]) for x in drv.check_report()])
        print("POISONED", drv.is_poisoned())
    """, PYCUDAC_SIM_CHECK="initcheck", PYCUDAC_SIM_SCHEDULE="reverse")
    assert r.returncode == 0, r.stderr
    line = planted.BY_NAME["uninitialized_read"].lines[0]
    assert "RAISED 20547 cuLaunchKernel (kernel 'read_uninitialized'): initcheck" in r.stdout
    assert f"REPORTS [('initcheck', {line})]" in r.stdout and "POISONED False" in r.stdout
    r = _run("print('unreached')", PYCUDAC_SIM_CHECK="memcheck,bogus")
    assert r.returncode != 0 and "unknown check 'bogus'" in r.stderr


def test_sim_check_on_a_gpu_points_to_compute_sanitizer(backend):
    if backend == "sim":
        pytest.skip("the cuda backend's answer")
    with pytest.raises(drv.LogicError, match="compute-sanitizer"):
        drv.sim_check("memcheck").__enter__()


def test_static_shared_of_an_inline_helper_is_each_modules_own(ctx):
    """`static __shared__` inside a __device__ helper is a static of an inline
    function: GCC made it a process-wide "unique" symbol, so a second module
    with the same helper used the first module's shared memory (and check
    mode, which knows each module's own, reported the accesses as out of
    bounds). Each module has its own now (-fno-gnu-unique)."""
    from pycudac.compiler import SourceModule
    src = """
    __device__ int helper(int v)
    {
        static __shared__ int s[32];
        s[threadIdx.x] = v;
        __syncthreads();
        return s[31 - threadIdx.x];
    }
    __global__ void k(int *out) { out[threadIdx.x] = helper(threadIdx.x); }
    """
    first = SourceModule(src)
    out = drv.mem_alloc(32 * 4)
    first.get_function("k")(out, block=(32, 1, 1))
    with drv.sim_check("all") as chk:
        second = SourceModule(src + "// another module\n")
        second.get_function("k")(out, block=(32, 1, 1))
    assert chk.reports == []
    res = np.empty(32, np.int32)
    drv.memcpy_dtoh(res, out)
    assert list(res) == list(range(31, -1, -1))


# __shared__ arrays of class types: the host compiler guards their
# (empty) construction with a flag of its own in the same thread-local
# block as the array, and every thread of the block tests that flag where the
# declaration is. racecheck took those reads for a race on __shared__
# memory ("read-after-write ... at kernel.cu:<the declaration>"), so any
# kernel with `__shared__ __half tile[...]`, a __half2 or __nv_bfloat16 array,
# or a struct with an empty constructor failed check mode with nothing wrong.
GUARDED_DECLS = [
    ("half", "__half s[64]", "s[t] = __float2half((float)t)", "__half2float(s[63 - t])"),
    ("half2", "__half2 s[64]", "s[t] = __floats2half2_rn((float)t, 0.f)", "__low2float(s[63 - t])"),
    ("bf16", "__nv_bfloat16 s[64]", "s[t] = __float2bfloat16((float)t)",
     "__bfloat162float(s[63 - t])"),
    ("half_2d", "__half s[2][32]", "s[t / 32][t % 32] = __float2half((float)t)",
     "__half2float(s[(63 - t) / 32][(63 - t) % 32])"),
    ("empty_ctor", "Acc s[64]", "s[t].v = (float)t", "s[63 - t].v"),
    ("empty_ctor_scalar", "Acc s", "if (t == 0) s.v = 63.f", "s.v - (float)t"),
]


def guarded_source(decl, write, read, sync=True):
    return ("#include <cuda_fp16.h>\n#include <cuda_bf16.h>\n"
            "struct Acc { float v; __device__ Acc() {} };\n"
            "extern \"C\" __global__ void k(float *out)\n{\n"
            f"    __shared__ {decl};\n    unsigned t = threadIdx.x;\n    {write};\n"
            + ("    __syncthreads();\n" if sync else "")
            + f"    out[t] = {read};\n}}\n")


@pytest.mark.parametrize("name,decl,write,read", GUARDED_DECLS, ids=[g[0] for g in GUARDED_DECLS])
def test_shared_arrays_of_class_types_are_not_a_race(ctx, name, decl, write, read):
    from pycudac.compiler import SourceModule
    with drv.sim_check("all"):
        k = SourceModule(guarded_source(decl, write, read)).get_function("k")
        out = np.zeros(64, np.float32)
        k(drv.Out(out), block=(64, 1, 1))
    np.testing.assert_array_equal(out, np.arange(63, -1, -1, dtype=np.float32))


def test_a_race_on_a_guarded_shared_array_is_still_reported(ctx):
    """The compiler's flag is left out, not the array next to it."""
    from pycudac.compiler import SourceModule
    src = guarded_source(*GUARDED_DECLS[0][1:], sync=False)
    with drv.sim_check("racecheck", raise_errors=False) as chk:
        k = SourceModule(src).get_function("k")
        k(drv.Out(np.zeros(64, np.float32)), block=(64, 1, 1))
    lines = {(r["line"], r["other"]["line"]) for r in chk.reports}
    assert chk.reports and all(r["space"] == "shared" for r in chk.reports)
    assert lines <= {(8, 9), (9, 8)} and lines, lines  # not 6, the declaration


def test_an_array_from_the_pool_is_its_own_size_under_the_checks(ctx):
    """GPUArrays take pooled blocks rounded up to a bin (1,150 floats: 5,120
    bytes): an access past an array's end but inside the bin's slack was no
    allocation's, so memcheck saw nothing and initcheck only an unwritten
    read (how cuvarbase 0.2.5's conditional entropy, whose largest magnitude
    lands one bin past the last, showed). Under the checks a pooled block is
    exactly the array's size, and memcheck names the write."""
    from pycudac import gpuarray
    from pycudac.compiler import SourceModule
    with drv.sim_check("memcheck,initcheck", raise_errors=False) as chk:
        m = SourceModule("""
__global__ void one_past(unsigned int *bins, unsigned int n)
{
    atomicInc(&bins[n], 1000u);  // index n of n elements
}""")
        bins = gpuarray.zeros(1150, np.uint32)
        m.get_function("one_past")(bins, np.uint32(1150), block=(1, 1, 1))
    (r,) = chk.reports
    assert (r["tool"], r["kind"], r["offset"], r["alloc_size"]) == \
        ("memcheck", "out-of-bounds", 4600, 4600), r
    assert "just past its end" in r["message"]
    # outside the checks the pool's bins are back
    assert int(gpuarray.zeros(1150, np.uint32).gpudata.size) == 5120
