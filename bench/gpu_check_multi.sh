#!/usr/bin/env bash
# bench/gpu_check_multi.sh — `make gpu-check-multi`: issue 23 on a host with
# two GPUs (the device kind nvidia-h100-x2), system python3, no network.
#
#   what is here -> build in place -> nccl4py from .whl/ (when not installed)
#   -> NCCL probe -> the C floor of bench_multi -> tests/test_multi_*.py on
#   the GPUs (two devices and NCCL required: a skip for want of them fails)
#   -> bench/bench_multi.py (peer copy, IPC open, pool allocation, all-reduce)
#
# Every process started here runs with NCCL_NVLS_ENABLE=0 (NVLink SHARP /
# multicast off: multicast objects can take the host's GPUs out of service
# for everyone); pycudac itself never creates a multicast object
# (tests/test_multi_interop.py checks the tree for it).
#
# Each stage has a time limit and the run a budget (GPU_CHECK_BUDGET seconds,
# default 560, under the device tool's 600 s); a failing stage never stops
# the later ones. Logs go to GPU_CHECK_OUTDIR (default bench/out/multi) and,
# on the device machine, to $OUT (the stage list, bench_multi's JSON and a
# tarball of the logs). Exit status: 0 only when every stage ran and passed
# (bench_multi passes only when every target does); 1 otherwise; the last
# line says which stages failed.

cd "$(dirname "$0")/.." || exit 2
ROOT=$(pwd)
export PYTHONUNBUFFERED=1
export NCCL_NVLS_ENABLE=0
export PYCUDAC_BACKEND=cuda
export PYTHONPATH="$ROOT${PYTHONPATH:+:$PYTHONPATH}"
PY=${PYTHON:-python3}
# run_stage NAME LIMIT CMD..., stages_init: bench/stages.sh (10 s kept for the table)
STAGE_RESERVE=10
. "$ROOT/bench/stages.sh"
stages_init "$ROOT/bench/out/multi" 560

# ---- 0. what is here --------------------------------------------------------
{
    echo "date: $(date -u)"
    echo "host: $(uname -srm)"
    command -v nvidia-smi > /dev/null && nvidia-smi -L && nvidia-smi topo -m
    echo "python: $(command -v "$PY") $("$PY" -V 2>&1)"
    echo "NCCL_NVLS_ENABLE=$NCCL_NVLS_ENABLE"
    command -v mpiexec > /dev/null && mpiexec --version 2>&1 | head -n 2 || echo "mpiexec: none"
    versions numpy pytest mpi4py cupy cuda.core cuda.bindings nccl.core
    ls "$ROOT"/.whl 2>/dev/null
} > "$OUTDIR/env.log" 2>&1
cat "$OUTDIR/env.log"

# ---- 1. build ---------------------------------------------------------------
run_stage build 240 "$PY" setup.py build_ext --inplace

# ---- 2. nccl4py: installed, or from the wheels carried in .whl/ ---------------
# into build/multi-site, first on the path (its cuda-core 1.x beside it), with
# no index and no dependencies resolved over the network
if ! "$PY" -c "import nccl.core" > /dev/null 2>&1; then
    if ls "$ROOT"/.whl/nccl4py-*.whl > /dev/null 2>&1; then
        # pip when it is there, else the wheels unzipped (all five are plain
        # site-packages trees)
        run_stage nccl_install 120 bash -c '
            "$0" -m pip install --no-index --no-deps --quiet --target "$1/build/multi-site" \
                "$1"/.whl/*.whl 2>/dev/null && exit 0
            echo "no pip: unzipping the wheels"
            for w in "$1"/.whl/*.whl; do "$0" -m zipfile -e "$w" "$1/build/multi-site" || exit 1; done
            ' "$PY" "$ROOT"
        export PYTHONPATH="$ROOT/build/multi-site:$PYTHONPATH"
    else
        echo "nccl_install: FAILED (nccl4py is not installed and .whl/ has no wheel)" >> "$STAGES"
        FAILED="$FAILED nccl_install"
    fi
fi
# NCCL itself (libnccl.so.2: pip's nvidia-nccl-cu12/13 or the system's) must be here
run_stage nccl_probe 60 "$PY" -c "
import nccl.core as nccl
uid = nccl.get_unique_id()
print('nccl4py', getattr(nccl, '__version__', '?'), 'unique id of', len(uid.as_bytes), 'bytes')
"

# ---- 3. the C floor of bench_multi -------------------------------------------
run_stage floor_build 60 cc -O2 -Wall -Wextra -fPIC -shared -fvisibility=hidden -Iinclude \
    bench/floor_multi.c -ldl -o bench/out/libfloor_multi.so

# ---- 4. the tests on two GPUs --------------------------------------------------
# two devices and NCCL are required here: a test that would skip for want of
# them fails instead (PYCUDAC_REQUIRE_*); the examples run inside these tests
TAIL_LINES=30 run_stage pytest_multi 300 env PYCUDAC_REQUIRE_DEVICES=2 PYCUDAC_REQUIRE_NCCL=1 \
    "$PY" -m pytest -q -rs -p no:cacheprovider tests/test_multi_peer.py tests/test_multi_ipc.py \
    tests/test_multi_pool.py tests/test_multi_interop.py

# ---- 5. the benchmarks ------------------------------------------------------------
TAIL_LINES=24 run_stage bench_multi 240 "$PY" bench/bench_multi.py --json "$OUTDIR/bench_multi.jsonl"

# ---- the end ------------------------------------------------------------------------
echo
echo "================ pycudac gpu-check-multi: $(( $(date +%s) - START ))s; logs in $OUTDIR ================"
cat "$STAGES"
if [ -n "${OUT:-}" ] && [ -d "$OUT" ]; then
    cp "$STAGES" "$OUTDIR"/bench_multi.jsonl "$OUT"/ 2>/dev/null
    cp "$OUTDIR"/bench_multi.log "$OUT"/bench_multi.txt 2>/dev/null
    tar czf "$OUT/multi_logs.tgz" -C "$OUTDIR" . 2>/dev/null
fi
if [ -n "$FAILED" ]; then
    echo "gpu-check-multi: FAILED: stages:$FAILED"
    exit 1
fi
echo "gpu-check-multi: PASSED: every stage ran and passed, every target met"
exit 0
