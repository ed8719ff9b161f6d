#!/bin/sh
# shellcheck disable=SC2016,SC2034,SC2012  # checks are eval-ed strings; ls picks the one bundle dir
# Runs scripts/faultline-collect on this machine (normally without an NPU) into a temp dir and
# checks: it finishes, records missing tools in manifest.json, writes a readable archive with the
# documented layout, collects an explicitly named process and redacts secrets unless told not to.
# Usage: tests/collect/test_collect.sh [path/to/faultline-collect]
set -u
here=$(cd "$(dirname "$0")" && pwd)
collect=${1:-$here/../../scripts/faultline-collect}
tmp=$(mktemp -d)
child=
cleanup() { [ -n "$child" ] && kill "$child" 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT INT TERM
fails=0
ok() { printf 'ok   %s\n' "$1"; }
bad() { printf 'FAIL %s\n' "$1"; fails=$((fails + 1)); }
check() { if eval "$2"; then ok "$1"; else bad "$1"; fi; }

# a process to collect: it carries a secret and a variable that only looks like one
env FAULTLINE_TEST_API_TOKEN=s3cr3t-value OBS_SK=sk-value TASK_QUEUE_ENABLE=0 sleep 300 &
child=$!

run_collect() {  # OUTDIR ARGS...
  o=$1; shift
  if command -v timeout >/dev/null 2>&1; then
    timeout 300 sh "$collect" -o "$o" --timeout 10 --since 1 --no-msnpureport --pid "$child" "$@" >"$o.stdout" 2>"$o.stderr"
  else
    sh "$collect" -o "$o" --timeout 10 --since 1 --no-msnpureport --pid "$child" "$@" >"$o.stdout" 2>"$o.stderr"
  fi
}

mkdir -p "$tmp/a" "$tmp/b"
ASCEND_UNIT_TEST_PASSWORD=pw-value run_collect "$tmp/a"
rc=$?
check "collector exits 0" '[ "$rc" -eq 0 ]'
arch=$(cat "$tmp/a.stdout")
case $arch in
  */faultline_*_[0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9].tar.zst|*/faultline_*_[0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9].tar.gz) ok "archive name" ;;
  *) bad "archive name: '$arch'" ;;
esac
check "archive exists" '[ -s "$arch" ]'
mkdir -p "$tmp/x"
case $arch in
  *.zst) zstd -dc "$arch" | tar -C "$tmp/x" -xf - ;;
  *) tar -C "$tmp/x" -xzf "$arch" ;;
esac
d=$(ls -d "$tmp"/x/faultline_* 2>/dev/null | head -n 1)
check "archive holds one faultline_<host>_<ts>/ dir" '[ -n "$d" ] && [ -d "$d" ]'
m=$d/manifest.json
check "manifest.json present" '[ -s "$m" ]'
if command -v python3 >/dev/null 2>&1; then
  python3 - "$m" "$d" <<'PY'
import json, os, sys
m = json.load(open(sys.argv[1]))
d = sys.argv[2]
errs = []
for k in ("collector", "collector_version", "host", "collected_at", "timezone", "commands", "files", "processes", "warnings"):
    if k not in m:
        errs.append("manifest lacks " + k)
cmds = m.get("commands", [])
if len(cmds) < 30:
    errs.append("too few commands: %d" % len(cmds))
for c in cmds:
    for k in ("cmd", "file", "exit", "seconds", "missing"):
        if k not in c:
            errs.append("command entry lacks %s: %r" % (k, c))
    if c.get("file") and not os.path.isfile(os.path.join(d, c["file"])):
        errs.append("listed output missing: " + c["file"])
    if c.get("missing") and c.get("exit") != 127:
        errs.append("missing tool not exit 127: %r" % c)
byname = {c["cmd"]: c for c in cmds}
u = byname.get("uname -a")
if not u or u["exit"] != 0:
    errs.append("uname -a not recorded as run")
if not any(c["cmd"].startswith("npu-smi info") for c in cmds):
    errs.append("npu-smi info not attempted")
npu = byname.get("npu-smi info")
if npu and not npu["missing"] and npu["exit"] == 0 and not os.path.exists("/dev/davinci_manager"):
    errs.append("npu-smi info claims success on a machine without /dev/davinci_manager")
if "T" not in m["collected_at"] or not (m["collected_at"][-5] in "+-"):
    errs.append("collected_at lacks a zone: " + m["collected_at"])
if not any(p.get("pid") for p in m["processes"]):
    errs.append("--pid process not listed")
print("\n".join(errs) if errs else "manifest ok")
sys.exit(1 if errs else 0)
PY
  check "manifest content" '[ $? -eq 0 ]'
else
  check "manifest mentions commands" 'grep -q "\"commands\"" "$m"'
fi
check "manifest records npu-smi" 'grep -q "\"cmd\":\"npu-smi info\"" "$m"'
check "uname output" '[ -s "$d/cmd/uname_-a.txt" ]'
check "/proc/stat with btime" 'grep -q "^btime " "$d/files/proc/stat"'
check "date with zone" 'grep -Eq "^[0-9]+[+-][0-9]{4}$" "$d/cmd/date_epoch_zone.txt"'
check "mountinfo" '[ -s "$d/files/proc/1/mountinfo" ]'
check "ulimit -a" 'grep -q "virtual memory" "$d/cmd/ulimit_-a.txt"'
check "process maps collected" '[ -s "$d/proc/$child/maps" ] && [ -s "$d/proc/$child/cmdline" ]'
env_a=$d/proc/$child/environ
check "environ redacted (TOKEN)" 'tr "\000" "\n" <"$env_a" | grep -qx "FAULTLINE_TEST_API_TOKEN=<redacted>"'
check "environ redacted (_SK)" 'tr "\000" "\n" <"$env_a" | grep -qx "OBS_SK=<redacted>"'
check "secret value absent from bundle" '! grep -rq "s3cr3t-value\|sk-value\|pw-value" "$d"'
check "TASK_QUEUE_ENABLE kept" 'tr "\000" "\n" <"$env_a" | grep -qx "TASK_QUEUE_ENABLE=0"'
check "printenv limited to ASCEND_*/paths" '! grep -qv "^\(ASCEND[A-Z0-9_]*\|LD_LIBRARY_PATH\|PATH\|PYTHONPATH\)=" "$d/cmd/printenv.txt"'
check "printenv redacted" 'grep -qx "ASCEND_UNIT_TEST_PASSWORD=<redacted>" "$d/cmd/printenv.txt"'

ASCEND_UNIT_TEST_PASSWORD=pw-value run_collect "$tmp/b" --no-redact --keep-dir
rc=$?
check "--no-redact run exits 0" '[ "$rc" -eq 0 ]'
db=$(ls -d "$tmp"/b/faultline_*/ 2>/dev/null | head -n 1)
check "--keep-dir keeps the staging dir" '[ -n "$db" ] && [ -d "$db" ]'
check "--no-redact keeps values" 'tr "\000" "\n" <"$db/proc/$child/environ" | grep -qx "FAULTLINE_TEST_API_TOKEN=s3cr3t-value"'
check "--help works" 'sh "$collect" --help | grep -q -- "--since-date"'
check "bad option is a usage error" '! sh "$collect" --bogus >/dev/null 2>&1'

if [ "$fails" -ne 0 ]; then
  echo "$fails check(s) failed"; exit 1
fi
echo "all checks passed"
