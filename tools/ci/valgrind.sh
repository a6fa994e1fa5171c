#!/usr/bin/env bash
# tools/ci/valgrind.sh — valgrind memcheck over a subset of the suite that
# exercises the C core without running simulated kernels (the simulator's
# fibers switch stacks, which memcheck cannot follow, and its guard pages
# fault by design): error mapping, every driver memory entry point, launch
# argument packing and the bad-input tests.
#
#   tools/ci/valgrind.sh [pytest args...]    default: the tests marked `valgrind`
#
# Python runs with PYTHONMALLOC=malloc so memcheck sees every allocation.
# Leak checking is off (CPython keeps objects alive at exit). Any memcheck
# error makes the stage fail (--error-exitcode=99). The Debian system python3
# is used when it has the venv's Python version (it is valgrind-clean; the
# venv's pyenv libpython reports its own uninitialised reads, suppressed by
# valgrind-libpython.supp only when that interpreter must be used).
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$(pwd)
VENV_PY=${PY:-$ROOT/.venv/bin/python}
command -v valgrind >/dev/null || { echo "valgrind: not installed (apt-get install valgrind)" >&2; exit 2; }

want=$("$VENV_PY" -c 'import sys; print("%d.%d" % sys.version_info[:2])')
site=$("$VENV_PY" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
SUPP=(--suppressions="$ROOT/tools/ci/valgrind.supp")
VG_PY=${VG_PYTHON:-}
if [ -z "$VG_PY" ] && [ -x /usr/bin/python3 ] && \
   [ "$(/usr/bin/python3 -c 'import sys; print("%d.%d" % sys.version_info[:2])')" = "$want" ]; then
    VG_PY=/usr/bin/python3
fi
if [ -n "$VG_PY" ]; then
    # the venv's packages (numpy, pytest, hypothesis) and the in-place build
    export PYTHONPATH="$site:$ROOT${PYTHONPATH:+:$PYTHONPATH}"
else
    VG_PY=$VENV_PY
    SUPP+=(--suppressions="$ROOT/tools/ci/valgrind-libpython.supp")
fi

if [ $# -eq 0 ]; then
    # the tests marked `valgrind` (pyproject.toml); a marker, not name
    # substrings: a renamed test stays selected. Only the files that carry
    # the marker are collected (importing every test file is slow under memcheck).
    set -- -m "valgrind and not gpu" $(grep -l 'mark\.valgrind' tests/test_*.py)
fi
export PYTHONMALLOC=malloc PYCUDAC_BACKEND=${PYCUDAC_BACKEND:-sim} PYCUDAC_UNDER_VALGRIND=1
echo "== [valgrind] memcheck, $VG_PY, pytest $*"
set +e
valgrind --tool=memcheck --error-exitcode=99 --leak-check=no --track-origins=no \
    --num-callers=30 "${SUPP[@]}" "$VG_PY" -m pytest -q -p no:cacheprovider "$@"
rc=$?
set -e
[ "$rc" -eq 5 ] && { echo "valgrind: pytest collected no tests" >&2; exit 1; }
exit "$rc"
