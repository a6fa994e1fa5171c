"""The corpus: CUDA C kernels written the way public sources write them
(tests/corpus/*.cu, each naming the public kernel whose technique it follows),
and one Case per launch to check against NumPy.

SOURCES says how each .cu file compiles (extern "C" or not, options, name
expressions, whether it includes toolkit headers) and whether NVRTC accepts
it; tests/test_corpus_nvrtc.py compiles every one with NVRTC and with the
simulator's compiler. CASES says how to run a kernel: inputs from a seeded
NumPy generator, arguments, launch configuration, the NumPy reference and the
tolerance; tests/test_corpus.py runs them on the backend in use.

What fails today is written down here, with the failure it shows, so that a
fix in pycudac turns the case into an XPASS (the marks are strict) and the
mark must go:
  xfail_sim  fails on the simulator backend only,
  xfail      fails on every backend (e.g. a launch keyword pycudac lacks).
Each comes with `raises`, the exception class names the failure raises
('CompileError', 'TypeError', 'LaunchError', 'AssertionError').
"""
from dataclasses import dataclass
from typing import Optional

# The registry's names, as the tests reach them (corpus.CASES, corpus.In ...)
from registry import CASES, HERE, Gpu, In, InOut, Out, Val, source_text, toolkit_includes  # noqa: F401

# ---------------------------------------------------------------- sources

@dataclass(frozen=True)
class Source:
    file: str
    no_extern_c: bool = False
    options: tuple = ()
    name_expressions: tuple = ()
    toolkit: bool = False   # #includes toolkit headers (cuda_fp16.h, cooperative_groups.h ...)
    valid: bool = True      # NVRTC accepts it
    # the simulator's compiler does not agree with NVRTC today: (what it does, key line)
    disagree: Optional[str] = None




SOURCES = {s.file: s for s in [
    Source("vector_add.cu"),
    Source("reduction_classic.cu"),
    Source("reduction_template.cu", no_extern_c=True,
           name_expressions=("reduce5<float, 256>", "reduce6<int, 128, false>",
                             "reduce6<float, 256, true>")),
    Source("reduction_shfl.cu"),
    Source("threadfence_reduction.cu"),
    Source("scan.cu"),
    Source("compaction.cu"),
    Source("histogram.cu"),
    Source("matmul.cu", no_extern_c=True, name_expressions=("matrixMulCUDA<16>",)),
    Source("matvec.cu"),
    Source("transpose.cu"),
    Source("stencil.cu", options=("-DBLOCK_SIZE=64",)),
    Source("convolution_separable.cu"),
    Source("constant_fir.cu", toolkit=True, options=("-use_fast_math",)),
    Source("nbody.cu"),
    Source("bitonic.cu"),
    Source("mandelbrot.cu"),
    Source("black_scholes.cu"),
    Source("monte_carlo_pi.cu"),
    Source("vector_types.cu"),
    Source("half_precision.cu", toolkit=True),
    Source("bfloat16.cu", toolkit=True),
    Source("warp_vote.cu"),
    Source("intrinsics.cu"),
    Source("math_api.cu"),
    Source("cucomplex.cu", toolkit=True),
    Source("cg_tiles.cu", no_extern_c=True, toolkit=True),
    Source("cg_thread_group.cu", toolkit=True),
    Source("cg_coalesced.cu", toolkit=True),
    Source("cg_partition.cu", toolkit=True),
    Source("cg_reduce.cu", toolkit=True),
    Source("cg_grid.cu", toolkit=True),
    Source("cg_grid_sync.cu", toolkit=True),
    Source("atomics.cu"),
    Source("sync_count.cu"),
    Source("recursion.cu"),
    Source("printf.cu"),
    Source("malloc.cu"),
    Source("struct_param.cu"),
    Source("dynamic_shared.cu"),
    Source("launch_bounds.cu"),
    Source("name_div.cu"),
    Source("name_index.cu"),
    Source("name_random.cu"),
    Source("clock_timing.cu"),
    Source("cuda_std.cu", no_extern_c=True, toolkit=True, options=("--std=c++17",)),
    # C headers NVRTC does not ship: pycudac hands both compilers the same small stand-ins
    # (src/compile/c_headers.c), so NVRTC accepts the file as nvcc does (it refused it
    # before: 'cannot open source file "stdint.h"')
    Source("std_c_headers.cu"),
    Source("cpp_idioms.cu", no_extern_c=True,
           name_expressions=("rows_dot<float, 4>", "rows_dot<int, 3>", "transform<Saxpy>",
                             "transform<Clamp>")),
    # device printf's formats and every atomic function on each documented type
    Source("printf_atomics.cu"),
    # shuffles with a width, logical-warp scans, divergent ballots, warp match: no asm
    Source("warp_shuffle.cu"),
    # Ampere's asynchronous copies: cg::memcpy_async and <cuda_pipeline.h>'s primitives
    Source("async_copy.cu", toolkit=True),
    # nvcuda::wmma (<mma.h>): the Programming Guide's example, cudaTensorCoreGemm's kernels,
    # and the bf16, tf32, double and int8 samples' (the simulator refused them all before)
    Source("wmma_gemm.cu", toolkit=True),
    Source("wmma_types.cu", toolkit=True),
    # the simulator refuses inline PTX (`asm`), which NVRTC accepts (docs/simulator.md)
    Source("inline_ptx.cu",
           disagree="refuses the inline PTX: 'inline assembly (`asm`: PTX) cannot run on the "
                    "pycudac CPU simulator'; asm volatile(\"bfe.u32 %0, %1, %2, %3;\" ...)"),
    # deliberately invalid CUDA C: NVRTC refuses each; the simulator must too
    Source("invalid_atomicmax_float.cu", valid=False),
    Source("invalid_shared_init.cu", valid=False),
    Source("invalid_host_rand.cu", valid=False),
    Source("invalid_global_return.cu", valid=False),
    Source("invalid_extern_shared_types.cu", valid=False),
    Source("invalid_static_shared_alignas.cu", valid=False),
]}


# The cases, file by file: each module appends to CASES, in this order.
import cases_samples  # noqa: E402,F401
import cases_apps  # noqa: E402,F401
import cases_language  # noqa: E402,F401
import cases_intrinsics  # noqa: E402,F401
import cases_math_api  # noqa: E402,F401
import cases_cpp  # noqa: E402,F401
import cases_printf_atomics  # noqa: E402,F401
import cases_warp_ptx  # noqa: E402,F401
import cases_async  # noqa: E402,F401
import cases_wmma  # noqa: E402,F401
