#!/bin/sh
# The Debian package in a fresh Debian 12 root: installs (dpkg -i, then apt-get -f install for the
# computed Depends), runs `faultline --version`, `faultline analyze` on a sample, `faultline serve`
# as the unit would start it (without systemd: its ExecStart, its config, as its user), then
# removes the package (dpkg -r: only the conffile and /var/lib/faultline stay) and purges it
# (nothing stays, the user is gone).
#
# Usage: deb_test.sh BUILD_DIR SOURCE_DIR
#   FAULTLINE_DEB=path.deb      use this package instead of packing BUILD_DIR (cpack)
#   FAULTLINE_DEB_TEST_CACHE    where the root tarball and downloaded .debs are kept between runs
#                               (default BUILD_DIR/deb-test-cache)
# Needs root, chroot, mmdebstrap and the network (or the cache). Without a fresh root it says why
# and exits 77 (ctest: skipped).
set -eu

build=$(cd "$1" && pwd)
src=$(cd "$2" && pwd)
cache=${FAULTLINE_DEB_TEST_CACHE:-$build/deb-test-cache}
sample=seed-driver-reboot-pending
expect=driver.reboot_pending

skip() { echo "deb_test: SKIP: $*"; exit 77; }
fail() { echo "deb_test: FAIL: $*" >&2; exit 1; }
say() { echo "deb_test: $*"; }
t0=$(date +%s)

[ "$(id -u)" = 0 ] || skip "needs root (chroot, dpkg in the root)"
for tool in mmdebstrap chroot dpkg-deb tar python3 mount; do
  command -v "$tool" >/dev/null 2>&1 || skip "$tool is missing (scripts/install-deps.sh installs mmdebstrap)"
done

work=$(mktemp -d "${TMPDIR:-/tmp}/faultline-deb-test.XXXXXX")
root=$work/root
server_pid=
cleanup() {
  if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null || true; fi
  # never rm -rf through a mount point
  if mountpoint -q "$root/proc" 2>/dev/null; then umount "$root/proc" || umount -l "$root/proc" || true; fi
  if mountpoint -q "$root/proc" 2>/dev/null; then
    echo "deb_test: $root/proc still mounted; left $work" >&2
  else
    rm -rf "$work"
  fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# ------------------------------------------------------------------ the package
if [ -n "${FAULTLINE_DEB:-}" ]; then
  deb=$FAULTLINE_DEB
else
  [ -f "$build/CPackConfig.cmake" ] || fail "$build/CPackConfig.cmake missing (configure the build first)"
  (cd "$work" && cpack --config "$build/CPackConfig.cmake" -B "$work/cpack" >"$work/cpack.log" 2>&1) ||
    { cat "$work/cpack.log" >&2; fail "cpack failed"; }
  deb=$(ls "$work"/cpack/faultline_*.deb 2>/dev/null | head -n 1)
fi
[ -f "$deb" ] || fail "no .deb (${deb:-none})"
say "package $(basename "$deb")"
say "Depends: $(dpkg-deb -f "$deb" Depends)"
t_pack=$(date +%s)

# ------------------------------------------------------------------ a fresh Debian 12 root
# The machine's apt sources (the files naming bookworm), as mmdebstrap mirror arguments.
set --
for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources; do
  [ -f "$f" ] && grep -q bookworm "$f" && set -- "$@" "$f"
done
[ $# -gt 0 ] || skip "no bookworm entry in /etc/apt/sources.list{,.d/*.list,.d/*.sources}"
key=$(cat "$@" | sha256sum | cut -c1-12)
mkdir -p "$cache/archives"
tarball=$cache/bookworm-minbase-$key.tar
if [ ! -f "$tarball" ]; then
  say "building the root (mmdebstrap --variant=minbase bookworm, sources: $*)"
  # the apt lists stay in the root: apt-get -f install works from them (and the cached .debs)
  # (mmdebstrap writes a tarball for a name ending in .tar, a directory otherwise)
  part=$cache/partial-$key.tar
  if ! mmdebstrap --mode=root --variant=minbase --skip=cleanup/apt/lists --quiet bookworm \
      "$part" "$@" >"$work/mmdebstrap.log" 2>&1; then
    tail -n 20 "$work/mmdebstrap.log"
    rm -f "$part"
    skip "mmdebstrap could not build a Debian 12 root (network? see above)"
  fi
  mv "$part" "$tarball"
fi
mkdir -p "$root"
tar -C "$root" -xf "$tarball" || skip "cannot unpack $tarball"
mount -t proc proc "$root/proc" || skip "cannot mount /proc in the root"
t_root=$(date +%s)
in_root() { chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LC_ALL=C.UTF-8 "$@"; }

# ------------------------------------------------------------------ install
cp "$deb" "$root/tmp/faultline.deb"
# paths of the package that exist before it is installed (shared directories: /usr, /etc, ...)
dpkg-deb --fsys-tarfile "$deb" | tar -t | sed -e 's|^\./|/|' -e 's|/$||' | grep -v '^$' >"$work/paths"
while read -r p; do
  if [ -e "$root$p" ] || [ -L "$root$p" ]; then echo "$p"; fi
done <"$work/paths" >"$work/preexisting"

if in_root dpkg -i /tmp/faultline.deb >"$work/dpkg-i.log" 2>&1; then
  say "dpkg -i: installed (every dependency was already there)"
else
  grep -q "dependency problems" "$work/dpkg-i.log" || { cat "$work/dpkg-i.log"; fail "dpkg -i failed"; }
fi
cp "$cache/archives/"*.deb "$root/var/cache/apt/archives/" 2>/dev/null || true
apt_fix() { in_root env DEBIAN_FRONTEND=noninteractive apt-get -f install -y -q >"$work/apt.log" 2>&1; }
if ! apt_fix; then
  # lists older than the mirror (a cached root): refresh them once
  in_root apt-get update -q >"$work/apt-update.log" 2>&1 || {
    cat "$work/apt-update.log"; skip "apt-get update failed in the root (no network?)"; }
  apt_fix || { cat "$work/apt.log"; fail "apt-get -f install failed"; }
fi
cp "$root/var/cache/apt/archives/"*.deb "$cache/archives/" 2>/dev/null || true
status=$(in_root dpkg-query -W -f='${Status}' faultline)
[ "$status" = "install ok installed" ] || fail "faultline is '$status' after apt-get -f install"
say "installed with: $(grep -o '^Setting up [^ ]*' "$work/apt.log" | cut -d' ' -f3 | tr '\n' ' ')"
t_inst=$(date +%s)

# ------------------------------------------------------------------ what it installed
for f in /usr/bin/faultline /usr/bin/faultline-collect /usr/share/man/man1/faultline.1.gz \
  /usr/share/man/man1/faultline-collect.1.gz /usr/share/bash-completion/completions/faultline \
  /usr/share/zsh/vendor-completions/_faultline /usr/lib/systemd/system/faultline.service \
  /etc/default/faultline /usr/share/doc/faultline/README.md /usr/share/doc/faultline/copyright \
  /usr/share/doc/faultline/packaging.md /usr/share/faultline/rules/classify/kinds.yaml; do
  [ -e "$root$f" ] || fail "$f is not installed"
done
in_root dpkg-query -W -f='${Conffiles}\n' faultline | grep -q '^ /etc/default/faultline ' ||
  fail "/etc/default/faultline is not a conffile"
in_root getent passwd faultline >/dev/null || fail "postinst made no user faultline"
owner=$(in_root stat -c '%U:%G %a' /var/lib/faultline)
[ "$owner" = "faultline:faultline 750" ] || fail "/var/lib/faultline is $owner"
tok=$(in_root stat -c '%U %a' /var/lib/faultline/token)
[ "$tok" = "root 600" ] || fail "/var/lib/faultline/token is $tok"
zcat "$root/usr/share/man/man1/faultline.1.gz" | grep -q '^\.SH EXIT STATUS' || fail "man page: no EXIT STATUS"

# ------------------------------------------------------------------ run it
in_root faultline --version >"$work/version" || fail "faultline --version failed"
say "$(head -n 1 "$work/version")"
in_root faultline-collect --version >/dev/null || fail "faultline-collect --version failed"
cp -r "$src/samples/$sample" "$root/tmp/$sample"
rc=0
in_root faultline analyze "/tmp/$sample" --format json --output /tmp/report.json -q || rc=$?
[ "$rc" = 0 ] || [ "$rc" = 1 ] || fail "faultline analyze exited $rc"
grep -q "\"$expect\"" "$root/tmp/report.json" || fail "the report of $sample does not name $expect"
# the rules the package ships are the binary's own: they pass their own tests
in_root faultline rules test --rules /usr/share/faultline/rules >"$work/rules-test.log" 2>&1 ||
  { cat "$work/rules-test.log"; fail "faultline rules test --rules /usr/share/faultline/rules"; }

# `faultline serve` as faultline.service starts it: its ExecStart with the config file and the
# token file read as systemd does (${X}: one word, $X: split), as user faultline, on a free
# loopback port instead of the configured one.
unit=$root/usr/lib/systemd/system/faultline.service
exec_start=$(sed -n 's/^ExecStart=//p' "$unit" | sed 's/\${\([A-Z_]*\)}/"${\1}"/g')
[ -n "$exec_start" ] || fail "no ExecStart in faultline.service"
grep -q '^User=faultline$' "$unit" || fail "faultline.service does not run as faultline"
cat >"$root/tmp/start-serve" <<EOF
set -a
. /etc/default/faultline
. /var/lib/faultline/token
set +a
FAULTLINE_LISTEN=127.0.0.1:0
exec $exec_start
EOF
token=$(sed -n 's/^FAULTLINE_TOKEN=//p' "$root/var/lib/faultline/token")
[ -n "$token" ] || fail "empty token file"
(cd "$root/tmp" && tar -czf "$root/tmp/$sample.tar.gz" "$sample")
# the token file is root's (systemd reads it before dropping privileges): sourced as root,
# then the server runs as faultline
sed -i "s|^exec |exec setpriv --reuid=faultline --regid=faultline --init-groups env HOME=/var/lib/faultline |" "$root/tmp/start-serve"
# (chroot itself in the background, not a function: $! is then the server's pid)
chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LC_ALL=C.UTF-8 \
  sh /tmp/start-serve >"$work/serve.log" 2>&1 &
server_pid=$!
port=
i=0
while [ $i -lt 300 ] && [ -z "$port" ]; do
  port=$(sed -n 's|.*listening on http://127\.0\.0\.1:\([0-9]*\)/.*|\1|p' "$work/serve.log" | head -n 1)
  kill -0 "$server_pid" 2>/dev/null || break
  [ -n "$port" ] || sleep 0.1
  i=$((i + 1))
done
[ -n "$port" ] || { cat "$work/serve.log"; fail "faultline serve did not start"; }
say "serve listening on 127.0.0.1:$port"
python3 - "$port" "$token" "$root/tmp/$sample.tar.gz" "$expect" <<'EOF' || { cat "$work/serve.log"; fail "serve smoke test"; }
import json, sys, time, urllib.error, urllib.request
port, token, bundle, expect = sys.argv[1:]
base = "http://127.0.0.1:%s" % port
def get(path, auth=True, data=None):
    req = urllib.request.Request(base + path, data=data)
    if auth:
        req.add_header("Authorization", "Bearer " + token)
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            return r.status, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.read()
st, body = get("/", auth=False)
assert st == 401, "GET / without the token: %d" % st
st, body = get("/")
assert st == 200 and b"<html" in body.lower(), "GET /: %d" % st
st, body = get("/api/bundles?name=sample.tar.gz", data=open(bundle, "rb").read())
assert st == 202, "upload: %d %r" % (st, body[:200])
bid = json.loads(body)["id"]
for _ in range(600):  # a bound, not a timing assertion: the analysis takes ~1 s
    st, body = get("/api/bundles/%s?report=0" % bid)
    a = json.loads(body)
    if a["status"] in ("done", "failed"):
        break
    time.sleep(0.1)
assert a["status"] == "done", "analysis: %r" % a
assert a["verdict"] and a["verdict"]["id"] == expect, "verdict: %r" % a.get("verdict")
print("deb_test: serve: page 200, upload 202, analysis done, verdict", a["verdict"]["id"])
EOF
kill -TERM "$server_pid"
wait "$server_pid" || fail "faultline serve exited $? after SIGTERM"
server_pid=
[ -n "$(ls "$root/var/lib/faultline/serve")" ] || fail "serve wrote nothing under /var/lib/faultline/serve"
t_run=$(date +%s)

# ------------------------------------------------------------------ remove, purge
in_root dpkg-query -W -f='${Conffiles}\n' faultline | awk 'NF {print $1}' >"$work/conffiles"
in_root dpkg -r faultline >"$work/dpkg-r.log" 2>&1 || { cat "$work/dpkg-r.log"; fail "dpkg -r failed"; }
left=""
while read -r p; do
  grep -qxF "$p" "$work/preexisting" && continue
  grep -qxF "$p" "$work/conffiles" && continue  # dpkg keeps conffiles until purge
  if [ -e "$root$p" ] || [ -L "$root$p" ]; then left="$left $p"; fi
done <"$work/paths"
[ -z "$left" ] || fail "dpkg -r left:$left"
say "dpkg -r: none of the package's $(wc -l <"$work/paths") paths left but the conffile and" \
  "the $(wc -l <"$work/preexisting") shared directories that were there before"
[ -f "$root/var/lib/faultline/token" ] || fail "dpkg -r removed /var/lib/faultline"
in_root dpkg -P faultline >"$work/dpkg-p.log" 2>&1 || { cat "$work/dpkg-p.log"; fail "dpkg -P failed"; }
for p in $(cat "$work/conffiles") /var/lib/faultline; do
  [ ! -e "$root$p" ] || fail "dpkg -P left $p"
done
! in_root getent passwd faultline >/dev/null || fail "dpkg -P left the user faultline"
! in_root getent group faultline >/dev/null || fail "dpkg -P left the group faultline"
t_end=$(date +%s)
say "ok: pack $((t_pack - t0))s, root $((t_root - t_pack))s, install $((t_inst - t_root))s," \
  "run $((t_run - t_inst))s, remove $((t_end - t_run))s; total $((t_end - t0))s"
