"""Probe: the launch loops with range() against itertools.repeat() (timeit's loop)."""
import ctypes, itertools, os, statistics, sys, time
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)


def main():
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 21
    import code_lines
    Launcher = code_lines.build()
    import pycudac.autoinit  # noqa: F401
    import pycudac.driver as drv
    from pycudac.compiler import SourceModule
    from pycudac.gpuarray import vec
    import bench_launch
    from common import load_floor, pycudac_nvrtc_path
    lib, why = load_floor(os.path.join(HERE, "out", "libfloor.so"), pycudac_nvrtc_path())
    mod = SourceModule(bench_launch.SRC)
    f16, fe = mod.get_function("k16"), mod.get_function("empty")
    s = drv.Stream(flags=1)
    ptr = drv.mem_alloc(4096)
    v4 = vec.make_float4(1, 2, 3, 4)
    args16 = (ptr, ptr, ptr, ptr, 1, 2, 3, 4, 1.5, 2.5, 3.5, 4.5, v4, 6.25, 7, -8)
    libcuda = ctypes.CDLL(os.environ.get("PYCUDAC_LIBCUDA") or "libcuda.so.1")
    launch = ctypes.cast(libcuda.cuLaunchKernel, ctypes.c_void_p).value
    py16 = Launcher(launch, int(f16.handle), int(s.handle), len(f16.pack(*args16)), 0, 0)
    py0 = Launcher(launch, int(fe.handle), int(s.handle), len(fe.pack(ptr, 1000)), 0, 0)

    def e_rep(g):
        def run(n):
            f_, p, s_ = g, ptr, s
            t0 = time.perf_counter()
            for _ in itertools.repeat(None, n):
                f_(p, 1000, block=(1, 1, 1), grid=(1, 1), stream=s_)
            s_.synchronize()
            return (time.perf_counter() - t0) * 1e6 / n
        return run

    def k_rep(g):
        def run(n):
            f_, p, s_, v = g, ptr, s, v4
            t0 = time.perf_counter()
            for _ in itertools.repeat(None, n):
                f_(p, p, p, p, 1, 2, 3, 4, 1.5, 2.5, 3.5, 4.5, v, 6.25, 7, -8,
                   block=(1, 1, 1), grid=(1, 1), stream=s_)
            s_.synchronize()
            return (time.perf_counter() - t0) * 1e6 / n
        return run
    v = {
        "C floor empty": lambda n: lib.floor_launch_us(0, 1, n, 1),
        "C floor k16": lambda n: lib.floor_launch_us(1, 1, n, 1),
        "Py floor empty range": bench_launch.empty_loop(py0, ptr, s),
        "Py floor empty repeat": e_rep(py0),
        "Py floor k16 range": bench_launch.k16_loop(py16, ptr, s, v4),
        "Py floor k16 repeat": k_rep(py16),
        "pycudac empty range": bench_launch.empty_loop(fe, ptr, s),
        "pycudac empty repeat": e_rep(fe),
        "pycudac k16 range": bench_launch.k16_loop(f16, ptr, s, v4),
        "pycudac k16 repeat": k_rep(f16),
    }
    keys = list(v)
    for k in keys:
        v[k](300)
    res = {k: [] for k in keys}
    for r in range(rounds):
        for k in keys[r % len(keys):] + keys[:r % len(keys)]:
            res[k].append(v[k](2000))
    for k in keys:
        ref = "C floor k16" if "k16" in k else "C floor empty"
        print(f"{k:24} {statistics.median(res[k]):7.3f} us  "
              f"{statistics.median(x / y for x, y in zip(res[k], res[ref])):.3f}xp")


main()
