#!/usr/bin/env python3
"""Issue 35: reports a support engineer pastes into a ticket as they are.

For every sample (the 8-node fleet sample as one job tarball), the real asys collection and a job
tarball of the peer corpus (both skipped when absent):
  - `report --summary` fits the ticket limits (60 lines, 6,000 characters) and its **Verdict**
    line is the full markdown report's, byte for byte; the json `summary` field is the same text;
  - no time of unknown zone (time_quality assumed_utc) carries `Z` in the json report, and the
    markdown says "zone unknown" where the json has such times;
  - the full markdown of the real asys collection and of the 8-node job is under 30,000 characters;
  - with a root cause, the verdict never names a second "first" fault event.
Then: a truncated tar.gz says INCOMPLETE LOAD in its verdict and `--fail-on incomplete` exits 1; a
folder of non-log files exits 3 with "nothing recognised".
Usage: summary_test.py FAULTLINE SOURCE_DIR
"""
import csv
import io
import json
import os
import re
import subprocess
import sys
import tarfile
import tempfile

BIN, SRC = sys.argv[1], sys.argv[2]
SHARED = os.path.join(SRC, "..", "shared", "corpus")
failures = []


def fail(msg):
    failures.append(msg)
    print("FAIL:", msg)


def run(*args):
    env = dict(os.environ, FAULTLINE_KB="none")
    return subprocess.run([BIN, *args], capture_output=True, text=True, env=env)


def verdict_line(md):
    for line in md.splitlines():
        if line.startswith("**Verdict:**"):
            return line
    return None


def check(name, bundle, tmp, full_limit=None):
    db = os.path.join(tmp, re.sub(r"[^A-Za-z0-9]", "_", name) + ".db")
    a = run("analyze", bundle, "--db", db, "--no-report", "-q")
    if a.returncode not in (0, 1):
        fail(f"{name}: analyze exit {a.returncode}: {a.stderr.strip()}")
        return
    full = run("report", "--db", db).stdout
    summ = run("report", "--db", db, "--summary").stdout
    js = json.loads(run("report", "--db", db, "--format", "json").stdout)
    lines, chars = summ.count("\n"), len(summ)
    print(f"{name}: full {len(full)} chars / {full.count(chr(10))} lines; "
          f"summary {chars} chars / {lines} lines")
    if lines > 60 or chars > 6000:
        fail(f"{name}: summary {lines} lines / {chars} characters (limits 60 / 6,000)")
    vf, vs = verdict_line(full), verdict_line(summ)
    if vf is None or vf != vs:
        fail(f"{name}: summary verdict differs:\n  full:    {vf}\n  summary: {vs}")
    if js.get("summary") is None:
        fail(f"{name}: json report has no summary field")
    if any(f["kind"] == "root_cause" for f in js["findings"]) and "; first:" in (vf or ""):
        fail(f"{name}: verdict names a first fault event next to a root cause: {vf}")
    if "Full report:" not in summ.strip().splitlines()[-1]:
        fail(f"{name}: the summary's last line does not say where the full report is")
    unknown = 0
    for t in js["timeline"]:
        if t["time_quality"] == "assumed_utc" and t["time"]:
            unknown += 1
            if t["time"].endswith("Z"):
                fail(f"{name}: timeline time of unknown zone with Z: {t['time']}")
    for f in js["findings"]:
        for e in f["evidence"]:
            if e.get("time_quality") == "assumed_utc" and e["time"] and e["time"].endswith("Z"):
                fail(f"{name}: evidence time of unknown zone with Z: {e['time']}")
    # no time of unknown zone carries Z (md, html) or +00:00 (jsonl, csv) in any format
    for fmt_text, label in ((full, "md"), (run("report", "--db", db, "--format", "html").stdout, "html")):
        m = re.search(r"\d\d:\d\d:\d\d(\.\d+)?Z\)? \(assumed_utc\)", fmt_text)
        if m:
            fail(f"{name}: {label}: a time of unknown zone printed with Z: {m.group(0)}")
    rows = list(csv.reader(io.StringIO(run("report", "--db", db, "--format", "csv").stdout)))
    qi = rows[0].index("time_quality") if rows else 0
    for row in rows[1:]:
        if row[qi] == "assumed_utc" and (row[0].endswith("Z") or row[0].endswith("+00:00")):
            fail(f"{name}: csv: a time of unknown zone with an offset: {row[0]}")
            break
    for line in run("report", "--db", db, "--format", "jsonl").stdout.splitlines():
        e = json.loads(line)
        if e["time_quality"] == "assumed_utc" and (e["datetime"].endswith("Z")
                                                   or e["datetime"].endswith("+00:00")):
            fail(f"{name}: jsonl: a time of unknown zone with an offset: {e['datetime']}")
            break
    if unknown and "zone unknown" not in full:
        fail(f"{name}: {unknown} times of unknown zone but the markdown never says 'zone unknown'")
    if full_limit and len(full) >= full_limit:
        fail(f"{name}: full markdown {len(full)} characters (limit {full_limit})")


with tempfile.TemporaryDirectory() as tmp:
    samples = os.path.join(SRC, "samples")
    for s in sorted(os.listdir(samples)):
        p = os.path.join(samples, s)
        if not os.path.isdir(p):
            continue
        if s == "fleet-hccl-cascade":  # the 8-node job, as the tarball a user would give
            tgz = os.path.join(tmp, "fleet-hccl-cascade.tar.gz")
            with tarfile.open(tgz, "w:gz") as t:
                t.add(p, arcname=s)
            check("8-node job " + s, tgz, tmp, full_limit=30000)
        else:
            check(s, p, tmp)
    real = os.path.join(SHARED, "real", "asys-aicerror")
    if os.path.isdir(real):
        check("real asys-aicerror", real, tmp, full_limit=30000)
    else:
        print("skip: no real corpus")
    peer = os.path.join(SHARED, "peer", "cases", "transport_init_all_workers")
    if os.path.isdir(peer):
        tgz = os.path.join(tmp, "peer-job.tar.gz")
        with tarfile.open(tgz, "w:gz") as t:
            t.add(peer, arcname="transport_init_all_workers")
        check("peer job transport_init_all_workers", tgz, tmp, full_limit=30000)
    else:
        print("skip: no peer corpus")

    # a truncated tar.gz: the verdict's first words say so; --fail-on incomplete exits 1
    tgz = os.path.join(tmp, "seed.tar.gz")
    with tarfile.open(tgz, "w:gz") as t:
        t.add(os.path.join(samples, "seed-driver-reboot-pending"),
              arcname="seed-driver-reboot-pending")
    data = open(tgz, "rb").read()
    cut = os.path.join(tmp, "seed-cut.tar.gz")
    open(cut, "wb").write(data[: len(data) // 2])
    r = run("analyze", cut, "-q", "--summary")
    v = verdict_line(r.stdout) or ""
    if not v.startswith("**Verdict:** INCOMPLETE LOAD:"):
        fail(f"truncated tar.gz: verdict does not start with INCOMPLETE LOAD: {v}")
    if "cut at line" not in r.stdout and "not read" not in r.stdout:
        fail("truncated tar.gz: the summary names no count or consequence")
    r = run("analyze", cut, "-q", "--fail-on", "incomplete")
    if r.returncode != 1:
        fail(f"truncated tar.gz: --fail-on incomplete exit {r.returncode}, want 1")
    r = run("analyze", tgz, "-q", "--fail-on", "incomplete")
    if r.returncode != 0:
        fail(f"whole tar.gz: --fail-on incomplete exit {r.returncode}, want 0")

    # a premise from a cut file: the diagnosis says so and loses confidence
    js = json.loads(run("analyze", cut, "-q", "--format", "json").stdout)
    cut_files = {i["file"] for i in js["issues"] if i["truncated"]}
    for f in js["findings"]:
        if f["kind"] != "fault" and any(e["file"] in cut_files for e in f["evidence"]):
            if not any("cut at line" in m for m in f.get("missing", [])):
                fail(f"truncated tar.gz: {f['id']} cites a cut file and does not say so")
    # fleet honours --fail-on incomplete like analyze
    r = run("fleet", cut, tgz, "-q", "-j", "1", "--fail-on", "incomplete")
    if r.returncode != 1:
        fail(f"fleet with a truncated bundle: --fail-on incomplete exit {r.returncode}, want 1")

    # a folder of non-log files: nothing recognised, exit 3
    junk = os.path.join(tmp, "not-logs")
    os.makedirs(junk)
    with open(os.path.join(junk, "photo.png"), "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(64))
    with open(os.path.join(junk, "notes.txt"), "w") as f:
        f.write("Meeting notes: order more rack rails for row 4.\nCall the vendor on Tuesday.\n")
    r = run("analyze", junk, "-q")
    if r.returncode != 3 or "nothing recognised: 2 files" not in r.stderr:
        fail(f"non-log folder: exit {r.returncode} stderr {r.stderr.strip()!r}, want 3 and "
             "'nothing recognised: 2 files'")
    if "nothing recognised" not in (verdict_line(r.stdout) or ""):
        fail(f"non-log folder: verdict {verdict_line(r.stdout)}")
    junk2 = os.path.join(tmp, "not-logs-2")
    os.makedirs(junk2)
    with open(os.path.join(junk2, "todo.txt"), "w") as f:
        f.write("Buy cables.\n")
    r = run("fleet", junk, junk2, "-q", "-j", "1")
    if r.returncode != 3 or "nothing recognised" not in r.stderr:
        fail(f"fleet of non-log folders: exit {r.returncode} stderr {r.stderr.strip()!r}, want 3 "
             "and 'nothing recognised'")

if failures:
    print(f"{len(failures)} failure(s)")
    sys.exit(1)
print("ok")
