#!/usr/bin/env python3
"""The json reports follow their schemas (schema/report.schema.json, schema/fleet-report.schema.json,
JSON Schema 2020-12; docs/report.md, docs/fleet.md).

Validated: every golden json report (tests/golden/*.json, the analyze reports of the samples; their
`<rules-digest>` placeholder is put back as a digest first, see check_samples.py), a freshly produced
analyze report of one sample and the fleet report of samples/fleet-hccl-cascade (and its `fleet`
object inside a job bundle's report, when there is one). Also:
  - every field present in those reports is declared in the schema (a new field needs its schema
    entry, so the schema keeps listing every current field);
  - negative checks: a copy without a required field, with a wrong type or an unknown enum value
    fails validation (so a renamed or removed field would fail).
Usage: schema_test.py FAULTLINE_BINARY SOURCE_DIR. Prints 'N passed, M failed'; exit 1 on failure.
"""
import copy
import glob
import json
import os
import subprocess
import sys
import tempfile

import jsonschema  # Debian: python3-jsonschema (scripts/install-deps.sh)

binary = os.path.abspath(sys.argv[1])
src = os.path.abspath(sys.argv[2])
passed = failed = 0


def check(ok, what):
    global passed, failed
    if ok:
        passed += 1
    else:
        failed += 1
        print("FAIL " + what)


def load_schema(name):
    s = json.load(open(os.path.join(src, "schema", name)))
    jsonschema.Draft202012Validator.check_schema(s)  # the schema itself is valid 2020-12
    return jsonschema.Draft202012Validator(s), s


report_v, report_s = load_schema("report.schema.json")
fleet_v, fleet_s = load_schema("fleet-report.schema.json")
check(report_s["$schema"] == "https://json-schema.org/draft/2020-12/schema", "report schema dialect")
check(fleet_s["$schema"] == "https://json-schema.org/draft/2020-12/schema", "fleet schema dialect")


def errors(v, doc):
    return sorted(v.iter_errors(doc), key=lambda e: list(e.absolute_path))


def valid(v, doc, label):
    errs = errors(v, doc)
    for e in errs[:5]:
        print(f"  {label}: {'/'.join(map(str, e.absolute_path))}: {e.message[:200]}")
    check(not errs, f"{label}: {len(errs)} schema error(s)")


def resolve(schema, node):
    while isinstance(node, dict) and "$ref" in node:
        node = schema["$defs"][node["$ref"].split("/")[-1]]
    return node


def undeclared(schema, node, doc, path, out):
    """Fields of doc that the schema does not name (maps, additionalProperties schemas, are walked)."""
    node = resolve(schema, node)
    if not isinstance(node, dict):
        return
    for alt in node.get("anyOf", []):
        a = resolve(schema, alt)
        if a.get("type") != "null" and doc is not None:
            undeclared(schema, a, doc, path, out)
    if isinstance(doc, dict):
        props = node.get("properties")
        addl = node.get("additionalProperties")
        for k, v in doc.items():
            if props is not None and k in props:
                undeclared(schema, props[k], v, path + [k], out)
            elif isinstance(addl, dict):
                undeclared(schema, addl, v, path + ["*"], out)
            elif props is not None:
                out.add("/".join(path + [k]))
    elif isinstance(doc, list) and "items" in node:
        for x in doc:
            undeclared(schema, node["items"], x, path + ["[]"], out)


def all_declared(schema, doc, label):
    out = set()
    undeclared(schema, schema, doc, [], out)
    check(not out, f"{label}: fields not in the schema: {sorted(out)[:10]}")


def run(args, **kw):
    r = subprocess.run([binary] + args, cwd=src, capture_output=True, text=True, **kw)
    if r.returncode not in (0, 1):
        raise RuntimeError(f"{args}: exit {r.returncode}: {r.stderr.strip()}")
    return r.stdout


def check_report(doc, label):
    valid(report_v, doc, label)
    all_declared(report_s, doc, label)
    if "fleet" in doc:  # a job bundle: its fleet object is a fleet report
        valid(fleet_v, doc["fleet"], label + " .fleet")
        all_declared(fleet_s, doc["fleet"], label + " .fleet")
        check(doc["first_failure"] == doc["fleet"]["first_failure"], label + ": first_failure is the fleet's")


# 1. every golden json report
goldens = sorted(glob.glob(os.path.join(src, "tests", "golden", "*.json")))
check(len(goldens) >= 20, f"golden json reports found: {len(goldens)}")
digest = "0" * 64
for g in goldens:
    text = open(g).read().replace("<rules-digest>", digest)
    check_report(json.loads(text), os.path.relpath(g, src))

# 2. fresh reports: one sample, the sample fleet (both ways: fleet over the node folders, and the
# fleet folder analysed as one job bundle)
fresh = json.loads(run(["analyze", "-q", "--no-cache", "samples/seed-driver-reboot-pending", "--format", "json"]))
check_report(fresh, "analyze seed-driver-reboot-pending")
check(isinstance(fresh["rules_digest"], str) and len(fresh["rules_digest"]) == 64, "fresh report has a digest")
nodes = sorted(glob.glob(os.path.join(src, "samples", "fleet-hccl-cascade", "node*")))
fleet = json.loads(run(["fleet", "-q", "--no-cache", "-j", "2", "--format", "json"] + nodes))
valid(fleet_v, fleet, "fleet fleet-hccl-cascade")
all_declared(fleet_s, fleet, "fleet fleet-hccl-cascade")
check(fleet["first_failure"] is not None and fleet["first_failure"]["culprits"], "fleet sample has a first failure")
job = json.loads(run(["analyze", "-q", "--no-cache", "samples/fleet-hccl-cascade", "--format", "json"]))
check("fleet" in job, "fleet-hccl-cascade analysed as one bundle is a job (report has .fleet)")
check_report(job, "analyze fleet-hccl-cascade (job)")

# 3. negative checks: a report missing a required field, with a renamed field, a wrong type or an
# unknown enum value does not validate
def invalid(v, doc, label):
    check(bool(errors(v, doc)), f"{label}: expected a schema error, got none")


base = fresh
for path in (["bundle"], ["timeline"], ["rules_digest"], ["bundle", "sha256"], ["findings", 0, "severity"],
             ["findings", 0, "evidence", 0, "file"], ["timeline", 0, "time_quality"], ["timeline", 0, "role"]):
    d = copy.deepcopy(base)
    parent = d
    for p in path[:-1]:
        parent = parent[p]
    del parent[path[-1]]
    invalid(report_v, d, "report without " + "/".join(map(str, path)))
d = copy.deepcopy(base)
d["timeline"][0]["quality"] = d["timeline"][0].pop("time_quality")  # renamed
invalid(report_v, d, "report with timeline time_quality renamed")
d = copy.deepcopy(base)
d["findings"][0]["severity"] = "fatal"
invalid(report_v, d, "report with an unknown severity")
d = copy.deepcopy(base)
d["timeline"][0]["role"] = "culprit"
invalid(report_v, d, "report with an unknown timeline role")
d = copy.deepcopy(base)
d["timeline"][0]["time"] = "2026-05-27 06:03:11"
invalid(report_v, d, "report with a time not in the report's ISO form")
d = copy.deepcopy(base)
d["bundle"]["files"] = "41"
invalid(report_v, d, "report with a string count")
d = copy.deepcopy(base)
d["extra_field_added_later"] = {"x": 1}
check(not errors(report_v, d), "an added field still validates (fields are added)")
for key in ("first_failure", "summary", "bundles", "clock", "roster"):
    d = copy.deepcopy(fleet)
    del d[key]
    invalid(fleet_v, d, f"fleet report without {key}")
d = copy.deepcopy(fleet)
del d["first_failure"]["culprits"]
invalid(fleet_v, d, "fleet report without first_failure.culprits")
d = copy.deepcopy(fleet)
del d["bundles"][0]["root_causes"]
invalid(fleet_v, d, "fleet report with an analysed bundle without root_causes")
d = copy.deepcopy(fleet)
d["bundles"][0]["status"] = "failed"
invalid(fleet_v, d, "fleet report with a failed bundle without error")
d = copy.deepcopy(fleet)
d["hccl"]["source"] = "guessed"
invalid(fleet_v, d, "fleet report with an unknown hccl source")

print(f"{passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
