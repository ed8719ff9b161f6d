#!/usr/bin/env python3
"""Timeline export in the format Timesketch imports (docs/timeline-export.md).

On samples' real exports (`faultline analyze --format jsonl|csv`, `faultline fleet --format jsonl`):
  - jsonl: every line is one JSON object with Timesketch's fields: `message` (string), `datetime`
    (string, ISO 8601 with a zone, parsed by datetime.fromisoformat), `timestamp` (integer
    microseconds since the epoch, equal to `datetime`), `timestamp_desc` (non-empty string), plus
    ours (host, file, line, signature, finding, role, time_quality, kind, bundle, ord);
  - the events it leaves out are exactly the timeline rows without a usable time, and stderr
    counts them;
  - csv: RFC 4180 (Python's csv module reads it back), header row, one record per timeline row
    (untimed ones too), no cell starting with a formula character;
  - hostile text (samples/variant-hostile-encodings) stays inert: no control or bidi character;
  - `report --db` gives the same bytes as `analyze`.
Usage: timeline_export_test.py FAULTLINE_BINARY SOURCE_DIR. Prints 'N passed, M failed'.
"""
import csv
import datetime
import glob
import io
import json
import os
import re
import subprocess
import sys
import tempfile

binary = os.path.abspath(sys.argv[1])
src = os.path.abspath(sys.argv[2])
passed = failed = 0
COLUMNS = ["datetime", "timestamp", "timestamp_desc", "message", "host", "file", "line", "signature",
           "finding", "role", "time_quality", "kind", "bundle", "ord", "level"]
EPOCH = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)
UNSAFE = re.compile("[\x00-\x08\x0a-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def check(ok, what):
    global passed, failed
    if ok:
        passed += 1
    else:
        failed += 1
        print("FAIL " + what)


def run(args):
    r = subprocess.run([binary] + args, cwd=src, capture_output=True)
    if r.returncode not in (0, 1):
        raise RuntimeError(f"{args}: exit {r.returncode}: {r.stderr.decode(errors='replace').strip()}")
    return r.stdout, r.stderr.decode("utf-8", errors="replace")


def check_jsonl(data, label):
    """Every line a Timesketch event; returns the parsed events."""
    text = data.decode("utf-8")  # raises on invalid UTF-8
    check(text.endswith("\n") or not text, f"{label}: ends with a newline")
    events = []
    for n, line in enumerate(text.splitlines(), 1):
        try:
            e = json.loads(line)
        except ValueError as x:
            check(False, f"{label}:{n}: not JSON: {x}")
            continue
        events.append(e)
        ok = isinstance(e, dict)
        ok = ok and isinstance(e.get("message"), str)
        ok = ok and isinstance(e.get("datetime"), str)
        ok = ok and isinstance(e.get("timestamp"), int) and not isinstance(e.get("timestamp"), bool)
        ok = ok and isinstance(e.get("timestamp_desc"), str) and e["timestamp_desc"] != ""
        if not ok:
            check(False, f"{label}:{n}: Timesketch fields missing or of the wrong type: {line[:200]}")
            continue
        try:
            dt = datetime.datetime.fromisoformat(e["datetime"])
        except ValueError:
            check(False, f"{label}:{n}: datetime {e['datetime']!r} is not ISO 8601")
            continue
        # a local time of unknown zone carries no offset (never +00:00); every other time is UTC
        if e.get("time_quality") == "assumed_utc":
            if dt.tzinfo is not None:
                check(False, f"{label}:{n}: unknown-zone datetime {e['datetime']!r} has an offset")
                continue
            dt = dt.replace(tzinfo=datetime.timezone.utc)  # the stored wall time, as Timesketch reads it
        elif dt.tzinfo is None or dt.utcoffset() != datetime.timedelta(0):
            check(False, f"{label}:{n}: datetime {e['datetime']!r} is not UTC with a zone")
            continue
        us = (dt - EPOCH) // datetime.timedelta(microseconds=1)
        if us != e["timestamp"]:
            check(False, f"{label}:{n}: timestamp {e['timestamp']} != datetime {e['datetime']} ({us})")
            continue
        if list(e.keys()) != COLUMNS:
            check(False, f"{label}:{n}: fields {list(e.keys())}, expected {COLUMNS}")
            continue
        if not (isinstance(e["line"], int) and isinstance(e["ord"], int)
                and all(isinstance(e[k], str) for k in ("host", "file", "role", "time_quality", "kind", "bundle"))
                and all(e[k] is None or isinstance(e[k], str) for k in ("signature", "finding"))):
            check(False, f"{label}:{n}: our fields of the wrong type: {line[:200]}")
            continue
        if any(UNSAFE.search(v) for v in e.values() if isinstance(v, str)):
            check(False, f"{label}:{n}: a control or bidi character: {line[:200]}")
            continue
        check(True, "")
    check(bool(events), f"{label}: no events")
    return events


def skipped_of(stderr):
    m = re.search(r"(\d+) timeline event\(s\) without a usable time left out", stderr)
    return int(m.group(1)) if m else 0


def check_csv(data, label):
    text = data.decode("utf-8")
    rows = list(csv.reader(io.StringIO(text, newline=""), strict=True))
    check(rows and rows[0] == COLUMNS, f"{label}: header {rows[0] if rows else None}")
    check(all(len(r) == len(COLUMNS) for r in rows), f"{label}: every record has {len(COLUMNS)} fields")
    check("\n" not in text.replace("\r\n", ""), f"{label}: records end in CRLF, no bare LF")
    bad = [c for r in rows[1:] for c in r if c[:1] in ("=", "+", "-", "@", "\t", "\r")]
    check(not bad, f"{label}: cells starting with a formula character: {bad[:3]}")
    return rows[1:]


def timed(t):
    return t["time"] is not None and t["time_quality"] != "unknown"


for sample in ("seed-driver-reboot-pending", "variant-hostile-encodings", "svm-address-conflict"):
    path = "samples/" + sample
    report = json.loads(run(["analyze", "-q", "--no-cache", path, "--format", "json"])[0])
    tl = report["timeline"]
    out, err = run(["analyze", "--no-cache", path, "--format", "jsonl"])
    every = check_jsonl(out, sample + " jsonl")
    # the report's timeline rows first, then every other error-and-above line (role "event")
    events = [e for e in every if e["role"] != "event"]
    extra = [e for e in every if e["role"] == "event"]
    check(all(e["level"] in ("error", "critical") and e["finding"] is None for e in extra),
          f"{sample}: an added event below error or citing a finding")
    check(any(e["level"] is not None for e in events), f"{sample}: no timeline row has a level")
    want = [t for t in tl if timed(t)]
    check(len(events) == len(want), f"{sample}: {len(events)} jsonl events, {len(want)} timed rows")
    csv_rows = check_csv(run(["analyze", "-q", "--no-cache", path, "--format", "csv"])[0], sample + " csv")
    untimed = sum(1 for r in csv_rows if r[0] == "")
    check(skipped_of(err) == untimed,
          f"{sample}: stderr counts {skipped_of(err)} untimed events, the csv has {untimed}")
    if sample == "seed-driver-reboot-pending":
        check(len(extra) > 100, f"{sample}: only {len(extra)} error lines beyond the timeline")
    for e, t in zip(events, want):
        same = (e["host"], e["file"], e["line"], e["signature"], e["finding"], e["role"], e["time_quality"],
                e["kind"]) == (t["host"], t["file"], t["line"], t["signature"], t["finding"], t["role"],
                               t["time_quality"], t["kind"])
        iso = t["time"][:-1] + "+00:00" if t["time"].endswith("Z") else t["time"]
        check(same and e["datetime"] == iso and e["bundle"] == path,
              f"{sample}: event {e['ord']} differs from the report's timeline row")
        if not UNSAFE.search(t["text"]) and "\\" not in t["text"]:
            check(e["message"] == t["text"], f"{sample}: event {e['ord']} message differs from the text")
    check(len([r for r in csv_rows if r[9] != "event"]) == len(tl),
          f"{sample}: {len(csv_rows)} csv records, {len(tl)} timeline rows")
    check(len(csv_rows) == len(every) + untimed, f"{sample}: csv and jsonl hold different events")

# the hostile sample: its timeline holds text that needs the sanitising (else this proves nothing)
hostile = json.loads(run(["analyze", "-q", "--no-cache", "samples/variant-hostile-encodings", "--format", "json"])[0])
check(any("\ufeff" in t["text"] or UNSAFE.search(t["text"]) or "\\x" in t["text"] for t in hostile["timeline"]),
      "variant-hostile-encodings: its timeline holds hostile text")

# report --db: the same bytes as analyze
with tempfile.TemporaryDirectory() as tmp:
    db = os.path.join(tmp, "case.db")
    a = run(["analyze", "-q", "--no-cache", "samples/seed-driver-reboot-pending", "--db", db, "--format", "jsonl"])[0]
    r = run(["report", "--db", db, "--format", "jsonl"])[0]
    check(a == r, "report --db --format jsonl gives the bytes of analyze")
    ac = run(["analyze", "-q", "--no-cache", "samples/seed-driver-reboot-pending", "--db", db, "--format", "csv"])[0]
    rc = run(["report", "--db", db, "--format", "csv"])[0]
    check(ac == rc, "report --db --format csv gives the bytes of analyze")

# the sample fleet: every node's timeline, one bundle field per node
nodes = sorted(glob.glob(os.path.join(src, "samples", "fleet-hccl-cascade", "node*")))
out, err = run(["fleet", "-q", "--no-cache", "-j", "2", "--format", "jsonl"] + nodes)
events = check_jsonl(out, "fleet jsonl")
check(len({e["bundle"] for e in events}) >= 2, f"fleet jsonl: events of {len({e['bundle'] for e in events})} bundles")
check(len({e["host"] for e in events}) >= 2, "fleet jsonl: events of several hosts")
rows = check_csv(run(["fleet", "-q", "--no-cache", "-j", "2", "--format", "csv"] + nodes)[0], "fleet csv")
check(len(rows) >= len(events), "fleet csv: at least the jsonl's events")

# a bad format names the new ones
r = subprocess.run([binary, "analyze", "samples/healthy-node", "--format", "xml"], cwd=src, capture_output=True, text=True)
check(r.returncode == 2 and "jsonl, csv" in r.stderr, f"--format xml: exit {r.returncode}, {r.stderr.strip()}")

print(f"{passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
