#!/usr/bin/env python3
"""`faultline diff --format json` follows schema/diff-report.schema.json, and the `node_diff` key of
`fleet --diff --format json` its $defs/node_diff (docs/compare.md). Also: every field of the
reports is declared, a copy without a required field or with an unknown enum value fails, and the
CLI's contract (verdict first in md, --summary, --fail-on-change exit 1, exit 3 on a missing input).
Usage: diff_schema_test.py FAULTLINE_BINARY SOURCE_DIR. Exit 1 on failure.
"""
import copy
import json
import os
import subprocess
import sys

import jsonschema

binary, src = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
failed = passed = 0


def check(ok, what):
    global failed, passed
    if ok:
        passed += 1
    else:
        failed += 1
        print("FAIL " + what)


schema = json.load(open(os.path.join(src, "schema", "diff-report.schema.json")))
jsonschema.Draft202012Validator.check_schema(schema)
v = jsonschema.Draft202012Validator(schema)
nd_schema = dict(schema["$defs"]["node_diff"])
nd = jsonschema.Draft202012Validator(nd_schema)


def run(*args):
    return subprocess.run([binary, *args], capture_output=True, text=True, timeout=600,
                          env={**os.environ, "FAULTLINE_KB": "none"})


good = os.path.join(src, "samples", "healthy-after-driver-upgrade-reboot")
bad = os.path.join(src, "samples", "seed-driver-reboot-pending")
r = run("diff", good, bad, "--format", "json")
check(r.returncode == 0, f"diff json exit {r.returncode}: {r.stderr[:300]}")
doc = json.loads(r.stdout)
errs = list(v.iter_errors(doc))
for e in errs[:5]:
    print("  ", "/".join(map(str, e.absolute_path)), e.message[:200])
check(not errs, "diff json validates")
check(doc["meaningful"] and doc["verdict"].startswith("driver "), "verdict names the driver")


def undeclared(node, d, path):
    out = []
    if isinstance(d, dict) and "properties" in node:
        for k, x in d.items():
            if k not in node["properties"]:
                out.append(path + "/" + k)
            else:
                out += undeclared(node["properties"][k], x, path + "/" + k)
    if isinstance(d, list) and "items" in node:
        for x in d[:50]:
            out += undeclared(node["items"], x, path + "[]")
    return out


u = undeclared(schema, doc, "")
check(not u, f"undeclared fields: {u[:5]}")
for key in schema["required"]:
    broken = copy.deepcopy(doc)
    del broken[key]
    check(not v.is_valid(broken), f"without {key} fails")
if doc["facts"]:
    broken = copy.deepcopy(doc)
    broken["facts"][0]["change"] = "moved"
    check(not v.is_valid(broken), "unknown change value fails")

r = run("diff", good, bad)
check(r.stdout.startswith("# faultline diff\n\n**driver "), "md leads with the verdict")
r = run("diff", good, good, "--summary", "--fail-on-change")
check(r.returncode == 0 and r.stdout.startswith("no meaningful change"),
      f"same bundle twice: {r.returncode} {r.stdout[:200]}")
r = run("diff", good, bad, "--summary", "--fail-on-change")
check(r.returncode == 1, f"--fail-on-change with a change exits 1, got {r.returncode}")
r = run("diff", good, os.path.join(src, "samples", "no-such-bundle"))
check(r.returncode == 3 and "no-such-bundle" in r.stderr, f"missing input: {r.returncode} {r.stderr}")

fleet = os.path.join(src, "samples", "fleet-hccl-cascade")
r = run("fleet", fleet, "--diff", "--format", "json", "-j", "1", "-q")
check(r.returncode in (0, 1), f"fleet --diff exit {r.returncode}: {r.stderr[:300]}")
fdoc = json.loads(r.stdout)
check("node_diff" in fdoc, "fleet --diff json has node_diff")
if "node_diff" in fdoc:
    errs = list(nd.iter_errors(fdoc["node_diff"]))
    check(not errs, f"node_diff validates: {[e.message[:100] for e in errs[:3]]}")
    check(fdoc["node_diff"]["hosts"] == 8, "the 8 nodes are compared")
r = run("fleet", fleet, "--diff", "-j", "1", "-q")
check("## Nodes against the job" in r.stdout, "fleet --diff md has its section")

print(f"{passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
