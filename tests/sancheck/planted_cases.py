"""The planted defects of tests/sancheck/planted.cu: how each is launched and
what a sanitizer must say about it. Shared by tests/test_sim_check.py (the
simulator's check mode) and tests/sancheck/gpu_compare.py (NVIDIA's
compute-sanitizer on a GPU), so both run exactly the same launches.

A case: the kernel, the tool compute-sanitizer runs it under (its --tool),
the check and kind the simulator must report, the source lines of
planted.cu either side of the hazard may name, and `run(mod, drv)`, which
makes the arguments and launches (returns what it allocated, kept alive
until the launch is done). `clean` cases are the fixed kernels: no report.
"""
import os

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE_PATH = os.path.join(HERE, "planted.cu")


def source():
    with open(SOURCE_PATH, encoding="utf-8") as f:
        return f.read()


def line_of(text, start=1):
    """The line numbers of planted.cu holding `text` (from `start` on)."""
    with open(SOURCE_PATH, encoding="utf-8") as f:
        return [i for i, ln in enumerate(f, 1) if text in ln and i >= start]


class Case:
    def __init__(self, name, kernel, tool, check=None, kind=None, lines=(), run=None,
                 gpu_reports=True, note=""):
        self.name, self.kernel, self.tool = name, kernel, tool
        self.check, self.kind, self.lines = check, kind, tuple(lines)
        self.run = run
        self.gpu_reports = gpu_reports  # False: a GPU runs it clean (a simulator limit)
        self.note = note

    @property
    def clean(self):
        return self.check is None


def _floats(drv, n, value=None):
    a = drv.mem_alloc(4 * n)
    if value is not None:
        drv.memcpy_htod(a, np.full(n, value, np.float32))
    return a


def _reduce(kernel_threads):
    def run(mod, drv, kernel):
        f = mod.get_function(kernel)
        inp = _floats(drv, 2 * kernel_threads, 1.0)
        out = _floats(drv, 2, 0.0)
        f(inp, out, block=(kernel_threads, 1, 1), grid=(2, 1))
        res = np.empty(2, np.float32)
        drv.memcpy_dtoh(res, out)
        return res
    return run


def _uninit(mod, drv, kernel):
    n = 256
    inp = drv.mem_alloc(4 * n)  # never written
    out = _floats(drv, n)
    mod.get_function(kernel)(inp, out, np.int32(n), block=(128, 1, 1), grid=(2, 1))


def _stencil(mod, drv, kernel):
    n = 256
    inp = _floats(drv, n, 1.0)
    out = _floats(drv, n, 0.0)
    mod.get_function(kernel)(inp, out, np.int32(n), block=(128, 1, 1), grid=(2, 1))


def _far(mod, drv, kernel):
    out = _floats(drv, 64, 0.0)  # 256 bytes
    mod.get_function(kernel)(out, np.int64(4 << 20), block=(32, 1, 1))


def _misaligned(mod, drv, kernel):
    inp = _floats(drv, 4 * 33 + 4, 1.0)
    out = _floats(drv, 32, 0.0)
    mod.get_function(kernel)(inp, out, block=(32, 1, 1))


def _after_free(mod, drv, kernel):
    a = drv.mem_alloc(4 * 64)
    addr = int(a)
    a.free()
    mod.get_function(kernel)(np.uintp(addr), block=(32, 1, 1))


def _local(mod, drv, kernel):
    out = _floats(drv, 32, 0.0)
    mod.get_function(kernel)(out, np.int32(16384), block=(32, 1, 1))


def _divergent(mod, drv, kernel):
    out = _floats(drv, 32, 0.0)
    mod.get_function(kernel)(out, block=(32, 1, 1))


_shift_calls = [0]


def _shift(mod, drv, kernel):
    """(what each thread should read: its neighbour's value, what it read);
    new values each call, so what an earlier launch left in shared memory
    is never right."""
    n = 128
    _shift_calls[0] += 1
    values = np.arange(n, dtype=np.int32) + 1000 * _shift_calls[0]
    inp = drv.mem_alloc(4 * n)
    drv.memcpy_htod(inp, values)
    out = drv.mem_alloc(4 * n)
    drv.memcpy_htod(out, np.zeros(n, np.int32))
    mod.get_function(kernel)(inp, out, block=(n, 1, 1))
    res = np.empty(n, np.int32)
    drv.memcpy_dtoh(res, out)
    return np.roll(values, -1), res


def _bank(mod, drv, kernel):
    out = _floats(drv, 32, 0.0)
    mod.get_function(kernel)(out, block=(32, 1, 1))


def _lines(start_marker, end_marker):
    """Every line from the one holding start_marker to end_marker's."""
    a, b = line_of(start_marker)[0], line_of(end_marker)[0]
    return range(a, b + 1)


CASES = [
    Case("missing_syncthreads", "reduce_missing_sync", "racecheck", "racecheck", None,
         line_of("s[t] += s[t + stride];   // DEFECT"), _reduce(256)),
    Case("reduce_fixed", "reduce_ok", "racecheck", run=_reduce(256)),
    Case("volatile_warp_reduce", "reduce_warp_volatile", "racecheck", "racecheck", None,
         _lines("s[t] += s[t + 32];", "s[t] += s[t + 1];"), _reduce(64)),
    Case("warp_reduce_fixed", "reduce_warp_ok", "racecheck", run=_reduce(64)),
    Case("uninitialized_read", "read_uninitialized", "initcheck", "initcheck", "uninitialized",
         line_of("DEFECT initcheck"), _uninit),
    Case("off_by_one_both_ends", "stencil_off_by_one", "memcheck", "memcheck", "out-of-bounds",
         line_of("DEFECT memcheck: in[-1]"), _stencil),
    Case("stencil_fixed", "stencil_ok", "memcheck", run=_stencil),
    Case("far_write", "far_write", "memcheck", "memcheck", "out-of-bounds",
         line_of("DEFECT memcheck: far"), _far),
    Case("misaligned_float4", "misaligned_float4", "memcheck", "memcheck", "misaligned",
         line_of("DEFECT memcheck: 4 bytes past"), _misaligned),
    Case("use_after_free", "use_after_free", "memcheck", "memcheck", "use-after-free",
         line_of("DEFECT memcheck: its allocation"), _after_free),
    # the frame is made (and its pages probed) where the kernel starts
    Case("local_array_64k", "big_local_array", "memcheck", "memcheck", "stack-overflow",
         _lines("__global__ void big_local_array", "DEFECT memcheck: beyond"), _local,
         gpu_reports=False,
         note="64 KiB of local memory is legal on a GPU; a simulated thread's stack is "
              "smaller (PYCUDAC_SIM_STACK_KB), and check mode names the thread that "
              "overflowed it"),
    Case("divergent_barrier", "divergent_barrier", "synccheck", "synccheck", "barrier",
         line_of("DEFECT synccheck"), _divergent, gpu_reports=False,
         note="on Volta and newer a GPU may complete a barrier that only some threads reach, "
              "and the H100's synccheck ran this kernel clean (2026-11-27); the simulator "
              "reports the barrier that not every thread of the block reaches, as CUDA's "
              "rule for __syncthreads says"),
    Case("missing_sync_shift", "shift_missing_sync", "racecheck", "racecheck", None,
         _lines("s[t] = in[t];", "DEFECT racecheck: reads a neighbour"), _shift),
    Case("bank_conflict_32", "bank_conflict_32", "memcheck", run=_bank,
         note="clean for the checks; the teaching profile shows the 32-way conflict"),
]

BY_NAME = {c.name: c for c in CASES}
