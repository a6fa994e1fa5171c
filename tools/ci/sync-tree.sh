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
