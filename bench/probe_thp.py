"""Probe (diagnostic): is part of a launch's cost from Python the iTLB?

Times the C floor (in process), the Python floor (a launcher called from
the Python loop) and pycudac, then puts libcuda's code on 2 MiB pages and
times them again.

    python3 bench/probe_thp.py [--rounds N] [--how collapse|remap] [--also-python]
"""
import argparse
import ctypes
import os
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
HUGE = 2 << 20
MADV_HUGEPAGE, MADV_COLLAPSE = 14, 25
PROT_READ, PROT_WRITE, PROT_EXEC = 1, 2, 4
MAP_PRIVATE, MAP_ANONYMOUS = 0x02, 0x20
MREMAP_MAYMOVE, MREMAP_FIXED = 1, 2

libc = ctypes.CDLL(None, use_errno=True)
libc.mmap.restype = ctypes.c_void_p
libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int,
                      ctypes.c_int, ctypes.c_long]
libc.madvise.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
libc.mprotect.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
libc.mremap.restype = ctypes.c_void_p
libc.mremap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_size_t, ctypes.c_int,
                        ctypes.c_void_p]


def text_maps(name):
    out = []
    for line in open("/proc/self/maps"):
        parts = line.split()
        if len(parts) >= 6 and name in parts[5] and parts[1].startswith("r-x"):
            a, b = (int(x, 16) for x in parts[0].split("-"))
            out.append((a, b, int(parts[2], 16), parts[5]))
    return out


def huge_kb(ranges):
    """FilePmdMapped + AnonHugePages of the mappings inside `ranges` ((lo, hi) pairs)."""
    tot, cur = 0, False
    for line in open("/proc/self/smaps"):
        w = line.split()
        if w and "-" in w[0] and not w[0].endswith(":"):
            a, b = (int(x, 16) for x in w[0].split("-"))
            cur = any(lo <= a and b <= hi for lo, hi in ranges)
        elif cur and (line.startswith("FilePmdMapped") or line.startswith("AnonHugePages")):
            tot += int(w[1])
    return tot


def to_huge(name, how):
    done = []
    for a, b, off, path in text_maps(name):
        lo, hi = (a + HUGE - 1) // HUGE * HUGE, b // HUGE * HUGE
        if hi <= lo:
            done.append(f"{path}: {a:#x}-{b:#x} holds no aligned 2 MiB")
            continue
        n = hi - lo
        if how == "collapse":
            libc.madvise(lo, n, MADV_HUGEPAGE)
            rc = libc.madvise(lo, n, MADV_COLLAPSE)
            done.append(f"{path}: collapse {n >> 20} MiB rc={rc} errno={ctypes.get_errno()}")
            continue
        tmp = libc.mmap(None, n + HUGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                        -1, 0)
        t = (tmp + HUGE - 1) // HUGE * HUGE
        libc.madvise(t, n, MADV_HUGEPAGE)
        ctypes.memmove(t, lo, n)
        libc.mprotect(t, n, PROT_READ | PROT_EXEC)
        r = libc.mremap(t, n, n, MREMAP_MAYMOVE | MREMAP_FIXED, lo)
        done.append(f"{path}: remap {n >> 20} MiB -> {'ok' if r == lo else 'FAILED'}"
                    f" errno={ctypes.get_errno()}")
    return done


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=15)
    ap.add_argument("--how", default="collapse")
    ap.add_argument("--also-python", action="store_true")
    args = ap.parse_args()
    print(os.uname().release, *(open(f"/sys/kernel/mm/transparent_hugepage/{k}").read().strip()
                                for k in ("enabled", "defrag")))
    import code_lines
    Launcher = code_lines.build()
    import pycudac.autoinit  # noqa: F401
    import pycudac.driver as drv
    from pycudac.compiler import SourceModule
    from pycudac.gpuarray import vec
    import bench_launch
    from common import load_floor, pycudac_nvrtc_path

    lib, why = load_floor(os.path.join(HERE, "out", "libfloor.so"), pycudac_nvrtc_path())
    if lib is None:
        print("floor:", why)
        return 1
    mod = SourceModule(bench_launch.SRC)
    f16, fe = mod.get_function("k16"), mod.get_function("empty")
    s = drv.Stream(flags=1)
    ptr = drv.mem_alloc(4096)
    v4 = vec.make_float4(1, 2, 3, 4)
    args16 = (ptr, ptr, ptr, ptr, 1, 2, 3, 4, 1.5, 2.5, 3.5, 4.5, v4, 6.25, 7, -8)
    libcuda = ctypes.CDLL(os.environ.get("PYCUDAC_LIBCUDA") or "libcuda.so.1")
    launch = ctypes.cast(libcuda.cuLaunchKernel, ctypes.c_void_p).value
    pyfloor16 = Launcher(launch, int(f16.handle), int(s.handle), len(f16.pack(*args16)), 0, 0)
    pyfloor0 = Launcher(launch, int(fe.handle), int(s.handle), len(fe.pack(ptr, 1000)), 0, 0)
    v = {
        "C floor empty": lambda n: lib.floor_launch_us(0, 1, n, 1),
        "C floor k16": lambda n: lib.floor_launch_us(1, 1, n, 1),
        "Py floor empty": bench_launch.empty_loop(pyfloor0, ptr, s),
        "Py floor k16": bench_launch.k16_loop(pyfloor16, ptr, s, v4),
        "pycudac empty": bench_launch.empty_loop(fe, ptr, s),
        "pycudac k16": bench_launch.k16_loop(f16, ptr, s, v4),
    }
    print(*text_maps("libcuda"), sep="\n")
    spans = [(a, b) for a, b, _, _ in text_maps("libcuda")]
    before = measure(v, args.rounds)
    for line in to_huge("libcuda", args.how):
        print(line)
    if args.also_python:
        for line in to_huge("python", args.how):
            print(line)
    print("KiB on huge pages in libcuda's code:", huge_kb(spans))
    after = measure(v, args.rounds)
    print(f"{'':16} {'before':>9} {'after':>9}  ratio to C floor before / after")
    for k in v:
        ref = "C floor k16" if "k16" in k else "C floor empty"
        rb = statistics.median(x / y for x, y in zip(before[k], before[ref]))
        ra = statistics.median(x / y for x, y in zip(after[k], after[ref]))
        print(f"{k:16} {statistics.median(before[k]):9.3f} {statistics.median(after[k]):9.3f}"
              f"  {rb:.3f} / {ra:.3f}")
    return 0


def measure(v, n_rounds):
    keys = list(v)
    for k in keys:
        v[k](300)
    res = {k: [] for k in keys}
    for r in range(n_rounds):
        for k in keys[r % len(keys):] + keys[:r % len(keys)]:
            res[k].append(v[k](2000))
    return res


if __name__ == "__main__":
    sys.exit(main())
