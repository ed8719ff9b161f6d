#!/usr/bin/env python3
"""Issue 36, item 1: a SIGKILL at any point of `analyze --db` leaves a database that a report, a
read-only reader and a rerun all open.

A generated bundle (the plogs of a sample, multiplied) is analysed into a database; the process
group of the run is killed at many points of it (fractions of one measured run: which points are
hit varies with the machine's load, what is asserted does not), then:
  - `report --format json` and `--format md` either work (exit 0) or say "no complete analysis"
    (exit 3);
  - Python's sqlite3 opens the file read-only and reads it;
  - the same analyze into the same file succeeds;
  - PRAGMA integrity_check is ok, a report works, and no .lock, -journal or -wal file is left.
Both for a new file and for a file holding an earlier analysis of another bundle.

Usage: kill_test.py FAULTLINE SAMPLES_DIR [ROUNDS]   (ROUNDS: kill points per kind, default 6)
"""
import io
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import tarfile
import tempfile
import time

SAMPLE = "seed-stale-dkms-module"


def make_bundle(samples, out, copies):
    root = os.path.join(samples, SAMPLE)
    plogs = []
    with tarfile.open(out, "w:gz", compresslevel=1) as tar:
        for dirpath, _, files in os.walk(root):
            for f in sorted(files):
                p = os.path.join(dirpath, f)
                rel = os.path.relpath(p, samples)
                tar.add(p, arcname=rel)
                if "/plog/" in rel:
                    plogs.append((rel, open(p, "rb").read()))
        if not plogs:
            raise SystemExit(f"kill_test: no plog in {root}")
        # more of the same real lines: distinct files of a few thousand lines each
        for i in range(copies):
            rel, data = plogs[i % len(plogs)]
            body = data * max(1, 250000 // len(data))
            head, _, tail = rel.rpartition("/")
            info = tarfile.TarInfo(f"{head}/plog-{50000 + i}_{tail.split('_', 1)[1]}")
            info.size = len(body)
            info.mtime = 1772600000
            tar.addfile(info, io.BytesIO(body))


def run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, **kw)


def files_of(db):
    d = os.path.dirname(db)
    base = os.path.basename(db)
    return sorted(f for f in os.listdir(d) if f.startswith(base) and f != base)


def main():
    if len(sys.argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    fl, samples = sys.argv[1], sys.argv[2]
    rounds = int(sys.argv[3]) if len(sys.argv) > 3 else 6
    if not os.path.isdir(os.path.join(samples, SAMPLE)):
        print(f"kill_test: SKIP: {SAMPLE} not in {samples}")
        return 77
    work = tempfile.mkdtemp(prefix="faultline-kill-")
    failures = []
    try:
        bundle = os.path.join(work, "medium.tar.gz")
        other = os.path.join(work, "other.tar.gz")
        make_bundle(samples, bundle, 12)
        make_bundle(samples, other, 2)
        db = os.path.join(work, "k.db")
        earlier = os.path.join(work, "earlier.db")
        analyze = [fl, "analyze", bundle, "--db", db, "--no-report", "-q", "--no-kb"]

        r = run([fl, "analyze", other, "--db", earlier, "--no-report", "-q", "--no-kb"])
        if r.returncode != 0:
            print(f"kill_test: FAIL: analyze of the earlier bundle: {r.returncode} {r.stderr}")
            return 1
        t0 = time.monotonic()
        r = run(analyze)
        full = time.monotonic() - t0
        if r.returncode != 0:
            print(f"kill_test: FAIL: a full analyze: {r.returncode} {r.stderr}")
            return 1
        # kill points: fractions of a full run, early ones denser (the load's first transaction)
        points = [full * 0.02] + [full * (i / rounds) ** 1.5 for i in range(1, rounds)] + [
            full * 0.97]
        for kind in ("new", "earlier"):
            for at in points:
                where = f"{kind} file, killed at {at:.3f} s of {full:.3f} s"
                for f in [db] + [db + s for s in ("-wal", "-shm", "-journal", ".lock")]:
                    if os.path.exists(f):
                        os.remove(f)
                if kind == "earlier":
                    shutil.copyfile(earlier, db)
                p = subprocess.Popen(analyze, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL, start_new_session=True)
                time.sleep(at)
                try:
                    os.killpg(p.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
                p.wait()
                # killed before it created the file (new file only): nothing to open, and
                # report says so
                created = os.path.exists(db)
                if not created and kind == "earlier":
                    failures.append(f"{where}: the database is gone")
                for fmt in ("json", "md"):
                    r = run([fl, "report", "--db", db, "--format", fmt])
                    ok = r.returncode == 0 or (
                        r.returncode == 3 and ("no complete analysis" in r.stderr or
                                               (not created and "no such file" in r.stderr)))
                    if not ok:
                        failures.append(f"{where}: report --format {fmt}: exit {r.returncode}: "
                                        f"{r.stderr.strip()[:300]}")
                try:
                    if not created:
                        raise FileNotFoundError
                    ro = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
                    ro.execute("SELECT count(*) FROM sqlite_master").fetchone()
                    ro.close()
                except FileNotFoundError:
                    pass
                except sqlite3.Error as e:
                    failures.append(f"{where}: read-only open: {e}")
                r = run(analyze)
                if r.returncode != 0:
                    failures.append(f"{where}: rerun: exit {r.returncode}: {r.stderr.strip()[:300]}")
                    continue
                c = sqlite3.connect(db)
                check = c.execute("PRAGMA integrity_check").fetchall()
                complete = c.execute(
                    "SELECT count(*) FROM bundles WHERE status='complete'").fetchone()[0]
                c.close()
                if check != [("ok",)]:
                    failures.append(f"{where}: integrity_check after the rerun: {check[:5]}")
                want = 2 if kind == "earlier" else 1
                if complete != want:
                    failures.append(f"{where}: {complete} complete analyses after the rerun, "
                                    f"not {want}")
                r = run([fl, "report", "--db", db, "--format", "json", "-o", os.devnull])
                if r.returncode != 0:
                    failures.append(f"{where}: report after the rerun: exit {r.returncode}: "
                                    f"{r.stderr.strip()[:300]}")
                left = files_of(db)
                if left:
                    failures.append(f"{where}: left beside the database: {left}")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    for f in failures:
        print(f"kill_test: FAIL: {f}")
    if failures:
        return 1
    print(f"kill_test: ok, {2 * (rounds + 1)} kill points")
    return 0


if __name__ == "__main__":
    sys.exit(main())
