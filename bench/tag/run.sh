#!/bin/sh
# Tag engine throughput vs ripgrep on the same corpus and the same patterns.
# usage: bench/tag/run.sh [BUILD_DIR] [MB] [RULES_DIR]
#   BUILD_DIR  configured build tree (default: <repo>/build); bench_tag is built in it (-j2)
#   MB         corpus size (default 200); the corpus is kept in $BENCH_DIR (/tmp/faultline-bench-tag)
#   RULES_DIR  rules root holding signatures/ (default: bench_tag's: rules/ or the test packs)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${1:-$root/build}
mb=${2:-200}
rules=${3:-}
work=${BENCH_DIR:-/tmp/faultline-bench-tag}
mkdir -p "$work"
cmake --build "$build" --target bench_tag -j2 >/dev/null
bench="$build/bench/tag/bench_tag"
set -- ; [ -n "$rules" ] && set -- --rules "$rules"

corpus="$work/corpus-$mb.log"
"$bench" gen "$corpus" --mb "$mb" "$@"
cat "$corpus" >/dev/null   # warm the page cache for both tools

"$bench" scan "$corpus" --threads 1 --rounds 5 --patterns-out "$work/patterns.txt" "$@" | tee "$work/tag1.txt"
"$bench" scan "$corpus" --threads 2 --rounds 5 "$@" | tee "$work/tag2.txt"
tag1=$(sed -n 's/^MBPS //p' "$work/tag1.txt")
tag2=$(sed -n 's/^MBPS //p' "$work/tag2.txt")
lines=$(sed -n 's/^LINES //p' "$work/tag1.txt")

if ! command -v rg >/dev/null 2>&1; then
  echo "ripgrep not installed (apt-get install ripgrep): no comparison"
  exit 0
fi
bytes=$(wc -c <"$corpus")
# median of 5 wall times of `rg -c -f patterns.txt corpus` (one file: rg searches it on one thread)
times=""
for i in 1 2 3 4 5; do
  t0=$(date +%s.%N)
  rgcount=$(rg -c -f "$work/patterns.txt" "$corpus" || true)
  t1=$(date +%s.%N)
  times="$times $(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')"
done
med=$(echo $times | tr ' ' '\n' | sort -n | sed -n 3p)
rgmbps=$(awk -v b="$bytes" -v t="$med" 'BEGIN { print b / 1000000 / t }')
printf 'rg -c -f: %.0f MB/s (median of 5), %s matching lines (tag: %s)\n' "$rgmbps" "$rgcount" "$lines"
awk -v a="$tag1" -v b="$tag2" -v r="$rgmbps" \
  'BEGIN { printf "ratio tag/rg: 1 thread %.2fx, 2 threads %.2fx\n", a / r, b / r }'
