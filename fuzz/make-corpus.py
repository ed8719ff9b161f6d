#!/usr/bin/env python3
"""Builds the seed corpora of the fuzz harnesses (fuzz/harness/*.cpp) from samples/, rules/,
tests/tag/data and the real bundles of ../shared/corpus/real (when present).

Usage: fuzz/make-corpus.py [--faultline BUILD/faultline] OUT_DIR
Writes OUT_DIR/<harness>/<name> files; small on purpose (libFuzzer grows them). The parse seeds
need the member kinds of the sample files: they are read from an `analyze` run of each sample
with the faultline binary (default build/faultline); without it the parse seeds are skipped.
Archives are written with bsdtar (libarchive-tools), so every container format ingest reads is
represented, nested too.
"""
import argparse
import hashlib
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# Names the ingest and analyze harnesses pick with the first input byte (keep in sync with
# kNames in fuzz/harness/ingest.cpp and analyze.cpp).
NAMES = ["bundle.tar", "bundle.tar.gz", "bundle.tar.zst", "bundle.zip", "syslog.2.gz", "bundle",
         "x.lzma", "bundle.tgz", "bundle.cpio", "messages.xz"]


def put(out, harness, data, tag=""):
    d = os.path.join(out, harness)
    os.makedirs(d, exist_ok=True)
    name = (tag + "-" if tag else "") + hashlib.sha1(data).hexdigest()[:16]
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


def files_of(root):
    out = []
    for dp, dn, fn in os.walk(root):
        dn.sort()
        for f in sorted(fn):
            p = os.path.join(dp, f)
            if os.path.isfile(p) and not os.path.islink(p):
                out.append(p)
    return out


def head_lines(data, limit):
    """The first lines of data, at most `limit` bytes, cut at a line end when there is one."""
    if len(data) <= limit:
        return data
    cut = data.rfind(b"\n", 0, limit)
    return data[: cut + 1] if cut > 0 else data[:limit]


def bundles():
    b = [os.path.join(ROOT, "samples", d) for d in sorted(os.listdir(os.path.join(ROOT, "samples")))]
    b = [d for d in b if os.path.isdir(d)]
    real = os.environ.get("FAULTLINE_CORPUS_DIR", os.path.join(ROOT, "..", "shared", "corpus", "real"))
    if os.path.isdir(real):
        b += [os.path.join(real, d) for d in sorted(os.listdir(real)) if os.path.isdir(os.path.join(real, d))]
    return b


def classify_seeds(out):
    n = 0
    for b in bundles():
        for p in files_of(b):
            rel = os.path.relpath(p, b)
            with open(p, "rb") as f:
                head = f.read(1024)
            put(out, "classify", rel.encode() + b"\n" + head_lines(head, 1024))
            n += 1
    return n


def parse_seeds(out, faultline):
    if not faultline or not os.access(faultline, os.X_OK):
        print(f"make-corpus: no faultline binary ({faultline}): parse seeds skipped", file=sys.stderr)
        return 0
    per_kind = {}
    with tempfile.TemporaryDirectory() as tmp:
        for i, b in enumerate(bundles()):
            db = os.path.join(tmp, f"{i}.db")
            subprocess.run([faultline, "analyze", b, "--db", db], stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL, check=False)
            if not os.path.exists(db):
                continue
            con = sqlite3.connect(db)
            for path, kind in con.execute("SELECT path, kind FROM members"):
                per_kind.setdefault(kind, []).append((b, path))
            con.close()
    n = 0
    for kind, items in sorted(per_kind.items()):
        for b, path in items[:6]:
            p = os.path.join(b, path)
            if not os.path.isfile(p):
                continue
            with open(p, "rb") as f:
                data = f.read(64 * 1024)
            # the head, and a window from the middle of larger files
            chunks = [head_lines(data, 3000)]
            if len(data) > 6000:
                mid = data.find(b"\n", len(data) // 2) + 1
                chunks.append(head_lines(data[mid:], 3000))
            for c in chunks:
                put(out, "parse", kind.encode() + b"\n" + path.encode() + b"\n" + c, kind)
                n += 1
    return n


def small_tree(src, dst, max_files=12, max_file=6000, max_total=40000):
    """Copies up to max_files small files of src (cut to max_file bytes) into dst."""
    total = 0
    count = 0
    for p in files_of(src):
        if count >= max_files or total >= max_total:
            break
        with open(p, "rb") as f:
            data = head_lines(f.read(max_file), max_file)
        rel = os.path.relpath(p, os.path.dirname(src))
        q = os.path.join(dst, rel)
        os.makedirs(os.path.dirname(q), exist_ok=True)
        with open(q, "wb") as f:
            f.write(data)
        total += len(data)
        count += 1
    return count


def bsdtar(args, cwd):
    r = subprocess.run(["bsdtar"] + args, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    return r.returncode == 0


def archive_seeds(out):
    if not shutil.which("bsdtar"):
        print("make-corpus: bsdtar missing (libarchive-tools): archive seeds skipped", file=sys.stderr)
        return 0
    n = 0
    picks = [b for b in bundles() if os.path.basename(b) in
             ("svm-asan-enabled", "seed-stale-dkms-module", "healthy-node", "asys-aicerror",
              "fleet-hccl-cascade")]
    formats = [  # (name index, bsdtar options)
        (0, ["--format", "ustar"]), (0, ["--format", "pax"]), (0, ["--format", "gnutar"]),
        (0, ["--format", "v7tar"]), (8, ["--format", "cpio"]), (8, ["--format", "newc"]),
        (3, ["--format", "zip"]), (5, ["--format", "7zip"]), (1, ["--format", "ustar", "--gzip"]),
        (2, ["--format", "ustar", "--zstd"]), (5, ["--format", "pax", "--xz"]),
        (5, ["--format", "ustar", "--bzip2"]), (5, ["--format", "ustar", "--lz4"]),
        (6, ["--format", "ustar", "--lzma"]), (5, ["--format", "ustar", "--lzip"]),
        (5, ["--format", "ustar", "--compress"]),
    ]
    with tempfile.TemporaryDirectory() as tmp:
        for b in picks:
            name = os.path.basename(b)
            tree = os.path.join(tmp, "t-" + name)
            os.makedirs(tree)
            if small_tree(b, tree) == 0:
                continue
            for idx, opts in formats:
                arc = os.path.join(tmp, "a.bin")
                if bsdtar(["-c", "-f", arc] + opts + [name], cwd=tree) and os.path.getsize(arc) < 60000:
                    with open(arc, "rb") as f:
                        data = bytes([idx]) + f.read()
                    put(out, "ingest", data, name)
                    put(out, "analyze", data, name)
                    n += 1
            # nested: a tar holding a tar.gz of one part, a zip of another and a gzip'd log
            nest = os.path.join(tmp, "n-" + name)
            os.makedirs(os.path.join(nest, "fleet"))
            bsdtar(["-c", "-z", "-f", os.path.join(nest, "fleet", "node01.tar.gz"), name], cwd=tree)
            bsdtar(["-c", "--format", "zip", "-f", os.path.join(nest, "fleet", "node02.bin"), name], cwd=tree)
            inner = os.path.join(nest, "fleet", "node03.tar.zst")
            if bsdtar(["-c", "--zstd", "-f", os.path.join(tmp, "deep.tar.zst"), name], cwd=tree):
                bsdtar(["-c", "-z", "-f", inner, "-C", tmp, "deep.tar.zst"], cwd=tree)
            logs = [p for p in files_of(tree) if p.endswith(".log")][:1]
            if logs:
                with open(logs[0], "rb") as f, open(os.path.join(nest, "fleet", "syslog.2.gz"), "wb") as g:
                    import gzip
                    g.write(gzip.compress(f.read()))
            arc = os.path.join(tmp, "nested.tar")
            if bsdtar(["-c", "-f", arc, "fleet"], cwd=nest) and os.path.getsize(arc) < 200000:
                with open(arc, "rb") as f:
                    data = bytes([0]) + f.read()
                put(out, "ingest", data, "nested-" + name)
                put(out, "analyze", data, "nested-" + name)
                n += 1
    # single compressed files and plain text
    import gzip
    import lzma
    log = b"May  8 09:56:18 node01 kernel: [  123.456789] devmm: Svm map va not fixed, vm_start=0x100000000000, vm_end=0x200000000000\n"
    put(out, "ingest", bytes([4]) + gzip.compress(log * 20), "single-gz")
    put(out, "ingest", bytes([9]) + lzma.compress(log * 20), "single-xz")
    put(out, "ingest", bytes([6]) + lzma.compress(log * 20, format=lzma.FORMAT_ALONE), "single-lzma")
    put(out, "ingest", bytes([5]) + log * 5, "plain")
    return n + 4


def split_signature_pack(text):
    """One small pack per signature of a rules/signatures file, family renamed to `fuzz`."""
    lines = text.split("\n")
    starts = [i for i, l in enumerate(lines) if l.startswith("  - id:")]
    if not starts:
        return []
    head = [l for l in lines[: starts[0]] if not l.startswith("family:")]
    packs = []
    for k, s in enumerate(starts):
        e = starts[k + 1] if k + 1 < len(starts) else len(lines)
        packs.append("\n".join(["family: fuzz"] + head + lines[s:e]).replace("  - id: ", "  - id: fuzz.", 1))
    return packs


def rule_seeds(out):
    n = 0
    sigdir = os.path.join(ROOT, "rules", "signatures")
    for f in sorted(os.listdir(sigdir)):
        with open(os.path.join(sigdir, f), encoding="utf-8") as fh:
            for p in split_signature_pack(fh.read()):
                # ids are <family>.<name>: rename the family part
                put(out, "signatures", p.replace("id: fuzz." + f[:-5] + ".", "id: fuzz.").encode(), f[:-5])
                n += 1
    for sub, prefix in (("diagnoses", b"D"), ("compat", b"C")):
        d = os.path.join(ROOT, "rules", sub)
        for f in sorted(os.listdir(d)):
            with open(os.path.join(d, f), "rb") as fh:
                put(out, "diagnoses", prefix + fh.read(), f[:-5])
                n += 1
    kb = os.path.join(ROOT, "tests", "tag", "data")
    for f in sorted(os.listdir(kb)):
        if f.endswith(".json"):
            with open(os.path.join(kb, f), "rb") as fh:
                put(out, "faultdiag", fh.read(), f[:-5])
                n += 1
    return n


TOKEN = "fuzz-token-0123456789abcdef"  # kToken of fuzz/harness/serve.cpp


def http_request(method, target, headers=(), body=b"", auth="header"):
    """One HTTP/1.1 request; auth: "header" (Bearer), "query" (?token=) or None."""
    if auth == "query":
        target += ("&" if "?" in target else "?") + "token=" + TOKEN
    h = [f"{method} {target} HTTP/1.1", "Host: 127.0.0.1"]
    if auth == "header":
        h.append("Authorization: Bearer " + TOKEN)
    h += list(headers)
    if body or method == "POST":
        h.append(f"Content-Length: {len(body)}")
    return ("\r\n".join(h) + "\r\n\r\n").encode() + body


def multipart(parts, boundary="XyZfaultline"):
    """parts: (name, filename or None, bytes)."""
    out = b""
    for name, filename, data in parts:
        disp = f'form-data; name="{name}"' + (f'; filename="{filename}"' if filename else "")
        out += (f"--{boundary}\r\nContent-Disposition: {disp}\r\n"
                "Content-Type: application/octet-stream\r\n\r\n").encode() + data + b"\r\n"
    return out + f"--{boundary}--\r\n".encode(), "multipart/form-data; boundary=" + boundary


def serve_seeds(out):
    """Requests of every route of docs/api.md; @ID@ / @FAILED@ are the finished and the failed
    analysis of the harness's data directory."""
    n = 0

    def add(data, tag):
        nonlocal n
        put(out, "serve", data, tag)
        n += 1

    gets = ["/", "/bundles", "/bundles/@ID@", "/bundles/@FAILED@", "/favicon.ico",
            "/api/bundles", "/api/bundles?limit=1", "/api/bundles?limit=0", "/api/bundles/@ID@",
            "/api/bundles/@ID@?report=0", "/api/bundles/@FAILED@", "/api/bundles/@ID@/report.md",
            "/api/bundles/@ID@/report.html?download=1", "/api/bundles/@ID@/report.json",
            "/api/bundles/@ID@/db", "/api/bundles/@FAILED@/report.md", "/api/bundles/@FAILED@/db",
            "/api/bundles/00000000000000000000000000000000", "/api/bundles/..%2F..%2Fetc",
            "/nowhere"]
    for i, g in enumerate(gets):
        add(http_request("GET", g, auth="query" if i % 2 else "header"), "get")
    add(http_request("HEAD", "/api/bundles/@ID@/report.md"), "head")
    add(http_request("GET", "/api/bundles", auth=None), "no-token")
    add(http_request("GET", "/", headers=["Authorization: Bearer wrong-token-0123456789"],
                     auth=None), "bad-token")
    add(http_request("DELETE", "/api/bundles/@ID@"), "delete")
    add(http_request("PUT", "/api/bundles", body=b"x" * 10), "put")
    # uploads: a small real bundle (tar.gz) raw, multipart, chunked, with Expect; oversize
    sample = os.path.join(ROOT, "samples", "svm-asan-enabled")
    with tempfile.TemporaryDirectory() as tmp:
        tree = os.path.join(tmp, "t")
        os.makedirs(tree)
        small_tree(sample, tree, max_files=6, max_file=4000, max_total=20000)
        arc = os.path.join(tmp, "node07.tar.gz")
        import tarfile
        with tarfile.open(arc, "w:gz") as t:
            t.add(tree, arcname="node07")
        with open(arc, "rb") as f:
            bundle = f.read()
    log = (b"[Driver] [2025-03-31 09:51:20] [INFO]Driver package installed successfully! "
           b"Reboot needed for installation/upgrade to take effect!\n")
    add(http_request("POST", "/api/bundles?name=node07.tar.gz",
                     ["Content-Type: application/octet-stream"], bundle), "upload-raw")
    add(http_request("POST", "/api/bundles", ["Content-Type: application/octet-stream",
                                              "X-Filename: ascend_install.log"], log, auth="query"),
        "upload-xfilename")
    body, ctype = multipart([("note", None, b"from the field"), ("file", "node07.tar.gz", bundle)])
    add(http_request("POST", "/api/bundles", ["Content-Type: " + ctype], body), "upload-multipart")
    body, ctype = multipart([("bundle", None, log)])
    add(http_request("POST", "/api/bundles", ["Content-Type: " + ctype], body), "upload-bundle-field")
    body, ctype = multipart([("note", None, b"no file")])
    add(http_request("POST", "/api/bundles", ["Content-Type: " + ctype], body), "upload-no-file")
    chunked = b"%x\r\n" % len(log) + log + b"\r\n0\r\n\r\n"
    req = http_request("POST", "/api/bundles?name=chunked.log",
                       ["Transfer-Encoding: chunked"]).replace(b"Content-Length: 0\r\n", b"")
    add(req + chunked, "upload-chunked")
    add(http_request("POST", "/api/bundles?name=x.log", ["Expect: 100-continue"], log), "upload-expect")
    big = log * (70 * 1024 // len(log) + 1)
    add(http_request("POST", "/api/bundles?name=big.log", [], big), "upload-oversize")
    add(http_request("POST", "/api/bundles?name=big.log", ["Expect: 100-continue"], b"")
        .replace(b"Content-Length: 0", b"Content-Length: 99999999999"), "upload-declared-huge")
    add(http_request("POST", "/api/bundles?name=..%2F..%2Fevil%20name.tar.gz", [], log), "upload-evil-name")
    add(http_request("POST", "/api/bundles", [], b""), "upload-empty")
    # keep-alive: several requests on one connection (three uploads: the queue holds two)
    add(http_request("GET", "/api/bundles?limit=2") +
        http_request("POST", "/api/bundles?name=a.log", [], log) +
        http_request("POST", "/api/bundles?name=b.log", [], log + b"b") +
        http_request("POST", "/api/bundles?name=c.log", [], log + b"c") +
        http_request("GET", "/api/bundles/@ID@/report.json"), "keepalive")
    return n


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--faultline", default=os.path.join(ROOT, "build", "faultline"))
    ap.add_argument("out")
    a = ap.parse_args()
    counts = {
        "classify": classify_seeds(a.out),
        "parse": parse_seeds(a.out, a.faultline),
        "archives (ingest, analyze)": archive_seeds(a.out),
        "rules (signatures, diagnoses, faultdiag)": rule_seeds(a.out),
        "http (serve)": serve_seeds(a.out),
    }
    for k, v in counts.items():
        print(f"make-corpus: {v} {k} seeds")


if __name__ == "__main__":
    main()
