#!/bin/sh
# The Slurm path of docs/scale-out.md on a real Slurm: one slurmctld and one slurmd (2 CPUs) on
# this machine, authenticated by a private munged, all started here with a generated minimal
# slurm.conf and stopped by pid at the end. The documented array job (slurm-submit.sh) analyses a
# generated 16-node HCCL job, the documented merge job merges the per-node databases, and the
# merged report must equal `faultline fleet` over the same bundles.
#
#   tests/scale-out/slurm_test.sh FAULTLINE_BINARY SOURCE_DIR
#
# Installs Debian's slurm-wlm and munge when they are missing (root + apt-get); exits 77 (ctest:
# skipped) with the reason when they cannot be installed or the daemons cannot start here.
set -eu
bin=$1
src=$2
nodes=${SLURM_TEST_NODES:-16}
skip() {
  echo "SKIP: $*"
  exit 77
}
fail() {
  echo "FAIL: $*"
  [ -n "${work:-}" ] && for f in "$work"/log/*.log; do [ -f "$f" ] && { echo "--- $f"; tail -20 "$f"; }; done
  exit 1
}

need=""
for t in sbatch slurmctld slurmd munged scontrol; do
  command -v "$t" > /dev/null 2>&1 || [ -x "/usr/sbin/$t" ] || need="slurm-wlm munge"
done
if [ -n "$need" ]; then
  [ "$(id -u)" = 0 ] || skip "slurm-wlm/munge missing and not root (install: apt-get install slurm-wlm munge)"
  command -v apt-get > /dev/null 2>&1 || skip "slurm-wlm/munge missing and no apt-get"
  echo "installing $need"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $need > /dev/null 2>&1 ||
    { apt-get update -qq > /dev/null 2>&1 &&
      DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $need > /dev/null 2>&1; } ||
    skip "could not install $need"
fi
PATH="$PATH:/usr/sbin:/sbin"
export PATH
[ "$(id -u)" = 0 ] || skip "slurmd must run as root to start jobs"

work=$(mktemp -d "${TMPDIR:-/tmp}/faultline-slurm-XXXXXX")
chmod 755 "$work"
pids=""
cleanup() {
  for p in $pids; do kill "$p" 2> /dev/null || true; done
  sleep 1
  for p in $pids; do kill -9 "$p" 2> /dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT INT TERM
mkdir -p "$work/log" "$work/munge" "$work/state" "$work/spool" "$work/bin"
chmod 700 "$work/munge"

# --- munge: a private key, socket and daemon (the system's /etc/munge is left alone) ------------
head -c 1024 /dev/urandom > "$work/munge/munge.key"
chmod 400 "$work/munge/munge.key"
munged --force --key-file="$work/munge/munge.key" --socket="$work/munge/munge.sock" \
  --pid-file="$work/munge/munged.pid" --seed-file="$work/munge/munged.seed" \
  --log-file="$work/log/munged.log" 2> "$work/log/munged-start.log" ||
  skip "munged does not start here: $(cat "$work/log/munged-start.log")"
sleep 1
[ -s "$work/munge/munged.pid" ] || skip "munged wrote no pid file"
pids="$pids $(cat "$work/munge/munged.pid")"

# --- slurm.conf: one node, 2 CPUs, no cgroups, no accounting, free ports on loopback ---------------
host=$(hostname -s)
ports=$(python3 -c 'import socket
s=[socket.socket() for _ in range(2)]
[x.bind(("127.0.0.1",0)) for x in s]
print(" ".join(str(x.getsockname()[1]) for x in s))')
set -- $ports
mem=$(awk '/MemTotal/ {print int($2 / 1024 / 2)}' /proc/meminfo)
cat > "$work/slurm.conf" <<CONF
ClusterName=faultline-test
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$1
SlurmdPort=$2
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$work/munge/munge.sock
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/slurmctld.pid
SlurmdPidFile=$work/slurmd.pid
SlurmctldLogFile=$work/log/slurmctld.log
SlurmdLogFile=$work/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
MpiDefault=none
ReturnToService=2
SlurmdTimeout=60
NodeName=$host NodeAddr=127.0.0.1 CPUs=2 RealMemory=$mem State=UNKNOWN
PartitionName=test Nodes=$host Default=YES MaxTime=INFINITE State=UP
CONF
SLURM_CONF="$work/slurm.conf"
export SLURM_CONF
slurmctld -f "$SLURM_CONF" -i 2> "$work/log/slurmctld-start.log" || fail "slurmctld did not start"
slurmd -f "$SLURM_CONF" 2> "$work/log/slurmd-start.log" || fail "slurmd did not start"
i=0
while [ ! -s "$work/slurmctld.pid" ] || [ ! -s "$work/slurmd.pid" ]; do
  i=$((i + 1))
  [ "$i" -le 30 ] || fail "slurmctld/slurmd wrote no pid file"
  sleep 1
done
pids="$(cat "$work/slurmd.pid") $(cat "$work/slurmctld.pid") $pids"
i=0
until sinfo -h -o '%T' 2> /dev/null | grep -qE '^(idle|mixed|allocated)'; do
  i=$((i + 1))
  [ "$i" -le 60 ] || fail "the node never became idle: $(sinfo 2>&1)"
  sleep 1
done

# --- a 16-node HCCL job: one-file nodes, one node's device IP the remote end of every error CQE ---
job="$work/job"
culprit=$((nodes / 2 + 3))
i=1
while [ "$i" -le "$nodes" ]; do
  d=$(printf '%s/node%02d' "$job" "$i")
  mkdir -p "$d/process_log/run/plog" "$d/process_log/debug/plog"
  printf '| npu-smi 25.5.1                    Version: 25.5.1                                               |\n| node%02d\n' "$i" > "$d/npu-smi_info.txt"
  pid=$((20000 + i))
  printf '[INFO] HCCL(%d,python3):2024-04-07-18:35:53.395.735 [topoinfo_detect.cc:208][%d][HCCL_TRACE]SetupAgent rankNum[%d], rank[%d], rootInfo identifier[10.20.0.1%%enp179s0f0_60000_0_1712529353144389], server[10.20.0.%d%%enp179s0f0], logicDevId[0], phydevId[0], deviceIp[192.168.0.%d]\n' \
    "$pid" "$pid" "$nodes" "$((i - 1))" "$i" "$i" > "$d/process_log/run/plog/plog-${pid}_20240407183553145.log"
  if [ "$i" -ne "$culprit" ]; then
    printf '[ERROR] HCCL(%d,python):2024-04-08-02:55:04.773.698 [heartbeat.cc:551][%d][283707][Heartbeat]cqe err status[12], time:[2024-04-08 02:55:04.099518], ip:[192.168.0.%d]\n' \
      "$pid" "$pid" "$culprit" > "$d/process_log/debug/plog/plog-${pid}_20240408025504900.log"
  fi
  i=$((i + 1))
done
ls -d "$job"/node* > "$work/bundles.txt"

# --- the documented Slurm path: slurm-submit.sh, then wait for the merge job ---------------------
ln -s "$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")" "$work/bin/faultline"
PATH="$work/bin:$PATH"
FAULTLINE_OPTS="--cache-dir $work/cache"
export PATH FAULTLINE_OPTS
cd "$work"
merge=$(sh "$src/docs/scale-out/slurm-submit.sh" "$work/bundles.txt" "$work/dbs" "$work/job.db" 4) ||
  fail "slurm-submit.sh exited $?"
merge=${merge%%;*}
case "$merge" in *[!0-9]* | "") fail "slurm-submit.sh printed no merge job id: $merge" ;; esac
i=0
while squeue -h -o '%i' 2> /dev/null | grep -q .; do
  i=$((i + 1))
  [ "$i" -le 600 ] || fail "the jobs did not finish in 10 minutes: $(squeue 2>&1)"
  sleep 1
done
state=$(scontrol show job "$merge" 2> /dev/null | sed -n 's/.*JobState=\([A-Z_]*\).*/\1/p')
[ -z "$state" ] || [ "$state" = COMPLETED ] || fail "merge job $merge ended $state: $(cat "$work"/faultline-merge-*.log 2>/dev/null)"
[ "$(ls "$work/dbs" | grep -c '\.db$')" -eq "$nodes" ] ||
  fail "the array wrote $(ls "$work/dbs" | grep -c '\.db$') databases, expected $nodes: $(cat "$work"/faultline-node-*.log 2>/dev/null | tail -5)"
[ -s "$work/job.db.html" ] || fail "the merge job wrote no report: $(cat "$work"/faultline-merge-*.log 2>/dev/null)"
faultline report --db "$work/job.db" --format json > "$work/slurm.json"
faultline fleet "$job" -j 2 --cache-dir "$work/cache" --format json -q > "$work/bundles.json" ||
  fail "fleet over the bundles exited $?"
python3 - "$work/bundles.json" "$work/slurm.json" "$nodes" "$culprit" <<'PY' || fail "the Slurm report differs from fleet over the bundles"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
n, c = int(sys.argv[3]), int(sys.argv[4])
bad = [k for k in sorted(set(a) | set(b)) if a.get(k) != b.get(k)]
for k in bad:
    print(f"key {k} differs:\n  fleet: {json.dumps(a.get(k))[:400]}\n  slurm: {json.dumps(b.get(k))[:400]}")
ff = b.get("first_failure") or {}
culprits = [(x.get("host"), x.get("rank")) for x in ff.get("culprits", [])]
if len(b["bundles"]) != n or culprits != [("node%02d" % c, c - 1)]:
    print("report:", len(b["bundles"]), "bundles, culprits", culprits)
    sys.exit(1)
sys.exit(1 if bad else 0)
PY
echo "slurm: $nodes nodes through sbatch array + merge on a real slurmctld/slurmd: 1 passed, 0 failed"
