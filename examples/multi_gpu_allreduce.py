"""A data-parallel step on several GPUs, one process per GPU: each rank runs
its own kernel on its shard of the data, then the ranks sum their results
with an all-reduce, and every rank checks the sum against NumPy.

pycudac has no communication layer of its own: the all-reduce is NVIDIA's
NCCL (nccl4py) or MPI (mpi4py), given pycudac GPUArrays directly (they pass
as DLPack / __cuda_array_interface__ device memory, never as host buffers).

Start it with MPI (mpi4py gives the ranks and carries NCCL's unique id):

    mpiexec -n 2 python examples/multi_gpu_allreduce.py
    mpiexec -n 2 python examples/multi_gpu_allreduce.py --via mpi   # CUDA-aware MPI itself

or, where no MPI runtime is installed, let the script start the processes
(multiprocessing, spawn) and pass NCCL's unique id through a pipe:

    python examples/multi_gpu_allreduce.py --nprocs 2

--via picks the all-reduce: nccl (the default where nccl4py imports), mpi
(mpi4py's Allreduce on the GPUArrays: needs a CUDA-aware MPI on GPUs), or
ipc (no library at all: the ranks open each other's arrays with CUDA IPC
handles and sum them with a kernel, ordered by IPC events). NCCL runs only
on GPUs; on pycudac's CPU simulator the default is mpi under mpiexec, else
ipc (each process then simulates the GPU of its rank: PYCUDAC_SIM_DEVICES).
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import numpy as np  # noqa: E402

N = 1 << 16
KERNEL = r"""
__global__ void local_step(float *g, const float *x, float scale, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) g[i] = scale * x[i] * x[i];   /* this rank's "gradient" */
}
__global__ void add_into(float *acc, const float *other, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) acc[i] += other[i];
}
"""


def expected(nranks):
    x = np.linspace(-1, 1, N, dtype=np.float32)
    return sum(np.float32(r + 1) * x * x for r in range(nranks))


def rank_main(rank, nranks, via, link=None, mpi_comm=None):
    """One rank: its GPU, its kernel, the all-reduce, the check."""
    os.environ.setdefault("NCCL_NVLS_ENABLE", "0")  # no NVLink multicast (NVLS)
    from pycudac import driver as drv
    drv.init()
    if drv.get_backend() == "sim":
        # the simulator of this process stands for all the node's GPUs
        os.environ.setdefault("PYCUDAC_SIM_DEVICES", str(nranks))
    os.environ["CUDA_DEVICE"] = str(rank % drv.Device.count())
    import pycudac.autoinit  # noqa: F401  (this rank's device, current)
    from pycudac import gpuarray
    from pycudac.compiler import SourceModule

    mod = SourceModule(KERNEL)
    local_step, add_into = mod.get_function("local_step"), mod.get_function("add_into")
    stream = drv.Stream()
    x = gpuarray.to_gpu(np.linspace(-1, 1, N, dtype=np.float32))
    g = gpuarray.empty(N, np.float32)
    grid = ((N + 255) // 256, 1)
    local_step(g, x, np.float32(rank + 1), np.int32(N), block=(256, 1, 1), grid=grid,
               stream=stream)

    if via == "nccl":
        import nccl.core as nccl
        if rank == 0:
            uid = nccl.get_unique_id().as_bytes
            for peer in link or []:
                peer.send(uid)
        uid = mpi_comm.bcast(uid if rank == 0 else None) if mpi_comm else (
            uid if rank == 0 else link.recv())
        comm = nccl.Communicator.init(nranks, rank, nccl.UniqueId.from_bytes(uid))
        # in place, ordered after the kernel on the same stream
        comm.allreduce(g, g, nccl.SUM, stream=stream.handle)
        stream.synchronize()
        comm.destroy()
    elif via == "mpi":
        from mpi4py import MPI
        stream.synchronize()  # MPI reads the memory now, outside any stream
        mpi_comm.Allreduce(MPI.IN_PLACE, g, op=MPI.SUM)
    else:
        g = ipc_allreduce(rank, nranks, g, stream, add_into, link, mpi_comm)

    ok = np.allclose(g.get(), expected(nranks), rtol=1e-5)
    print(f"rank {rank}/{nranks} on {drv.Context.get_device().name()} "
          f"(device {drv.Context.get_device().ordinal}, {via}): "
          f"{'ok' if ok else 'WRONG'}", flush=True)
    return ok


def ipc_allreduce(rank, nranks, g, stream, add_into, link, mpi_comm):
    """Every rank opens every other rank's array and adds it to its own."""
    from pycudac import driver as drv
    done = drv.Event(flags=drv.event_flags.INTERPROCESS | drv.event_flags.DISABLE_TIMING)
    done.record(stream)
    mine = (bytes(drv.mem_get_ipc_handle(g.gpudata)), bytes(done.ipc_handle()))
    everyone = exchange(rank, mine, link, mpi_comm)
    acc = g.copy()
    opened = []
    for r, (mem_h, ev_h) in enumerate(everyone):
        if r == rank:
            continue
        stream.wait_for_event(drv.Event.from_ipc_handle(ev_h))  # its kernel is done
        peer = drv.IPCMemoryHandle(mem_h)
        opened.append(peer)
        add_into(acc, peer, np.int32(N), block=(256, 1, 1), grid=((N + 255) // 256, 1),
                 stream=stream)
    stream.synchronize()
    exchange(rank, "read", link, mpi_comm)  # nobody frees what another still reads
    for peer in opened:
        peer.close()
    return acc


def exchange(rank, item, link, mpi_comm):
    """All ranks' `item`, in rank order (an all-gather over MPI or the pipes)."""
    if mpi_comm is not None:
        return mpi_comm.allgather(item)
    if rank == 0:
        items = [item] + [peer.recv() for peer in link]
        for peer in link:
            peer.send(items)
        return items
    link.send(item)
    return link.recv()


def spawned(rank, nranks, via, conn, result):
    try:
        result.put((rank, rank_main(rank, nranks, via, conn)))
    except BaseException as exc:
        result.put((rank, f"{type(exc).__name__}: {exc}"))
        raise


def default_via(on_gpu, under_mpi):
    if on_gpu:
        try:
            import nccl.core  # noqa: F401
            return "nccl"
        except ImportError:
            pass
    return "mpi" if under_mpi else "ipc"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--via", choices=("nccl", "mpi", "ipc"), default=None)
    ap.add_argument("--nprocs", type=int, default=2, help="ranks to start without mpiexec")
    args = ap.parse_args()
    os.environ.setdefault("NCCL_NVLS_ENABLE", "0")  # inherited by every rank
    under_mpi = any(k in os.environ for k in ("OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK"))
    from pycudac import driver as drv
    on_gpu = drv.get_backend() == "cuda"
    via = args.via or default_via(on_gpu, under_mpi)
    if not on_gpu:  # each process's simulator stands for the node's GPUs
        size = os.environ.get("OMPI_COMM_WORLD_SIZE") or os.environ.get("PMI_SIZE")
        os.environ.setdefault("PYCUDAC_SIM_DEVICES", size if under_mpi and size else
                              str(args.nprocs))
    if via == "nccl" and not on_gpu:
        sys.exit("NCCL runs only on GPUs: on the simulator use --via ipc, or --via mpi under "
                 "mpiexec")
    if under_mpi:
        from mpi4py import MPI
        comm = MPI.COMM_WORLD
        ok = rank_main(comm.Get_rank(), comm.Get_size(), via, mpi_comm=comm)
        sys.exit(0 if comm.allreduce(int(ok), op=MPI.MIN) else 1)
    if via == "mpi":
        sys.exit("--via mpi needs the ranks started by mpiexec")
    import multiprocessing as mp
    ctx = mp.get_context("spawn")  # a CUDA process must never fork
    n = args.nprocs
    pipes = [ctx.Pipe() for _ in range(n - 1)]
    result = ctx.Queue()
    procs = [ctx.Process(target=spawned,
                         args=(r, n, via, [p[0] for p in pipes] if r == 0 else pipes[r - 1][1],
                               result))
             for r in range(n)]
    for p in procs:
        p.start()
    outcomes = dict(result.get(timeout=600) for _ in procs)
    for p in procs:
        p.join(60)
    bad = {r: o for r, o in outcomes.items() if o is not True}
    if bad or any(p.exitcode != 0 for p in procs):
        sys.exit(f"all-reduce failed: {bad or [p.exitcode for p in procs]}")
    print(f"all {n} ranks agree")


if __name__ == "__main__":
    main()
