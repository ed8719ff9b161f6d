#!/usr/bin/env python3
"""Every sample bundle produces exactly the findings samples/expected.json promises.

For each single-node sample: analyze it (as a directory, from the source tree, so reports carry the
relative path) and check
  - the first root cause is the expected one, every expected root cause and symptom is present,
  - nothing listed under must_not fires, healthy samples raise no root cause and no fault event,
  - each expected symptom that expected.json says a root cause explains is attached to it,
  - the expected facts are stated with the expected values,
  - the md and json reports equal the golden copies in tests/golden/ (refresh them with
    scripts/update-golden.sh after an intended change, and review the diff).
One sample is also packed as tar.zst and zip at test time: the same findings must come out.
Prints 'N passed, M failed' as its last line; exit status 1 on any failure.
"""
import json
import os
import re
import subprocess
import sys
import tempfile

src = os.path.abspath(sys.argv[2] if len(sys.argv) > 2 else os.path.join(os.path.dirname(__file__), "..", ".."))
binary = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(src, "build", "faultline"))
update = "--update" in sys.argv
golden_dir = os.path.join(src, "tests", "golden")
expected = json.load(open(os.path.join(src, "samples", "expected.json")))

passed = 0
failed = 0


def check(ok, what):
    global passed, failed
    if ok:
        passed += 1
    else:
        failed += 1
        print("FAIL " + what)


# The rules digest changes with every rule edit: goldens hold a placeholder (docs/report.md).
DIGEST_RE = re.compile(r'("rules_digest": "|\| rules \| `)[0-9a-f]{64}')


def normalise(text):
    return DIGEST_RE.sub(lambda m: m.group(1) + "<rules-digest>", text)


def analyze(target, fmt, cwd=src):
    r = subprocess.run([binary, "analyze", "-q", "--no-cache", target, "--format", fmt],
                       cwd=cwd, capture_output=True, text=True)
    if r.returncode not in (0, 1):
        raise RuntimeError(f"{target}: exit {r.returncode}: {r.stderr.strip()}")
    return r.stdout


def check_findings(name, exp, report, label):
    f = report.get("findings", [])
    roots = [x for x in f if x["kind"] == "root_cause"]
    ids = {x["id"] for x in f}
    exp_roots = exp.get("root_causes", [])
    if exp_roots:
        check(bool(roots) and roots[0]["id"] == exp_roots[0],
              f"{label}: first root cause {roots[0]['id'] if roots else None}, expected {exp_roots[0]}")
    else:
        check(not roots, f"{label}: healthy/no-root-cause sample raised {[x['id'] for x in roots]}")
    for rid in exp_roots + exp.get("symptoms", []):
        check(rid in ids, f"{label}: expected finding {rid} missing (got {sorted(ids)})")
    if not exp_roots and not exp.get("symptoms"):
        faults = [x["id"] for x in f if x["kind"] == "fault"]
        check(not faults, f"{label}: healthy sample raised fault events {faults} (docs/faults.md)")
    for fid in exp.get("faults", []):
        check(fid in ids, f"{label}: expected fault event {fid} missing")
    for bad in exp.get("must_not", []):
        check(bad not in ids, f"{label}: must not fire {bad}")
    for root, syms in exp.get("explains", {}).items():
        r = next((x for x in roots if x["id"] == root), None)
        for s in syms:
            check(r is not None and s in r.get("explains", []), f"{label}: {root} should explain {s}")
    return ids


for name, exp in sorted(expected.items()):
    if "per_node" in exp:
        continue  # the fleet sample is checked by the fleet test
    label = name
    try:
        js = analyze(os.path.join("samples", name), "json")
        report = json.loads(js)
    except Exception as e:  # noqa: BLE001 - report and go on with the other samples
        check(False, f"{label}: {e}")
        continue
    check_findings(name, exp, report, label)
    facts = {}
    for fct in report.get("facts", []):
        facts.setdefault(fct["name"], set()).add(str(fct["value"]))
    for k, v in exp.get("facts", {}).items():
        check(str(v) in facts.get(k, set()), f"{label}: fact {k}={v} not stated (got {sorted(facts.get(k, set()))[:5]})")
    md = analyze(os.path.join("samples", name), "md")
    check(DIGEST_RE.search(js) is not None and DIGEST_RE.search(md) is not None,
          f"{label}: the json and md reports carry the rules digest")
    for ext, text in (("json", normalise(js)), ("md", normalise(md))):
        g = os.path.join(golden_dir, f"{name}.{ext}")
        if update:
            os.makedirs(golden_dir, exist_ok=True)
            with open(g, "w") as fh:
                fh.write(text)
        elif os.path.exists(g):
            check(open(g).read() == text, f"{label}: {ext} report differs from {os.path.relpath(g, src)} (scripts/update-golden.sh)")
        else:
            check(False, f"{label}: no golden {os.path.relpath(g, src)} (scripts/update-golden.sh)")

# faultline --version: version, rules digest, the runtime library versions (docs/report.md)
r = subprocess.run([binary, "--version"], capture_output=True, text=True)
vlines = dict(line.split(" ", 1) for line in r.stdout.splitlines() if " " in line)
check(r.returncode == 0 and re.fullmatch(r"[0-9a-f]{64}", vlines.get("rules", "")) is not None,
      f"--version: no rules digest in {r.stdout!r}")
# the regex engine's line is named by the library built with (tests/cli/check_version.py checks which)
engine = "vectorscan" if "vectorscan" in vlines else "hyperscan"
for lib in ("faultline", engine, "libarchive", "sqlite", "zstd"):
    check(re.match(r"\d+\.\d+", vlines.get(lib, "")) is not None, f"--version: no {lib} version in {r.stdout!r}")
# with the built-in rules only, a report's digest is the one --version prints
r = subprocess.run([binary, "analyze", "-q", "--no-cache", "--no-kb", os.path.join("samples", "healthy-node"),
                    "--format", "json"], cwd=src, capture_output=True, text=True)
check(r.returncode in (0, 1) and json.loads(r.stdout).get("rules_digest") == vlines.get("rules"),
      "analyze --no-kb: rules_digest differs from --version's")

# the same sample packed as archives gives the same findings
name = "seed-driver-reboot-pending"
with tempfile.TemporaryDirectory() as tmp:
    r = subprocess.run(["sh", os.path.join(src, "scripts", "pack-samples.sh"), os.path.join(src, "samples", name), tmp],
                       capture_output=True, text=True)
    check(r.returncode == 0, f"pack-samples.sh failed: {r.stderr.strip()}")
    for f in sorted(os.listdir(tmp)):
        try:
            rep = json.loads(analyze(os.path.join(tmp, f), "json"))
            check_findings(name, expected[name], rep, f"{name} as {f}")
        except Exception as e:  # noqa: BLE001
            check(False, f"{name} as {f}: {e}")

print(f"{passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
