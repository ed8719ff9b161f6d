#!/bin/sh
# Runs one libFuzzer harness until it has used SECONDS of CPU time (or 4x that in wall time), at
# the lowest CPU priority (docs/fuzzing.md). CPU time, not wall time: on a shared machine a
# niced fuzzer may get a small share of a core.
# Usage: fuzz/run.sh HARNESS SECONDS [BUILD_DIR] [extra libFuzzer flags...]
#   HARNESS: ingest classify parse signatures faultdiag diagnoses analyze serve
# The corpus grows in BUILD_DIR/corpus/HARNESS (seeds from BUILD_DIR/seeds/HARNESS, made by
# fuzz/make-corpus.py), crashes land in BUILD_DIR/artifacts/HARNESS/, the log in
# BUILD_DIR/logs/HARNESS-<date>.log with the CPU seconds used on its last line.
set -eu
cd "$(dirname "$0")/.."
h=$1; secs=$2; dir=${3:-build-fuzz}
[ $# -ge 3 ] && shift 3 || shift $#
bin=$dir/fuzz/fuzz_$h
[ -x "$bin" ] || { echo "run.sh: $bin missing: cmake --build $dir --target fuzz_$h" >&2; exit 2; }
extra=""
case "$h" in
  # libarchive allocates a size declared in a header up front (read-ahead), untouched when the
  # data is not there: such mallocs are not findings, RSS over 2 GiB still is.
  ingest|analyze) dict=fuzz/dict/archive.dict; maxlen=131072; extra="-malloc_limit_mb=16384" ;;
  parse|classify) dict=fuzz/dict/logs.dict; maxlen=16384 ;;
  signatures|diagnoses) dict=fuzz/dict/yaml.dict; maxlen=16384 ;;
  faultdiag) dict=fuzz/dict/faultdiag.dict; maxlen=16384 ;;
  # twice the harness's upload limit (64 KiB), so that oversize bodies are tried
  serve) dict=fuzz/dict/http.dict; maxlen=131072 ;;
  *) echo "run.sh: unknown harness $h" >&2; exit 2 ;;
esac
mkdir -p "$dir/corpus/$h" "$dir/artifacts/$h" "$dir/logs" "$dir/seeds/$h"
log=$dir/logs/$h-$(date +%Y%m%d-%H%M%S).log
# -timeout: an input running longer than 30 s (wall: the machine is shared) is a hang; -rss_limit_mb: 2 GiB is a finding.
# shellcheck disable=SC2068
nice -n 19 /usr/bin/env time -f "cpu_seconds=%U+%S wall_seconds=%e max_rss_kb=%M" \
  "$bin" -max_total_time=$((secs * 4)) -timeout=30 -rss_limit_mb=2048 -max_len=$maxlen \
  -dict="$dict" -print_final_stats=1 -artifact_prefix="$dir/artifacts/$h/" $extra $@ \
  "$dir/corpus/$h" "$dir/seeds/$h" >"$log" 2>&1 &
tpid=$!
sleep 2
fpid=$(pgrep -P "$tpid" | head -n 1 || true)
tck=$(getconf CLK_TCK)
while [ -n "$fpid" ] && kill -0 "$fpid" 2>/dev/null; do
  used=$(awk -v t="$tck" '{print int(($14+$15)/t)}' "/proc/$fpid/stat" 2>/dev/null || echo 0)
  if [ "$used" -ge "$secs" ]; then kill -INT "$fpid"; break; fi
  sleep 5
done
wait "$tpid" || true
tail -n 25 "$log"
echo "log: $log"
