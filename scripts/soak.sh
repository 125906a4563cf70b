#!/usr/bin/env bash
# Soak: the whole test suite RUNS times in a row (default 10) while two CPU-bound processes compete for
# the cores, as on a busy CI machine; every run must be green. Timing-dependent tests must hold here.
#
#   scripts/soak.sh [RUNS] [pytest arguments...]      e.g. scripts/soak.sh 3 tests/test_server.py
#
# Each run's output goes to $SOAK_LOGS/run-<n>.log (default: a new directory under /tmp); the exit status
# is the number of failed runs (0: all green).
set -u
cd "$(dirname "$0")/.."
runs=${1:-10}
shift || true
python=${PYTHON:-.venv/bin/python}
logs=${SOAK_LOGS:-$(mktemp -d /tmp/revenue-soak.XXXXXX)}
mkdir -p "$logs"

"$python" -c 'while True: pass' & burner1=$!
"$python" -c 'while True: pass' & burner2=$!
trap 'kill "$burner1" "$burner2" 2>/dev/null; wait "$burner1" "$burner2" 2>/dev/null' EXIT

echo "soak: $runs runs of the test suite with 2 CPU-bound competitors (pids $burner1 $burner2); logs in $logs"
failed=0
for run in $(seq 1 "$runs"); do
    started=$(date +%s)
    if "$python" -m pytest -p no:cacheprovider "$@" > "$logs/run-$run.log" 2>&1; then
        verdict="green"
    else
        verdict="FAILED"
        failed=$((failed + 1))
    fi
    summary=$(grep -E "[0-9]+ (passed|failed)" "$logs/run-$run.log" | tail -1)
    echo "run $run/$runs: $verdict in $(( $(date +%s) - started )) s: $summary"
    if [ "$verdict" = FAILED ]; then
        grep -E "^(FAILED|ERROR) " "$logs/run-$run.log" | sed 's/^/    /'
    fi
done
echo "soak: $((runs - failed)) of $runs runs green"
exit "$failed"
