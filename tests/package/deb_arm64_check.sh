#!/bin/sh
# Checks the arm64 .deb (scripts/package.sh --arch arm64; docs/arm64.md, docs/packaging.md):
#   - the control file says Architecture: arm64;
#   - /usr/bin/faultline in it is an aarch64 ELF;
#   - Depends, computed by dpkg-shlibdeps from the sysroot's packages, names the arm64 runtime
#     packages of what the binary links (libvectorscan5, libarchive13, libzstd1, libsqlite3-0,
#     libssl3, libc6, libstdc++6, ...), every package the binary's NEEDED libraries come from,
#     none of the cross toolchain's (*-arm64-cross) and not libhyperscan5 (x86 only);
#   - with SYSROOT and qemu-aarch64: the packaged binary runs, `--version` names vectorscan.
#   deb_arm64_check.sh DEB [SYSROOT]
# Exit 77 (skip) when there is no DEB (no cross toolchain: nothing was built), 1 on a failure.
set -eu
deb=${1:-}
sysroot=${2:-}
if [ -z "$deb" ] || [ ! -f "$deb" ]; then
  echo "deb_arm64_check: SKIP: no arm64 package '$deb' (scripts/package.sh --arch arm64 makes it)"
  exit 77
fi
fails=0
fail() { echo "deb_arm64_check: FAIL: $*"; fails=$((fails + 1)); }
ok() { echo "deb_arm64_check: ok: $*"; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

arch=$(dpkg-deb -f "$deb" Architecture)
if [ "$arch" = arm64 ]; then ok "Architecture: $arch"; else fail "Architecture: '$arch', not arm64"; fi
dpkg-deb -x "$deb" "$work/root"
bin=$work/root/usr/bin/faultline
desc=$(file -b "$bin" 2>/dev/null || true)
case "$desc" in
  *"ARM aarch64"*) ok "usr/bin/faultline: $(echo "$desc" | cut -d, -f1-2)" ;;
  *) fail "usr/bin/faultline is not an aarch64 ELF: $desc" ;;
esac

depends=$(dpkg-deb -f "$deb" Depends)
echo "deb_arm64_check: Depends: $depends"
names=$(printf '%s\n' "$depends" | tr ',' '\n' | sed 's/^ *//; s/[ (].*//' | sort -u)
for p in libvectorscan5 libarchive13 libzstd1 libsqlite3-0 libssl3 libc6 libstdc++6 libgcc-s1 adduser; do
  printf '%s\n' "$names" | grep -qx "$p" || fail "Depends lacks $p"
done
for p in $names; do
  case "$p" in
    *-cross|libhyperscan5) fail "Depends names $p: not an arm64 runtime package" ;;
  esac
done
# every library the binary needs has its package in Depends (the sysroot's shlibs files say which)
if [ -n "$sysroot" ] && [ -f "$sysroot/DEBIAN/shlibs" ]; then
  for so in $(readelf -d "$bin" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
    # shlibs lines: "libhs 5 libvectorscan5 (>= 5.4.9)" for libhs.so.5, "libyaml-cpp 0.7 ..." for
    # libyaml-cpp.so.0.7; ld-linux-aarch64.so.1 is libc6's
    case "$so" in
      *.so.*) n=${so%%.so.*}; v=${so#*.so.} ;;
      *) n=${so%-*}; v=${so##*-}; v=${v%.so} ;;
    esac
    pkg=$(awk -v n="$n" -v v="$v" '$1 == n && $2 == v { print $3; exit }' "$sysroot/DEBIAN/shlibs")
    case "$so" in ld-linux-*) pkg=libc6 ;; esac
    if [ -z "$pkg" ]; then
      fail "$so (NEEDED): no package in $sysroot/DEBIAN/shlibs"
    elif ! printf '%s\n' "$names" | grep -qx "$pkg"; then
      fail "$so (NEEDED) is $pkg's, which Depends lacks"
    fi
  done
fi

qemu=$(command -v qemu-aarch64-static || command -v qemu-aarch64 || true)
if [ -n "$sysroot" ] && [ -n "$qemu" ]; then
  if v=$("$qemu" -L "$sysroot" "$bin" --version 2>&1); then
    if printf '%s\n' "$v" | grep -q '^vectorscan [0-9]'; then
      ok "--version under qemu: $(printf '%s\n' "$v" | grep '^vectorscan')"
    else
      fail "--version does not name vectorscan: $v"
    fi
  else
    fail "the packaged binary does not run under $qemu: $v"
  fi
fi
[ "$fails" = 0 ] || { echo "deb_arm64_check: $fails failure(s)"; exit 1; }
echo "deb_arm64_check: passed"
