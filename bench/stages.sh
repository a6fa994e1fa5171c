# bench/stages.sh — what bench/gpu_check.sh and bench/gpu_check_multi.sh
# share (sourced after they cd to the tree's top and set ROOT):
#
# stages_init DEFAULT_OUTDIR DEFAULT_BUDGET: OUTDIR (GPU_CHECK_OUTDIR, made
# and emptied of logs), BUDGET (GPU_CHECK_BUDGET seconds), START, STAGES (the
# stage list), FAILED, and remaining() (seconds left of the budget).
stages_init() {
    OUTDIR=${GPU_CHECK_OUTDIR:-$1}
    mkdir -p "$OUTDIR" "$ROOT/bench/out"
    OUTDIR=$(cd "$OUTDIR" && pwd)
    BUDGET=${GPU_CHECK_BUDGET:-$2}
    START=$(date +%s)
    STAGES="$OUTDIR/stages.txt"
    : > "$STAGES"
    rm -f "$OUTDIR"/*.jsonl "$OUTDIR"/*.log
    # the stages that failed, timed out or could not run for lack of time
    FAILED=""
}

remaining() { echo $(( BUDGET - ($(date +%s) - START) )); }

# versions MODULE...: each Python module's version, or why it is missing.
versions() {
    "$PY" - "$@" <<'EOF' 2>&1
import importlib, sys
for name in sys.argv[1:]:
    try:
        m = importlib.import_module(name)
        print(f"{name}: {getattr(m, '__version__', 'present')}")
    except Exception as exc:
        print(f"{name}: missing ({type(exc).__name__}: {exc})")
EOF
}

# STAGE_RESERVE: seconds kept for the table.
# run_stage NAME LIMIT_SECONDS CMD...: runs CMD with a time limit (cut to
# what is left of the budget, keeping STAGE_RESERVE s (default 15) for the
# table), logs it to
# $OUTDIR/NAME.log, prints its last lines, and records "NAME: status (s)".
run_stage() {
    local name=$1 limit=$2
    shift 2
    local skip
    for skip in ${GPU_CHECK_SKIP:-}; do
        case "$name" in "$skip"|"$skip"_*)
            echo "$name: skipped (GPU_CHECK_SKIP)" >> "$STAGES"; return 0 ;;
        esac
    done
    # PART_SKIP: the stages of the other half (gpu_check.sh's GPU_CHECK_PART)
    case " ${PART_SKIP:-} " in *" $name "*)
        echo "$name: skipped (GPU_CHECK_PART=${GPU_CHECK_PART:-})" >> "$STAGES"; return 0 ;;
    esac
    local left=$(( $(remaining) - ${STAGE_RESERVE:-15} ))
    if [ "$left" -lt 10 ]; then
        echo "== [$name] skipped: time budget spent"
        echo "$name: not run (budget spent)" >> "$STAGES"
        FAILED="$FAILED $name(not-run)"
        return 1
    fi
    [ "$limit" -gt "$left" ] && limit=$left
    echo "== [$name] (limit ${limit}s) $*"
    local t0
    t0=$(date +%s)
    timeout -k 5 "$limit" "$@" > "$OUTDIR/$name.log" 2>&1
    local rc=$?
    local dt=$(( $(date +%s) - t0 ))
    tail -n "${TAIL_LINES:-8}" "$OUTDIR/$name.log" | cut -c1-220
    local what="rc=$rc"
    [ "$rc" -eq 0 ] && what="ok"
    case "$name" in pytest*) [ "$rc" -eq 5 ] && what="no tests collected" ;; esac
    [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ] && what="TIMEOUT after ${limit}s"
    echo "$name: $what (${dt}s)" >> "$STAGES"
    echo "-- [$name] $what in ${dt}s"
    [ "$rc" -eq 0 ] || FAILED="$FAILED $name"
    return $rc
}

# run_stage_bg NAME LIMIT CMD...: run_stage in the background (its console
# lines kept in $OUTDIR/NAME.console until wait_stages prints them), for
# stages that can share the GPU; wait_stages waits for them all and adds
# those that did not pass to FAILED (a background shell cannot).
BG_STAGES=""
run_stage_bg() {
    BG_STAGES="$BG_STAGES $1"
    run_stage "$@" > "$OUTDIR/$1.console" 2>&1 &
}
wait_stages() {
    wait
    local name line
    for name in $BG_STAGES; do
        cat "$OUTDIR/$name.console" 2>/dev/null
        line=$(grep -h "^$name: " "$STAGES" | tail -n 1)
        case "$line" in
            "$name: ok "*|"$name: skipped"*) ;;
            *) FAILED="$FAILED $name" ;;
        esac
    done
    BG_STAGES=""
}
