#!/usr/bin/env bash
# tools/ci/tsan.sh — the threading tests on the simulator against an
# extension built with ThreadSanitizer.
#
# As tools/ci/asan.sh: the sanitized build lives in its own tree
# (build/tsan-tree), built in place there; libtsan is preloaded because
# python itself is not instrumented. TSan sees the memory accesses of
# pycudac's C core (and the synchronization of every thread, through its
# pthread interceptors); the interpreter's own accesses are invisible to it,
# and the kernels the simulator compiles at run time are not instrumented
# either. tools/ci/tsan.supp hides reports whose frames are all in the
# uninstrumented interpreter, never one with a frame in _driver*.so. Any
# report fails the stage (exitcode=66 at exit; halt_on_error stops at the
# first one).
#
#   tools/ci/tsan.sh [pytest args...]     default: the tests marked `tsan`
#   (options alone, e.g. `-x -v`, are added to the default selection)
# Env: PY (default .venv/bin/python), TSAN_TREE (default build/tsan-tree),
#      TSAN_OPTIONS_EXTRA (appended to TSAN_OPTIONS).
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$(pwd)
PY=${PY:-$ROOT/.venv/bin/python}
case "$PY" in /*) ;; *) PY=$ROOT/$PY ;; esac
TREE=${TSAN_TREE:-$ROOT/build/tsan-tree}
CC=${CC:-cc}

echo "== [tsan] sync sources into $TREE"
. tools/ci/sync-tree.sh
sync_tree "$TREE"

echo "== [tsan] build with -fsanitize=thread"
SAN="-fsanitize=thread -fno-omit-frame-pointer -g -O1"
build_sanitized "$TREE" tsan "$SAN" "-fsanitize=thread" __tsan_func_entry

LIBTSAN=$($CC -print-file-name=libtsan.so)
export LD_PRELOAD="$LIBTSAN"
# halt_on_error: the first report ends the process with exitcode 66.
# report_signal_unsafe=0: the simulator's fault handler is async-signal-safe
# by construction, but TSan's check cannot tell (and no test here faults).
# log_path: reports go to files (one per process), printed below, so that
# pytest's output capture cannot swallow them.
LOGDIR="$TREE/sanitizer-logs"
rm -rf "$LOGDIR"
mkdir -p "$LOGDIR"
export TSAN_OPTIONS="halt_on_error=1:exitcode=66:second_deadlock_stack=1:report_signal_unsafe=0:suppressions=$ROOT/tools/ci/tsan.supp:log_path=$LOGDIR/tsan:${TSAN_OPTIONS_EXTRA:-}"
export PYCUDAC_UNDER_TSAN=1
export PYCUDAC_BACKEND=${PYCUDAC_BACKEND:-sim}
# More simulator workers than the CI machine's 2 cores: more interleavings.
export PYCUDAC_SIM_THREADS=${PYCUDAC_SIM_THREADS:-4}
cd "$TREE"
only_options=1
for a in "$@"; do case "$a" in -*) ;; *) only_options=0 ;; esac; done
if [ "$only_options" = 1 ]; then
    # The tests marked `tsan` (pyproject.toml): every test that runs pycudac
    # from several Python threads, the staged copies (their own pthreads),
    # simulator launches spread over the worker pool (plain and fiber
    # kernels, barriers, warp operations), cooperative launches (a thread
    # per block, the grid barrier), and os.environ rewritten by a
    # thread during sim compiles and launches. A marker, not name
    # substrings: a renamed test stays selected. Only the files that carry
    # the marker are collected (importing every test file costs time here).
    set -- "$@" -m tsan $(grep -l 'mark\.tsan' tests/test_*.py)
fi
echo "== [tsan] pytest $* (LD_PRELOAD=$LD_PRELOAD)"
set +e
"$PY" -m pytest -q -p no:cacheprovider "$@"
rc=$?
set -e
. "$ROOT/tools/ci/sanitizer-logs.sh"
if ! show_sanitizer_logs tsan "$LOGDIR"; then
    if [ "$rc" -eq 0 ]; then rc=1; fi
fi
[ "$rc" -eq 5 ] && { echo "tsan: pytest collected no tests" >&2; exit 1; }
exit "$rc"
