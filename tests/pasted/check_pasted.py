#!/usr/bin/env python3
"""Errors users pasted in public issue trackers reach the finding that names them.

tests/pasted/cases.json holds, per case, the lines of one paste (as posted, launcher prefixes
kept), the URL where it was seen and the finding ids it must produce. Each case is written as a
one-file bundle `paste.txt` (what a support engineer does with a pasted log), analysed with
`faultline analyze --format json` (faultline's own rules, no knowledge base), and every expected
id must be among the findings. Cases under "quiet" are healthy command outputs that must raise
no root cause and no fault event.

  tests/pasted/check_pasted.py BINARY [CASES.json]
Prints 'N passed, M failed' as its last line; exit status 1 on any failure. CASES.json (default
cases.json beside this script) may name another file of the same format, e.g. heldout.json: pastes
set aside unread while rules were written, scored to measure how the rules generalise.
"""
import json
import os
import subprocess
import sys
import tempfile

here = os.path.dirname(os.path.abspath(__file__))
binary = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else
                         os.path.join(here, "..", "..", "build", "faultline"))
cases_file = sys.argv[2] if len(sys.argv) > 2 else os.path.join(here, "cases.json")
doc = json.load(open(cases_file, encoding="utf-8"))
env = dict(os.environ, FAULTLINE_KB="none")


def analyze(lines, work):
    bundle = os.path.join(work, "bundle")
    os.makedirs(bundle)
    with open(os.path.join(bundle, "paste.txt"), "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
    out = subprocess.run([binary, "analyze", bundle, "--format", "json", "--no-kb"],
                         capture_output=True, text=True, env=env)
    # exit 3 "nothing recognised" (docs/report.md "Completeness"): no line of the paste matched
    # anything; the report is still written. A quiet case passes on it (nothing loud was raised),
    # a case that expects findings fails on its empty findings.
    nothing = out.returncode == 3 and "nothing recognised" in out.stderr
    if out.returncode not in (0, 1) and not nothing:
        raise RuntimeError("exit %d: %s" % (out.returncode, out.stderr.strip()[:300]))
    return json.loads(out.stdout).get("findings", [])


passed = failed = 0
for case in doc["cases"] + doc.get("quiet", []):
    quiet = case in doc.get("quiet", [])
    with tempfile.TemporaryDirectory(prefix="faultline-pasted-") as work:
        try:
            findings = analyze(case["lines"], work)
        except (RuntimeError, ValueError) as e:
            failed += 1
            print("FAIL %s: %s" % (case["name"], e))
            continue
    ids = [f["id"] for f in findings]
    if quiet:
        loud = [f["id"] for f in findings if f.get("kind") in ("root_cause", "fault")]
        ok, why = not loud, "raised %s" % loud
    else:
        missing = [e for e in case["expect"] if e not in ids]
        ok, why = not missing, "missing %s (got %s)" % (missing, ids)
    if ok:
        passed += 1
    else:
        failed += 1
        print("FAIL %s (%s): %s" % (case["name"], case.get("seen", ""), why))
print("%d passed, %d failed" % (passed, failed))
sys.exit(1 if failed else 0)
