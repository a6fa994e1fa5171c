# tools/ci/sync-tree.sh — sourced by the sanitizer stages (asan.sh, tsan.sh):
# sync_tree TREE copies the tracked and untracked-but-not-ignored files of the
# checkout (the current directory) into TREE, so that a sanitized build can be
# made in place there without touching the normal in-place build in pycudac/.
# rsync-free so CI needs nothing extra; cp -u keeps unchanged files' mtimes
# (no needless rebuild). Files deleted or renamed since the last sync are
# dropped from TREE (a stale src/*.c would be built).
sync_tree() {
    local tree=$1
    mkdir -p "$tree"
    git ls-files -z -co --exclude-standard | while IFS= read -r -d '' f; do
        [ -f "$f" ] || continue
        mkdir -p "$tree/$(dirname "$f")"
        cp -u -p "$f" "$tree/$f"
    done
    git ls-files -co --exclude-standard | sort > "$tree/.synced-files"
    (cd "$tree" && find src include pycudac tests tools -type f ! -name '*.so' ! -name '*.pyc' \
        2>/dev/null | sort | comm -23 - .synced-files | while IFS= read -r f; do rm -f "$f"; done)
}

# build_sanitized TREE NAME "CFLAGS" "LDFLAGS" SYMBOL: builds the extension in
# place in TREE with the sanitizer flags (uses $PY) and fails (exit 2) when
# the build fails or the result does not call SYMBOL, i.e. is not really
# instrumented. The module left by an earlier build is removed first: a
# source that no longer compiles must fail the stage, never test the old
# module (and with no module to compare against, setuptools rebuilds every
# object, so the build is from scratch).
build_sanitized() {
    local tree=$1 name=$2 cflags=$3 ldflags=$4 symbol=$5
    rm -f "$tree"/pycudac/_driver*.so
    local log="$tree/build-$name.log" rc=0
    (cd "$tree" && PYCUDAC_CFLAGS="${PYCUDAC_CFLAGS:-} $cflags" PYCUDAC_LDFLAGS="$ldflags" \
        "$PY" setup.py -q build_ext --inplace) > "$log" 2>&1 || rc=$?
    # the compiler's output, less setuptools' notice about pyproject.toml
    grep -v -e "_BetaConfiguration" -e "warnings.warn(msg" "$log" || true
    if [ "$rc" -ne 0 ]; then
        echo "$name: the sanitized build failed (exit $rc; log: $log)" >&2
        exit 2
    fi
    local so
    so=$(ls "$tree"/pycudac/_driver*.so 2>/dev/null | head -n 1)
    if [ -z "$so" ]; then
        echo "$name: the build made no module in $tree/pycudac" >&2
        exit 2
    fi
    if [ "$(nm -D "$so" | grep -c "$symbol")" = 0 ]; then
        echo "$name: $so is not instrumented" >&2
        exit 2
    fi
}
