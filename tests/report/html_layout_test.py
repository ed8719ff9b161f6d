#!/usr/bin/env python3
"""HTML report layout (issue 35 item 8, docs/report.md "HTML") on the seed sample and the real
asys collection (skipped when absent): a table of contents whose every link names a section id
of the page, the verdict and the ticket summary before the first section, tables that wrap long
cells (no horizontal overflow), and no literal backtick in rendered rule text (remediation,
summaries, titles). With headless chromium installed, screenshots at 1,400 and 800 px are
written to $FAULTLINE_SCREENSHOTS (for a person to look at; not compared).
Usage: html_layout_test.py FAULTLINE SOURCE_DIR
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

BIN, SRC = sys.argv[1], sys.argv[2]
failures = []


def check(cond, msg):
    if not cond:
        failures.append(msg)
        print("FAIL:", msg)


def run(*args):
    env = dict(os.environ, FAULTLINE_KB="none")
    return subprocess.run([BIN, *args], capture_output=True, text=True, env=env)


bundles = [("seed", os.path.join(SRC, "samples", "seed-driver-reboot-pending"))]
real = os.path.join(SRC, "..", "shared", "corpus", "real", "asys-aicerror")
if os.path.isdir(real):
    bundles.append(("asys", real))
shots = os.environ.get("FAULTLINE_SCREENSHOTS")
chromium = shutil.which("chromium") or shutil.which("chromium-browser")
with tempfile.TemporaryDirectory() as tmp:
    for name, path in bundles:
        page = run("analyze", path, "-q", "--format", "html").stdout
        nav = re.search(r'<nav class="toc">(.*?)</nav>', page)
        check(nav is not None, f"{name}: no table of contents")
        if nav:
            links = re.findall(r'href="#([a-z-]+)"', nav.group(1))
            check(len(links) >= 6, f"{name}: {len(links)} links in the table of contents")
            for l in links:
                check(f'id="{l}"' in page, f"{name}: the contents link #{l} has no section")
            first_h2 = page.find("<h2")
            check(0 < page.find('class="verdict') < first_h2 and page.find("Copy for ticket") < first_h2
                  and page.find('<nav class="toc">') < first_h2,
                  f"{name}: the verdict, summary and contents are not before the sections")
        check("overflow-wrap:anywhere" in page and "max-width:100%" in page,
              f"{name}: tables do not wrap their cells")
        # rule text: code spans are <code>, no literal backtick outside <pre> (the ticket summary
        # is markdown on purpose) and outside quoted log lines
        body = re.sub(r"<pre>.*?</pre>", "", page, flags=re.S)
        for li in re.findall(r'<ul class="check">(.*?)</ul>', body, flags=re.S):
            check("`" not in li, f"{name}: a literal backtick in remediation: {li[:200]}")
        for h in re.findall(r"<h3>(.*?)</h3>", body, flags=re.S):
            check("`" not in h, f"{name}: a literal backtick in a title: {h[:200]}")
        if shots and chromium:
            os.makedirs(shots, exist_ok=True)
            html_file = os.path.join(tmp, name + ".html")
            open(html_file, "w").write(page)
            for width in (1400, 800):
                out = os.path.join(shots, f"{name}-{width}.png")
                subprocess.run([chromium, "--headless", "--no-sandbox", "--disable-gpu",
                                "--hide-scrollbars", f"--window-size={width},2400",
                                f"--screenshot={out}", "file://" + html_file],
                               capture_output=True, timeout=120)
                check(os.path.exists(out), f"{name}: no screenshot at {width} px")

if failures:
    print(f"{len(failures)} failure(s)")
    sys.exit(1)
print("ok")
