#!/usr/bin/env python3
"""Analyst controls (issue 35 item 5, docs/suppress.md) on the seed sample and the sample fleet.

A suppression file drops a signature's lines, a message template and demotes a finding: every
format says "suppressed: N", the dropped lines are gone from md, json and the csv export, the
demoted finding is named only under "Suppressed", `--fail-on` counts only what is shown, and the
report without the file is unchanged. `--min-severity error` leaves lower evidence out and says
so. Bad files and levels are usage errors (exit 2) naming FILE:LINE.
Usage: suppress_test.py FAULTLINE SOURCE_DIR
"""
import json
import os
import subprocess
import sys
import tempfile

BIN, SRC = sys.argv[1], sys.argv[2]
SEED = os.path.join(SRC, "samples", "seed-driver-reboot-pending")
failures = []


def check(cond, msg):
    if not cond:
        failures.append(msg)
        print("FAIL:", msg)


def run(*args):
    env = dict(os.environ, FAULTLINE_KB="none")
    return subprocess.run([BIN, *args], capture_output=True, text=True, env=env)


with tempfile.TemporaryDirectory() as tmp:
    db = os.path.join(tmp, "seed.db")
    r = run("analyze", SEED, "--db", db, "--no-report", "-q")
    check(r.returncode in (0, 1), f"analyze exit {r.returncode}: {r.stderr}")
    sup = os.path.join(tmp, "site.yaml")
    with open(sup, "w") as f:
        f.write(
            "suppress:\n"
            "  - signature: driver.kernel_error\n"
            "    reason: dmesg noise of this driver build\n"
            "  - message: 'Exit code: <n>'\n"
            "    reason: mpirun's own exit summary\n"
            "  - finding: hccl.comm_init_failed\n"
            "    action: demote\n"
            "    reason: tracked in another ticket\n")
    plain = run("report", "--db", db).stdout
    md = run("report", "--db", db, "--suppress", sup).stdout
    check("suppressed: " in md and "| suppressed |" in md, "md has no 'suppressed: N' row")
    check("driver.kernel_error" in plain and "driver.kernel_error" not in md,
          "the suppressed signature is still listed in md")
    check("Exit code: <n>" in plain and "Exit code: <n>" not in md,
          "the suppressed message template is still listed in md")
    head = md.split("## Suppressed")[0]
    check("(`hccl.comm_init_failed`)" not in head and "explained by `hccl.comm_init_failed`" not in head,
          "the demoted finding is still shown above 'Suppressed'")
    check("demoted: a2pod-n042: HCCL communicator initialisation failed" in md,
          "the demoted finding is not named under 'Suppressed'")
    check(run("report", "--db", db).stdout == plain, "a report without --suppress changed")
    js = json.loads(run("report", "--db", db, "--suppress", sup, "--format", "json").stdout)
    s = js.get("suppressed") or {}
    check(s.get("total", 0) > 100, f"json suppressed total {s.get('total')}")
    check([e["action"] for e in s.get("entries", [])] == ["drop", "drop", "demote"],
          "json entries' actions")
    check(s["entries"][0]["lines"] >= 100, "the signature entry counts its lines")
    check(all(f["id"] != "hccl.comm_init_failed" for f in js["findings"]),
          "json still lists the demoted finding")
    for f in js["findings"]:
        for e in f["evidence"]:
            check(e.get("signature") != "driver.kernel_error", "json evidence keeps a dropped line")
    check(not any(t.get("signature") == "driver.kernel_error" for t in js["timeline"]),
          "json timeline keeps a dropped line")
    csv_plain = run("report", "--db", db, "--format", "csv").stdout
    csv = run("report", "--db", db, "--format", "csv", "--suppress", sup).stdout
    check("driver.kernel_error" in csv_plain and "driver.kernel_error" not in csv,
          "the csv export keeps a suppressed signature")
    summ = run("report", "--db", db, "--suppress", sup, "--summary").stdout
    check("suppressed: " in summ, "the summary does not say 'suppressed: N'")
    html = run("report", "--db", db, "--suppress", sup, "--format", "html").stdout
    check("suppressed: " in html and "Suppressed</h2>" in html, "html has no suppressed row/section")

    # --fail-on counts what is shown: suppress every finding of the host
    allh = os.path.join(tmp, "host.yaml")
    with open(allh, "w") as f:
        f.write("suppress:\n  - host: a2pod-*\n    reason: node drained for maintenance\n")
    check(run("analyze", SEED, "-q", "--fail-on", "warning").returncode == 1,
          "seed without suppression should fail on warning")
    r = run("analyze", SEED, "-q", "--fail-on", "warning", "--suppress", allh)
    check(r.returncode == 0, f"every finding suppressed: --fail-on warning exit {r.returncode}")
    check("No findings" in r.stdout or "No root cause" in r.stdout or "nothing" in r.stdout.lower()
          or "**Verdict:**" in r.stdout, "the verdict line is missing")

    # --min-severity
    ms = run("report", "--db", db, "--min-severity", "error").stdout
    check("below --min-severity error:" in ms, "--min-severity is not reported")
    check(run("report", "--db", db, "--min-severity", "loud").returncode == 2,
          "a bad level is not a usage error")

    # bad files: usage errors naming FILE:LINE
    bad = os.path.join(tmp, "bad.yaml")
    for text, want in [("suppress:\n  - signatur: x\n    reason: typo\n", ":2: unknown key"),
                       ("suppress:\n  - signature: x\n", ":2: every entry needs a `reason:`"),
                       ("suppress:\n  - reason: all\n", "matches everything"),
                       ("suppress:\n  - host: n1\n    from: yesterday\n    reason: r\n", "from:"),
                       ("suppress: [\n", "bad.yaml:")]:
        with open(bad, "w") as f:
            f.write(text)
        r = run("report", "--db", db, "--suppress", bad)
        check(r.returncode == 2 and want in r.stderr,
              f"bad file {text!r}: exit {r.returncode}, stderr {r.stderr.strip()!r}")

    # fleet: the sample fleet with a signature suppressed says so
    fleet = os.path.join(SRC, "samples", "fleet-hccl-cascade")
    if os.path.isdir(fleet):
        fdb = os.path.join(tmp, "fleet.db")
        run("fleet", fleet, "--db", fdb, "-q", "-j", "1")
        fs = os.path.join(tmp, "fleet.yaml")
        with open(fs, "w") as f:
            f.write("suppress:\n  - host: node08\n    reason: node08 was drained\n")
        out = run("report", "--db", fdb, "--suppress", fs).stdout
        check("suppressed: " in out, "the fleet report does not say suppressed: N")
        summ = run("report", "--db", fdb, "--suppress", fs, "--summary").stdout
        check("suppressed: " in summ, "the fleet summary does not say suppressed: N")

if failures:
    print(f"{len(failures)} failure(s)")
    sys.exit(1)
print("ok")
