"""Cooperative launches: grid.sync() and the split barrier, grid_group's
validity, the co-residency of a cooperative grid and its refusal when too
large, the occupancy query, keyword errors, and what a cooperative launch
sends through the stub driver."""
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

drv = pytest.importorskip("pycudac.driver")

from _launch_kernels import source_module  # noqa: E402


# ------------------------------------------------------- cooperative launches

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus"))
from cases import toolkit_includes  # noqa: E402

KERNELS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "kernels")

HANDSHAKE = r"""
// block 0 spins until the grid's last block raises a flag: it can end only if
// every block is resident at once (bounded: -1 when the flag never came)
__global__ void handshake(int *flag, int *out)
{
    if (threadIdx.x != 0)
        return;
    if (blockIdx.x == gridDim.x - 1) {
        out[1] = 7;
        __threadfence();
        atomicExch(flag, 1);
    }
    if (blockIdx.x == 0) {
        long long spins = 0;
        while (atomicAdd(flag, 0) == 0 && ++spins < (1LL << 26))
            ;
        out[0] = spins < (1LL << 26) ? atomicAdd(&out[1], 0) + 1 : -1;
    }
}
"""


def cg_kernels(name):
    with open(os.path.join(KERNELS, name), encoding="utf-8") as f:
        return source_module(f.read(), no_extern_c=True, include_dirs=toolkit_includes())


@pytest.fixture(scope="module")
def coop(ctx):
    return cg_kernels("cg_grid_sync.cu")


def coresident(f, threads, shared=0):
    """(blocks per multiprocessor, multiprocessors): the largest cooperative
    grid is their product."""
    sms = drv.Context.get_device().get_attribute(drv.device_attribute.MULTIPROCESSOR_COUNT)
    return f.max_active_blocks_per_multiprocessor(threads, shared), sms


def test_device_supports_cooperative_launch(ctx):
    assert drv.Context.get_device().get_attribute(drv.device_attribute.COOPERATIVE_LAUNCH) == 1


@pytest.mark.tsan
def test_grid_sync_in_a_cooperative_launch(coop):
    f = coop.get_function("relax")
    per_sm, sms = coresident(f, 128)
    grid = min(per_sm * sms, 24)
    n, rounds = 3000, 6
    a = rng_ints(40, n)
    expect = a.astype(np.int64)
    for _ in range(rounds):
        expect = np.convolve(expect, [1, 1, 1])[1:-1]
    da, db = drv.to_device(a), drv.mem_alloc(a.nbytes)
    f(da, db, np.int32(n), np.int32(rounds), block=(128, 1, 1), grid=(grid, 1), cooperative=True)
    np.testing.assert_array_equal(drv.from_device_like(da, a), expect.astype(np.int32))


def rng_ints(seed, n):
    return np.random.default_rng(seed).integers(-5, 6, n).astype(np.int32)


@pytest.mark.tsan
def test_split_barrier_and_prepared_cooperative_calls(coop):
    f = coop.get_function("total")
    x = rng_ints(41, 8 * 64)
    partial, out = np.zeros(8, np.int32), np.zeros(8 * 64, np.int32)
    f(drv.In(x), drv.Out(partial), drv.Out(out), block=(64, 1, 1), grid=(8, 1),
      cooperative=True)
    assert (out == x.sum()).all() and partial.tolist() == x.reshape(8, 64).sum(axis=1).tolist()
    dx, dp, do = drv.to_device(x), drv.mem_alloc(8 * 4), drv.mem_alloc(out.nbytes)
    f.prepared_call((4, 2), (64, 1, 1), dx, dp, do, cooperative=True)
    assert (drv.from_device_like(do, out) == x.sum()).all()
    secs = f.prepared_timed_call((8, 1), (64, 1, 1), dx, dp, do, cooperative=True)()
    assert secs >= 0
    assert f(dx, dp, do, block=(64, 1, 1), grid=(8, 1), cooperative=1, time_kernel=True) >= 0


def test_grid_group_is_valid_in_a_cooperative_launch(ctx):
    f = cg_kernels("cg_groups.cu").get_function("grid_info")
    out, valid = np.zeros(8 * 48, np.uint64), np.zeros(1, np.int32)
    f(drv.Out(out), drv.Out(valid), block=(4, 2, 1), grid=(3, 2), cooperative=True)
    assert valid[0] == 1 and out.reshape(48, 8)[:, 0].tolist() == [48] * 48
    # an ordinary launch: false as documented (the simulator); the H100
    # (driver 580) answers 1 here, after a cooperative launch (left-over
    # state: 0 in a process that never launched cooperatively)
    f(drv.Out(out), drv.Out(valid), block=(4, 2, 1), grid=(3, 2), cooperative=False)
    assert valid[0] == (0 if drv.get_backend() == "sim" else 1)


@pytest.mark.tsan
def test_blocks_of_a_cooperative_launch_run_at_once(ctx):
    f = source_module(HANDSHAKE).get_function("handshake")
    per_sm, sms = coresident(f, 32)
    flag, out = np.zeros(1, np.int32), np.zeros(2, np.int32)
    f(drv.InOut(flag), drv.InOut(out), block=(32, 1, 1), grid=(min(per_sm * sms, 16), 1),
      cooperative=True)
    assert out.tolist() == [8, 7]


def test_a_cooperative_grid_larger_than_the_device_holds(coop):
    f = coop.get_function("relax")
    per_sm, sms = coresident(f, 128)
    limit = per_sm * sms
    assert per_sm >= 1 and f.max_active_blocks_per_multiprocessor(128, 40000) <= per_sm
    a = np.zeros(100, np.int32)
    da, db = drv.to_device(a), drv.mem_alloc(a.nbytes)
    # the same with a priority (cuLaunchKernelEx, launch/attrs.c), which
    # skipped the check and its words
    for extra in ({}, {"priority": 0}):
        with pytest.raises(drv.LaunchError) as info:
            f(da, db, np.int32(100), np.int32(2), block=(128, 1, 1), grid=(limit + 1, 1),
              cooperative=True, **extra)
        e = info.value
        assert e.code == 720 and e.name == "CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE"
        for part in ("kernel 'relax'", f"grid ({limit + 1}, 1, 1) has {limit + 1} blocks",
                     f"at most {limit} such blocks", f"{per_sm} per multiprocessor x {sms} "
                     "multiprocessors"):
            assert part in str(e), (part, str(e))
    # refused before anything ran: the context goes on, and the largest grid fits
    f(da, db, np.int32(100), np.int32(2), block=(128, 1, 1), grid=(limit, 1), cooperative=True)
    drv.Context.synchronize()


def test_occupancy_query_arguments(coop):
    f = coop.get_function("relax")
    with pytest.raises(ValueError, match="block_size = 0 is out of range"):
        f.max_active_blocks_per_multiprocessor(0)
    with pytest.raises(ValueError, match="dynamic_smem = -1 bytes"):
        f.max_active_blocks_per_multiprocessor(32, -1)
    with pytest.raises(TypeError):
        f.max_active_blocks_per_multiprocessor("32")


def test_simulator_occupancy_is_its_coresidency_limit(coop):
    """The simulated multiprocessor counts as an H100's does (64 warps, 32
    blocks, 228 KiB of shared memory less 1 KiB a block), and
    max_potential_block_size's grid agrees."""
    if drv.get_backend() != "sim":
        pytest.skip("the simulator's occupancy model")
    f = coop.get_function("relax")
    assert [f.max_active_blocks_per_multiprocessor(t) for t in (1, 32, 100, 128, 1024)] == \
        [32, 32, 16, 16, 2]
    assert f.max_active_blocks_per_multiprocessor(64, 40000) == 233472 // (40000 + 1024)
    assert f.max_active_blocks_per_multiprocessor(64, 100 * 1024) == 0  # not opted in
    per_sm, sms = coresident(f, 256)
    assert f.max_potential_block_size(block_size_limit=256) == (per_sm * sms, 256)


def test_cooperative_keyword_errors(coop):
    f = coop.get_function("total")

    class Bad:
        def __bool__(self):
            raise RuntimeError("no truth")

    d = drv.mem_alloc(4096)
    # a yes-or-no keyword takes a bool, an int or None: a string was true
    # (cooperative="no" launched cooperatively: found by an adversarial review)
    for bad in (Bad(), "no", b"", 1.0):
        with pytest.raises(TypeError, match="cooperative= must be True or False"):
            f(d, d, d, block=(1, 1, 1), cooperative=bad)
        with pytest.raises(TypeError, match="cooperative= must be True or False"):
            f.prepared_call((1, 1), (1, 1, 1), d, d, d, cooperative=bad)
    with pytest.raises(TypeError, match="time_kernel= must be True or False"):
        f(d, d, d, block=(1, 1, 1), time_kernel="yes")
    with pytest.raises(TypeError, match="unexpected keyword argument 'cooperate' .*cooperative"):
        f(d, d, d, block=(1, 1, 1), cooperate=True)
    with pytest.raises(TypeError, match="prepared_call.. got an unexpected keyword argument"):
        f.prepared_call((1, 1), (1, 1, 1), d, d, d, coop=True)


STUB_COOP_CHILD = textwrap.dedent(r"""
    import ctypes, os
    import numpy as np
    import pycudac.autoinit  # noqa: F401
    import pycudac.driver as drv
    from pycudac import gpuarray
    from pycudac.compiler import SourceModule

    lib = ctypes.CDLL(os.environ["PYCUDAC_LIBCUDA"])
    lib.stub_last_coop.restype = ctypes.c_size_t

    def last(n):
        dims, offs = (ctypes.c_uint * 7)(), (ctypes.c_long * 64)()
        buf = ctypes.create_string_buffer(4096)
        size = lib.stub_last_coop(dims, offs, buf, ctypes.c_size_t(4096))
        return list(dims), list(offs)[:n], buf.raw[:size]

    pad = SourceModule('__global__ void pad(char c, int i, double d, float4 v, short s, '
                       'float *p) {}').get_function("pad")
    ptr = drv.mem_alloc(64)
    v4 = gpuarray.vec.make_float4(1, 2, 3, 4)
    lib.stub_expect_params(ctypes.c_size_t(6), ctypes.c_size_t(pad.arg_size))
    args = (-3, 7, 2.5, v4, 9, ptr)
    offsets = [e.offset for e in pad.param_layout]
    pad(*args, block=(64, 1, 1), grid=(8, 2), cooperative=True)
    assert last(6) == ([8, 2, 1, 64, 1, 1, 0], offsets, pad.pack(*args)), last(6)
    s = drv.Stream()
    pad.prepared_async_call((5, 1), (32, 1, 1), s, 1, 2, 3.0, v4, 5, ptr, shared_size=16,
                            cooperative=True)
    assert last(6) == ([5, 1, 1, 32, 1, 1, 16], offsets, pad.pack(1, 2, 3.0, v4, 5, ptr))
    # 1024 threads: 2 blocks per multiprocessor x 132 on this "H100"
    try:
        pad(*args, block=(1024, 1, 1), grid=(265, 1), cooperative=True)
    except drv.LaunchError as e:
        assert e.code == 720 and "at most 264 such blocks" in str(e), str(e)
    else:
        raise AssertionError("not refused")
    lib.stub_coop_limit(ctypes.c_long(10))  # the driver refuses what occupancy allowed
    try:
        pad(*args, block=(64, 1, 1), grid=(11, 1), cooperative=True)
    except drv.LaunchError as e:
        assert e.code == 720 and "kernel 'pad'" in str(e) and "(11, 1, 1)" in str(e), str(e)
    else:
        raise AssertionError("not refused")
    print("OK")
""")


def test_what_a_cooperative_launch_sends_through_the_stub_driver(stub_driver):
    """cuLaunchCooperativeKernel takes kernelParams, not the packed buffer:
    each must point at its parameter's bytes, pack()'s, at the driver's
    offsets; the co-residency check uses the driver's occupancy answer, and
    the driver's own 720 gets the same explanation."""
    env = dict(os.environ, PYCUDAC_BACKEND="cuda", PYCUDAC_LIBCUDA=stub_driver,
               PYCUDAC_DISABLE_CACHE="1")
    r = subprocess.run([sys.executable, "-c", STUB_COOP_CHILD], env=env,
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0 and r.stdout.strip().endswith("OK"), r.stderr[-3000:]
