#!/bin/sh
# Cross-builds faultline for arm64 (aarch64) and runs its tests under qemu-user (docs/arm64.md).
#
#   scripts/test-arm64.sh [--build DIR] [--host-build DIR] [--jobs N] [--all | --unit | --quick] [--no-deps] [--deb]
#
# Nothing arm64 is installed into the host: only the cross toolchain (crossbuild-essential-arm64)
# and qemu-user-static are, and Debian's arm64 .debs of faultline's dependencies are unpacked
# (dpkg -x) into a private sysroot, DIR/sysroot, so the host's amd64 -dev packages (libhyperscan-dev
# and libvectorscan-dev:arm64 conflict) stay as they are (scripts/arm64-sysroot.sh does both;
# --no-deps: it installs nothing). Then:
#   1. configure and build DIR (default build-arm64) with cmake/toolchains/aarch64-linux-gnu.cmake;
#   2. run the tests with ctest, each test binary under qemu-aarch64 -L DIR/sysroot;
#      --unit (default): every Catch2 test executable, `faultline rules test`/`rules lint` and
#      the samples check, i.e. all of ctest but the tests in $skip below;
#      --all: the whole ctest suite;
#      --quick: the tests that take seconds to a few minutes under qemu ($quick below), for a CI
#      time limit (docs/arm64.md has the times);
#   3. analyze every bundle of samples/ with the arm64 binary and with the host build's
#      (--host-build, default build; its faultline target is built when missing) and require
#      the json reports to be identical;
#   4. --deb: also build the arm64 .deb (scripts/package.sh --arch arm64, a Release build in
#      build-pkg-arm64/ against the same sysroot) and check it (tests/package/deb_arm64_check.sh:
#      Architecture, aarch64 binary, the computed Depends, --version under qemu).
# Runs as root (apt-get); idempotent: the sysroot is unpacked again only when its package list
# changes, and ccache is used when installed (CCACHE_DIR as set by the caller).
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
build=$root/build-arm64
host_build=$root/build
jobs=2
mode=unit
deps=1
deb=0
while [ $# -gt 0 ]; do
  case "$1" in
    --build) build=$2; shift ;;
    --host-build) host_build=$2; shift ;;
    --jobs) jobs=$2; shift ;;
    --all) mode=all ;;
    --unit) mode=unit ;;
    --quick) mode=quick ;;
    --no-deps) deps=0 ;;
    --deb) deb=1 ;;
    *) echo "usage: scripts/test-arm64.sh [--build DIR] [--host-build DIR] [--jobs N] [--all | --unit | --quick] [--no-deps] [--deb]" >&2
       exit 2 ;;
  esac
  shift
done
case "$build" in /*) ;; *) build=$PWD/$build ;; esac
case "$host_build" in /*) ;; *) host_build=$PWD/$host_build ;; esac
sysroot=$build/sysroot
# Left out by default (--all runs them): the collector's test (POSIX sh on the host, nothing
# arm64 in it), the browser test (a host chromium), and the three that analyze hundreds of
# generated bundles or limit cases, which take tens of minutes under emulation.
skip="collect|serve_browser|test_bounds|fleet_many_bundles|fleet_scale_out"
# --quick: ~6 min of CPU under qemu in all at load 7-10, ~1 min of wall at -j2 at load 2-5
# (docs/arm64.md; test_correlate ~5 min and test_app ~13 min are not in it)
quick="test_core|test_ingest|test_classify|test_parse|test_tag|test_store|test_report|report_inert|rules_test|rules_lint|version_engine"
t_start=$(date +%s)
say() { echo "test-arm64: $* ($(( $(date +%s) - t_start ))s)" >&2; }

# --- 1./2. host tools and the arm64 sysroot (shared with scripts/package.sh --arch arm64) ---------
nodeps=""
if [ "$deps" = 0 ]; then nodeps=--no-deps; fi
"$root/scripts/arm64-sysroot.sh" --build "$build" $nodeps >/dev/null
qemu=$(command -v qemu-aarch64-static || command -v qemu-aarch64)

# --- 3. cross build ------------------------------------------------------------------------------
launcher=""
if command -v ccache >/dev/null; then launcher="-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache"; fi
gen=""
if [ ! -f "$build/CMakeCache.txt" ]; then gen="-G Ninja"; fi
say "configuring $build"
# shellcheck disable=SC2086
cmake -S "$root" -B "$build" $gen $launcher \
  -DCMAKE_TOOLCHAIN_FILE="$root/cmake/toolchains/aarch64-linux-gnu.cmake" \
  -DFAULTLINE_SYSROOT="$sysroot" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DFAULTLINE_WERROR=ON -DFAULTLINE_TESTS=ON >/dev/null
say "building (-j$jobs)"
cmake --build "$build" -j "$jobs"
file "$build/faultline" | grep -q 'ARM aarch64' || { echo "test-arm64: $build/faultline is not arm64" >&2; exit 1; }
say "built $(file -b "$build/faultline" | cut -d, -f1-2)"

# --- 4. tests under qemu -------------------------------------------------------------------------
export QEMU_LD_PREFIX="$sysroot"
"$qemu" -L "$sysroot" "$build/faultline" --version
if [ "$mode" = all ]; then
  say "running the whole ctest suite under $qemu"
  ctest --test-dir "$build" -j "$jobs" --output-on-failure
elif [ "$mode" = quick ]; then
  say "running $quick under $qemu"
  ctest --test-dir "$build" -j "$jobs" --output-on-failure -R "^($quick)\$"
else
  say "running the tests but $skip under $qemu"
  ctest --test-dir "$build" -j "$jobs" --output-on-failure -E "^($skip)\$"
fi

# --- 5. same report on arm64 as on the host ------------------------------------------------------
if [ ! -x "$host_build/faultline" ]; then
  say "building the host faultline in $host_build for the comparison"
  if [ ! -f "$host_build/CMakeCache.txt" ]; then
    # shellcheck disable=SC2086
    cmake -S "$root" -B "$host_build" -G Ninja $launcher -DFAULTLINE_WERROR=ON >/dev/null
  fi
  cmake --build "$host_build" -j "$jobs" --target faultline
fi
cmp_dir=$build/compare
rm -rf "$cmp_dir"
mkdir -p "$cmp_dir"
n=0
for s in "$root"/samples/*/; do
  b=$(basename "$s")
  FAULTLINE_KB=none "$host_build/faultline" analyze -q "$s" --format json -o "$cmp_dir/$b.host.json" \
    --db "$cmp_dir/$b.host.db" || true
  FAULTLINE_KB=none "$qemu" -L "$sysroot" "$build/faultline" analyze -q "$s" --format json \
    -o "$cmp_dir/$b.arm64.json" --db "$cmp_dir/$b.arm64.db" || true
  n=$((n + 1))
done
# The json report holds no timings or run-specific paths (the bundle path is the same here): the
# two must be byte for byte identical.
bad=0
for s in "$root"/samples/*/; do
  b=$(basename "$s")
  h=$cmp_dir/$b.host.json
  a=$cmp_dir/$b.arm64.json
  if [ ! -s "$h" ] || ! cmp -s "$h" "$a"; then
    bad=$((bad + 1))
    echo "test-arm64: $b: the arm64 json report differs from the host's (or one is missing)" >&2
    diff "$h" "$a" 2>&1 | head -20 >&2 || true
  fi
done
say "$((n - bad))/$n sample json reports identical on arm64 and the host"
if [ "$bad" != 0 ] || [ "$n" = 0 ]; then exit 1; fi

# --- 6. the arm64 .deb ---------------------------------------------------------------------------
if [ "$deb" = 1 ]; then
  say "building and checking the arm64 .deb (scripts/package.sh --arch arm64)"
  pkg=$(FAULTLINE_SYSROOT_BUILD="$build" "$root/scripts/package.sh" --arch arm64 --no-deps --jobs "$jobs" | tail -n 1)
  say "arm64 package: $pkg"
fi
say "done"
