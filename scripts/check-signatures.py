#!/usr/bin/env python3
"""Dev aid: validate rules/signatures/*.yaml without building faultline.

Checks the schema of every signature pack, that ids are unique and carry their family as
prefix, that patterns stay inside the Hyperscan subset and inside one line, and runs every
example through the patterns with Python `re` (close to Hyperscan for this subset) and through
the capture pattern (PCRE2 `(?<name>` translated to Python `(?P<name>`).

`faultline rules test` later runs the same examples through Hyperscan + PCRE2; this script only
catches mistakes early.

Usage: scripts/check-signatures.py [RULES_DIR] [--list] [--stats] [--dump-tsv FILE]
Exit status: 0 clean, 1 problems found.
"""
import argparse
import os
import re
import sys

import yaml

KINDS = {
    "plog", "device_app_log", "device_os_log", "device_fw_log", "device_event_log",
    "device_syslog", "slogd_log", "bbox_history", "host_kernel_log", "dmesg", "dmesg_t",
    "journal", "syslog", "install_log", "operation_log", "npu_smi_info", "npu_smi_kv",
    "version_info", "dpkg_list", "rpm_list", "pip_list", "proc_maps", "proc_cmdline",
    "environ", "mountinfo", "modinfo", "modprobe", "lsmod", "ls_listing", "uname", "uptime",
    "proc_stat", "date", "timedatectl", "ulimit", "sysctl", "lspci", "train_log",
    "probe_output", "manifest", "text",
    "mindx_dl_log", "volcano_log", "mindie_log", "mindio_log", "amct_log", "lcne_log",
}
SEVERITIES = {"debug", "info", "notice", "warning", "error", "critical"}
STATUSES = {"experimental", "stable", "deprecated"}
FLAGS = {"caseless"}
SIG_KEYS = {"id", "title", "kinds", "severity", "status", "flags", "patterns", "capture",
            "references", "examples"}
REQUIRED = {"id", "title", "severity", "patterns", "examples"}
ID_RE = re.compile(r"^[a-z0-9_]+\.[a-z0-9_.]+$")
CAPTURE_NAME_RE = re.compile(r"\(\?<([A-Za-z_][A-Za-z0-9_]*)>")

# Signature ids the finding catalog relies on, with the capture names each must provide.
MANDATORY = {
    "svm.not_support_svm_mem": set(),
    "svm.map_va_not_fixed": {"vm_start", "vm_end"},
    "svm.map_va_not_in_range": {"vm_start", "vm_end"},
    "svm.host_mem_malloc_invalid": set(),
    "hccl.comm_init_failed": {"group"},
    "runtime.stream_sync_task_timeout": set(),
    "acl.error_107020": {"code"},
    "runtime.sync_three_minutes_timeout": {"stream_id", "task_id", "sq_head", "pending_num"},
    "kernel.unknown_symbol": {"module", "symbol"},
    "install.driver_reboot_needed": set(),
    "install.driver_uninstall_reboot": set(),
    "install.firmware_reboot_needed": set(),
    "install.vermagic_check_failed": set(),
    "install.kernel_version_mismatch": set(),
    "install.uninstall_failed": set(),
    "install.device_busy": {"path"},
    "cann.set_env_missing": {"path"},
    "asan.runtime": set(),
    "torch_npu.err_code": {"pid", "device", "rank", "code"},
    "torch_npu.npu_function_error": {"func", "call", "code"},
    "cann.error_block": {"code"},
    "probe.timeout": set(),
    "driver.heartbeat_lost": {"device"},
    "hccl.heartbeat_abnormal": {"location", "type"},
    "hccl.notify_wait_timeout": set(),
    "hccl.socket_timeout": set(),
}


def to_python(pattern):
    """PCRE2 named groups -> Python syntax (lookbehind `(?<=`/`(?<!` is left alone)."""
    return re.sub(r"\(\?<(?![=!])", "(?P<", pattern)


def lint_pattern(p):
    """Problems that make a pattern leave the Hyperscan subset or span lines."""
    problems = []
    if re.search(r"\\[1-9]", p):
        problems.append("backreference")
    if re.search(r"\(\?(?:=|!|<=|<!)", p):
        problems.append("lookaround")
    if "\\K" in p:
        problems.append("\\K")
    if re.search(r"(?:[*+?}])\+", p.replace("\\+", "")):
        problems.append("possessive quantifier")
    if "(?>" in p:
        problems.append("atomic group")
    if re.search(r"\(\?[a-z]*s", p):
        problems.append("inline dotall flag")
    # Things that can match a newline and so let a pattern run across lines of a chunk.
    body = re.sub(r"\\\\", "", p)
    if re.search(r"\\[sDWvhRN]", body):
        problems.append("\\s/\\D/\\W class can match a newline; use [ \\t] / [0-9] etc.")
    for m in re.finditer(r"\[\^((?:\\.|[^\]\\])*)\]", body):
        if "\\n" not in m.group(1):
            problems.append("negated class [^%s] without \\n can cross lines" % m.group(1))
    # ^ and $ only anchor at chunk boundaries unless the engine uses multiline mode.
    stripped = re.sub(r"\\.", "", body)
    stripped = re.sub(r"\[(?:\\.|[^\]\\])*\]", "", stripped)
    if "^" in stripped or "$" in stripped:
        problems.append("^/$ anchors (chunks hold many lines; anchor on literal text)")
    return problems


def longest_literal(p):
    """Rough length of the longest run of literal characters (Hyperscan literal factoring)."""
    best = cur = 0
    i = 0
    n = len(p)
    while i < n:
        c = p[i]
        lit = False
        step = 1
        if c == "\\" and i + 1 < n:
            step = 2
            lit = not p[i + 1].isalnum()
        elif c == "[":
            j = i + 1
            while j < n and p[j] != "]":
                j += 2 if p[j] == "\\" else 1
            step = j + 1 - i
        elif c in "(|)":
            lit = False
            if p.startswith("(?:", i):
                step = 3
            elif p.startswith("(?<", i):
                step = p.find(">", i) + 1 - i
        elif c in ".^$":
            lit = False
        elif c in "*+?{":
            # the previous atom was optional or repeated: it is not a required literal
            if c in "*?" or (c == "{" and p.startswith("{0", i)):
                cur = max(cur - 1, 0)
            if c == "{":
                step = p.find("}", i) + 1 - i
            best = max(best, cur)
            cur = 0
            i += step
            continue
        else:
            lit = True
        if lit:
            cur += 1
            best = max(best, cur)
        else:
            cur = 0
        i += step
    return best


class Checker:
    def __init__(self):
        self.errors = []
        self.sigs = []

    def err(self, where, msg):
        self.errors.append("%s: %s" % (where, msg))

    def load(self, path):
        stem = os.path.splitext(os.path.basename(path))[0]
        try:
            with open(path, encoding="utf-8") as f:
                doc = yaml.safe_load(f)
        except (OSError, yaml.YAMLError) as e:
            self.err(path, "cannot load: %s" % e)
            return
        if not isinstance(doc, dict) or set(doc) - {"family", "signatures"}:
            self.err(path, "top level must be a mapping with family and signatures only")
            return
        if doc.get("family") != stem:
            self.err(path, "family %r must equal the file stem %r" % (doc.get("family"), stem))
        sigs = doc.get("signatures")
        if not isinstance(sigs, list) or not sigs:
            self.err(path, "signatures must be a non-empty list")
            return
        for s in sigs:
            self.check_sig(path, stem, s)

    def check_sig(self, path, family, s):
        where = path
        if not isinstance(s, dict):
            self.err(where, "signature is not a mapping")
            return
        sid = s.get("id", "?")
        where = "%s: %s" % (path, sid)
        for k in sorted(set(s) - SIG_KEYS):
            self.err(where, "unknown key %r" % k)
        for k in sorted(REQUIRED - set(s)):
            self.err(where, "missing key %r" % k)
        if not isinstance(sid, str) or not ID_RE.match(sid):
            self.err(where, "id must match %s" % ID_RE.pattern)
            return
        if sid.split(".", 1)[0] != family:
            self.err(where, "id prefix must be the family %r" % family)
        if not isinstance(s.get("title"), str) or not s.get("title", "").strip():
            self.err(where, "title must be a non-empty string")
        kinds = s.get("kinds", [])
        if not isinstance(kinds, list) or any(k not in KINDS for k in kinds):
            self.err(where, "unknown kinds %s" % [k for k in kinds if k not in KINDS])
        if len(set(kinds)) != len(kinds):
            self.err(where, "duplicate kinds")
        if s.get("severity") not in SEVERITIES:
            self.err(where, "severity must be one of %s" % sorted(SEVERITIES))
        if s.get("status", "stable") not in STATUSES:
            self.err(where, "status must be one of %s" % sorted(STATUSES))
        flags = s.get("flags", [])
        if not isinstance(flags, list) or set(flags) - FLAGS:
            self.err(where, "flags must be a subset of %s" % sorted(FLAGS))
        refs = s.get("references", [])
        if not isinstance(refs, list) or not refs or not all(isinstance(r, str) for r in refs):
            self.err(where, "references must be a non-empty list of strings")
        reflags = re.IGNORECASE if "caseless" in (flags or []) else 0

        pats = s.get("patterns")
        compiled = []
        if not isinstance(pats, list) or not pats or not all(isinstance(p, str) and p for p in pats):
            self.err(where, "patterns must be a non-empty list of non-empty strings")
            pats = []
        for p in pats:
            for prob in lint_pattern(p):
                self.err(where, "pattern %r: %s" % (p, prob))
            if "(?<" in p.replace("(?<=", "").replace("(?<!", ""):
                self.err(where, "pattern %r: named groups belong in capture, not patterns" % p)
            if longest_literal(p) < 4:
                self.err(where, "pattern %r: no literal of 4+ characters to anchor on" % p)
            try:
                compiled.append(re.compile(p, reflags))
            except re.error as e:
                self.err(where, "pattern %r does not compile: %s" % (p, e))

        cap = s.get("capture")
        cap_re = None
        cap_names = set()
        if cap is not None:
            if not isinstance(cap, str) or not cap:
                self.err(where, "capture must be a non-empty string")
            else:
                cap_names = set(CAPTURE_NAME_RE.findall(cap))
                if not cap_names:
                    self.err(where, "capture has no named group (?<name>...)")
                if re.search(r"\\[1-9]", cap):
                    self.err(where, "capture uses a backreference")
                try:
                    cap_re = re.compile(to_python(cap), reflags)
                except re.error as e:
                    self.err(where, "capture does not compile: %s" % e)

        if sid in MANDATORY:
            missing = MANDATORY[sid] - cap_names
            if missing:
                self.err(where, "mandatory signature lacks captures %s" % sorted(missing))

        ex = s.get("examples")
        if not isinstance(ex, dict) or set(ex) - {"match", "no_match"}:
            self.err(where, "examples must be a mapping with match and no_match")
            ex = {}
        matches = ex.get("match") or []
        nomatches = ex.get("no_match") or []
        if not matches:
            self.err(where, "needs at least one match example")
        if not nomatches:
            self.err(where, "needs at least one no_match example")
        with_caps = 0
        for m in matches:
            if isinstance(m, str):
                m = {"line": m}
            if not isinstance(m, dict) or not isinstance(m.get("line"), str) or set(m) - {"line", "captures"}:
                self.err(where, "match example must be {line, captures?}: %r" % (m,))
                continue
            line = m["line"]
            if "\n" in line or "\r" in line:
                self.err(where, "example spans lines: %r" % line)
            if compiled and not any(c.search(line) for c in compiled):
                self.err(where, "match example not matched: %r" % line)
            exp = m.get("captures")
            if exp is not None:
                with_caps += 1
                if not isinstance(exp, dict):
                    self.err(where, "captures must be a mapping")
                    continue
                for k, v in exp.items():
                    if not isinstance(v, str):
                        self.err(where, "capture value %s=%r must be a quoted string (YAML "
                                 "parsers differ on numbers/booleans)" % (k, v))
                exp = {str(k): str(v) for k, v in exp.items()}
                if cap_re is None:
                    self.err(where, "captures given but no capture pattern")
                    continue
                for k in exp:
                    if k not in cap_names:
                        self.err(where, "expected capture %r is not a group of capture" % k)
                mo = cap_re.search(line)
                got = {k: v for k, v in (mo.groupdict() if mo else {}).items() if v is not None}
                if got != exp:
                    self.err(where, "captures on %r: got %s, expected %s" % (line, got, exp))
        if cap_re is not None and with_caps == 0:
            self.err(where, "capture pattern but no match example states its captures")
        for line in nomatches:
            if not isinstance(line, str):
                self.err(where, "no_match example must be a string: %r" % (line,))
                continue
            hit = [c.pattern for c in compiled if c.search(line)]
            if hit:
                self.err(where, "no_match example matched by %s: %r" % (hit, line))
        self.sigs.append(dict(s, _file=path))

    def finish(self):
        seen = {}
        for s in self.sigs:
            sid = s.get("id")
            if sid in seen:
                self.err(s["_file"], "duplicate id %s (also in %s)" % (sid, seen[sid]))
            seen[sid] = s["_file"]
        for sid in sorted(set(MANDATORY) - set(seen)):
            self.err("catalog", "mandatory signature %s is missing" % sid)


def dump_tsv(sigs, path):
    """One row per pattern / example, for an out-of-tree Hyperscan + PCRE2 cross-check."""
    def esc(t):
        return t.replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n")
    with open(path, "w", encoding="utf-8") as f:
        for i, s in enumerate(sigs):
            fl = "i" if "caseless" in (s.get("flags") or []) else "-"
            for p in s.get("patterns") or []:
                f.write("P\t%d\t%s\t%s\t%s\n" % (i, s["id"], fl, esc(p)))
            if s.get("capture"):
                f.write("C\t%d\t%s\t%s\t%s\n" % (i, s["id"], fl, esc(s["capture"])))
            ex = s.get("examples") or {}
            for m in ex.get("match") or []:
                line = m if isinstance(m, str) else m.get("line", "")
                caps = {} if isinstance(m, str) else (m.get("captures") or {})
                capstr = ";".join("%s=%s" % (k, v) for k, v in sorted(caps.items()))
                f.write("M\t%d\t%s\t%s\t%s\n" % (i, s["id"], esc(capstr) or "-", esc(line)))
            for line in ex.get("no_match") or []:
                f.write("N\t%d\t%s\t-\t%s\n" % (i, s["id"], esc(line)))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    here = os.path.dirname(os.path.abspath(__file__))
    ap.add_argument("rules", nargs="?", default=os.path.join(here, "..", "rules", "signatures"))
    ap.add_argument("--list", action="store_true", help="print id, severity and title")
    ap.add_argument("--stats", action="store_true", help="print signature counts per family")
    ap.add_argument("--dump-tsv", metavar="FILE", help="write patterns/examples as TSV")
    args = ap.parse_args()

    ck = Checker()
    files = sorted(f for f in os.listdir(args.rules) if f.endswith((".yaml", ".yml")))
    if not files:
        print("no signature files in %s" % args.rules, file=sys.stderr)
        return 1
    for f in files:
        ck.load(os.path.join(args.rules, f))
    ck.finish()
    if args.list:
        for s in ck.sigs:
            print("%-45s %-8s %s" % (s["id"], s.get("severity"), s.get("title")))
    if args.stats:
        counts = {}
        for s in ck.sigs:
            fam = s["id"].split(".", 1)[0]
            counts[fam] = counts.get(fam, 0) + 1
        for fam in sorted(counts):
            print("%-10s %3d" % (fam, counts[fam]))
        print("%-10s %3d" % ("total", len(ck.sigs)))
    if args.dump_tsv:
        dump_tsv(ck.sigs, args.dump_tsv)
    for e in ck.errors:
        print(e, file=sys.stderr)
    if ck.errors:
        print("%d problem(s)" % len(ck.errors), file=sys.stderr)
        return 1
    print("ok: %d signatures in %d files" % (len(ck.sigs), len(files)), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
