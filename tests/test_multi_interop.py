"""GPUArray in other engines' collectives: mpi4py and nccl4py read it as
device memory (DLPack, __cuda_array_interface__), never as a host buffer,
with the stream semantics each expects; examples/multi_gpu_allreduce.py on
this backend; and the guard that pycudac never asks for NVLink multicast."""
import ctypes
import os
import re
import shutil
import subprocess
import sys

import numpy as np
import pytest

from pycudac import driver as drv

from _multi import need_two_devices, skip_or_fail

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXAMPLE = os.path.join(ROOT, "examples", "multi_gpu_allreduce.py")

_is_valid = ctypes.pythonapi.PyCapsule_IsValid
_is_valid.restype = ctypes.c_int
_is_valid.argtypes = [ctypes.py_object, ctypes.c_char_p]


@pytest.fixture(scope="module", autouse=True)
def ctx(autoinit):
    return autoinit


def env_for_children(**extra):
    env = dict(os.environ, NCCL_NVLS_ENABLE="0", **extra)
    env["PYTHONPATH"] = ROOT + os.pathsep + env.get("PYTHONPATH", "")
    return env


def test_gpuarray_offers_no_host_buffer():
    """mpi4py tries the buffer protocol first: device memory must not pass
    as host bytes."""
    from pycudac import gpuarray
    a = gpuarray.to_gpu(np.arange(8, dtype=np.float32))
    for obj in (a, a.gpudata, drv.mem_alloc(16)):
        with pytest.raises(TypeError):
            memoryview(obj)
    # what the engines read instead
    cai = a.__cuda_array_interface__
    assert cai["data"][0] == a.ptr and cai["version"] == 3
    assert cai["stream"] == 1  # pycudac's work is ordered on the legacy stream
    assert a.__dlpack_device__() == (2, drv.Context.get_device().ordinal)


def test_dlpack_capsule_versions():
    from pycudac import gpuarray
    a = gpuarray.to_gpu(np.arange(8, dtype=np.float32))
    assert _is_valid(a.__dlpack__(), b"dltensor")
    # mpi4py and cuda.core ask for DLPack 1.x and accept no other then
    assert _is_valid(a.__dlpack__(stream=-1, max_version=(1, 0), copy=False),
                     b"dltensor_versioned")
    assert _is_valid(a.__dlpack__(max_version=(0, 8)), b"dltensor")
    with pytest.raises(BufferError, match="copy=True"):
        a.__dlpack__(copy=True)
    with pytest.raises(BufferError, match="dl_device"):
        a.__dlpack__(dl_device=(1, 0))


def test_dlpack_stream_semantics():
    from pycudac import gpuarray
    a = gpuarray.to_gpu(np.arange(1 << 16, dtype=np.float32))
    s = drv.Stream()
    a += 1  # queued on the legacy stream
    a.__dlpack__(stream=s.handle)  # s now waits for it (an event, no host wait)
    out = np.empty(a.size, np.float32)
    drv.memcpy_dtoh_async(out, a.ptr, s)
    s.synchronize()
    assert (out == np.arange(a.size) + 1).all()
    for stream in (None, -1, 0, 1):
        a.__dlpack__(stream=stream)
    with pytest.raises(TypeError, match="stream"):
        a.__dlpack__(stream="s")


def _mpiexec():
    exe = shutil.which("mpiexec")
    try:
        import mpi4py  # noqa: F401
    except ImportError:
        return None, "mpi4py is not installed"
    if exe is None:
        return None, "no mpiexec (no MPI runtime)"
    return exe, None


def _mpi_cuda_aware():
    """Whether the MPI takes device pointers (Open MPI built with CUDA)."""
    info = shutil.which("ompi_info")
    if info is None:
        return False
    r = subprocess.run([info, "--parsable", "--all"], capture_output=True, text=True)
    return "mpi_built_with_cuda_support:value:true" in r.stdout


def _run_mpi(n, args, timeout=300):
    exe, why = _mpiexec()
    if exe is None:
        pytest.skip(why)
    if drv.get_backend() == "cuda" and "--via" in args and "mpi" in args and \
            not _mpi_cuda_aware():
        pytest.skip("this MPI is not CUDA-aware: it cannot read device memory")
    version = subprocess.run([exe, "--version"], capture_output=True, text=True)
    open_mpi = re.search(r"Open MPI|OpenRTE", version.stdout + version.stderr)
    extra = ["--oversubscribe"] + (["--allow-run-as-root"] if os.geteuid() == 0 else []) \
        if open_mpi else []
    env = env_for_children()
    fwd = []
    for k in ("PYTHONPATH", "PYCUDAC_BACKEND", "NCCL_NVLS_ENABLE", "PYCUDAC_CACHE_DIR"):
        if k in env and open_mpi:
            fwd += ["-x", k]  # MPICH's Hydra passes the whole environment
    return subprocess.run([exe, *extra, *fwd, "-n", str(n), sys.executable, *args],
                          env=env, capture_output=True, text=True, timeout=timeout)


def test_mpi4py_allreduce_of_gpuarrays():
    """mpi4py's Allreduce on GPUArrays: device memory through DLPack (on the
    simulator any MPI reads it; on GPUs only a CUDA-aware one)."""
    r = _run_mpi(2, [EXAMPLE, "--via", "mpi"])
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    assert r.stdout.count(": ok") == 2, r.stdout


def need_nccl():
    try:
        import nccl.core  # noqa: F401
    except ImportError as exc:
        skip_or_fail("NCCL", f"nccl4py is not installed ({exc})")


def need_two_gpus():
    if drv.get_backend() == "cuda":
        need_two_devices()


def test_example_without_mpi():
    """The script starts its ranks itself: NCCL on GPUs (where nccl4py is),
    else CUDA IPC handles and events between the processes."""
    need_two_gpus()
    r = subprocess.run([sys.executable, EXAMPLE, "--nprocs", "2"], env=env_for_children(),
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    assert r.stdout.count(": ok") == 2 and "all 2 ranks agree" in r.stdout, r.stdout


def test_example_ipc_allreduce_three_ranks():
    need_two_gpus()
    r = subprocess.run([sys.executable, EXAMPLE, "--nprocs", "3", "--via", "ipc"],
                       env=env_for_children(), capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    assert r.stdout.count(": ok") == 3, r.stdout


def test_example_refuses_nccl_on_the_simulator():
    if drv.get_backend() != "sim":
        pytest.skip("the simulator's refusal")
    r = subprocess.run([sys.executable, EXAMPLE, "--via", "nccl"], env=env_for_children(),
                       capture_output=True, text=True, timeout=120)
    assert r.returncode != 0 and "NCCL runs only on GPUs" in r.stderr, r.stderr


@pytest.mark.gpu
def test_nccl_allreduce_of_gpuarrays_with_mpi_bootstrap():
    """mpi4py bootstraps, nccl4py all-reduces the GPUArrays (two GPUs)."""
    need_nccl()
    need_two_devices()
    r = _run_mpi(2, [EXAMPLE, "--via", "nccl"])
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    assert r.stdout.count("nccl): ok") == 2, r.stdout


@pytest.mark.gpu
def test_nccl_allreduce_with_unique_id_over_a_pipe():
    need_nccl()
    need_two_devices()
    r = subprocess.run([sys.executable, EXAMPLE, "--nprocs", "2", "--via", "nccl"],
                       env=env_for_children(), capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    assert r.stdout.count("nccl): ok") == 2, r.stdout


def test_pycudac_never_asks_for_multicast():
    """NVLink multicast objects can take a host's GPUs out of service: no
    pycudac code, benchmark or example may name the driver's multicast
    entry points, and every process the multi-GPU stage starts runs with
    NCCL's NVLink SHARP (multicast) off."""
    name = "cuMulticast" + "Create"  # spelled apart: this file is not a user
    hits = []
    for top in ("src", "include", "pycudac", "bench", "examples", "tools"):
        for dirpath, _, files in os.walk(os.path.join(ROOT, top)):
            for f in files:
                path = os.path.join(dirpath, f)
                try:
                    text = read(path)
                except OSError:
                    continue
                if re.search(r"cuMulticast", text) or name in text:
                    hits.append(os.path.relpath(path, ROOT))
    assert hits == []
    script = read(os.path.join(ROOT, "bench", "gpu_check_multi.sh"))
    assert re.search(r"^export NCCL_NVLS_ENABLE=0$", script, re.M)
    assert 'os.environ.setdefault("NCCL_NVLS_ENABLE", "0")' in read(EXAMPLE)
    assert 'os.environ.setdefault("NCCL_NVLS_ENABLE", "0")' in read(
        os.path.join(ROOT, "bench", "bench_multi.py"))


def read(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        return f.read()


def test_nccl4py_reads_a_gpuarray_as_device_memory():
    """nccl4py's own view of a GPUArray (cuda.core through DLPack 1.x):
    the address, element count, element type and device; with a stream too
    (that stream then waits for pycudac's work)."""
    try:
        from nccl.core.buffer import NcclBuffer
    except ImportError as exc:
        skip_or_fail("NCCL", f"nccl4py is not installed ({exc})")
    import nccl.core as nccl
    from pycudac import gpuarray
    a = gpuarray.to_gpu(np.arange(10, dtype=np.float32))
    s = drv.Stream()
    for stream in (None, s.handle):
        b = NcclBuffer(a, stream=stream)
        assert (b.ptr, b.count, b.dtype) == (a.ptr, 10, nccl.FLOAT32)
        assert b.device_id == drv.Context.get_device().ordinal


def test_bench_multi_smoke_run():
    """bench/bench_multi.py --quick: every row measured or n/a with a reason;
    a row it cannot measure fails the run unless --allow-na."""
    if drv.get_backend() != "sim":
        pytest.skip("make gpu-check-multi runs the real benchmark")
    bench = os.path.join(ROOT, "bench", "bench_multi.py")
    r = subprocess.run([sys.executable, bench, "--quick", "--allow-na"],
                       env=env_for_children(), capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-2000:]
    for metric in ("peer_copy_GBps", "ipc_open_close_us", "pool_alloc_free_us"):
        assert re.search(rf"pycudac\s+{metric}\s+[0-9.]+", r.stdout), r.stdout
    assert "NCCL runs only on GPUs" in r.stdout and "bench_multi: PASSED" in r.stdout
    r = subprocess.run([sys.executable, bench, "--quick"], env=env_for_children(),
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 1 and "FAIL (n/a)" in r.stdout, r.stdout[-2000:]
