"""NVRTC's precompiled headers (issue 25): a cold compile of a kernel that
includes <cooperative_groups.h> and <cuda_fp16.h>, with the PCH of those
headers warm in the process, against the same compile without PCH.

  compile_no_pch_ms      compiler.compile(src, pch=False), a new source each
                         time (a tag comment), no disk cache
  compile_pch_warm_ms    the same with pch=True after the PCH exists; paired:
                         each round compiles one of each, alternating which
                         goes first, and the ratio is the median of the
                         rounds' ratios (target <= 0.5)
  compile_pch_create_ms  the first compile with pch=True, which makes the PCH
                         (once per process and option list)

NVRTC runs on the CPU: with no GPU the compiles are for sm_90 (arch=), so
this runs anywhere NVRTC 12.8+ is.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from common import Recorder, device_arch, header, median, now, paired, parse_args  # noqa: E402

SOURCE = """#include <cooperative_groups.h>
#include <cuda_fp16.h>
namespace cg = cooperative_groups;

// %s
__global__ void half_block_sum(const __half *x, float *out, int n)
{
    cg::thread_block block = cg::this_thread_block();
    __shared__ float partial[256];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    partial[threadIdx.x] = i < n ? __half2float(x[i]) : 0.0f;
    block.sync();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s)
            partial[threadIdx.x] += partial[threadIdx.x + s];
        block.sync();
    }
    if (block.thread_rank() == 0)
        atomicAdd(out, partial[0]);
}
"""


def bench(rec, quick):
    from pycudac import _driver, compiler
    arch = device_arch() or "sm_90"
    rounds = 3 if quick else 9
    tag = [0]

    def compile_once(pch):
        tag[0] += 1
        src = SOURCE % f"pid {os.getpid()} round {tag[0]} pch {pch}"
        t0 = now()
        compiler.compile(src, arch=arch, cache_dir=False, pch=pch)
        return (now() - t0) * 1e3

    compile_once(False)  # loads NVRTC, reads the headers once into the page cache
    created = _driver.pch_info()["created"]
    first = compile_once(True)
    if _driver.pch_info()["created"] == created:
        raise RuntimeError("the first compile with pch=True made no PCH "
                           f"(pch_info: {_driver.pch_info()})")
    off, on = [], []
    used = _driver.pch_info()["used"]
    for r in range(rounds):
        for pch in ((False, True) if r % 2 == 0 else (True, False)):
            (on if pch else off).append(compile_once(pch))
    if _driver.pch_info()["used"] - used != rounds:
        raise RuntimeError(f"not every compile with pch=True used the PCH: {_driver.pch_info()}")
    rec.value("pycudac", "compile_no_pch_ms", median(off), "ms", off, arch=arch)
    rec.value("pycudac", "compile_pch_warm_ms", median(on), "ms", on, arch=arch,
              **paired([a / b for a, b in zip(on, off)]))
    rec.value("pycudac", "compile_pch_create_ms", first, "ms", [first], arch=arch,
              pch_file_heap=_driver.pch_info()["heap_size"])


def main():
    args = parse_args(__doc__.splitlines()[0])
    rec = Recorder(args)
    header(rec, "precompiled headers")
    rec.guard("pycudac", ["compile_no_pch_ms", "compile_pch_warm_ms", "compile_pch_create_ms"],
              bench, rec, args.quick)
    return 0


if __name__ == "__main__":
    sys.exit(main())
