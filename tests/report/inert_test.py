#!/usr/bin/env python3
"""Hostile text in a bundle renders inert (issue 18, items 3 and 4).

Copies the seed-driver-reboot-pending sample into a temporary directory and puts attacker text
into it, in real-format lines that the parsers still read: the npu-smi version string (a fact in
the Versions table and in a summary) and a dmesg line (evidence, timeline). The text holds
terminal control sequences (OSC 0 window title, OSC 52 clipboard write, CSI 2J clear screen, CR,
BEL, backspace, C1 CSI, a bidi override), raw HTML (<script>, <img onerror>), a javascript: link,
an image, backticks that would close a code span and a '|' that would split a table row.

Checks, on `faultline analyze` output:
  - md, json, html and stderr hold no control byte (but '\\n'), no C1 control, no bidi override;
  - md rendered by cmark-gfm (GitHub's renderer; with --unsafe so that raw HTML would pass) has
    no <script>, <img>, javascript: link, and the timeline row keeps its text after the '|';
  - the html report has its Content-Security-Policy meta tag and no <script>; rendered by
    headless chromium (--dump-dom), no injected script or event handler ran.
cmark-gfm and chromium parts are skipped (said on stdout) when those programs are absent.

usage: inert_test.py FAULTLINE SOURCE_DIR
exit: 0 pass, 1 fail
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

SAMPLE = "seed-driver-reboot-pending"
CARD = "npu_log_collect/npu_info_log/card_info.log"
DMESG = "npu_log_collect/ascend_log_20260528110514/host_log/dmesg.log"
MARK = "data-pwned"
# what a script or handler would do if it ran: set an attribute that --dump-dom shows
JS = "document.documentElement.setAttribute('" + MARK + "','1')"
TERM = ("\x1b]0;owned\x07\x1b]52;c;cm0gLXJmIH4=\x07\x1b[2J\r\x08\u009b31m\u202egnp.exe")
HTML = ("<script>" + JS + "</script><img src=x onerror=\"" + JS + "\">"
        "[click](javascript:" + JS + ") ![t](http://tracker.invalid/p.gif) <javascript:x>")
MD = "``` `` ` | cell-after-pipe | **bold**"

failures = []


def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what, flush=True)
    if not ok:
        failures.append(what)


def controls(data: str):
    bad = re.findall(r"[\x00-\x09\x0b-\x1f\x7f\u0080-\u009f\u202a-\u202e\u2066-\u2069]", data)
    return sorted(set(bad))


def main():
    faultline, source = sys.argv[1], sys.argv[2]
    tmp = tempfile.mkdtemp(prefix="faultline-inert-")
    try:
        bundle = os.path.join(tmp, SAMPLE)
        shutil.copytree(os.path.join(source, "samples", SAMPLE), bundle)
        card = os.path.join(bundle, CARD)
        with open(card, encoding="utf-8") as f:
            text = f.read()
        # npu-smi's version field (no spaces: the parser reads one token)
        text = text.replace("Version: 24.1.0.3",
                            "Version: 24.1.0.3`|pipe-kept<img/src=x/onerror=" + JS.replace(" ", "") + ">", 1)
        with open(card, "w", encoding="utf-8") as f:
            f.write(text)
        dm = os.path.join(bundle, DMESG)
        with open(dm, encoding="utf-8") as f:
            lines = f.read().split("\n")
        lines[130] += " " + TERM + " " + HTML + " " + MD
        with open(dm, "w", encoding="utf-8") as f:
            f.write("\n".join(lines))

        db = os.path.join(tmp, "case.db")
        out = {}
        cache = ["--cache-dir", os.path.join(tmp, "cache")]
        r = subprocess.run([faultline, "analyze", bundle, "--db", db] + cache, capture_output=True, timeout=300)
        check(r.returncode == 0, "analyze exits 0 (rc %d: %s)" % (r.returncode, r.stderr[-500:]))
        out["md"] = r.stdout.decode("utf-8")
        out["stderr"] = r.stderr.decode("utf-8")
        for fmt in ("json", "html"):
            r = subprocess.run([faultline, "report", "--db", db, "--format", fmt], capture_output=True, timeout=120)
            check(r.returncode == 0, "report --format %s exits 0" % fmt)
            out[fmt] = r.stdout.decode("utf-8")

        # the hostile line is in the report at all (else the test proves nothing)
        check("Svm map va not fixed" in out["md"] and "owned" in out["md"], "the hostile dmesg line is in the md report")
        check("onerror" in out["md"], "the hostile npu-smi version is in the md report")
        for name, data in out.items():
            bad = controls(data)
            check(not bad, "%s holds no control character (found %r)" % (name, bad))
        check("\\x1b]0;owned\\x07" in out["md"], "md shows the escape sequence visibly (\\x1b)")
        j = json.loads(out["json"])
        texts = [e["text"] for f in j["findings"] for e in f["evidence"]]
        check(any("\x1b]52;c;" in t for t in texts), "json keeps the original characters (escaped as \\u001b)")

        # md as GitHub renders it
        cmark = shutil.which("cmark-gfm")
        if not cmark:
            print("skip: cmark-gfm is not installed (Debian package cmark-gfm)")
        else:
            r = subprocess.run([cmark, "--unsafe", "-e", "table", "-e", "autolink", "-e", "strikethrough",
                                "-e", "tagfilter"], input=out["md"].encode(), capture_output=True, timeout=60)
            rendered = r.stdout.decode("utf-8")
            low = rendered.lower()
            check("<script" not in low, "rendered md: no <script> element")
            check("<img" not in low, "rendered md: no <img> element")
            check('href="javascript' not in low, "rendered md: no javascript: link")
            check("tracker.invalid" not in re.findall(r'src="([^"]*)"', low).__str__(), "rendered md: no image")
            # the Versions row of the hostile npu-smi version keeps what follows its '|'
            rows = [row for row in re.findall(r"<tr>(.*?)</tr>", rendered, re.S) if "driver.version.loaded" in row]
            check(rows and all("pipe-kept" in row for row in rows), "rendered md: '|' did not split the Versions row")
            rows = [row for row in re.findall(r"<tr>(.*?)</tr>", rendered, re.S) if "Svm map va not fixed" in row]
            check(bool(rows), "rendered md: the hostile line is in the timeline table")
        # html
        check('<meta http-equiv="Content-Security-Policy" content="default-src \'none\'' in out["html"],
              "html report carries its Content-Security-Policy meta tag")
        check("<script" not in out["html"].lower(), "html report holds no <script> element")
        chromium = shutil.which("chromium") or shutil.which("chromium-browser")
        if not chromium:
            print("skip: chromium is not installed (Debian package chromium)")
        else:
            page = os.path.join(tmp, "report.html")
            with open(page, "w", encoding="utf-8") as f:
                f.write(out["html"])
            # the same page without its CSP: proves that the escaping alone holds
            nocsp = os.path.join(tmp, "nocsp.html")
            with open(nocsp, "w", encoding="utf-8") as f:
                f.write(re.sub(r'<meta http-equiv="Content-Security-Policy"[^>]*>', "", out["html"]))
            for p in (page, nocsp):
                r = subprocess.run([chromium, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                                    "--disable-dev-shm-usage", "--user-data-dir=" + os.path.join(tmp, "profile"),
                                    "--virtual-time-budget=2000", "--dump-dom", "file://" + p],
                                   capture_output=True, timeout=120)
                dom = r.stdout.decode("utf-8", "replace")
                check(r.returncode == 0 and "faultline report" in dom, "chromium rendered %s" % os.path.basename(p))
                check(MARK + '="1"' not in dom, "chromium: no injected script ran in %s" % os.path.basename(p))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    if failures:
        print("%d check(s) failed" % len(failures))
        return 1
    print("all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
