#!/usr/bin/env bash
# tools/ci/asan.sh — the CPU/simulator suite against an extension built with
# AddressSanitizer + UndefinedBehaviorSanitizer.
#
# The sanitized build lives in its own tree (build/asan-tree: the tracked and
# untracked-but-not-ignored files, copied), built in place there, so the
# normal in-place build in pycudac/ is never touched. libasan/libubsan are
# preloaded because python itself is not sanitized. Leak detection is off
# (CPython keeps objects alive at exit by design); any other report stops the
# process (halt_on_error) and fails the stage.
#
#   tools/ci/asan.sh [pytest args...]     default: the whole tests/ directory
# Env: PY (default .venv/bin/python), ASAN_TREE (default build/asan-tree).
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$(pwd)
PY=${PY:-$ROOT/.venv/bin/python}
case "$PY" in /*) ;; *) PY=$ROOT/$PY ;; esac
TREE=${ASAN_TREE:-$ROOT/build/asan-tree}
CC=${CC:-cc}

echo "== [asan] sync sources into $TREE"
. tools/ci/sync-tree.sh
sync_tree "$TREE"

echo "== [asan] build with -fsanitize=address,undefined"
SAN="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined -g -O1"
build_sanitized "$TREE" asan "$SAN" "-fsanitize=address,undefined" __asan_report

LIBASAN=$($CC -print-file-name=libasan.so)
LIBUBSAN=$($CC -print-file-name=libubsan.so)
export LD_PRELOAD="$LIBASAN:$LIBUBSAN"
# PYTHONMALLOC=malloc: Python's own allocator (pymalloc) carves small objects
# out of arenas that ASan sees as one block, so an overflow of an object or
# buffer the C core got from PyMem_*/PyObject_* would go unseen; with malloc
# every allocation has its own redzones.
export PYTHONMALLOC=malloc
# Reports go to files (log_path: one per process, subprocesses too), never
# only to stderr, where pytest's capture would swallow them; each is printed
# below and any error in one fails the stage.
LOGDIR="$TREE/sanitizer-logs"
rm -rf "$LOGDIR"
mkdir -p "$LOGDIR"
# detect_leaks=0: CPython leaks at exit by design. halt_on_error: the first
# report ends the process (exit code != 0 fails the run).
# detect_stack_use_after_return stays off: the simulator's fibers switch stacks.
export ASAN_OPTIONS="detect_leaks=0:halt_on_error=1:abort_on_error=0:exitcode=86:log_path=$LOGDIR/asan:${ASAN_OPTIONS_EXTRA:-}"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1:exitcode=87:log_path=$LOGDIR/ubsan"
# Tests that start subprocesses inherit LD_PRELOAD and the options above, so
# they run sanitized too; tests/README.md lists the ones skipped here (marked
# `no_asan` / checked with PYCUDAC_UNDER_ASAN).
export PYCUDAC_UNDER_ASAN=1
export PYCUDAC_BACKEND=${PYCUDAC_BACKEND:-sim}
cd "$TREE"
# The whole suite but the files that only compile sources and compare the
# two compilers' verdicts (NVRTC and the host C++ compiler, neither of them
# instrumented): the C paths they go through (compile/, the simulator's
# compiler front) are run by the rest of the suite, and they would double
# the stage's time on CI's two cores.
# With no arguments, in CI_JOBS processes (tools/ci/shards.py; each one's
# log in $LOGDIR/pytest, its failures printed at the end).
set +e
if [ $# -eq 0 ]; then
    echo "== [asan] the suite in ${CI_JOBS:-2} processes but test_corpus_nvrtc.py," \
         "test_cuda_c_rules.py, test_ci_scripts.py (LD_PRELOAD=$LD_PRELOAD," \
         "PYTHONMALLOC=$PYTHONMALLOC)"
    "$PY" tools/ci/shards.py -n "${CI_JOBS:-2}" --logs "$LOGDIR/pytest" \
        --skip test_corpus_nvrtc.py --skip test_cuda_c_rules.py --skip test_ci_scripts.py \
        -q -p no:cacheprovider
else
    echo "== [asan] pytest $* (LD_PRELOAD=$LD_PRELOAD, PYTHONMALLOC=$PYTHONMALLOC)"
    "$PY" -m pytest -q -p no:cacheprovider "$@"
fi
rc=$?
set -e
. "$ROOT/tools/ci/sanitizer-logs.sh"
if ! show_sanitizer_logs asan "$LOGDIR"; then
    if [ "$rc" -eq 0 ]; then rc=1; fi
fi
[ "$rc" -eq 5 ] && { echo "asan: pytest collected no tests" >&2; exit 1; }
exit "$rc"
