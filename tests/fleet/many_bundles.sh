#!/bin/sh
# 1,200 one-file node bundles (each an `npu-smi info` header of its own node, real 98-column
# format) analysed by `faultline fleet` with only 256 file descriptors: each worker keeps one
# temporary database open at a time and the merged database is the only other one, so the open-file
# limit does not grow with the fleet. Checks: exit 0, every bundle in the JSON, none failed, no
# progress line (stderr is not a TTY), no temporary database left behind.
# The nodes are also one HCCL job of as many ranks (issue 14 item 6, scale): every node's process
# announces its identity (SetupAgent line, ascend-fd fixture shape) and every node but one logs an
# error CQE (st_cqe_testcase shape) whose remote is the device IP of node 0617: the first failure
# must name that node, rank and device (rule roce-cqe).
set -eu
bin=$1
n=${FLEET_BUNDLES:-1200}
work=$(mktemp -d "${TMPDIR:-/tmp}/faultline-many-XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir "$work/fleet" "$work/tmp"
i=1
while [ "$i" -le "$n" ]; do
  d=$(printf '%s/fleet/node%04d' "$work" "$i")
  mkdir "$d"
  # the driver of every 100th node lags behind: a minority the drift must show
  v=25.5.1
  [ $((i % 100)) -eq 0 ] && v=25.3.rc1
  printf '| npu-smi %-26sVersion: %-53s|\n| node%04d\n' "$v" "$v" "$i" > "$d/npu-smi_info.txt"
  pid=$((20000 + i))
  mkdir -p "$d/process_log/run/plog" "$d/process_log/debug/plog"
  printf '[INFO] HCCL(%d,python3):2024-04-07-18:35:53.395.735 [topoinfo_detect.cc:208][%d][HCCL_TRACE]SetupAgent rankNum[%d], rank[%d], rootInfo identifier[10.20.0.1%%enp179s0f0_60000_0_1712529353144389], server[10.20.%d.%d%%enp179s0f0], logicDevId[0], phydevId[0], deviceIp[192.168.%d.%d]\n' \
    "$pid" "$pid" "$n" "$((i - 1))" "$((i / 250))" "$((i % 250 + 1))" "$((i / 250))" "$((i % 250 + 1))" \
    > "$d/process_log/run/plog/plog-${pid}_20240407183553145.log"
  if [ "$i" -ne 617 ]; then
    printf '[ERROR] HCCL(%d,python):2024-04-08-02:55:04.773.698 [heartbeat.cc:551][%d][283707][Heartbeat]cqe err status[12], time:[2024-04-08 02:55:04.099518], ip:[192.168.2.118]\n' \
      "$pid" "$pid" > "$d/process_log/debug/plog/plog-${pid}_20240408025504900.log"
  fi
  i=$((i + 1))
done
(
  ulimit -n 256
  TMPDIR="$work/tmp" "$bin" fleet "$work/fleet" -j 2 --no-cache --format json > "$work/out.json" 2> "$work/err.txt"
) || { echo "FAIL: faultline fleet exited $?"; cat "$work/err.txt"; exit 1; }
if [ -s "$work/err.txt" ]; then
  echo "FAIL: unexpected stderr (progress or warnings):"; head -c 2000 "$work/err.txt"; exit 1
fi
left=$(ls "$work/tmp" | grep -c 'faultline-fleet-' || true)
[ "$left" -eq 0 ] || { echo "FAIL: $left temporary databases left in TMPDIR"; exit 1; }
python3 - "$work/out.json" "$n" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
n = int(sys.argv[2])
ok = True
def check(c, what):
    global ok
    if not c:
        ok = False
        print("FAIL " + what)
check(len(d["bundles"]) == n, f"{len(d['bundles'])} bundles in the report, expected {n}")
check(d["summary"]["failed"] == 0, f"{d['summary']['failed']} bundles failed")
check(d["summary"]["hosts"] == n, f"{d['summary']['hosts']} hosts, expected {n}")
minority = sorted(h for h in d["drift"].get("driver.version.loaded", {}).get("25.3.rc1", []))
check(len(minority) == n // 100, f"minority driver on {len(minority)} hosts, expected {n // 100}")
check(d["drift_majority"].get("driver.version.loaded") == "25.5.1", "majority driver version")
ff = d.get("first_failure") or {}
culprits = [(c.get("host"), c.get("rank"), c.get("device")) for c in ff.get("culprits", [])]
if n >= 617:
    check(ff.get("rule") == "roce-cqe", f"first failure rule {ff.get('rule')}, expected roce-cqe")
    check(culprits == [("node0617", 616, 0)], f"culprits {culprits[:5]}, expected node0617 rank 616")
print("ok" if ok else "failed")
sys.exit(0 if ok else 1)
PY
