"""The simulator's teaching profile (issue 22, item 3): per memory
instruction of a launch, the 32-byte sectors a warp's global request touches
against the fewest its bytes need (coalescing), and the ways a shared
request's lanes conflict on the 32 four-byte banks; the rows as data
(sim_profile, sim_check(...).profile), the table with source lines, the
environment (PYCUDAC_SIM_CHECK=profile), and the GPU backend's refusal.
Every number is exact: a profile that counted wrong fails here."""
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

drv = pytest.importorskip("pycudac.driver")

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

# Each profiled access is alone on a line marked "// P:<name>".
SOURCE = r"""
__global__ void coalesced(const float *a, float *o)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = a[i]; // P:coalesced
    o[i] = v; // P:coalesced_store
}

__global__ void shifted(const float *a, float *o)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    o[i] = a[i + 1]; // P:shifted
}

__global__ void strided(const float *a, float *o)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = a[i * 32]; // P:strided
    o[i] = v;
}

__global__ void global_broadcast(const float *a, float *o)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = a[7]; // P:global_broadcast
    o[i] = v;
}

__global__ void banks(float *o, int stride)
{
    __shared__ float s[32 * 33];
    int t = threadIdx.x;
    s[t * stride] = (float)t; // P:bank_store
    __syncthreads();
    float v = s[t * stride]; // P:bank_load
    o[t] = v;
}

__global__ void shared_broadcast(float *o)
{
    __shared__ float s[32];
    int t = threadIdx.x;
    if (t == 0)
        s[3] = 5.0f;
    __syncthreads();
    float v = s[3]; // P:shared_broadcast
    o[t] = v;
}

__global__ void long_loop(const float *a, float *o, int n)
{
    float acc = 0.0f;
    for (int k = 0; k < n; k++)
        acc += a[threadIdx.x + (k & 7) * 32]; // P:long_loop
    o[threadIdx.x] = acc;
}
"""


def line_of(name):
    """The line of kernel.cu (SOURCE) marked P:<name>."""
    for n, text in enumerate(SOURCE.splitlines(), 1):
        if text.rstrip().endswith(f"// P:{name}"):
            return n
    raise KeyError(name)


@pytest.fixture(scope="module")
def ga(backend):
    if backend != "sim":
        pytest.skip("the teaching profile is the simulator's (on a GPU: Nsight Compute)")
    import pycudac.autoinit  # noqa: F401
    from pycudac import gpuarray
    return gpuarray


@pytest.fixture(scope="module")
def mod(ga):
    """SOURCE built for the profile (instrumented): compiled inside it."""
    from pycudac.compiler import SourceModule
    with drv.sim_check("profile"):
        return SourceModule(SOURCE)


def profile_of(mod, ga, kernel, *args, block=(64, 1, 1), grid=(1, 1)):
    """The profile of one launch of `kernel`: its rows by source line."""
    with drv.sim_check("profile") as chk:
        mod.get_function(kernel)(*args, block=block, grid=grid)
    assert all(r.kernel == kernel for r in chk.profile), chk.profile
    return {(r.line, r.space, r.is_write): r for r in chk.profile}


def data(ga, n=64 * 32 + 64):
    return ga.to_gpu(np.arange(n, dtype=np.float32)), ga.zeros(64, np.float32)


def test_coalesced_load_touches_four_sectors_per_warp(mod, ga):
    a, o = data(ga)
    rows = profile_of(mod, ga, "coalesced", a, o)
    load = rows[(line_of("coalesced"), "global", False)]
    # 64 threads: two warps, each 32 floats = 128 bytes = 4 sectors
    assert (load.requests, load.lanes, load.size) == (2, 64, 4)
    assert (load.sectors, load.ideal_sectors) == (8, 8)
    assert load.sectors_per_request == 4.0 and load.cost == 1.0
    store = rows[(line_of("coalesced_store"), "global", True)]
    assert (store.requests, store.sectors, store.ideal_sectors) == (2, 8, 8)
    assert len(rows) == 2  # the index arithmetic and the parameters are no memory instructions


def test_load_off_by_one_float_straddles_a_sector(mod, ga):
    a, o = data(ga)
    rows = profile_of(mod, ga, "shifted", a, o, block=(32, 1, 1))
    load = rows[(line_of("shifted"), "global", False)]
    # bytes 4..131: 5 sectors where 4 would hold them if aligned; the
    # fewest their 128 bytes need is still 4
    assert (load.requests, load.sectors, load.ideal_sectors) == (1, 5, 4)


def test_stride_32_floats_touches_a_sector_per_lane(mod, ga):
    a, o = data(ga)
    rows = profile_of(mod, ga, "strided", a, o)
    load = rows[(line_of("strided"), "global", False)]
    assert (load.requests, load.sectors, load.ideal_sectors) == (2, 64, 8)
    assert load.sectors_per_request == 32.0 and load.ideal_sectors_per_request == 4.0
    assert load.cost == 8.0


def test_global_broadcast_needs_one_sector(mod, ga):
    a, o = data(ga)
    rows = profile_of(mod, ga, "global_broadcast", a, o, block=(32, 1, 1))
    load = rows[(line_of("global_broadcast"), "global", False)]
    assert (load.requests, load.lanes, load.sectors, load.ideal_sectors) == (1, 32, 1, 1)


@pytest.mark.parametrize("stride,ways", [(1, 1), (2, 2), (32, 32), (33, 1)])
def test_shared_bank_conflict_ways(mod, ga, stride, ways):
    _, o = data(ga)
    rows = profile_of(mod, ga, "banks", o, np.int32(stride), block=(32, 1, 1))
    for key in ((line_of("bank_store"), "shared", True), (line_of("bank_load"), "shared", False)):
        r = rows[key]
        assert (r.requests, r.lanes, r.size) == (1, 32, 4), r
        assert (r.conflict_ways, r.max_conflict_ways) == (ways, ways), (stride, r)
        assert r.sectors == 0 and r.cost == ways


def test_shared_broadcast_is_one_way(mod, ga):
    _, o = data(ga)
    rows = profile_of(mod, ga, "shared_broadcast", o, block=(64, 1, 1))
    r = rows[(line_of("shared_broadcast"), "shared", False)]
    assert (r.requests, r.lanes, r.conflict_ways, r.max_conflict_ways) == (2, 64, 2, 1)
    assert o.get().tolist() == [5.0] * 64


def test_rows_point_at_their_source_lines(mod, ga):
    a, o = data(ga)
    with drv.sim_check("profile") as chk:
        mod.get_function("coalesced")(a, o, block=(32, 1, 1))
        mod.get_function("strided")(a, o, block=(32, 1, 1))
    got = [(r.kernel, r.file, r.line, r.space, r.is_write) for r in chk.profile]
    assert got == [("coalesced", "kernel.cu", line_of("coalesced"), "global", False),
                   ("coalesced", "kernel.cu", line_of("coalesced_store"), "global", True),
                   ("strided", "kernel.cu", line_of("strided"), "global", False),
                   ("strided", "kernel.cu", line_of("strided") + 1, "global", True)]


def test_table_and_data(mod, ga):
    a, o = data(ga)
    with drv.sim_check("profile") as chk:
        mod.get_function("strided")(a, o, block=(32, 1, 1))
    prof = chk.profile
    assert isinstance(prof, drv.Profile) and isinstance(prof[0], drv.ProfileRow)
    lines = str(prof).splitlines()
    assert lines[0].split()[:4] == ["kernel", "source", "space", "op"]
    strided = lines[1].split()
    assert strided[:6] == ["strided", f"kernel.cu:{line_of('strided')}", "global", "load", "4", "1"]
    assert strided[6:] == ["32.0", "4.0", "8.0x"]  # sectors/req, ideal, cost
    assert str(prof) == drv.format_profile(prof)
    assert "no memory instruction profiled" in str(drv.Profile())


def test_profile_accumulates_until_cleared_and_keeps_lines_after_unload(ga):
    from pycudac.compiler import SourceModule
    a, o = data(ga)
    with drv.sim_check("profile"):
        m = SourceModule(SOURCE.replace("coalesced", "unloaded"))
        drv.sim_profile(clear=True)
        for _ in range(3):
            m.get_function("unloaded")(a, o, block=(32, 1, 1))
        del m
        import gc
        gc.collect()
        rows = drv.sim_profile(clear=True)
        assert drv.sim_profile() == []
    load = [r for r in rows if r.line == line_of("coalesced")]
    assert len(load) == 1 and load[0].file == "kernel.cu"
    assert (load[0].requests, load[0].sectors) == (3, 12)


def test_profile_is_not_a_check(ga):
    from pycudac import _driver
    with drv.sim_check("all"):
        assert "profile" not in _driver._sim_check_config()[0]
    with drv.sim_check("memcheck,profile"):
        assert _driver._sim_check_config()[0] == "memcheck,profile"
    with pytest.raises(ValueError, match="profile is the teaching profile"):
        drv.sim_check("profil").__enter__()


def test_environment_prints_the_table_at_exit(backend):
    if backend != "sim":
        pytest.skip("the teaching profile is the simulator's")
    code = textwrap.dedent("""
        import numpy as np
        import pycudac.autoinit
        import pycudac.driver as drv
        from pycudac import gpuarray
        from pycudac.compiler import SourceModule
        m = SourceModule(%r)
        a = gpuarray.to_gpu(np.arange(64 * 33, dtype=np.float32))
        o = gpuarray.zeros(64, np.float32)
        m.get_function("strided")(a, o, block=(32, 1, 1))
        print("ROWS", [(r.line, r.sectors) for r in drv.sim_profile()])
    """ % SOURCE)
    env = dict(os.environ, PYCUDAC_BACKEND="sim", PYCUDAC_SIM_CHECK="profile")
    env["PYTHONPATH"] = ROOT + os.pathsep + env.get("PYTHONPATH", "")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       timeout=300, env=env, cwd=ROOT)
    assert r.returncode == 0, r.stderr
    line = line_of("strided")
    assert f"ROWS [({line}, 32), ({line + 1}, 4)]" in r.stdout
    assert "pycudac teaching profile (PYCUDAC_SIM_CHECK=profile):" in r.stderr
    assert f"strided  kernel.cu:{line}" in r.stderr


def test_profile_on_a_gpu_points_to_nsight_compute(backend):
    if backend == "sim":
        pytest.skip("the cuda backend's answer")
    import pycudac.autoinit  # noqa: F401
    with pytest.raises(drv.LogicError, match="Nsight Compute"):
        drv.sim_profile()


def test_planted_bank_conflict_shows_32_ways(ga):
    """tests/sancheck's bank_conflict_32: clean for every check, 32-way in
    the profile at its marked line; its fill loop (stride 1) has none."""
    sys.path.insert(0, os.path.join(HERE, "sancheck"))
    import planted_cases as planted
    from pycudac.compiler import SourceModule
    case = planted.BY_NAME["bank_conflict_32"]
    with drv.sim_check("profile"):
        m = SourceModule(planted.source())
    with drv.sim_check("memcheck,racecheck,profile", raise_errors=False) as chk:
        case.run(m, drv, case.kernel)
    assert chk.reports == []
    rows = {(r.line, r.space, r.is_write): r for r in chk.profile}
    line = planted.line_of("DEFECT profile")[0]
    load = rows[(line, "shared", False)]
    assert (load.requests, load.conflict_ways, load.max_conflict_ways) == (1, 32, 32)
    fill = rows[(line - 2, "shared", True)]
    assert (fill.requests, fill.conflict_ways, fill.max_conflict_ways) == (32, 32, 1)
    store = rows[(line, "global", True)]
    assert (store.sectors, store.ideal_sectors) == (4, 4)


def test_a_block_past_the_limit_is_counted_in_part_and_says_so(mod, ga):
    a, o = data(ga)
    n = 40000  # one warp's requests of one instruction: past the 32768 a block keeps
    rows = profile_of(mod, ga, "long_loop", a, o, np.int32(n), block=(32, 1, 1))
    load = rows[(line_of("long_loop"), "global", False)]
    assert (load.requests, load.sectors, load.ideal_sectors) == (32768, 4 * 32768, 4 * 32768)
    assert load.dropped == (n - 32768) * 32
    assert o.get()[:32].tolist() == [float(n // 8 * sum(range(i, 256, 32))) for i in range(32)]
    with drv.sim_check("profile") as chk:
        mod.get_function("long_loop")(a, o, np.int32(n), block=(32, 1, 1))
    # the store after the loop finds the block's groups all taken: not counted either
    store = [r for r in chk.profile if r.is_write]
    assert [(r.requests, r.dropped) for r in store] == [(0, 32)]
    assert f"({(n - 32768) * 32 + 32} lane accesses not counted" in str(chk.profile)
