#!/usr/bin/env python3
"""Checks that two faultline binaries write the same rows for the same bundles.

usage: bench/same_rows.py [--fleet] OLD_FAULTLINE NEW_FAULTLINE BUNDLE... [-- EXTRA ARGS]

Runs `analyze --db` with each binary on each bundle and compares every table row by row (ids
included; bundles.read_at excepted). --fleet: one `fleet --db` run over all the bundles instead
(pass `-- -j 1`: with more workers the merge order, hence the ids, depend on timing). A performance change
must not change what is stored: run this on the samples and a generated bundle before committing.
Exit 0 when all match, 1 otherwise (the first differences are printed).
"""
import os
import sqlite3
import subprocess
import sys
import tempfile

SKIP = {("bundles", "read_at")}


def dump(db):
    con = sqlite3.connect(db)
    out = {}
    tables = [r[0] for r in con.execute(
        "SELECT name FROM sqlite_master WHERE type='table' AND name NOT LIKE 'sqlite_%' ORDER BY name")]
    for t in tables:
        cols = [r[1] for r in con.execute(f"PRAGMA table_info({t})") if (t, r[1]) not in SKIP]
        order = "rowid" if t != "member_text" else "member_id"
        out[t] = (cols, list(con.execute(f"SELECT {','.join(cols)} FROM {t} ORDER BY {order}")))
    con.close()
    return out


def main():
    argv = sys.argv[1:]
    extra = []
    if "--" in argv:
        i = argv.index("--")
        argv, extra = argv[:i], argv[i + 1:]
    if len(argv) < 3:
        print(__doc__)
        return 2
    fleet = argv[0] == "--fleet"
    if fleet:
        argv = argv[1:]
    old, new, bundles = argv[0], argv[1], argv[2:]
    runs = [bundles] if fleet else [[b] for b in bundles]
    bad = 0
    with tempfile.TemporaryDirectory() as tmp:
        for run in runs:
            b = " ".join(run) if len(run) < 4 else f"{run[0]} ... ({len(run)} bundles)"
            dumps = []
            for k, exe in enumerate((old, new)):
                db = os.path.join(tmp, f"{k}.db")
                for suffix in ("", "-wal", "-shm"):
                    if os.path.exists(db + suffix):
                        os.remove(db + suffix)
                cmd = [exe, "fleet", *run, "--db", db] if fleet else [exe, "analyze", *run, "-q", "--db", db]
                subprocess.run([*cmd, *extra], check=False, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
                dumps.append(dump(db))
            a, c = dumps
            diffs = []
            for t in sorted(set(a) | set(c)):
                if t not in a or t not in c:
                    diffs.append(f"table {t} only in one database")
                    continue
                if a[t][0] != c[t][0]:
                    diffs.append(f"{t}: columns differ")
                    continue
                ra, rc = a[t][1], c[t][1]
                if len(ra) != len(rc):
                    diffs.append(f"{t}: {len(ra)} rows vs {len(rc)}")
                for i, (x, y) in enumerate(zip(ra, rc)):
                    if x != y:
                        diffs.append(f"{t} row {i + 1}:\n    old {str(x)[:300]}\n    new {str(y)[:300]}")
                        break
            rows = sum(len(v[1]) for v in a.values())
            if diffs:
                bad += 1
                print(f"DIFF {b} ({rows} rows)")
                for d in diffs[:10]:
                    print("  " + d)
            else:
                print(f"same {b} ({rows} rows)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
