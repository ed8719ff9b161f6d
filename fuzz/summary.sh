#!/bin/sh
# Sums the runs logged by fuzz/run.sh: per harness, CPU seconds, executions, final corpus size
# and the artifacts (crash-/oom-/timeout-/leak-) written. Usage: fuzz/summary.sh [BUILD_DIR]
dir=${1:-build-fuzz}
printf "%-11s %5s %9s %11s %7s %s\n" harness runs cpu_s execs corpus artifacts
for h in ingest classify parse signatures faultdiag diagnoses analyze serve; do
  set -- "$dir"/logs/"$h"-*.log
  [ -e "$1" ] || continue
  cat "$@" | awk -v h="$h" -v corpus="$(ls "$dir/corpus/$h" 2>/dev/null | wc -l)" \
    -v arts="$(ls "$dir/artifacts/$h" 2>/dev/null | sed 's/-.*//' | sort | uniq -c | awk '{printf "%s%s:%s", s, $2, $1; s=","}')" '
    /^cpu_seconds=/ { split($1, a, "="); split(a[2], b, "+"); cpu += b[1] + b[2]; runs++ }
    /^stat::number_of_executed_units:/ { execs += $2 }
    END { printf "%-11s %5d %9.0f %11d %7d %s\n", h, runs, cpu, execs, corpus, arts }'
done
