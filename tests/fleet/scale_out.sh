#!/bin/sh
# Scale-out (docs/scale-out.md): `faultline analyze BUNDLE --db NODE.db` on each node, then
# `faultline fleet --db JOB.db NODE.db...` must give the fleet report `faultline fleet` gives on the
# bundles themselves. The per-node step runs the shipped scripts the way the schedulers would:
#   - Slurm: docs/scale-out/slurm-submit.sh with an `sbatch` stand-in that runs the array's
#     tasks through `xargs -P 2` (SLURM_ARRAY_TASK_ID set, the batch script run from a copy as
#     sbatch does) and the merge job after them;
#   - Kubernetes: the container commands of k8s-indexed-job.yaml and k8s-merge-job.yaml, with
#     JOB_COMPLETION_INDEX set, through `xargs -P 2` (/data mapped to a local folder).
# Data: the 8-node sample samples/fleet-hccl-cascade, and a multi-host HCCL job of one-file
# nodes in the shape of tests/fleet/many_bundles.sh (SetupAgent identity lines, error CQEs whose
# remote is one node's device IP), 120 nodes (more inputs than descriptors) merged under
# `ulimit -n 64`. Then the refusals:
# mixed rules, mixed versions, a database faultline did not write, one without meta, bundles and
# databases mixed (exit 2, the files named), and a node whose analysis failed (reported).
set -eu
bin=$1
src=$2
n=${SCALEOUT_NODES:-120}
work=$(mktemp -d "${TMPDIR:-/tmp}/faultline-scaleout-XXXXXX")
trap 'rm -rf "$work"' EXIT
so="$src/docs/scale-out"
export FAULTLINE_OPTS="--cache-dir $work/cache"
mkdir -p "$work/bin"
ln -s "$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")" "$work/bin/faultline"
PATH="$work/bin:$PATH"
export PATH
fail() {
  echo "FAIL: $*"
  exit 1
}
same_json() {  # a b what: the two fleet reports are equal
  python3 - "$1" "$2" "$3" <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
if a != b:
    for k in sorted(set(a) | set(b)):
        if a.get(k) != b.get(k):
            print(f"FAIL {sys.argv[3]}: key {k} differs:\n  bundles: {json.dumps(a.get(k))}\n  dbs:     {json.dumps(b.get(k))}")
    sys.exit(1)
PY
}

# --- the sample, through the Slurm scripts --------------------------------------------------
mkdir -p "$work/slurm"
ls -d "$src/samples/fleet-hccl-cascade"/node* > "$work/slurm/bundles.txt"
cat > "$work/bin/sbatch" <<'SB'
#!/bin/sh
# stand-in for sbatch: --array=0-N%P runs the tasks through xargs -P 2, then prints a job id;
# a --dependency job runs at once (the array has finished when the first sbatch returns)
array=""
for a in "$@"; do
  case "$a" in --array=*) array=${a#--array=} ;; esac
  script=$a
done
spool=$(mktemp -d)
cp "$script" "$spool/job.sh"   # sbatch runs a copy, not the submitted file
cd "$spool"
if [ -n "$array" ]; then
  range=${array%%\%*}
  seq "${range%-*}" "${range#*-}" | xargs -P 2 -I{} env SLURM_ARRAY_TASK_ID={} sh "$spool/job.sh" || true
  echo 1001
else
  sh "$spool/job.sh"
  echo 1002
fi
rm -rf "$spool"
SB
chmod +x "$work/bin/sbatch"
faultline fleet "$src/samples/fleet-hccl-cascade" -j 2 --cache-dir "$work/cache" --format json -q \
  > "$work/sample-bundles.json" || fail "fleet over the sample's bundles exited $?"
sh "$so/slurm-submit.sh" "$work/slurm/bundles.txt" "$work/slurm/dbs" "$work/slurm/job.db" \
  > "$work/slurm/submit.out" 2> "$work/slurm/submit.err" || { cat "$work/slurm/submit.err"; fail "slurm-submit.sh exited $?"; }
[ "$(ls "$work/slurm/dbs" | grep -c '\.db$')" -eq 8 ] || fail "Slurm array: $(ls "$work/slurm/dbs")"
[ -s "$work/slurm/job.db.html" ] || fail "the Slurm merge job wrote no report"
faultline report --db "$work/slurm/job.db" --format json > "$work/sample-slurm.json"
same_json "$work/sample-bundles.json" "$work/sample-slurm.json" "sample: report of the Slurm merge"
# the same databases named one by one, and by a manifest, give the same report
faultline fleet "$work/slurm/dbs"/*.db --format json > "$work/sample-files.json"
same_json "$work/sample-bundles.json" "$work/sample-files.json" "sample: fleet NODE.db..."
ls "$work/slurm/dbs" | grep '\.db$' | sed 's|^|dbs/|' > "$work/slurm/dbs.txt"
faultline fleet "$work/slurm/dbs.txt" --format json > "$work/sample-manifest.json"
same_json "$work/sample-bundles.json" "$work/sample-manifest.json" "sample: fleet MANIFEST"
python3 - "$work/sample-bundles.json" <<'PY' || fail "sample: first failure"
import json, sys
ff = json.load(open(sys.argv[1]))["first_failure"]
culprits = [(c.get("host"), c.get("rank")) for c in ff.get("culprits", [])]
sys.exit(0 if ("node05", 35) in culprits else 1)
PY

# --- a multi-host HCCL job, through the Kubernetes commands -------------------------------------
mkdir -p "$work/data/job"
culprit=$((n / 2 + 17))
i=1
while [ "$i" -le "$n" ]; do
  d=$(printf '%s/data/job/node%04d' "$work" "$i")
  mkdir -p "$d/process_log/run/plog" "$d/process_log/debug/plog"
  v=25.5.1
  [ $((i % 100)) -eq 0 ] && v=25.3.rc1
  printf '| npu-smi %-26sVersion: %-53s|\n| node%04d\n' "$v" "$v" "$i" > "$d/npu-smi_info.txt"
  pid=$((20000 + i))
  printf '[INFO] HCCL(%d,python3):2024-04-07-18:35:53.395.735 [topoinfo_detect.cc:208][%d][HCCL_TRACE]SetupAgent rankNum[%d], rank[%d], rootInfo identifier[10.20.0.1%%enp179s0f0_60000_0_1712529353144389], server[10.20.%d.%d%%enp179s0f0], logicDevId[0], phydevId[0], deviceIp[192.168.%d.%d]\n' \
    "$pid" "$pid" "$n" "$((i - 1))" "$((i / 250))" "$((i % 250 + 1))" "$((i / 250))" "$((i % 250 + 1))" \
    > "$d/process_log/run/plog/plog-${pid}_20240407183553145.log"
  if [ "$i" -ne "$culprit" ]; then
    printf '[ERROR] HCCL(%d,python):2024-04-08-02:55:04.773.698 [heartbeat.cc:551][%d][283707][Heartbeat]cqe err status[12], time:[2024-04-08 02:55:04.099518], ip:[192.168.%d.%d]\n' \
      "$pid" "$pid" "$((culprit / 250))" "$((culprit % 250 + 1))" > "$d/process_log/debug/plog/plog-${pid}_20240408025504900.log"
  fi
  i=$((i + 1))
done
ls -d "$work/data/job"/node* > "$work/data/bundles.txt"
python3 - "$so" "$work" > "$work/k8s-node.sh" 3> "$work/k8s-merge.sh" <<'PY'
# the container commands of the two Jobs, /data and the image's paths mapped to the local run
# (no YAML module needed: the manifests write `command:` as one JSON flow list)
import json, os, re, shlex, sys
so, work = sys.argv[1:3]
def command(f):
    text = open(os.path.join(so, f)).read()
    m = re.search(r"^\s*command: (\[.*\])\s*$", text, re.M)
    args = [a.replace("/usr/local/lib/faultline/", so + "/").replace("/data", work + "/data")
            for a in json.loads(m.group(1))]
    return text, " ".join(shlex.quote(a) for a in args)
text, node = command("k8s-indexed-job.yaml")
assert re.search(r"^\s*completionMode: Indexed\s*$", text, re.M)
print(node)  # FAULTLINE_OPTS of the manifest is replaced by the test's cache directory
_, merge = command("k8s-merge-job.yaml")
os.write(3, (merge + "\n").encode())
PY
seq 0 $((n - 1)) | xargs -P 2 -I{} env JOB_COMPLETION_INDEX={} sh "$work/k8s-node.sh" \
  || fail "the Indexed Job's pods exited non-zero"
[ "$(ls "$work/data/dbs" | grep -c '\.db$')" -eq "$n" ] || fail "$(ls "$work/data/dbs" | grep -c '\.db$') per-node databases, expected $n"
[ "$(ls -a "$work/data/dbs" | grep -c '^\.node')" -eq 0 ] || fail "half-written databases left"
(
  ulimit -n 64
  sh "$work/k8s-merge.sh"
) 2> "$work/merge.err" || { cat "$work/merge.err"; fail "the merge Job under ulimit -n 64 exited $?"; }
[ -s "$work/data/job.html" ] || fail "the merge Job wrote no report"
faultline report --db "$work/data/job.db" --format json > "$work/job-dbs.json"
TMPDIR="$work" faultline fleet "$work/data/job" -j 2 --cache-dir "$work/cache" --format json -q > "$work/job-bundles.json" \
  || fail "fleet over the job's bundles exited $?"
same_json "$work/job-bundles.json" "$work/job-dbs.json" "HCCL job: fleet over the per-node databases"
python3 - "$work/job-dbs.json" "$n" "$culprit" <<'PY' || fail "HCCL job: report"
import json, sys
d = json.load(open(sys.argv[1])); n = int(sys.argv[2]); c = int(sys.argv[3])
ff = d.get("first_failure") or {}
culprits = [(x.get("host"), x.get("rank")) for x in ff.get("culprits", [])]
ok = (len(d["bundles"]) == n and d["summary"]["failed"] == 0 and ff.get("rule") == "roce-cqe"
      and culprits == [("node%04d" % c, c - 1)])
if not ok:
    print(len(d["bundles"]), d["summary"]["failed"], ff.get("rule"), culprits[:3])
sys.exit(0 if ok else 1)
PY

# --- refusals -----------------------------------------------------------------------------------
expect_refusal() {  # what pattern... -- command: exit 2, stderr names every pattern
  what=$1
  shift
  pats=""
  while [ "$1" != "--" ]; do
    pats="$pats
$1"
    shift
  done
  shift
  rc=0
  "$@" > /dev/null 2> "$work/refusal.err" || rc=$?
  [ "$rc" -eq 2 ] || { cat "$work/refusal.err"; fail "$what: exit $rc, expected 2"; }
  echo "$pats" | while IFS= read -r p; do
    [ -z "$p" ] || grep -qF -- "$p" "$work/refusal.err" || { cat "$work/refusal.err"; fail "$what: stderr does not say '$p'"; }
  done
}
r="$work/refusals"
mkdir -p "$r/rules/signatures"
b1=$(sed -n 1p "$work/slurm/bundles.txt")
b2=$(sed -n 2p "$work/slurm/bundles.txt")
# other rules: the built-in hccl pack with one more comment line (a different text = other rules)
cat "$src/rules/signatures/hccl.yaml" > "$r/rules/signatures/hccl.yaml"
echo "# local change" >> "$r/rules/signatures/hccl.yaml"
faultline analyze "$b2" --db "$r/other-rules.db" --no-report -q --rules "$r/rules" $FAULTLINE_OPTS
expect_refusal "mixed rules" "different faultline versions or rules" "$work/slurm/dbs/node01.db" "$r/other-rules.db" -- \
  faultline fleet "$work/slurm/dbs/node01.db" "$r/other-rules.db"
cp "$work/slurm/dbs/node03.db" "$r/old.db"
sqlite3 "$r/old.db" "UPDATE meta SET value='0.0.9' WHERE key='faultline_version'"
expect_refusal "mixed versions" "faultline 0.0.9" "$r/old.db" "$work/slurm/dbs/node01.db" -- \
  faultline fleet "$work/slurm/dbs/node01.db" "$r/old.db"
cp "$work/slurm/dbs/node03.db" "$r/no-meta.db"
sqlite3 "$r/no-meta.db" "DELETE FROM meta"
expect_refusal "no meta" "$r/no-meta.db: records no faultline version" -- \
  faultline fleet "$work/slurm/dbs/node01.db" "$r/no-meta.db"
sqlite3 "$r/foreign.db" "CREATE TABLE t(x); INSERT INTO t VALUES(1)"
expect_refusal "foreign database" "$r/foreign.db: a SQLite database not written by faultline" -- \
  faultline fleet "$work/slurm/dbs/node01.db" "$r/foreign.db"
expect_refusal "bundles and databases" "not both" -- faultline fleet "$work/slurm/dbs/node01.db" "$b1"
# a node whose bundle cannot be read: its database says so, the merge reports it and goes on
# (a truncated zstd stream: a file that is no archive at all is read as one text file)
head -c 100000 /dev/urandom > "$r/blob.bin"
tar cf - -C "$r" blob.bin | zstd -q -c | head -c 200 > "$r/node99.tar.zst"
rc=0
faultline analyze "$r/node99.tar.zst" --db "$r/node99.db" --no-report -q $FAULTLINE_OPTS 2> /dev/null || rc=$?
[ "$rc" -eq 3 ] || fail "analyze of a broken bundle exited $rc, expected 3"
if [ -f "$r/node99.db" ]; then
  faultline fleet "$work/slurm/dbs/node01.db" "$work/slurm/dbs/node02.db" "$r/node99.db" --format json \
    > "$r/failed.json" 2> "$r/failed.err" || fail "fleet with a failed node exited $?"
  grep -qF "skipped $r/node99.db" "$r/failed.err" || fail "the failed node is not named on stderr"
  python3 -c "import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if d['summary']['failed']==1 else 1)" "$r/failed.json" \
    || fail "the failed node is not reported as failed"
fi
echo ok
