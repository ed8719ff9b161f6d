#!/bin/sh
# The arm64 (aarch64) cross toolchain and a private sysroot of Debian's arm64 packages, shared by
# scripts/test-arm64.sh (cross build and qemu tests) and scripts/package.sh --arch arm64 (the arm64
# .deb); docs/arm64.md.
#
#   scripts/arm64-sysroot.sh [--build DIR] [--no-deps]
#
# Nothing arm64 is installed into the host: only the cross toolchain (crossbuild-essential-arm64)
# and qemu-user-static are, and Debian's arm64 .debs of faultline's dependencies are unpacked
# (dpkg -x) into DIR/sysroot (DIR default build-arm64), so the host's amd64 -dev packages
# (libhyperscan-dev and libvectorscan-dev:arm64 conflict) stay as they are. The sysroot also gets
# DIR/sysroot/DEBIAN/{shlibs,symbols}: every unpacked package's own shlibs and symbols files
# (dpkg-deb -e), so that dpkg-shlibdeps computes an arm64 package's Depends from the sysroot's
# libraries as it would on an arm64 Debian (a library under a directory with DEBIAN/ is looked up
# there; packaging/CMakeLists.txt).
# --no-deps: install nothing (the tools must be there). Runs as root (apt-get); idempotent: the
# sysroot is unpacked again only when its package list changes.
# Prints the sysroot's path on stdout.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
build=$root/build-arm64
deps=1
while [ $# -gt 0 ]; do
  case "$1" in
    --build) build=$2; shift ;;
    --no-deps) deps=0 ;;
    *) echo "usage: scripts/arm64-sysroot.sh [--build DIR] [--no-deps]" >&2; exit 2 ;;
  esac
  shift
done
case "$build" in /*) ;; *) build=$PWD/$build ;; esac
sysroot=$build/sysroot
t_start=$(date +%s)
say() { echo "arm64-sysroot: $* ($(( $(date +%s) - t_start ))s)" >&2; }

SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO=sudo; fi
export DEBIAN_FRONTEND=noninteractive

# --- 1. host tools -------------------------------------------------------------------------------
if [ "$deps" = 1 ]; then
  "$root/scripts/install-deps.sh" >&2  # host build (for comparisons), cmake, ninja, python3, dpkg-dev
  missing=""
  for p in crossbuild-essential-arm64 qemu-user-static; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
  done
  if ! dpkg --print-foreign-architectures | grep -qx arm64; then
    say "adding the arm64 architecture to dpkg (package lists only; nothing arm64 is installed)"
    $SUDO dpkg --add-architecture arm64
    $SUDO apt-get update -qq
  elif [ -z "$(apt-cache madison libvectorscan5:arm64 2>/dev/null)" ]; then
    $SUDO apt-get update -qq
  fi
  if [ -n "$missing" ]; then
    say "installing:$missing"
    # shellcheck disable=SC2086
    $SUDO apt-get install -y -qq --no-install-recommends $missing >/dev/null
  fi
fi
qemu=$(command -v qemu-aarch64-static || command -v qemu-aarch64 || true)
if [ -z "$qemu" ] || ! command -v aarch64-linux-gnu-g++ >/dev/null; then
  echo "arm64-sysroot: needs aarch64-linux-gnu-g++ and qemu-aarch64(-static) (run without --no-deps)" >&2
  exit 1
fi

# --- 2. the arm64 sysroot ------------------------------------------------------------------------
# faultline's build dependencies (README), arm64 builds, plus libc/libstdc++ development files, and
# everything they depend on (Depends/Pre-Depends, recursively; no Recommends).
want="libvectorscan-dev libarchive-dev libzstd-dev libsqlite3-dev libyaml-cpp-dev libpcre2-dev
libssl-dev libcpp-httplib-dev catch2 libc6-dev libstdc++-12-dev"
indep="libcli11-dev nlohmann-json3-dev"   # Architecture: all (headers and CMake files)
mkdir -p "$build/debs"
# shellcheck disable=SC2046,SC2086
list=$(apt-cache depends --recurse --no-recommends --no-suggests --no-conflicts --no-breaks \
         --no-replaces --no-enhances $(for p in $want; do echo "$p:arm64"; done) 2>/dev/null |
       grep -v '^[ <]' | grep ':arm64$' | sort -u)
list="$list
$indep"
stamp=$(printf '%s\n' "$list" | sort | cksum | cut -d' ' -f1)
if [ ! -f "$sysroot/.faultline-sysroot" ] || [ "$(cat "$sysroot/.faultline-sysroot")" != "$stamp" ]; then
  say "downloading $(printf '%s\n' "$list" | wc -l) arm64 packages into $build/debs"
  rm -rf "$sysroot" "$build/debs"
  mkdir -p "$sysroot" "$build/debs"
  # shellcheck disable=SC2086
  (cd "$build/debs" && apt-get download -o APT::Sandbox::User=root -qq $list)
  for d in "$build"/debs/*.deb; do dpkg-deb -x "$d" "$sysroot"; done
  # merged /usr as on an installed Debian 12, so that /lib/ld-linux-aarch64.so.1 resolves
  for d in lib bin sbin; do
    if [ -d "$sysroot/$d" ] && [ ! -L "$sysroot/$d" ]; then
      cp -a "$sysroot/$d/." "$sysroot/usr/$d/"
      rm -rf "${sysroot:?}/$d"
    fi
    [ -e "$sysroot/$d" ] || ln -s "usr/$d" "$sysroot/$d"
  done
  # absolute symlinks (libz.so -> /lib/aarch64-linux-gnu/libz.so.1) point into the host: make
  # them relative to the sysroot
  find "$sysroot" -type l | while read -r l; do
    t=$(readlink "$l")
    case "$t" in
      /*) ln -sfn "$(realpath -m --relative-to="$(dirname "$l")" "$sysroot$t")" "$l" ;;
    esac
  done
  rm -rf "$sysroot/DEBIAN"
  echo "$stamp" > "$sysroot/.faultline-sysroot"
  say "sysroot ready: $sysroot ($(du -sm "$sysroot" | cut -f1) MB)"
fi
# Every unpacked package's shlibs and symbols files ("libhs.so.5 libvectorscan5 #MINVER#" and the
# symbols with the package versions that introduced them), in one DEBIAN/ for the whole sysroot.
# Made apart from the unpacking, so that a sysroot made before it existed only gains it.
if [ ! -f "$sysroot/DEBIAN/symbols" ]; then
  ctl=$build/debs/.control
  rm -rf "$sysroot/DEBIAN.new"
  mkdir -p "$sysroot/DEBIAN.new"
  : >"$sysroot/DEBIAN.new/shlibs"
  : >"$sysroot/DEBIAN.new/symbols"
  for d in "$build"/debs/*.deb; do
    rm -rf "$ctl"
    dpkg-deb -e "$d" "$ctl"
    for f in shlibs symbols; do
      if [ -f "$ctl/$f" ]; then cat "$ctl/$f" >>"$sysroot/DEBIAN.new/$f"; fi
    done
  done
  rm -rf "$ctl"
  mv "$sysroot/DEBIAN.new" "$sysroot/DEBIAN"
  say "sysroot: shlibs/symbols files of $(grep -c '^[^ #*|]' "$sysroot/DEBIAN/symbols") libraries in $sysroot/DEBIAN"
fi
echo "$sysroot"
