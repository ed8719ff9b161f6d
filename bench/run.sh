#!/usr/bin/env bash
# End-to-end benchmark of faultline against its peers, on the same files, in one run.
#
# usage: bench/run.sh [--size 1G] [--rounds 3] [--nodes 200] [--node-size 2M] [--build DIR]
#                     [--work DIR] [--no-fleet] [--no-bundle] [--fleet-rounds N] [--scale 2G,4G]
#                     [--profile mix,plog]
#
#   --size       uncompressed text of the big bundle (default 1G; quick mode: --size 200M)
#   --profile    data profiles of the big bundle (default both): mix (the asys layout's mix of
#                host, device and firmware logs) and plog (mostly CANN plogs and training
#                console logs, like most real training-job bundles)
#   --rounds     interleaved rounds of every single-bundle measurement; medians are printed
#   --nodes      node bundles in the fleet (default 200), --node-size each (default 2M)
#   --build      configured build tree (default <repo>/build, Release recommended); faultline
#                and bench_gen are built in it with -j2
#   --work       where bundles, results and the rule cache go (default $BENCH_DIR or
#                /tmp/faultline-bench); generated data is reused while bench_gen is unchanged
#   --scale      also analyse bundles of these sizes once each (default and --keep-raw) and
#                print their peak RSS: memory must stay flat as bundles grow
#
# Measures, per round and interleaved: `bsdtar -xOf` of the tar.zst (decompression baseline),
# `faultline analyze` (default, then --keep-raw) with wall, CPU and peak RSS (/usr/bin/time), its
# --stats, `rg -c -f <faultline's patterns>` over the generated tree (the tar's content) on 1 and
# 2 threads, lnav when installed; then the fleet at -j 1 and -j 2, and a warm start on a tiny
# bundle. Prints medians, every ratio and the targets of docs/performance.md.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
size=1G rounds=3 nodes=200 node_size=2M build=$root/build work=${BENCH_DIR:-/tmp/faultline-bench}
do_fleet=1 do_bundle=1 fleet_rounds= scale= profiles=mix,plog
while [ $# -gt 0 ]; do
  case $1 in
    --size) size=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --nodes) nodes=$2; shift 2 ;;
    --node-size) node_size=$2; shift 2 ;;
    --build) build=$2; shift 2 ;;
    --work) work=$2; shift 2 ;;
    --fleet-rounds) fleet_rounds=$2; shift 2 ;;
    --scale) scale=$2; shift 2 ;;
    --profile) profiles=$2; shift 2 ;;
    --no-fleet) do_fleet=0; shift ;;
    --no-bundle) do_bundle=0; shift ;;
    -h|--help) sed -n '2,29p' "$0"; exit 0 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done
fleet_rounds=${fleet_rounds:-$rounds}
mkdir -p "$work/tmp" "$work/cache" "$work/out"
export TMPDIR=$work/tmp   # faultline's temporary databases
export LC_ALL=C

echo "== build ($build)"
cmake --build "$build" --target faultline bench_gen -j2 >/dev/null
fl=$build/faultline
gen=$build/bench/bundle/bench_gen
flopts=(-q --cache-dir "$work/cache")

# ---- helpers ----------------------------------------------------------------------------------
now() { date +%s.%N; }
median() { tr ' ' '\n' | { grep -v '^$' || true; } | sort -g | awk '{a[NR]=$1} END {if (NR==0) print "nan"; else print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
div() { awk -v a="$1" -v b="$2" 'BEGIN { if (b == 0 || a == "nan" || b == "nan") print "nan"; else printf "%.3f", a / b }'; }
mbps() { awk -v b="$1" -v t="$2" 'BEGIN { if (t == 0 || t == "nan") print "nan"; else printf "%.0f", b / 1e6 / t }'; }
# timed NAME CMD... : appends wall, cpu (user+sys) and peak RSS (KB) of one run to $work/out/NAME.*
timed() {
  local name=$1; shift
  local t0 t1
  t0=$(now)
  /usr/bin/time -f "%U %S %M" -o "$work/out/$name.time" "$@" >/dev/null 2>"$work/out/$name.err" || {
    echo "FAILED: $*" >&2; cat "$work/out/$name.err" >&2; return 1; }
  t1=$(now)
  awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.4f ", b - a }' >>"$work/out/$name.wall"
  awk '{ printf "%.3f ", $1 + $2 }' "$work/out/$name.time" >>"$work/out/$name.cpu"
  awk '{ printf "%d ", $3 }' "$work/out/$name.time" >>"$work/out/$name.rss"
}
med() { median <"$work/out/$1.$2"; }
reset() { for n in "$@"; do rm -f "$work/out/$n".{wall,cpu,rss,time,err}; done; }
# generate KEY CMD... : runs a bench_gen command unless its output for the same binary exists
stamp_of() { echo "$(sha256sum "$gen" | cut -c1-16) $*"; }
fresh() { [ -f "$1.stamp" ] && [ "$(cat "$1.stamp")" = "$(stamp_of "${@:2}")" ]; }
pack() {  # pack DIR OUT.tar.zst: deterministic tar, zstd -3 (the zstd CLI default)
  tar --sort=name --mtime=@1746662400 --owner=0 --group=0 --numeric-owner -C "$1" -cf - . |
    zstd -3 -T2 -q -f -o "$2"
}
kb2mb() { awk -v k="$1" 'BEGIN { printf "%.0f", k / 1024 }'; }
tree_bytes() { find "$1" -type f -printf '%s\n' | awk '{s += $1} END {print s + 0}'; }

declare -a table=()
row() { table+=("$(printf '%-34s %9s %9s %9s %8s %10s %8s' "$@")"); }
declare -a checks=()
check() {  # check LABEL VALUE OP LIMIT
  local ok
  ok=$(awk -v v="$2" -v l="$4" -v op="$3" 'BEGIN { if (v == "nan") print "n/a";
       else if (op == ">=") print (v >= l ? "PASS" : "FAIL"); else print (v <= l ? "PASS" : "FAIL") }')
  checks+=("$(printf '%-58s %10s %2s %-8s %s' "$1" "$2" "$3" "$4" "$ok")")
}

# ---- free cores: what parallelism the machine gives right now ------------------------------
# Two copies of a fixed CPU-bound loop, one after the other and then at the same time: the
# speed-up is what any 2-thread or -j 2 figure below can reach at most in this run.
probe() {
  local t0 t1 t2
  t0=$(now); awk 'BEGIN { for (i = 0; i < 2e7; i++) s += i }'; awk 'BEGIN { for (i = 0; i < 2e7; i++) s += i }'
  t1=$(now); awk 'BEGIN { for (i = 0; i < 2e7; i++) s += i }' & awk 'BEGIN { for (i = 0; i < 2e7; i++) s += i }' & wait
  t2=$(now); awk -v a="$t0" -v b="$t1" -v c="$t2" 'BEGIN { printf "%.2f", (b - a) / (c - b) }'
}
cores_before=$(probe)
echo "== free-core probe: 2 CPU-bound loops in parallel run ${cores_before}x faster than in sequence (2.00 = two free cores)"

# ---- tiny bundle: warm start ------------------------------------------------------------------
tiny=$work/tiny
if ! fresh "$tiny" tiny; then
  rm -rf "$tiny" && "$gen" bundle "$tiny" --size 64K --hits 3 --devices 1 2>/dev/null >/dev/null
  pack "$tiny" "$tiny.tar.zst"
  stamp_of tiny >"$tiny.stamp"
fi
"$fl" analyze "$tiny.tar.zst" "${flopts[@]}" >/dev/null   # fills the rule cache

# ---- big bundle, once per data profile ------------------------------------------------------
# ns PROFILE-LABEL CPU_S BYTES: CPU nanoseconds per byte of uncompressed text
nspb() { awk -v c="$1" -v b="$2" 'BEGIN { if (b == 0 || c == "nan") print "nan"; else printf "%.2f", c * 1e9 / b }'; }
# stage_of FILE NAME: the median over rounds of a --stats line's first number (wall s)
# (parts of the streaming pass and the store phase are indented by 4, stages by 2)
stage_of() { { grep -E "^ {2,4}$2 +[0-9]+\.[0-9]+ " "$1" || true; } | awk '{print $2}' | median; }
bundle_profile() {
  local prof=$1 big bytes zbytes files r
  big=$work/bundle-$prof-$size
  local -a corp=()
  # train_log lines (rank/worker console logs) come from the samples: the real corpus has none
  [ "$prof" = plog ] && corp=(--corpus-add "$root/samples")
  if ! fresh "$big" bundle "$prof" "$size"; then
    echo "== generating a $size $prof bundle in $big"
    rm -rf "$big" && "$gen" bundle "$big" --size "$size" --profile "$prof" "${corp[@]}" 2>/dev/null
    pack "$big" "$big.tar.zst"
    stamp_of bundle "$prof" "$size" >"$big.stamp"
  fi
  "$gen" patterns "$work/patterns.txt" >/dev/null
  bytes=$(tree_bytes "$big")
  zbytes=$(stat -c %s "$big.tar.zst")
  files=$(find "$big" -type f | wc -l)
  echo "== $prof bundle: $files files, $bytes bytes of text, tar.zst $zbytes bytes; $rounds rounds"
  cat "$big.tar.zst" >/dev/null; find "$big" -type f -exec cat {} + >/dev/null  # page cache
  have_rg=0; command -v rg >/dev/null && have_rg=1
  have_lnav=0; command -v lnav >/dev/null && have_lnav=1
  local p=$prof-
  reset ${p}bsdtar ${p}fl ${p}fl1 ${p}flraw ${p}rg1 ${p}rg2 ${p}lnav
  rm -f "$work/out/${p}fl.stats" "$work/out/${p}flraw.stats"
  for r in $(seq "$rounds"); do
    echo "   round $r/$rounds"
    timed ${p}bsdtar bsdtar -xOf "$big.tar.zst"
    timed ${p}fl "$fl" analyze "$big.tar.zst" "${flopts[@]}" --stats
    { echo "-- round $r"; cat "$work/out/${p}fl.err"; } >>"$work/out/${p}fl.stats"
    # the same on one core: with the 2-core run, the parallel fraction (Amdahl)
    timed ${p}fl1 taskset -c 0 "$fl" analyze "$big.tar.zst" "${flopts[@]}"
    timed ${p}flraw "$fl" analyze "$big.tar.zst" "${flopts[@]}" --stats --keep-raw
    { echo "-- round $r"; cat "$work/out/${p}flraw.err"; } >>"$work/out/${p}flraw.stats"
    if [ $have_rg = 1 ]; then
      # --no-unicode: ASCII classes like Hyperscan's (with Unicode \w/\d/\s and (?i) rg falls
      # off its DFA on this pattern set: ~7 MB/s, measured once, docs/performance.md)
      timed ${p}rg1 sh -c "rg --no-unicode -c -j1 -f '$work/patterns.txt' '$big' > '$work/out/rg.count' || true"
      timed ${p}rg2 sh -c "rg --no-unicode -c -j2 -f '$work/patterns.txt' '$big' > /dev/null || true"
    fi
    if [ $have_lnav = 1 ]; then
      mkdir -p "$work/lnav-home"
      timed ${p}lnav sh -c "HOME='$work/lnav-home' lnav -n -c ';SELECT count(*) FROM all_logs' -r '$big' > /dev/null"
    fi
  done
  local bs fw fw1 frw bs_rate r1 r2 lw tag_s tag_rate par s8 cpu
  bs=$(med ${p}bsdtar wall); fw=$(med ${p}fl wall); fw1=$(med ${p}fl1 wall); frw=$(med ${p}flraw wall)
  bs_rate=$(mbps "$bytes" "$bs")
  table=()
  row "[$prof] tool" "wall s" "cpu s" "MB/s" "x bsdtar" "peak RSS MB" "CPU ns/B"
  row "bsdtar -xOf (decompress only)" "$bs" "$(med ${p}bsdtar cpu)" "$bs_rate" "1.00" "$(kb2mb "$(med ${p}bsdtar rss)")" "$(nspb "$(med ${p}bsdtar cpu)" "$bytes")"
  row "faultline analyze" "$fw" "$(med ${p}fl cpu)" "$(mbps "$bytes" "$fw")" "$(div "$bs" "$fw")" "$(kb2mb "$(med ${p}fl rss)")" "$(nspb "$(med ${p}fl cpu)" "$bytes")"
  row "faultline analyze, 1 core" "$fw1" "$(med ${p}fl1 cpu)" "$(mbps "$bytes" "$fw1")" "$(div "$bs" "$fw1")" "$(kb2mb "$(med ${p}fl1 rss)")" "$(nspb "$(med ${p}fl1 cpu)" "$bytes")"
  row "faultline analyze --keep-raw" "$frw" "$(med ${p}flraw cpu)" "$(mbps "$bytes" "$frw")" "$(div "$bs" "$frw")" "$(kb2mb "$(med ${p}flraw rss)")" "$(nspb "$(med ${p}flraw cpu)" "$bytes")"
  if [ $have_rg = 1 ]; then
    r1=$(med ${p}rg1 wall); r2=$(med ${p}rg2 wall)
    row "rg --no-unicode -c -f -j1 (search)" "$r1" "$(med ${p}rg1 cpu)" "$(mbps "$bytes" "$r1")" "$(div "$bs" "$r1")" "$(kb2mb "$(med ${p}rg1 rss)")" "$(nspb "$(med ${p}rg1 cpu)" "$bytes")"
    row "rg --no-unicode -c -f -j2 (search)" "$r2" "$(med ${p}rg2 cpu)" "$(mbps "$bytes" "$r2")" "$(div "$bs" "$r2")" "$(kb2mb "$(med ${p}rg2 rss)")" "$(nspb "$(med ${p}rg2 cpu)" "$bytes")"
  else
    row "rg: not installed (apt-get install ripgrep)" "-" "-" "-" "-" "-" "-"
  fi
  if [ $have_lnav = 1 ]; then
    lw=$(med ${p}lnav wall)
    row "lnav -n -r (load + count query)" "$lw" "$(med ${p}lnav cpu)" "$(mbps "$bytes" "$lw")" "$(div "$bs" "$lw")" "$(kb2mb "$(med ${p}lnav rss)")" "$(nspb "$(med ${p}lnav cpu)" "$bytes")"
  else
    row "lnav: not installed (skipped)" "-" "-" "-" "-" "-" "-"
  fi
  echo
  printf '%s\n' "${table[@]}"
  echo
  # per stage: thread time inside each stage (medians over rounds), in ns per byte of text
  echo "[$prof] stages, ns per byte of text (median of the --stats of $rounds default rounds):"
  local st
  for st in read sha256 tag parse rows raw index clocks; do
    local v; v=$(stage_of "$work/out/${p}fl.stats" "$st")
    [ "$v" = nan ] && continue
    printf '  %-8s %7s\n' "$st" "$(nspb "$v" "$bytes")"
  done
  for st in rules correlate; do
    local v; v=$(stage_of "$work/out/${p}fl.stats" "$st")
    printf '  %-8s %7s s\n' "$st" "$v"
  done
  echo "faultline --stats (last default round):"
  awk '/^-- round/ {buf=""} {buf = buf $0 "\n"} END {printf "%s", buf}' "$work/out/${p}fl.stats" | grep -v '^-- round'
  if [ $have_rg = 1 ]; then
    rglines=$(awk -F: '{s += $NF} END {print s + 0}' "$work/out/rg.count")
    echo "rg matching lines: $rglines (every pattern on every file; faultline applies a signature to its kinds only)"
  fi
  # Amdahl: speed-up S on 2 cores gives the parallel fraction p = 2 (1 - 1/S); on N cores the
  # speed-up is 1 / ((1 - p) + p / N). bsdtar is one thread: its rate does not change with N.
  par=$(awk -v a="$fw1" -v b="$fw" 'BEGIN { s = a / b; printf "%.2f", 2 * (1 - 1 / s) }')
  s8=$(awk -v p="$par" 'BEGIN { if (p < 0) p = 0; if (p > 1) p = 1; printf "%.2f", 1 / ((1 - p) + p / 8) }')
  echo "[$prof] 1 -> 2 cores: $(div "$fw1" "$fw")x, parallel fraction $par, predicted 8-core speed-up over 1 core ${s8}x"
  cpu=$(nspb "$(med ${p}fl cpu)" "$bytes")
  local lim=3.0; [ "$prof" = plog ] && lim=3.5
  check "[$prof] analyze CPU ns per byte" "$cpu" "<=" "$lim"
  check "[$prof] analyze / bsdtar -xOf rate, 2 cores" "$(div "$bs" "$fw")" ">=" 0.3
  check "[$prof] analyze / bsdtar, predicted on 8 cores" "$(awk -v b="$bs" -v w="$fw1" -v s="$s8" 'BEGIN { printf "%.3f", b / w * s }')" ">=" 0.6
  if [ $have_rg = 1 ]; then
    tag_s=$(stage_of "$work/out/${p}fl.stats" tag)
    tag_rate=$(mbps "$bytes" "$tag_s")
    check "[$prof] tag stage / rg -c -f -j1 rate (tag $tag_rate MB/s)" "$(div "$tag_rate" "$(mbps "$bytes" "$r1")")" ">=" 1.0
  fi
  check "[$prof] peak RSS MiB, analyze $size" "$(kb2mb "$(med ${p}fl rss)")" "<=" 512
  check "[$prof] peak RSS MiB, analyze --keep-raw $size" "$(kb2mb "$(med ${p}flraw rss)")" "<=" 512
}
if [ "$do_bundle" = 1 ]; then
  for prof in ${profiles//,/ }; do bundle_profile "$prof"; done
fi

if [ -n "$scale" ]; then
  # ---- memory as bundles grow -----------------------------------------------------------------
  echo
  printf '%-34s %9s %9s %9s %12s\n' "scale (one run each)" "wall s" "cpu s" "MB/s" "peak RSS MB"
  for sz in ${scale//,/ }; do
    sb=$work/bundle-$sz
    if ! fresh "$sb" bundle "$sz"; then
      echo "== generating a $sz bundle in $sb"
      rm -rf "$sb" && "$gen" bundle "$sb" --size "$sz" 2>/dev/null
      pack "$sb" "$sb.tar.zst"
      stamp_of bundle "$sz" >"$sb.stamp"
    fi
    sbytes=$(tree_bytes "$sb")
    cat "$sb.tar.zst" >/dev/null
    for mode in default keep-raw; do
      n=scale-$sz-$mode
      reset "$n"
      if [ $mode = default ]; then timed "$n" "$fl" analyze "$sb.tar.zst" "${flopts[@]}"
      else timed "$n" "$fl" analyze "$sb.tar.zst" "${flopts[@]}" --keep-raw; fi
      w=$(med "$n" wall)
      printf '%-34s %9s %9s %9s %12s\n' "analyze $sz ($mode)" "$w" "$(med "$n" cpu)" "$(mbps "$sbytes" "$w")" "$(kb2mb "$(med "$n" rss)")"
      check "peak RSS MiB, analyze $sz $mode" "$(kb2mb "$(med "$n" rss)")" "<=" 512
    done
  done
fi

if [ "$do_fleet" = 1 ]; then
  # ---- fleet ----------------------------------------------------------------------------------
  fl_dir=$work/fleet-$nodes-$node_size
  if ! fresh "$fl_dir" fleet "$nodes" "$node_size"; then
    echo "== generating a fleet of $nodes x $node_size in $fl_dir"
    rm -rf "$fl_dir" "$fl_dir.src" && "$gen" fleet "$fl_dir.src" --nodes "$nodes" --node-size "$node_size" 2>/dev/null
    mkdir -p "$fl_dir"
    for d in "$fl_dir.src"/node-*; do pack "$d" "$fl_dir/$(basename "$d").tar.zst"; done
    fbytes=$(tree_bytes "$fl_dir.src")
    echo "$fbytes" >"$fl_dir.bytes"
    rm -rf "$fl_dir.src"
    stamp_of fleet "$nodes" "$node_size" >"$fl_dir.stamp"
  fi
  fbytes=$(cat "$fl_dir.bytes")
  cat "$fl_dir"/*.tar.zst >/dev/null
  echo "== fleet: $nodes bundles, $fbytes bytes of text; $fleet_rounds rounds"
  reset fleet1 fleet2
  rm -f "$work/out/pair.ceiling" "$work/out/pair.share"
  for r in $(seq "$fleet_rounds"); do
    echo "   round $r/$fleet_rounds"
    timed fleet1 "$fl" fleet "$fl_dir" -j 1 --cache-dir "$work/cache" --stats
    timed fleet2 "$fl" fleet "$fl_dir" -j 2 --cache-dir "$work/cache" --stats
    # The ceiling of -j 2 on this machine in this round: two independent `fleet -j 1` runs of
    # the same job at once (same code, same memory traffic, no shared lock or database) against
    # the -j 1 run just before. A machine whose two cores share more than they seem to (or that
    # other tenants load) shows it here, not only in the -j 2 figure.
    p0=$(now)
    "$fl" fleet "$fl_dir" -j 1 --cache-dir "$work/cache" -q -o /dev/null &
    "$fl" fleet "$fl_dir" -j 1 --cache-dir "$work/cache" -q -o /dev/null
    wait
    p1=$(now)
    # this round's -j 1 and -j 2 walls: the last of each file; pair: both -j 1 runs at once
    j1=$(awk '{print $NF}' "$work/out/fleet1.wall")
    j2=$(awk '{print $NF}' "$work/out/fleet2.wall")
    awk -v a="$j1" -v b="$j2" -v p0="$p0" -v p1="$p1" -v cf="$work/out/pair.ceiling" \
      -v sf="$work/out/pair.share" \
      'BEGIN { c = 2 * a / (p1 - p0); printf "%.3f ", c >>cf; printf "%.3f ", (a / b) / c >>sf }'
  done
  f1=$(med fleet1 wall); f2=$(med fleet2 wall)
  echo
  printf '%-34s %9s %9s %9s %10s\n' "fleet ($nodes bundles)" "wall s" "cpu s" "MB/s" "peak RSS MB"
  printf '%-34s %9s %9s %9s %10s\n' "fleet -j 1" "$f1" "$(med fleet1 cpu)" "$(mbps "$fbytes" "$f1")" "$(kb2mb "$(med fleet1 rss)")"
  printf '%-34s %9s %9s %9s %10s\n' "fleet -j 2" "$f2" "$(med fleet2 cpu)" "$(mbps "$fbytes" "$f2")" "$(kb2mb "$(med fleet2 rss)")"
  echo "fleet --stats (last -j 2 round):"
  cat "$work/out/fleet2.err"
  echo "-j 2 ceiling in these rounds (two -j 1 runs at once): $(median <"$work/out/pair.ceiling")x;" \
    "-j 2 reached $(median <"$work/out/pair.share") of it (median of per-round ratios)"
  check "fleet -j 2 speed-up over -j 1" "$(div "$f1" "$f2")" ">=" 1.85
  check "fleet -j 2 share of the two-run ceiling" "$(median <"$work/out/pair.share")" ">=" 0.95
fi

# ---- warm start -------------------------------------------------------------------------------
reset warm
for i in 1 2 3 4 5 6 7; do timed warm "$fl" analyze "$tiny.tar.zst" "${flopts[@]}"; done
warm=$(med warm wall)
echo
echo "warm start (cached rule database, $(tree_bytes "$tiny") byte bundle): $(awk -v w="$warm" 'BEGIN {printf "%.0f", w * 1000}') ms median of 7"
check "warm start on a tiny bundle, ms" "$(awk -v w="$warm" 'BEGIN {printf "%.0f", w * 1000}')" "<=" 100

cores_after=$(probe)
echo
echo "free-core probe: ${cores_before}x before, ${cores_after}x after (2.00 = two free cores; parallel"
echo "figures above could reach at most about that)"
echo "targets (ratios measured in this run; load average: $(cut -d' ' -f1-3 /proc/loadavg)):"
printf '%s\n' "${checks[@]}"
