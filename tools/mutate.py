#!/usr/bin/env python3
"""tools/mutate.py — a mutation pass over pycudac's C and Python sources.

Each mutation is a small, deliberate bug: a file, an exact snippet of it
(found exactly once), its replacement, and the tests that should catch it.
They are applied one at a time to a copy of the tree (the tracked and
untracked-but-not-ignored files of this checkout, never the checkout
itself), the extension is rebuilt (for a C file: that file's object and the
link, with the compiler commands of a first full build; for a header: every
object), the named tests run on the simulator with a time limit, and the
mutation is CAUGHT when they fail, SURVIVED when they pass. A mutation whose
snippet is no longer in the file is STALE, one that does not compile is
BROKEN: both are reported, neither counts as caught.

    .venv/bin/python tools/mutate.py                 all, report on stdout
    .venv/bin/python tools/mutate.py --only K1 C2    some
    .venv/bin/python tools/mutate.py --list          the list
    .venv/bin/python tools/mutate.py --report tools/mutate_report.md

The unmutated tree runs every named test first (all must pass, else the pass
stops: a red baseline makes every mutation look caught). The copy lives in
--workdir (default build/mutate); it keeps its own compile cache
(PYCUDAC_CACHE_DIR) so a mutation never writes into the user's.
Exit status: 0 when every mutation is caught, 1 otherwise.
"""
import argparse
import concurrent.futures
import os
import re
import shlex
import shutil
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# test groups
T_LAUNCH = ["tests/test_launch.py", "tests/test_launch_args.py", "tests/test_launch_pointers.py",
            "tests/test_leaks.py"]
T_PACK = ["tests/test_launch_args.py", "tests/test_launch_pointers.py", "tests/test_launch.py",
          "tests/test_leaks.py", "tests/test_fuzz.py"]
T_CACHE = ["tests/test_cache.py", "tests/test_cache_key.py", "tests/test_cache_dirs.py",
           "tests/test_cache_warm.py", "tests/test_compiler.py", "tests/test_source_module.py",
           "tests/test_compiler_warm.py"]
T_POISON = ["tests/test_errors.py", "tests/test_faults.py", "tests/test_faults_load.py",
            "tests/test_faults_garbage.py", "tests/test_sim_runtime.py", "tests/test_launch.py",
            "tests/test_launch_args.py", "tests/test_launch_pointers.py"]
T_GPUARRAY = ["tests/test_gpuarray.py", "tests/test_gpuarray_functions.py",
              "tests/test_gpuarray_interop.py"]
T_ARRAYS = T_GPUARRAY + ["tests/test_elementwise.py", "tests/test_gpuarray_index.py",
                         "tests/test_cumath.py"]
T_RED = ["tests/test_reduction.py"] + T_GPUARRAY
T_SCAN = ["tests/test_scan.py"]
T_SIM = ["tests/test_sim_runtime.py", "tests/test_sim_kernels.py", "tests/test_sim_driver.py"]
T_RNG_GEN = ["tests/test_curandom_generators.py"]
T_RNG_DIST = ["tests/test_curandom_distributions.py"]
T_RNG_SOBOL = ["tests/test_curandom_sobol.py"]
T_RNG_ERR = ["tests/test_curandom_errors.py"]
T_CHECK = ["tests/test_sim_check.py"]
T_POOL = ["tests/test_multi_pool.py"]


def M(ident, path, find, replace, tests, what):
    return dict(id=ident, path=path, find=find, replace=replace, tests=tests, what=what)


MUTATIONS = [
    # ---- the three of issue 26 ------------------------------------------------------
    M("N1", "src/launch/pointer.c",
      """        int rc = gpudata_ptr(f, i, attr, &p);
        Py_DECREF(attr);""",
      """        int rc = gpudata_ptr(f, i, attr, &p);""",
      T_LAUNCH, "pointer converter: the gpudata reference is never released (a leak per "
                "launch with an array view)"),
    M("N2", "src/launch/pack.c",
      """        owned = NULL;
    }
    Py_XDECREF(owned);
    return rc;""",
      """        owned = NULL;
    }
    return rc;""",
      T_LAUNCH, "integer packer: the int from a NumPy integer's __index__ is never released"),
    M("N3", "src/sim/fiber.c",
      """    if (b->exited) {
        b->bar_waiting++;
        partial_barrier(b, t);
    }""",
      "",
      T_SIM, "simulator barrier: a thread reaching __syncthreads() after another exited is "
             "not a fault"),
    # ---- the packer ----------------------------------------------------------------
    M("K1", "src/launch/pack.c",
      "smax[] = {[PK_I8] = INT8_MAX, [PK_I16] = INT16_MAX,",
      "smax[] = {[PK_I8] = INT8_MAX, [PK_I16] = INT16_MAX + 1,",
      T_PACK, "short's range ends at 32768"),
    M("K1b", "src/launch/pack.c",
      "[PK_I16] = INT16_MAX, [PK_U16] = UINT16_MAX,",
      "[PK_I16] = INT16_MAX + 1, [PK_U16] = UINT16_MAX,",
      T_PACK, "the fast path's short ends at 32768"),
    M("K2", "src/launch/pack.c",
      """        if (isinf(v) && isfinite(d))
            return pcc_arg_error(f, i, PyExc_OverflowError, "%R is too large for float32", arg);""",
      "",
      T_PACK, "a double too large for float32 is stored as inf"),
    M("K3", "src/launch/pack.c",
      "    } else if ((size_t)view.len != p->size) {",
      "    } else if ((size_t)view.len < p->size) {",
      T_PACK, "a by-value buffer longer than the parameter is accepted (truncated)"),
    M("K4", "src/launch/pack.c",
      "        if (PCC_UNLIKELY(p->int_size == 0 || v < int_lo[k] || v > int_hi[k]))",
      "        if (PCC_UNLIKELY(p->int_size == 0))",
      T_PACK, "the fast path stores an int without its range check"),
    M("K5", "src/launch/pack.c",
      """    if (n != p->size)
        return 0;
    if (n == 16)""",
      """    if (n == 16)""",
      T_PACK, "a remembered-dtype array of another size is copied as the parameter's size"),
    M("K6", "src/launch/pack.c",
      """        if (t != (k == PK_I32 ? &PyInt32ArrType_Type : &PyUInt32ArrType_Type))""",
      """        if (t != &PyInt32ArrType_Type && t != &PyUInt32ArrType_Type)""",
      T_PACK, "numpy.uint32 for int (and int32 for unsigned) packs its bits unchecked"),
    M("K7", "src/launch/pack.c",
      """        if (n != p->elem_count)
            return pcc_arg_error(f, i, PyExc_TypeError, "expected %d components, got a %s of %zd",
                             p->elem_count, Py_TYPE(arg)->tp_name, n);""",
      """        if (n > p->elem_count)
            return pcc_arg_error(f, i, PyExc_TypeError, "expected %d components, got a %s of %zd",
                             p->elem_count, Py_TYPE(arg)->tp_name, n);""",
      T_PACK, "a vector given too few components leaves the rest as they were"),
    M("K8", "src/launch/pointer.c",
      """    if (overflow < 0 || (overflow == 0 && sv < 0)) {
        neg = 1;""",
      """    if (overflow < 0) {
        neg = 1;""",
      T_PACK, "a negative int is taken as a device address"),
    M("K9", "src/launch/call.c",
      """    if (f->ngap_words != 0)
        memset(buf, 0, f->argsize); /* the padding between parameters */""",
      "",
      T_PACK, "the padding between parameters is left as the stack had it"),
    M("K10", "src/launch/pointer.c",
      """        Py_DECREF(attr);
        if (rc < 0)
            return -1;
        goto store;""",
      """        if (rc < 0)
            return -1;
        goto store;""",
      T_LAUNCH, "pointer converter: a __cuda_array_interface__ dict is never released"),
    M("K11", "src/launch/pointer.c",
      """    Py_DECREF(cap);
    int rc = 0;""",
      """    int rc = 0;""",
      T_LAUNCH, "pointer converter: a DLPack capsule is never released"),
    # ---- the cache -----------------------------------------------------------------
    M("C1", "src/compile/cache.c",
      """    else if (memcmp(header + 16, key, 32) != 0)
        *why = "entry holds another key";""",
      "",
      T_CACHE, "an entry holding another key is a hit"),
    M("C2", "src/compile/cache.c",
      """    else if (memcmp(digest, header + 56, 32) != 0)
        *why = "entry checksum does not verify";""",
      "",
      T_CACHE, "an entry whose checksum does not verify is a hit"),
    M("C3", "src/compile/cache.c",
      """    if (st->st_mode & (S_IWGRP | S_IWOTH)) {
        errno = EPERM;
        return "is writable by group or others";""",
      """    if (st->st_mode & S_IWOTH) {
        errno = EPERM;
        return "is writable by group or others";""",
      T_CACHE, "a group-writable cache directory is used"),
    M("C4", "src/compile/cache.c",
      """            if (strcmp(files[i].name, keep) == 0)
                continue;""",
      "",
      T_CACHE, "eviction may remove the entry just stored"),
    M("C5", "src/compile/cache.c",
      "        qsort(files, n, sizeof *files, by_mtime);", "",
      T_CACHE, "eviction removes entries in directory order, not least recently used first"),
    M("C6", "src/compile/cache_key.c",
      """             put_joined_field(&g, "options", a->options) < 0 ||""", "",
      T_CACHE, "the compile options are not in the cache key"),
    M("C7", "src/compile/cache_key.c",
      """                         put_field(&g, "include.bytes", data.buf, (size_t)data.len) < 0""",
      """                         0""",
      T_CACHE, "the bytes of included headers are not in the cache key"),
    M("C8", "src/compile/cache.c",
      """    else if (get_u64(header + 48) != len)
        *why = "entry length does not match its header (truncated or extended)";""",
      "",
      T_CACHE, "an entry longer or shorter than its header says is a hit"),
    # ---- poisoning -----------------------------------------------------------------
    M("P1", "src/module/errors.c",
      """    case CUDA_ERROR_MISALIGNED_ADDRESS:
    case CUDA_ERROR_INVALID_ADDRESS_SPACE:
    case CUDA_ERROR_INVALID_PC:
    case CUDA_ERROR_LAUNCH_FAILED:
        return 1;""",
      """    case CUDA_ERROR_INVALID_ADDRESS_SPACE:
    case CUDA_ERROR_INVALID_PC:
    case CUDA_ERROR_LAUNCH_FAILED:
        return 1;""",
      T_POISON, "716 (misaligned address) does not poison the process"),
    M("P2", "src/module/errors.c",
      """        pcc_st.poison_code = rc;
        snprintf(poison_message""",
      """        snprintf(poison_message""",
      T_POISON, "a sticky error poisons nothing"),
    M("P3", "src/module/errors.c",
      """    if (pcc_st.poison_code || pcc_st.forked || pcc_st.backend == NULL) {
        pcc_skipped_frees++;""",
      """    if (pcc_st.forked || pcc_st.backend == NULL) {
        pcc_skipped_frees++;""",
      T_POISON, "frees after a sticky error call the driver"),
    M("P4", "src/driver/loader.h",
      "    if (pcc_st.backend != NULL && !pcc_st.poison_code && !pcc_st.forked)",
      "    if (pcc_st.backend != NULL && !pcc_st.forked)",
      T_POISON, "calls after a sticky error go to the driver"),
    M("P5", "src/module/errors.c",
      """    if (pcc_st.poison_code && is_sticky(rc)) {""",
      """    if (0 && pcc_st.poison_code && is_sticky(rc)) {""",
      T_POISON, "a second sticky error replaces the first one's message"),
    # ---- thread-block clusters (issue 25) ---------------------------------------------
    M("CF1", "src/launch/call.c",
      "pcc_st.kw_cached_plain = at[3] < 0 && at[4] < 0 && at[5] < 0 && at[6] < 0 &&\n"
      "                                     at[7] < 0 && at[8] < 0;",
      "pcc_st.kw_cached_plain = at[3] < 0 && at[4] < 0 && at[5] < 0 && at[6] < 0 &&\n"
      "                                     at[8] < 0;",
      ["tests/test_cluster.py"], "a call site's second cluster= launch takes the plain fast path"),
    M("CL2", "src/sim/launch.c",
      "    unsigned long long x = c % cgx * L.cluster.x + rank % L.cluster.x;",
      "    unsigned long long x = c % cgx * L.cluster.x + rank / L.cluster.y % L.cluster.x;",
      ["tests/test_cluster.py"], "a cluster's ranks map to the wrong blocks in x"),
    M("CL3", "src/sim/cluster.c",
      "    if (mine != NULL && p >= mine && p < mine + bytes)",
      "    if (mine != NULL && p >= mine && p <= mine)",
      ["tests/test_cluster.py"], "map_shared_rank takes dynamic shared memory for static"),
    M("CL4", "src/sim/launch.c",
      "    return L.cluster_size > 1 ? L.cluster_size : L.nblocks;",
      "    return L.nblocks;",
      ["tests/test_cluster.py"], "cluster.sync() waits for the whole grid"),
    M("CL5", "src/launch/attrs.c",
      "    if (PyTuple_CheckExact(o)) {\n        Py_XSETREF(f->last_cluster",
      "    if (1) {\n        Py_XSETREF(f->last_cluster",
      ["tests/test_cluster.py"], "a cluster list is remembered, its changes unread"),
    M("CL6", "src/launch/attrs.c",
      "    if (o == f->last_cluster) {",
      "    if (f->last_cluster != NULL) {",
      ["tests/test_cluster.py"], "the last cluster read stands for every later one"),
    # ---- texture objects on the simulator (issue 25) -----------------------------------
    M("TX1", "src/sim/texture.c",
      "    return rintf((xb - fl) * 256.0f) / 256.0f;",
      "    return xb - fl;",
      ["tests/test_textures.py"], "linear filtering's weights are not quantized to 8 bits"),
    M("TX2", "src/sim/texture.c",
      "    return j < n ? j : 2 * n - 1 - j;",
      "    return j % n;",
      ["tests/test_textures.py"], "mirror addressing wraps"),
    M("TX3", "src/sim/texture.c",
      "    if (ii < 0 || jj < 0 || kk < 0) {",
      "    if (ii < 0 || jj < 0) {",
      ["tests/test_textures.py"], "border addressing in z reads outside the array"),
    M("TX4", "pycudac/_textures.py",
      "            dims = 1 + (source.height > 0) + (source.depth > 0 and not layered)",
      "            dims = 3",
      ["tests/test_textures_arrays.py"], "a 1D array's missing axes are asked as the user's mode"),
    M("TX5", "pycudac/_textures.py",
      "            dims = 1 + (source.height > 0) + (source.depth > 0 and not layered)",
      "            dims = 1 + (source.height > 0) + (source.depth > 0)",
      ["tests/test_textures_arrays.py"], "a layered array's layers count as an axis"),
    # ---- broadcasting ------------------------------------------------------------
    M("B1", "pycudac/elementwise.py",
      """        elif n != 1:
            raise ValueError(f"operands could not be broadcast together: shape {ary.shape} \"""",
      """        elif False:
            raise ValueError(f"operands could not be broadcast together: shape {ary.shape} \"""",
      T_ARRAYS, "operands of shapes that do not broadcast are run with stride 0"),
    M("B2", "pycudac/elementwise.py",
      "        if all(o[-1] == st * n for o, st in zip(out_strides, sts)):",
      "        if all(o[-1] == st for o, st in zip(out_strides, sts)):",
      T_ARRAYS, "dims are merged when they are not contiguous"),
    M("B3", "pycudac/elementwise.py",
      "    off = nd - ary.ndim\n", "    off = 0\n",
      T_ARRAYS, "broadcasting aligns shapes on the left"),
    M("B4", "pycudac/_gpuarray/ops.py",
      """    if out.shape != shape:
        raise ValueError(f"{op}: output of shape {out.shape} cannot hold the broadcast \"""",
      """    if out.size < prod(shape):
        raise ValueError(f"{op}: output of shape {out.shape} cannot hold the broadcast \"""",
      T_ARRAYS, "an out= of another shape (but enough elements) is accepted"),
    # ---- reductions --------------------------------------------------------------
    M("R1", "pycudac/reduction.py",
      "    vec = 1 if (n >= 16 and aligned) else 0",
      "    vec = 1 if n >= 16 else 0",
      T_RED, "the vectorized loop runs on misaligned inputs"),
    M("R2", "pycudac/reduction.py",
      "        for (; v_ < nv_; v_ += nthreads_) {{",
      "        for (; v_ + 1 < nv_; v_ += nthreads_) {{",
      T_RED, "the vectorized loop drops its last pack of four"),
    M("R3", "pycudac/reduction.py",
      "    for (long long k_ = (long long)blockIdx.x * {block} + tid_; k_ < count_; "
      "k_ += nthreads_) {{",
      "    for (long long k_ = (long long)blockIdx.x * {block} + tid_; k_ + 1 < count_; "
      "k_ += nthreads_) {{",
      T_RED, "ReductionKernel leaves out the last element"),
    M("R4", "pycudac/reduction.py",
      """        if (tid_ == 0) out[r] = {store};
        __syncthreads();  /* the next row's {block_fn} rewrites its warps_ */""",
      """        if (tid_ == 0) out[r] = {store};""",
      T_RED + T_SIM, "axis reductions: no barrier between rows (the next row overwrites the "
                     "block's partials)"),
    # ---- scans ---------------------------------------------------------------------
    M("S1", "pycudac/scan.py",
      "        if (lane >= d) incl = {p}_op(up, incl);",
      "        if (lane > d) incl = {p}_op(up, incl);",
      T_SCAN, "the warp scan skips a step"),
    M("S2", "pycudac/scan.py",
      "            if (lane - d >= first) v = {p}_op(up, v);",
      "            if (lane - d > first) v = {p}_op(up, v);",
      T_SCAN, "the look-back combines one tile too few"),
    M("S3", "pycudac/scan.py",
      "        x[k] = has ? run : {p}_to_T({neutral});",
      "        x[k] = has ? {p}_op(run, v) : v;",
      T_SCAN, "the exclusive scan is inclusive"),
    M("S4", "pycudac/scan.py",
      "            if (base + e < n) out[base + e] = stage_t[{p}_slot(e / {v}) * {v} + e % {v}];",
      "            if (base + e <= n) out[base + e] = stage_t[{p}_slot(e / {v}) * {v} + e % {v}];",
      T_SCAN + T_SIM, "the last partial tile writes one element past the end"),
    # ---- random numbers (curandom) ------------------------------------------------
    M("Q1", "pycudac/_curand/kernels.py",
      "    sincospif(2.0f * u2, &s, &c);",
      "    sincospif(1.9f * u2, &s, &c);",
      T_RNG_DIST, "Box-Muller (float) turns by 1.9 pi instead of 2 pi"),
    M("Q2", "pycudac/_curand/kernels.py",
      "    const double rad = sqrt(-2.0 * log(u1));",
      "    const double rad = sqrt(-2.2 * log(u1));",
      T_RNG_DIST, "Box-Muller (double) radius 5% too long"),
    M("Q3", "pycudac/_curand/kernels.py",
      "                + 133.14166789178437745) * r + 3.387132872796366608);",
      "                + 133.24166789178437745) * r + 3.387132872796366608);",
      T_RNG_DIST, "a coefficient of AS 241's central region off in its fourth digit"),
    M("Q4", "pycudac/_curand/kernels.py",
      "                <= -lam + k * loglam - pcc_log_factorial(k))",
      "                <= -lam + k * loglam - pcc_log_factorial(k + 1.0))",
      T_RNG_DIST, "PTRS's acceptance test weighs k by the pmf of k + 1"),
    M("Q5", "pycudac/_curand/kernels.py",
      "        double p = exp(-lam), F = p, k = 0.0;",
      "        double p = exp(-lam), F = 1.02 * p, k = 0.0;",
      T_RNG_DIST, "Poisson inversion from 0: P(0) 2% too large"),
    M("Q6", "pycudac/_curand/kernels.py",
      "    for (double j = m; j > 0.0 && p > 1e-17 * F; j -= 1.0) { p *= j / lam; F += p; }",
      "    for (double j = m; j > 0.0 && p > 1e-4 * F; j -= 1.0) { p *= j / lam; F += p; }",
      T_RNG_DIST, "Poisson inversion from the mode: F(mode) stops summing at 1e-4"),
    M("Q7", "pycudac/_curand/kernels.py",
      "        const double x = lam + s * z + (z2 - 1.0) / 6.0 - z * (z2 + 2.0) / (72.0 * s)",
      "        const double x = lam + s * z + (z2 - 1.0) / 6.0 + z * (1.0 - z2) / (72.0 * s)",
      T_RNG_DIST, "Cornish-Fisher Poisson quantile without Sheppard's correction"),
    M("Q8", "pycudac/_curand/kernels.py",
      '''    ("poisson_ip_f32", "float", "", "(float)pcc_rng_poisson(r, (double)out[i])"),''',
      '''    ("poisson_ip_f32", "float", "", "(float)pcc_rng_poisson(r, (double)out[0])"),''',
      T_RNG_DIST, "in-place Poisson (float32) takes the first element's mean for all"),
    M("Q9", "pycudac/_curand/kernels.py",
      '''    ("lognormal_f32", "float", "f", ", float mean, float sd", "expf(mean + sd * {z})"),''',
      '''    ("lognormal_f32", "float", "f", ", float mean, float sd", "expf(mean + 1.1f * sd * {z})"),''',
      T_RNG_DIST, "log-normal (float, pseudo-random) with a 10% wider sigma"),
    M("Q10", "pycudac/_curand/kernels.py",
      "    return (float)((w >> 8) + 1u) * (1.0f / 16777216.0f);",
      "    return (float)(w >> 8) * (1.0f / 16777216.0f);",
      T_RNG_GEN + T_RNG_DIST, "float uniforms on [0, 1) (0 drawn, log(0) possible)"),
    M("Q11", "pycudac/_curand/kernels.py",
      "    pcc_rng_skip_stream(r, aux, (unsigned long long)t);",
      "",
      T_RNG_GEN, "streams of one seed are not moved to their own subsequences"),
    M("Q12", "pycudac/_curand/xorwow.py",
      "    r.v[4] = (r.v[4] ^ (r.v[4] << 4)) ^ (t ^ (t << 1));",
      "    r.v[4] = (r.v[4] ^ (r.v[4] << 5)) ^ (t ^ (t << 1));",
      T_RNG_GEN, "XORWOW's kernel shifts by 5 where Marsaglia shifts by 4"),
    M("Q13", "pycudac/_curand/xorwow.py",
      "    const unsigned int *J = (const unsigned int *)aux + 64 * 800;",
      "    const unsigned int *J = (const unsigned int *)aux + 63 * 800;",
      T_RNG_GEN, "XORWOW's sequence jumps use the draw jumps' last matrix"),
    M("Q14", "pycudac/_curand/mrg32k3a.py",
      "        (1403580ull * r.s1[1] + (PCC_MRG_M1 - 810728ull) * r.s1[0] % PCC_MRG_M1) % PCC_MRG_M1;",
      "        (1403581ull * r.s1[1] + (PCC_MRG_M1 - 810728ull) * r.s1[0] % PCC_MRG_M1) % PCC_MRG_M1;",
      T_RNG_GEN, "MRG32k3a's kernel multiplier a12 off by one"),
    M("Q15", "pycudac/_curand/mrg32k3a.py",
      "            for f, start in enumerate((0, SUBSEQUENCE_LOG2, SEQUENCE_LOG2)):",
      "            for f, start in enumerate((0, SUBSEQUENCE_LOG2 - 1, SEQUENCE_LOG2)):",
      T_RNG_GEN, "MRG32k3a's substreams 2**75 apart"),
    M("Q16", "pycudac/_curand/sobol.py",
      "            x = v[i - s] ^ (v[i - s] >> s)",
      "            x = v[i - s] ^ (v[i - s] >> (s + 1))",
      T_RNG_SOBOL, "Sobol's direction recurrence shifts by s + 1"),
    M("Q17", "pycudac/_curand/sobol.py",
      "    r.x ^= r.v[(__ffs(~(unsigned int)r.n) - 1) & 31];",
      "    r.x ^= r.v[(__ffs((unsigned int)r.n) - 1) & 31];",
      T_RNG_SOBOL, "Sobol32 steps by the lowest one bit of n, not the lowest zero"),
    M("Q18", "pycudac/_curand/sobol.py",
      "    r.x ^= pcc_sobol_span(r.v, (r.n ^ (r.n >> 1)) ^ (n ^ (n >> 1)));",
      "    r.x ^= pcc_sobol_span(r.v, r.n ^ n);",
      T_RNG_SOBOL, "Sobol's skip-ahead forgets the Gray code"),
    M("Q19", "pycudac/_curand/sobol.py",
      "        col = (_random_words(count, 0x5C0B01 + (j << 40), bits).astype(dt) & low) | (one << dt(j))",
      "        col = (_random_words(count, 0x5C0B01 + (j << 40), bits).astype(dt) & low)",
      T_RNG_SOBOL, "the linear scramble's matrix loses its diagonal (singular)"),
    M("Q20", "pycudac/_curand/joe_kuo.py",
      "            m = tuple((take(k - 1) << 1) | 1 for k in range(1, s + 1))",
      "            m = tuple(take(k - 1) << 1 for k in range(1, s + 1))",
      T_RNG_SOBOL, "Joe and Kuo's m_k decoded without their low bit"),
    M("Q21", "pycudac/_curand/checks.py",
      "    if data._layout is None:",
      "    if False:",
      T_RNG_ERR, "a non-contiguous array is filled as if contiguous"),
    M("Q22", "pycudac/_curand/base.py",
      "        stddev = checks.real(fn, \"stddev\", stddev, low=0.0)",
      "        stddev = checks.real(fn, \"stddev\", stddev)",
      T_RNG_ERR, "a negative stddev is taken"),
    # ---- the simulator's checks ------------------------------------------------------
    M("V1", "src/sim/fiber.c",
      """    if (b->bar_waiting > 0)
        partial_barrier(b, &f->t);""",
      "",
      T_SIM, "a thread exiting while others wait at a barrier is not a fault"),
    M("V2", "src/sim/registry.c",
      "    if (a && n <= a->size - ((uintptr_t)p - a->base))",
      "    if (a)",
      T_SIM + ["tests/test_driver_memory.py"], "a copy past the end of an allocation is made"),
    M("V3", "src/sim/launch.c",
      """        if (buf_size != end || (end > 0 && buf == NULL))""",
      """        if (buf_size > end || (end > 0 && buf == NULL))""",
      T_SIM + T_LAUNCH + ["tests/test_graph.py"],
      "a parameter buffer shorter than the parameters is launched"),
    M("V4", "src/sim/launch.c",
      """    if (shared > (unsigned int)f->max_dynamic_shared)
        return CUDA_ERROR_INVALID_VALUE;""",
      "",
      T_SIM + T_LAUNCH + ["tests/test_graph.py"],
      "more dynamic shared memory than the function allows is launched"),
    # ---- the simulator's check mode (issue 22) ---------------------------------------
    M("X1", "src/sim/race.c",
      "    if (e->gen != x->gen || e->bar != x->bar) {",
      "    if (e->gen != x->gen) {",
      T_CHECK, "a barrier does not start a new interval: accesses on both sides race"),
    M("X2", "src/sim/race.c",
      "    } else if (x->write && (e->r1m & m) && concurrent(x, e->r1, e->r1ep)) {",
      "    } else if (0 && x->write && (e->r1m & m) && concurrent(x, e->r1, e->r1ep)) {",
      T_CHECK, "a write after another thread's read is no hazard"),
    M("X3", "src/sim/check.c",
      "        if (a + size > al->base + al->size) { /* starts inside, runs past the end */",
      "        if (0 && a + size > al->base + al->size) { /* starts inside, runs past the end */",
      T_CHECK, "an access that starts inside an allocation and runs past its end goes unreported"),
    M("X4", "src/sim/check.c",
      "    if (in_alloc_pages(a)) {",
      "    if (0 && in_alloc_pages(a)) {",
      T_CHECK, "a read past an allocation next to a worker's stack is named a stack overflow"),
    M("PR1", "src/sim/prelude/math_functions.h",
      "    double k = rint(2.0 * r); /* -4 .. 4 quarter turns */",
      "    double k = 0 * rint(2.0 * r);",
      ["tests/test_corpus.py"], "sinpi/cospi take sin(pi r) unreduced (sinpif(1) != 0)"),
    M("PR2", "src/sim/prelude/math_functions.h",
      "    if (__builtin_isfinite(b) && __builtin_fabsf(b) > 8.507059173023462e37f) /* 2^126 */",
      "    if (0)",
      ["tests/test_corpus.py"], "__fdividef divides exactly where the GPU's reciprocal flushes to 0"),
    M("PR3", "src/sim/prelude/math_functions.h",
      "    if (y <= 0.5)\n        return __pcc_erfcinv_tail(y);",
      "    if (y <= 0.5)\n        return erfinv(1.0 - y);",
      ["tests/test_corpus.py"], "erfcinv(y) as erfinv(1 - y): y's digits lost (erfcinvf(1e-45) = inf)"),
    M("PR4", "src/sim/prelude/math_functions.h",
      "        if (__builtin_isinf(v)) return __builtin_huge_vall();",
      "        if (0) return __builtin_huge_vall();",
      ["tests/test_corpus.py"], "norm3d and friends give NaN for an infinite coordinate beside a NaN"),
    M("PR5", "src/sim/prelude/math_functions.h",
      "static inline double normcdfinv(double p) { return -PCC_SQRT2 * erfcinv(2.0 * p) + 0.0; }",
      "static inline double normcdfinv(double p) { return -PCC_SQRT2 * erfcinv(2.0 * p); }",
      ["tests/test_corpus.py"], "normcdfinv(0.5) is -0 where the GPU gives +0"),
    # ---- memory freed under an array, a view or a texture (adversarial review) ------
    M("UF1", "src/launch/pointer.c",
      "    if (pcc_gpudata_released(a->gpudata)) {\n        PyErr_SetString(PyExc_ValueError,",
      "    if (0) {\n        PyErr_SetString(PyExc_ValueError,",
      ["tests/test_gpuarray_interop.py"], "GPUArray.ptr gives the address of freed memory"),
    M("UF2", "src/launch/pointer.c",
      "    return owner != NULL && pcc_is_device_allocation(owner) &&",
      "    return 0 && owner != NULL && pcc_is_device_allocation(owner) &&",
      ["tests/test_gpuarray_interop.py"], "a view whose owner's allocation was freed counts as live"),
    M("UF3", "src/launch/pack.c",
      "        if (pcc_gpudata_released(mem))",
      "        if (0)",
      ["tests/test_textures.py"], "a texture over freed linear memory launches"),
    M("UF4", "src/launch/pointer.c",
      "        if (pcc_gpudata_released(a->gpudata))\n            return pcc_arg_error(",
      "        if (0)\n            return pcc_arg_error(",
      ["tests/test_gpuarray_interop.py"], "a kernel takes a GPUArray view over freed memory"),
    M("MC1", "src/core/array.c",
      "        if (v[k] < 0) {",
      "        if (0) {",
      ["tests/test_textures_arrays.py"], "_memcpy3d takes a negative offset (a write before the buffer)"),
    M("MC2", "pycudac/_textures.py",
      "    if v < 0:\n        raise ValueError(f\"{name} must be non-negative, not {v}\")",
      "    if False:\n        raise ValueError(f\"{name} must be non-negative, not {v}\")",
      ["tests/test_textures_arrays.py"], "Memcpy2D takes a negative dst_y"),
    M("FL1", "src/launch/call.c",
      "    if (PyBool_Check(v) || PyLong_Check(v) ||",
      "    if (1 || PyBool_Check(v) || PyLong_Check(v) ||",
      ["tests/test_launch_cooperative.py"], "cooperative=\"no\" launches cooperatively"),
    M("TX6", "src/sim/texture.c",
      "            ((uintptr_t)r->res.linear.devPtr - al.base) % 256 != 0)",
      "            r->res.linear.devPtr % 256 != 0)",
      ["tests/test_textures.py"], "the simulator's texture over a whole small allocation is refused"),
    M("CL7", "src/launch/call.c",
      "        c[0] > 0 && (g[0] % (unsigned)c[0] ||",
      "        0 && (g[0] % (unsigned)c[0] ||",
      ["tests/test_cluster.py"], "an odd grid for __cluster_dims__ is a bare driver error"),
    M("CX1", "pycudac/_gpuarray/array.py",
      '        if type(value) is complex and dtype.kind in "iuf":',
      "        if False:",
      ["tests/test_gpuarray.py"], "a complex into a float array drops its imaginary part"),
    M("LK1", "pycudac/_compiler/link.py",
      "    if (num not in supported) if supported else num < 10:",
      "    if False:",
      ["tests/test_lto.py"], "link(arch='sm_5') reaches nvJitLink, which ends the process"),
    M("SB1", "pycudac/_curand/sobol.py",
      "    r.x ^= r.v[(__ffs(~(unsigned int)r.n) - 1) & 31];",
      "    r.x ^= r.v[(__ffsll((long long)~r.n) - 1) & 31];",
      ["tests/test_curandom_sobol.py"], "Sobol32 steps past point 2**32 - 1 with v[0]"),
    M("RC1", "src/sim/driver.c",
      "    sim_heap_release(ctx);\n    sim_registry_release_context(ctx);",
      "    sim_heap_release(ctx);",
      ["tests/test_driver.py"], "a destroyed context's memory stays charged on the simulator"),
    # ---- the second adversarial review's fixes ------------------------------------------
    M("DC1", "src/launch/pointer.c",
      "    if (pcc_context_gone(d->context))\n        return pcc_arg_error(",
      "    if (0)\n        return pcc_arg_error(",
      ["tests/test_driver.py"], "a kernel takes memory of a detached context"),
    M("DC2", "src/launch/call.c",
      "    if (PCC_UNLIKELY(pcc_context_gone(f->context))) {\n        PyErr_Format(",
      "    if (0) {\n        PyErr_Format(",
      ["tests/test_driver.py"], "a Function of a detached context launches"),
    M("DC3", "src/core/convert.c",
      "        if (pcc_context_gone(a->context)) {",
      "        if (0) {",
      ["tests/test_driver.py"], "a copy into memory of a detached context runs"),
    M("PL1", "pycudac/_pools.py",
      "        if dtype.hasobject:",
      "        if False:",
      ["tests/test_tools.py"], "the pinned pool hands out object arrays (a crash on reuse)"),
    M("PL2", "pycudac/_pools.py",
      "        it kept holding those, pinned memory nobody would use again).\"\"\"\n"
      "        self._holding = False",
      "        it kept holding those, pinned memory nobody would use again).\"\"\"\n"
      "        self._holding = True",
      ["tests/test_tools.py"], "the pinned pool keeps holding after stop_holding()"),
    M("SL1", "src/core/context.c",
      "    int negative = overflow < 0 || (overflow == 0 && sv < 0);",
      "    int negative = 0;",
      ["tests/test_limits_heap_rounding.py"], "set_limit(-1) wraps to a huge size"),
    M("EV1", "src/sim/stream.c",
      "    if (!start->recorded || !end->recorded)\n        return CUDA_ERROR_INVALID_HANDLE;",
      "    if (!start->recorded || !end->recorded)\n        return CUDA_ERROR_NOT_READY;",
      ["tests/test_driver.py"], "an unrecorded event's time is NOT_READY on the simulator"),
    M("PW1", "pycudac/_gpuarray/ops.py",
      "        if not isinstance(exponent, _ga.GPUArray) and int(exponent) < 0:",
      "        if False:",
      ["tests/test_gpuarray.py"], "an integer array to a negative power computes"),
    M("G1", "src/sim/fiber.c",
      "    return sim_launch_cooperative();",
      "    return 1;",
      ["tests/test_sim_kernels.py", "tests/test_launch_cooperative.py"],
      "grid_group::is_valid() is true outside a cooperative launch"),
    # ---- SourceModule's C __init__ (src/compile/cache_warm.c) ------------------------
    M("SM1", "src/compile/cache_warm.c",
      "    if (PyTuple_GET_SIZE(args) == 1 && (kwargs == NULL || PyDict_GET_SIZE(kwargs) == 0) &&",
      "    if (PyTuple_GET_SIZE(args) >= 1 &&",
      ["tests/test_compiler_warm.py", "tests/test_source_module.py"],
      "SourceModule(src, options=...) is taken as SourceModule(src)"),
    M("SM2", "src/compile/cache_warm.c",
      "        int instrumented = sim_instrumented();",
      "        int instrumented = 0;",
      ["tests/test_sim_check.py"], "check mode's SourceModule(src) gets the plain module"),
    M("SM3", "src/compile/cache_warm.c",
      "        if (mod != Py_None) {\n            Py_XSETREF(sm->module, mod);\n            return 0;\n        }\n        Py_DECREF(mod);",
      "        if (mod != Py_None) {\n            Py_XSETREF(sm->module, mod);\n            return 0;\n        }\n        Py_DECREF(mod);\n        return 0;",
      ["tests/test_compiler_warm.py", "tests/test_source_module.py"],
      "a miss of the one-call path leaves the SourceModule without a module"),
    # ---- pools (issue 23) ------------------------------------------------------------
    M("M1", "src/core/pool.c",
      "    if (self->shared)\n        return 0;\n",
      "    if (1)\n        return 0;\n",
      T_POOL, "get_ipc_descriptor does not export the pool first (the H100's rule)"),
    # ---- session 32: preferences, attach, recycled context handles, printf ----------------
    M("CX2", "src/core/context.c",
      "    int eq = x == y || (x->ctx == y->ctx && !x->released && !y->released);",
      "    int eq = x->ctx == y->ctx;",
      ["tests/test_driver_prefs.py"], "a detached Context equals the next one with its handle"),
    M("CX3", "pycudac/tools.py",
      "            del cache[key]",
      "            pass",
      ["tests/test_driver_prefs.py"], "detach() leaves the context's pool and kernels cached"),
    M("CX4", "src/sim/driver.c",
      "    CUcontext c = ndead > 0 ? dead_ctx[--ndead] : NULL;",
      "    CUcontext c = NULL;",
      ["tests/test_driver_prefs.py"], "the simulator never reuses a destroyed context's handle"),
    M("PF1", "src/core/convert.c",
      "    if (overflow || v < 0 || v > 31 || !(valid & (1u << v))) {",
      "    if (overflow || v < 0 || v > 31) {",
      ["tests/test_driver_prefs.py"], "a cache config of 4 reaches the driver"),
    M("PF2", "src/core/memory.c",
      "    if (flags == CU_MEM_ATTACH_SINGLE && stream == NULL) {",
      "    if (0) {",
      ["tests/test_driver_prefs.py"], "attach(SINGLE) without a stream reaches the driver"),
    M("PF3", "src/launch/function.c",
      "    if (pcc_context_gone(f->context)) {\n        PyErr_Format(pcc_st.LogicError, \"kernel '%U': the context",
      "    if (0) {\n        PyErr_Format(pcc_st.LogicError, \"kernel '%U': the context",
      ["tests/test_driver_prefs.py"], "a detached context's Function handle reaches the driver"),
    M("TF1", "src/launch/pack.c",
      "    if (k == PK_TEX && PyObject_TypeCheck(arg, pcc_st.TextureObject)) {",
      "    if (0) {",
      ["tests/test_textures.py"], "a texture launch leaves the fast path"),
    M("TF2", "src/launch/pack.c",
      "        if (tex->handle == 0 || !PyObject_TypeCheck(tex->source, pcc_st.Array) ||",
      "        if (tex->handle == 0 ||",
      ["tests/test_textures.py"], "the fast path takes a texture over freed linear memory"),
    # ---- the session-32 review's fixes ------------------------------------------------------
    M("TX7", "src/launch/pack.c",
      "    if (pcc_context_gone(t->context))\n        return pcc_arg_error(f, i, pcc_st.LogicError, \"the %s's context",
      "    if (0)\n        return pcc_arg_error(f, i, pcc_st.LogicError, \"the %s's context",
      ["tests/test_textures.py"], "a texture of a detached context is launched"),
    # ---- session 33: the cluster launch's fast path -----------------------------------------
    M("CQ1", "src/launch/call.c",
      "            o.cluster = kv[at[7]];\n            return launch_in_clusters_fast(f, args, nargs, &o);",
      "            o.cluster = kv[at[7]];",
      ["tests/test_cluster.py"], "a cluster loop never takes the fast path"),
    M("CQ2", "src/launch/call.c",
      "                        g[0] % c[0] != 0 || g[1] % c[1] != 0 || g[2] % c[2] != 0))",
      "                        g[1] % c[1] != 0 || g[2] % c[2] != 0))",
      ["tests/test_cluster.py"], "the fast path sends a grid that is no whole number of clusters"),
    M("CQ3", "src/launch/call.c",
      "    if (in_clusters && (o->cluster != f->last_cluster ||",
      "    if (in_clusters && (0 ||",
      ["tests/test_cluster.py"], "the fast path launches with the last cluster, not this call's"),
    M("AS1", "src/sim/cc/scan.c",
      "            if (j > i + 1 && j <= T->n && !after_static) {",
      "            if (0) {",
      ["tests/test_corpus.py"], "`__shared__ alignas(16) float s[4];` is refused on the simulator"),
    M("HN1", "src/sim/cc/build.c",
      "            if (depth == 0)\n                return -1;\n            n = cut[--depth];",
      "            if (depth > 0)\n                n = cut[--depth];",
      ["tests/test_sim_runtime.py"], "a header name climbing out of the include directory is unnamed"),
    M("HN2", "src/sim/cc/build.c",
      "    snprintf(path, sizeof path, \"%s/stub/%s\", J->tmp, spelled);\n    if (make_parents(path, J->tl + 5) != 0)\n        return -1;\n",
      "",
      ["tests/test_sim_runtime.py"], "<cuda/std/../barrier> is not found"),
    M("NE1", "src/compile/wrap.c",
      "    size_t el = env_text(env_needed(user), env);",
      "    size_t el = env_text(0, env);",
      ["tests/test_nvcc_env.py"], "a PyCUDA kernel naming uint or M_PI gets no nvcc environment"),
    M("NE2", "src/compile/wrap.c",
      "    int hoist = *hoisted = el == 0 && (pch == 1 || (pch == -1 && pre_includes > 0));",
      "    int hoist = *hoisted = (pch == 1 || (pch == -1 && pre_includes > 0));",
      ["tests/test_nvcc_env.py"], "with precompiled headers the environment comes after the "
                                  "source's own directives"),
    M("MN1", "src/sim/module.c",
      "            (m->kernels[i].from_expr && strcmp(m->kernels[i].name, name) == 0)) {",
      "            (strcmp(m->kernels[i].name, name) == 0)) {",
      ["tests/test_source_module.py"], "the simulator finds a C++ kernel by its plain name"),
    M("MN2", "src/sim/module.c",
      "        if ((f->linkage && strcmp(f->linkage, name) == 0) ||",
      "        if ((0 && strcmp(f->linkage, name) == 0) ||",
      ["tests/test_source_module.py"], "the simulator finds no kernel by its mangled name"),
    M("AS3", "src/sim/cc/scan.c",
      "        if (pcc_sim_tk_is(&T->v[k], \"alignas\")) {\n            refuse_rule(",
      "        if (0) {\n            refuse_rule(",
      ["tests/test_cuda_c_rules.py"], "alignas in an extern __shared__ declaration runs"),
    M("AS4", "src/sim/cc/scan.c",
      "        int body = class_head && pcc_sim_tk_punct(T, k, '{');",
      "        int body = 0;",
      ["tests/test_cuda_c_rules.py"], "a class body after __shared__ is refused as an initializer"),
    M("MN3", "src/sim/module.c",
      "            (m->kernels[i].from_expr && strcmp(m->kernels[i].name, name) == 0)) {",
      "            ((m->kernels[i].from_expr || f->linkage == NULL) &&\n"
      "             strcmp(m->kernels[i].name, name) == 0)) {",
      ["tests/test_source_module.py"], "the simulator finds a static kernel by its plain name"),
    M("GD1", "src/sim/check.c",
      "            return; /* the host compiler's flag, not the kernel's memory */",
      "            (void)0;",
      ["tests/test_sim_check.py"], "check mode reports the compiler's guard flag as a race"),
    M("GD2", "src/sim/module.c",
      "            g[2 * m->nguards + 1] = sym.st_size ? sym.st_size : 1;",
      "            g[2 * m->nguards + 1] = 0;",
      ["tests/test_sim_check.py"], "a guard flag's bytes are not left out"),
    M("MV1", "src/compile/cache_warm.c",
      "        if (own)\n            return 0;",
      "        if (own && 0)\n            return 0;",
      ["tests/test_source_module.py"], "SourceModules of a source with __constant__ share one module"),
    M("GP1", "src/launch/pointer.c",
      "    a->ptr = u;",
      "    (void)u;",
      ["tests/test_gpuarray.py"], "assigning gpudata leaves the launch on the old address"),
    M("ZD1", "src/launch/pack.c",
      "    if (PCC_UNLIKELY(PyArray_Check(arg)) && p->kind != PK_PTR && p->kind != PK_TEX &&",
      "    if (0 && PyArray_Check(arg) && p->kind != PK_PTR && p->kind != PK_TEX &&",
      ["tests/test_launch_args.py"], "a 0-d array is refused as a by-value argument"),
    M("OE1", "src/launch/pack.c",
      "    if (PyArray_SIZE(a) != 1 || kind < PK_I8 || kind > PK_BOOL)",
      "    if (1)",
      ["tests/test_launch_args.py"], "compyle's numpy.array([x], dtype) scalar is refused"),
    M("OE2", "src/launch/pack.c",
      "    return kind != PK_BF16 && d->kind == want && PyArray_ISNOTSWAPPED(a) &&",
      "    return kind != PK_BF16 && PyArray_ISNOTSWAPPED(a) &&",
      ["tests/test_launch_args.py"], "one int32 element passes for a float parameter"),
    M("PA1", "src/launch/pack.c",
      "        int address = pcc_is_int_pointer(arg);",
      "        int address = 0;",
      ["tests/test_launch_args.py"], "a pooled device address passes as a double's value"),
    M("PN1", "src/launch/plan.c",
      "    if (item == Py_None) { /* PyCUDA's spelling of a pointer (numpy.uintp) in a list */",
      "    if (0) {",
      ["tests/test_launch.py"], "prepare([None, ...]) makes a pointer a double"),
    M("PB1", "pycudac/_pools.py",
      "_FINE_ABOVE_LOG2 = 24",
      "_FINE_ABOVE_LOG2 = 99",
      ["tests/test_tools.py", "tests/test_driver_memory.py"],
      "large requests round up by a quarter (PyCUDA's bins): 90% of free memory runs out"),
    M("SD1", "src/sim/registry.c",
      "    t = memory_setting(getenv(\"PYCUDAC_SIM_MEMORY\"));",
      "    t = 0;",
      ["tests/test_driver_memory.py"], "PYCUDAC_SIM_MEMORY is ignored"),
    M("SD2", "src/sim/registry.c",
      "    if (*end != '\\0' || n == 0 || n > ((unsigned long long)INT64_MAX >> shift))",
      "    if (*end != '\\0' || n == 0 || n > (~0ULL >> shift))",
      ["tests/test_driver_memory.py"], "PYCUDAC_SIM_MEMORY past 2**63 makes mem_get_info negative"),
    M("PA2", "src/launch/pack.c",
      "                          : pcc_is_int_pointer(arg);",
      "                          : 0;",
      ["tests/test_launch_args.py"], "a pooled address for an int parameter: 'out of range'"),
    M("OB1", "src/launch/pack.c",
      "        p->kind != PK_SURF && !PyArray_ISOBJECT((PyArrayObject *)arg) &&",
      "        p->kind != PK_SURF &&",
      ["tests/test_launch_args.py"], "a 0-d object array holding itself crashes the interpreter"),
    M("PX1", "pycudac/_pools.py",
      "        size = max(nbytes, 1) if _simcheck._instrumented() else bin_size(nbytes)",
      "        size = bin_size(nbytes)",
      ["tests/test_sim_check.py"], "under the checks a write past a GPUArray hides in its bin"),
    M("KM1", "pycudac/_sigparse/source.py",
      "    markers = {name for name, w in words.items() if \"__global__\" in w}",
      "    markers = set()",
      ["tests/test_sigparse.py"], "a kernel declared through KERNEL is not seen"),
    M("KM2", "pycudac/_sigparse/decl.py",
      "        body = env.macros.get(t.text) if t.kind == \"id\" and t.text not in active else None",
      "        body = env.macros.get(t.text) if t.kind == \"id\" else None",
      ["tests/test_sigparse.py"], "a macro is expanded again inside its own expansion (a hang)"),
    M("AH1", "src/launch/pointer.c",
      "        r->pycuda = 1;",
      "        r->pycuda = 0;",
      ["tests/test_launch.py"], "an ArgumentHandler of PyCUDA's protocol gets no pre_call/post_call"),
    M("CR1", "pycudac/_compiler/toolkit.py",
      "                crt = _crt_include(_soname_major(lib))",
      "                crt = None",
      ["tests/test_corpus_nvrtc.py"], "a wheel NVRTC without crt headers cannot compile <mma.h>"),
    M("ST1", "src/core/convert.c",
      "        if (pcc_context_gone(((PccStream *)obj)->context)) {",
      "        if (0) {",
      ["tests/test_driver_prefs.py"], "a stream of a detached context reaches the driver"),
    M("EN1", "src/core/convert.c",
      "    if (!PyLong_CheckExact(obj) && strcmp(tp->tp_name, enum_name) != 0) {",
      "    if (0) {",
      ["tests/test_driver_prefs.py"], "another enum's member is taken by its value"),
    M("PT2", "src/sim/print.c",
      "            copy[p - fmt] = 'p';",
      "            copy[p - fmt] = 'n';",
      ["tests/test_sim_kernels.py"], "device printf's %n stores through its pointer"),
    M("WT1", "src/sim/prelude/cuda_runtime.h",
      "    if (now - first > 2000000000LL)",
      "    if (0)",
      ["tests/test_sim_runtime.py"], "a wait on a thread of the same block hangs the launch"),
    M("PT1", "src/sim/print.c",
      "    if (!unsupported_conversion(fmt, spec, sizeof spec))\n        return;",
      "    if (1)\n        return;",
      ["tests/test_sim_kernels.py"], "a printf conversion outside CUDA's subset goes unnamed"),
]


# ---------------------------------------------------------------------------- tree

def copy_tree(dest):
    files = subprocess.run(["git", "ls-files", "-z", "-co", "--exclude-standard"], cwd=ROOT,
                           capture_output=True, check=True).stdout.split(b"\0")
    if os.path.isdir(dest):
        shutil.rmtree(dest)
    for f in files:
        f = f.decode()
        if not f or not os.path.isfile(os.path.join(ROOT, f)):
            continue
        os.makedirs(os.path.join(dest, os.path.dirname(f)), exist_ok=True)
        shutil.copy2(os.path.join(ROOT, f), os.path.join(dest, f))


class Builder:
    """A full build once (its compiler commands recorded), then one object,
    the static libraries (the simulator and util are archives linked into
    the extension) and the link per mutated C file."""

    def __init__(self, tree, python):
        self.tree, self.python = tree, python
        self.compile = {}   # source -> argv
        self.link = None
        self.archive = []   # the `ar` commands, rerun before each link

    def full(self):
        r = subprocess.run([self.python, "setup.py", "build_ext", "--inplace", "--force"],
                           cwd=self.tree, capture_output=True, text=True)
        if r.returncode != 0:
            raise SystemExit("mutate: the unmutated tree does not build:\n" + r.stdout[-3000:]
                             + r.stderr[-3000:])
        for line in r.stdout.splitlines():
            argv = shlex.split(line)
            if len(argv) > 2 and os.path.basename(argv[0]).endswith("ar") and \
                    argv[2].endswith(".a"):
                self.archive.append(argv)
                continue
            if not argv or "-c" not in argv or "-o" not in argv:
                if argv and "-shared" in argv and "-o" in argv:
                    self.link = argv
                continue
            src = argv[argv.index("-c") + 1]
            self.compile[src] = argv
        if not self.compile or self.link is None:
            raise SystemExit("mutate: cannot read the compiler commands of setup.py's output")
        self.so_built = self.link[self.link.index("-o") + 1]

    def _run(self, argv):
        return subprocess.run(argv, cwd=self.tree, capture_output=True, text=True)

    def rebuild(self, changed):
        """Recompiles what `changed` (a path in the tree) affects; (ok, log)."""
        if changed.startswith("src/sim/cc/"):
            # the simulator's compiler front: setup.py puts its sources' digest
            # (the key of the simulator's compile cache) into a generated
            # header, which only its own build rewrites (and then rebuilds what
            # includes it): a relink alone reused the unmutated front's modules
            r = self._run([self.python, "setup.py", "build_ext", "--inplace"])
            return r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]
        if changed.endswith(".c") and changed in self.compile:
            todo = [self.compile[changed]]
        elif changed.endswith(".h") and "/prelude/" not in changed:
            todo = list(self.compile.values())
        else:  # setup.py-generated inputs (the prelude): the whole build
            r = self._run([self.python, "setup.py", "build_ext", "--inplace", "--force"])
            return r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]
        with concurrent.futures.ThreadPoolExecutor(max(1, os.cpu_count() or 1)) as ex:
            results = list(ex.map(self._run, todo))
        bad = [r for r in results if r.returncode != 0]
        if bad:
            return False, bad[0].stderr[-2000:]
        for argv in self.archive:
            r = self._run(argv)
            if r.returncode != 0:
                return False, r.stderr[-2000:]
        r = self._run(self.link)
        if r.returncode != 0:
            return False, r.stderr[-2000:]
        dest = os.path.join(self.tree, "pycudac", os.path.basename(self.so_built))
        shutil.copy2(os.path.join(self.tree, self.so_built), dest)
        return True, ""


# --------------------------------------------------------------------------- tests

def run_tests(tree, python, tests, timeout, env):
    argv = [python, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", *tests]
    t0 = time.time()
    try:
        r = subprocess.run(argv, cwd=tree, capture_output=True, text=True, timeout=timeout,
                           env=env)
    except subprocess.TimeoutExpired as e:
        out = (e.stdout or b"")
        out = out.decode(errors="replace") if isinstance(out, bytes) else out
        return "timeout", time.time() - t0, out[-1500:]
    return r.returncode, time.time() - t0, (r.stdout + r.stderr)[-1500:]


def first_failure(log):
    for line in log.splitlines():
        if line.startswith("FAILED ") or line.startswith("ERROR "):
            return line[:200]
    tail = [ln for ln in log.splitlines() if ln.strip()]
    return tail[-1][:200] if tail else ""


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", nargs="*", help="mutation ids")
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--workdir", default=os.path.join(ROOT, "build", "mutate"))
    ap.add_argument("--python", default=os.path.join(ROOT, ".venv", "bin", "python"))
    ap.add_argument("--timeout", type=int, default=600, help="seconds per mutation's tests")
    ap.add_argument("--report", help="also write the report (Markdown) here")
    ap.add_argument("--skip-baseline", action="store_true")
    args = ap.parse_args(argv)

    seen = set()
    for m in MUTATIONS:  # an id twice ran and reported both under one name
        if m["id"] in seen:
            ap.error(f"mutation id {m['id']} is used twice")
        seen.add(m["id"])
    muts = MUTATIONS
    if args.only:
        muts = [m for m in MUTATIONS if m["id"] in args.only]
    if args.list:
        for m in muts:
            print(f"{m['id']:<4} {m['path']:<28} {m['what']}")
        return 0

    tree = os.path.join(args.workdir, "tree")
    print(f"mutate: copying the tree to {tree}", flush=True)
    started = tree_state()
    copy_tree(tree)
    env = dict(os.environ, PYCUDAC_BACKEND="sim",
               PYCUDAC_CACHE_DIR=os.path.join(args.workdir, "cache"))
    for k in ("CI", "PYCUDAC_FULL_TEST"):
        env.pop(k, None)
    b = Builder(tree, args.python)
    t0 = time.time()
    b.full()
    print(f"mutate: built in {time.time() - t0:.0f}s ({len(b.compile)} objects)", flush=True)

    if not args.skip_baseline:
        union = sorted({t for m in muts for t in m["tests"]})
        rc, dt, log = run_tests(tree, args.python, union, args.timeout * 2, env)
        print(f"mutate: baseline {' '.join(union)}: rc={rc} in {dt:.0f}s", flush=True)
        if rc != 0:
            print(log)
            raise SystemExit("mutate: the unmutated tree fails its tests; fix that first")

    results = []
    for m in muts:
        path = os.path.join(tree, m["path"])
        with open(path) as f:
            original = f.read()
        count = original.count(m["find"])
        if count != 1:
            results.append((m, "STALE", 0, f"snippet found {count} times"))
            print(f"[{m['id']}] STALE: snippet found {count} times in {m['path']}", flush=True)
            continue
        try:
            with open(path, "w") as f:
                f.write(original.replace(m["find"], m["replace"]))
            ok, log = (True, "")
            if m["path"].startswith(("src/", "include/")):
                ok, log = b.rebuild(m["path"])
            if not ok:
                results.append((m, "BROKEN", 0, " ".join(log.split())[:300]))
                print(f"[{m['id']}] BROKEN (does not build): {log[-300:]}", flush=True)
                continue
            rc, dt, log = run_tests(tree, args.python, m["tests"], args.timeout, env)
            if rc == 0:
                status, note = "SURVIVED", "the named tests pass"
            elif rc == "timeout":
                status, note = "CAUGHT", f"timeout after {args.timeout}s"
            elif rc in (1, 2, 3):
                status, note = "CAUGHT", first_failure(log)
            else:
                status, note = "CAUGHT", f"pytest exit {rc}: {first_failure(log)}"
            if rc == 5:
                status, note = "BROKEN", "no tests collected"
            results.append((m, status, dt, note))
            print(f"[{m['id']}] {status} in {dt:.0f}s: {note}", flush=True)
        finally:
            with open(path, "w") as f:
                f.write(original)
            if m["path"].startswith(("src/", "include/")):
                b.rebuild(m["path"])

    report = render(results, started)
    print(report)
    if args.report:
        with open(args.report, "w") as f:
            f.write(report)
    return 0 if all(s == "CAUGHT" for _, s, _, _ in results) else 1


def tree_state():
    """(when, what): the time and `git describe --dirty` of the tree as the
    pass copies it, not as it is when the pass ends (a long pass outlives
    commits made meanwhile)."""
    commit = subprocess.run(["git", "describe", "--always", "--dirty"], cwd=ROOT,
                            capture_output=True, text=True).stdout.strip()
    return time.strftime('%Y-%m-%d %H:%M', time.localtime()), commit


def render(results, started=None):
    counts = {}
    for _, s, _, _ in results:
        counts[s] = counts.get(s, 0) + 1
    lines = ["| id | file | mutation | tests | result | caught by |", "|---|---|---|---|---|---|"]
    for m, s, dt, note in results:
        tests = " ".join(os.path.basename(t) for t in m["tests"])
        note = note.replace("|", "\\|")
        lines.append(f"| {m['id']} | {m['path']} | {m['what']} | {tests} | {s} ({dt:.0f}s) "
                     f"| {note} |")
    summary = ", ".join(f"{v} {k}" for k, v in sorted(counts.items()))
    when, commit = started or tree_state()
    head = ["# Mutation pass (tools/mutate.py)", "",
            f"Run {when} on {commit}, the "
            f"simulator backend, {os.cpu_count()} CPU cores: **{len(results)} mutations: "
            f"{summary}**. Each row: the mutation, the tests it ran (stopping at the first "
            "failure) and the first test that failed. Rerun: `.venv/bin/python tools/mutate.py "
            "--report tools/mutate_report.md`; tests/README.md says what the first run left "
            "alive and which tests closed it.", ""]
    return "\n".join(head + lines) + f"\n\n{len(results)} mutations: {summary}\n"


if __name__ == "__main__":
    sys.exit(main())
