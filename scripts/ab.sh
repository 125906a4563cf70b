#!/bin/bash
# Interleaved A/B of the game-server benchmark: `scripts/ab.sh ROUNDS DIR_A DIR_B [PYTHON_A] [PYTHON_B]`
# runs `python -m benchmarks.gameserver --games 2 --json` in DIR_A and DIR_B alternately (DIR_B: e.g. a
# `git archive` copy of an older commit) and prints each run's per-title median/p99 in us and the load.
# On a shared machine only such pairs compare two versions. Python: DIR/.venv/bin/python, else this
# checkout's. (The library only: `revenue.server` is mapped by the editable install, so a service A/B
# needs each version installed in its own environment.) With AB_CPU=1 it prints the calling thread's CPU time
# instead of the wall time (cpu_median_ms, cpu_p99_ms): less of what other work on the machine adds.
set -euo pipefail
rounds=$1; dir_a=$2; dir_b=$3
own=$(cd "$(dirname "$0")/.." && pwd)/.venv/bin/python
py_a=${4:-$dir_a/.venv/bin/python}; [ -x "$py_a" ] || py_a=$own
py_b=${5:-$dir_b/.venv/bin/python}; [ -x "$py_b" ] || py_b=$own
for _ in $(seq "$rounds"); do
  for side in A B; do
    if [ $side = A ]; then dir=$dir_a; py=$py_a; else dir=$dir_b; py=$py_b; fi
    (cd "$dir" && "$py" -m benchmarks.gameserver --games 2 --json 2>/dev/null) | python3 -c "
import json, sys
rows = json.load(sys.stdin)
med, p99 = ('cpu_median_ms', 'cpu_p99_ms') if '${AB_CPU:-0}' == '1' else ('median_ms', 'p99_ms')
print('$side', ' '.join('%s %.0f/%.0f' % (r['title'][:4], r[med] * 1000, r[p99] * 1000) for r in rows),
      ' load', open('/proc/loadavg').read().split()[0])"
  done
done
