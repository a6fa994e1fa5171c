# tools/ci/sanitizer-logs.sh — sourced by asan.sh and tsan.sh.
# show_sanitizer_logs NAME DIR: prints every sanitizer report written under
# DIR (the stages set log_path there, so that pytest's output capture cannot
# swallow a report) and returns 1 when any holds an error. A log with only
# ASan's known warning about leaving a faulting kernel by siglongjmp
# (google/sanitizers#189; see _asan_quiet in tests/test_faults.py) is counted,
# not printed, and does not fail the stage.
show_sanitizer_logs() {
    local name=$1 dir=$2 f bad=0 quiet=0
    for f in "$dir"/*; do
        [ -f "$f" ] || continue
        if grep -q -E "ERROR: (Address|Thread|UndefinedBehavior|Leak)Sanitizer|WARNING: ThreadSanitizer|runtime error:|SUMMARY: " "$f"; then
            bad=$((bad + 1))
            echo "== [$name] sanitizer report $f:" >&2
            cat "$f" >&2
        else
            quiet=$((quiet + 1))
        fi
    done
    [ "$quiet" -gt 0 ] && echo "== [$name] $quiet log(s) with warnings only (no error) in $dir"
    if [ "$bad" -gt 0 ]; then
        echo "== [$name] FAILED: $bad sanitizer report(s) with errors (printed above)" >&2
        return 1
    fi
    return 0
}
