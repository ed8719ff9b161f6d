#!/usr/bin/env python3
"""`faultline --version` names the regex engine the binary really uses (docs/report.md, docs/arm64.md).

  check_version.py ELF RUN [SYSROOT]
ELF: the faultline executable; RUN: how to run it (the same, or the qemu wrapper of a cross build);
SYSROOT: the cross build's arm64 root (cmake/toolchains/aarch64-linux-gnu.cmake), if any.

Hyperscan and Vectorscan share libhs's pkg-config name, headers and soname, so the build detects
which one it compiles against (cmake/Dependencies.cmake). This test does not ask CMake: it finds
which library the binary loads and who shipped it, independently:
  - the target: an aarch64 (or any non-x86) binary can only have Vectorscan (Hyperscan is x86-only);
  - the file: the libhs.so.5 the loader resolves (ldd on the host, the sysroot's for a cross
    build), and the Debian package that owns it (dpkg-query -S, libhyperscan5 / libvectorscan5), or
    the sysroot's /usr/share/doc/<package> that `dpkg-deb -x` left there;
then requires the --version line of that name, with the package's upstream version, and no line
of the other. Exit 77 (skip) when neither the target nor a package tells (a source-built libhs).
"""
import os
import re
import subprocess
import sys

elf, run = sys.argv[1], sys.argv[2]
sysroot = sys.argv[3] if len(sys.argv) > 3 and sys.argv[3] else None
ENGINES = {"libhyperscan5": "hyperscan", "libvectorscan5": "vectorscan"}
failed = []


def check(ok, what):
    if not ok:
        failed.append(what)
        print("FAIL " + what)


r = subprocess.run([run, "--version"], capture_output=True, text=True)
check(r.returncode == 0, f"--version exit status {r.returncode}: {r.stderr!r}")
lines = r.stdout.splitlines()
names = [line.split(" ", 1)[0] for line in lines]
values = dict(line.split(" ", 1) for line in lines if " " in line)
# the documented order: faultline, rules, the regex engine, libarchive, sqlite, zstd
check(len(names) == 6 and names[:2] == ["faultline", "rules"] and names[3:] == ["libarchive", "sqlite", "zstd"]
      and names[2] in ENGINES.values(), f"--version lines: {names}")
for name, value in values.items():
    check(value == value.strip() and value != "", f"--version: {name!r} line has an empty or padded value {value!r}")
shown = names[2] if len(names) > 2 else None

# --- what the binary really loads ------------------------------------------------------------------
machine = subprocess.run(["readelf", "-h", elf], capture_output=True, text=True).stdout
machine = re.search(r"Machine:\s*(.*)", machine)
machine = machine.group(1).strip() if machine else ""
needed = subprocess.run(["readelf", "-d", elf], capture_output=True, text=True).stdout
check("[libhs.so.5]" in needed, f"{elf} does not link libhs.so.5")

expect, why, version = None, None, None
if machine and "X86-64" not in machine and "80386" not in machine:
    expect, why = "vectorscan", f"a {machine} binary (Hyperscan is x86-only)"

lib = None
if sysroot:
    for d in ("usr/lib/aarch64-linux-gnu", "lib/aarch64-linux-gnu", "usr/lib"):
        if os.path.exists(os.path.join(sysroot, d, "libhs.so.5")):
            lib = os.path.realpath(os.path.join(sysroot, d, "libhs.so.5"))
            break
else:
    m = re.search(r"libhs\.so\.5 => (\S+)", subprocess.run(["ldd", elf], capture_output=True, text=True).stdout)
    lib = os.path.realpath(m.group(1)) if m else None
check(lib is not None, "libhs.so.5: not found where the binary loads it from")

owner = None
if lib and not sysroot:
    q = subprocess.run(["dpkg-query", "-S", lib], capture_output=True, text=True)
    # "libhyperscan5:amd64: /usr/lib/x86_64-linux-gnu/libhs.so.5.4.0"
    m = re.match(r"([a-z0-9.+-]+)(:[a-z0-9]+)?: ", q.stdout)
    owner = m.group(1) if q.returncode == 0 and m else None
    if owner:
        v = subprocess.run(["dpkg-query", "-W", "-f=${Version}", owner], capture_output=True, text=True).stdout
        version = re.sub(r"^\d+:", "", v).split("-")[0].split("+")[0]
elif lib:
    found = [p for p in ENGINES if os.path.isdir(os.path.join(sysroot, "usr/share/doc", p))]
    owner = found[0] if len(found) == 1 else None
    m = re.search(r"libhs\.so\.(\d+\.\d+\.\d+)$", lib)
    version = m.group(1) if m else None
if owner in ENGINES:
    if expect and ENGINES[owner] != expect:
        check(False, f"{lib} comes from {owner}, but {why} needs vectorscan")
    expect, why = ENGINES[owner], f"{lib} comes from {owner}"

if expect is None:
    print(f"SKIP: cannot tell which libhs {lib} is (not from a Debian package, x86 target); "
          f"--version says {shown}")
    sys.exit(77 if not failed else 1)
check(shown == expect, f"--version names {shown!r}, but {why}: expected {expect!r}")
if version and shown in values:
    check(values[shown].split(" ")[0] == version,
          f"--version: {shown} {values[shown]!r}, but {lib} is {version}")
print(f"--version: {shown} {values.get(shown)!r}; {why}" + (f", version {version}" if version else ""))
print(f"{'FAILED' if failed else 'passed'}: {len(failed)} failure(s)")
sys.exit(1 if failed else 0)
