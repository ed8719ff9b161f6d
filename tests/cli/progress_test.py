#!/usr/bin/env python3
"""Issue 36, item 4: the progress line of analyze and fleet (README "Progress").

Into a pipe, `--progress` gives one line per update on stderr:
  faultline: 1.2 MB of 3.6 MB (33%), 12 files, 2.4 MB/s, ETA 1 s
  faultline fleet: 3/8 bundles (37%), 1.5 bundles/s, ETA 4 s
the bytes and the percentage never go down, the last line is the whole (100%, the total the
archive's file size or a directory's files' sizes), nothing goes to stdout and no terminal control
character reaches the pipe. Without `--progress` a pipe gets no progress at all; `--no-progress`
and `-q` silence it; `--progress -q` is a usage error. A bundle piped into `analyze -` first shows
the bytes taken from standard input.

Usage: progress_test.py FAULTLINE SAMPLES_DIR
"""
import json
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from kill_test import SAMPLE, make_bundle, run  # noqa: E402  (the same generated bundle)

SIZE = r"(\d+(?:\.\d+)?) (KB|MB|GB)"
BUNDLE_LINE = re.compile(
    rf"^faultline: {SIZE}(?: of {SIZE} \((\d+)%\))?, (\d+) files?"
    r"(?:, \d+(?:\.\d+)? (?:KB|MB|GB)/s(?:, ETA \d+ (?:s|min \d\d s|h \d\d min))?)?$")
STDIN_LINE = re.compile(rf"^faultline: {SIZE} from standard input$")
FLEET_LINE = re.compile(
    r"^faultline fleet: (\d+)/(\d+) bundles \((\d+)%\)"
    r"(?:, \d+(?:\.\d+)? bundles/s(?:, ETA \d+ (?:s|min \d\d s|h \d\d min))?)?$")
UNIT = {"KB": 1e3, "MB": 1e6, "GB": 1e9}


def size_text(n):
    """progress::size_text"""
    if n < 1e6:
        return f"{int(n // 1000)} KB"
    if n < 1e9:
        return f"{n / 1e6:.1f} MB"
    return f"{n / 1e9:.2f} GB"


def check_bundle_lines(where, err, total_bytes, failures):
    """The progress lines of one analyze; returns how many there were."""
    if "\r" in err or "\033" in err:
        failures.append(f"{where}: a terminal control character in a pipe: {err[:200]!r}")
    lines = [l for l in err.splitlines() if l.startswith("faultline: ") and " file" in l]
    if not lines:
        failures.append(f"{where}: no progress line in {err[:300]!r}")
        return 0
    last_read, last_pct = -1.0, -1
    for l in lines:
        m = BUNDLE_LINE.match(l)
        if not m:
            failures.append(f"{where}: not a progress line: {l!r}")
            continue
        read = float(m.group(1)) * UNIT[m.group(2)]
        if m.group(3) is None:
            failures.append(f"{where}: no total for a file or directory: {l!r}")
            continue
        pct = int(m.group(5))
        if read < last_read or pct < last_pct:
            failures.append(f"{where}: progress went back: {l!r}")
        last_read, last_pct = read, pct
        if f"{m.group(3)} {m.group(4)}" != size_text(total_bytes):
            failures.append(f"{where}: total {m.group(3)} {m.group(4)}, not the "
                            f"{size_text(total_bytes)} of the input: {l!r}")
    final = BUNDLE_LINE.match(lines[-1])
    if final and (final.group(5) != "100" or final.group(1) != final.group(3)):
        failures.append(f"{where}: the last line is not the whole: {lines[-1]!r}")
    return len(lines)


def checks(fl, samples, node_dir, fleet_dir, work):
    """Every check; returns the failures."""
    failures = []
    bundle = os.path.join(work, "medium.tar.gz")
    make_bundle(samples, bundle, 12)
    size = os.path.getsize(bundle)
    common = ["--no-kb", "--cache-dir", os.path.join(work, "cache")]

    # a tar.gz into a pipe with --progress; the report on stdout stays the report
    r = run([fl, "analyze", bundle, "--progress", "--format", "json"] + common)
    if r.returncode != 0:
        failures.append(f"analyze --progress: exit {r.returncode}: {r.stderr[-300:]}")
    else:
        try:
            json.loads(r.stdout)
        except ValueError as e:
            failures.append(f"analyze --progress: stdout is not the json report: {e}")
        n = check_bundle_lines("tar.gz", r.stderr, size, failures)
        print(f"progress_test: tar.gz of {size} bytes: {n} progress line(s)")

    # a directory: the total is the sum of its files' sizes
    dir_total = sum(os.path.getsize(os.path.join(d, f))
                    for d, _, fs in os.walk(node_dir) for f in fs
                    if os.path.isfile(os.path.join(d, f)) and
                    not os.path.islink(os.path.join(d, f)))
    r = run([fl, "analyze", node_dir, "--progress", "-o", os.devnull] + common)
    if r.returncode != 0:
        failures.append(f"analyze DIR --progress: exit {r.returncode}: {r.stderr[-300:]}")
    else:
        check_bundle_lines("directory", r.stderr, dir_total, failures)

    # standard input: the bytes taken, then the walk of what was taken
    with open(bundle, "rb") as f:
        r = run([fl, "analyze", "-", "--progress", "-o", os.devnull] + common, stdin=f)
    if r.returncode != 0:
        failures.append(f"analyze - --progress: exit {r.returncode}: {r.stderr[-300:]}")
    else:
        taken = [l for l in r.stderr.splitlines() if STDIN_LINE.match(l)]
        if not taken or taken[-1] != f"faultline: {size_text(size)} from standard input":
            failures.append(f"analyze -: no final 'from standard input' line: "
                            f"{r.stderr[:300]!r}")
        rest = r.stderr.splitlines()
        rest = "\n".join(rest[rest.index(taken[-1]) + 1:]) if taken else r.stderr
        check_bundle_lines("stdin", rest, size, failures)

    # without --progress, with --no-progress, with -q: nothing on a pipe
    for extra in ([], ["--no-progress"], ["-q"]):
        r = run([fl, "analyze", bundle, "-o", os.devnull] + extra + common)
        shown = [l for l in r.stderr.splitlines() if BUNDLE_LINE.match(l)]
        if r.returncode != 0 or shown or "\r" in r.stderr:
            failures.append(f"analyze {' '.join(extra) or '(no flag)'} into a pipe: exit "
                            f"{r.returncode}, progress shown: {r.stderr[:300]!r}")
    r = run([fl, "analyze", bundle, "--progress", "-q"] + common)
    if r.returncode != 2 or not r.stderr.startswith("faultline: ") or "--quiet" not in r.stderr:
        failures.append(f"--progress -q: exit {r.returncode}, {r.stderr[:200]!r} (want a "
                        f"usage error naming --quiet)")

    # fleet: bundles done of all, the last line all of them
    nodes = len([d for d in os.listdir(fleet_dir)
                 if os.path.isdir(os.path.join(fleet_dir, d))])
    r = run([fl, "fleet", fleet_dir, "-j", "2", "--progress", "-o", os.devnull] + common)
    if r.returncode != 0:
        failures.append(f"fleet --progress: exit {r.returncode}: {r.stderr[-300:]}")
    else:
        lines = [l for l in r.stderr.splitlines() if l.startswith("faultline fleet: ")]
        done = -1
        for l in lines:
            m = FLEET_LINE.match(l)
            if not m or int(m.group(2)) != nodes or int(m.group(1)) < done:
                failures.append(f"fleet: not a progress line of {nodes} bundles: {l!r}")
                continue
            done = int(m.group(1))
        if not lines or not lines[-1].startswith(f"faultline fleet: {nodes}/{nodes} "
                                                 f"bundles (100%)"):
            failures.append(f"fleet: the last line is not all bundles: {lines[-1:]}")
    r = run([fl, "fleet", fleet_dir, "-j", "2", "-o", os.devnull] + common)
    if r.returncode != 0 or "faultline fleet: " in r.stderr or "\r" in r.stderr:
        failures.append(f"fleet into a pipe without --progress: exit {r.returncode}, "
                        f"{r.stderr[:300]!r}")
    return failures


def main():
    if len(sys.argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    fl, samples = sys.argv[1], sys.argv[2]
    node_dir = os.path.join(samples, SAMPLE)
    fleet_dir = os.path.join(samples, "fleet-hccl-cascade")
    if not (os.path.isdir(node_dir) and os.path.isdir(fleet_dir)):
        print(f"progress_test: SKIP: {SAMPLE} or fleet-hccl-cascade not in {samples}")
        return 77
    with tempfile.TemporaryDirectory(prefix="faultline-progress-") as work:
        failures = checks(fl, samples, node_dir, fleet_dir, work)
    for f in failures:
        print(f"progress_test: FAIL: {f}")
    if failures:
        return 1
    print("progress_test: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
