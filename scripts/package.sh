#!/bin/sh
# Builds the Debian package of faultline: a Release build in build-pkg/ (no tests), then CPack.
# Prints the path of the .deb (dist/faultline_<version>_<arch>.deb). Install it with
#   apt install ./dist/faultline_*.deb
# Usage: scripts/package.sh [--jobs N] [--arch arm64] [--no-deps]     (docs/packaging.md)
#   --arch arm64: cross-built for arm64 in build-pkg-arm64/ against the sysroot of
#     scripts/arm64-sysroot.sh (build-arm64/sysroot, shared with scripts/test-arm64.sh), Depends
#     computed by dpkg-shlibdeps from the sysroot's packages; the .deb is then checked
#     (tests/package/deb_arm64_check.sh: arm64, aarch64 binary, the arm64 runtime packages in
#     Depends, `faultline --version` under qemu names vectorscan). docs/arm64.md.
#   --no-deps: install nothing (scripts/install-deps.sh, the cross toolchain).
set -eu
cd "$(dirname "$0")/.."
jobs=$(nproc 2>/dev/null || echo 2)
arch=""
deps=1
while [ $# -gt 0 ]; do
  case "$1" in
    --jobs|-j) jobs=$2; shift ;;
    --arch) arch=$2; shift ;;
    --no-deps) deps=0 ;;
    *) echo "usage: scripts/package.sh [--jobs N] [--arch arm64] [--no-deps]" >&2; exit 2 ;;
  esac
  shift
done
host=$(dpkg --print-architecture 2>/dev/null || echo amd64)
if [ "$arch" = "$host" ]; then arch=""; fi
case "$arch" in
  "") ;;
  arm64) ;;
  *) echo "scripts/package.sh: --arch: arm64 (or this machine's $host), not '$arch'" >&2; exit 2 ;;
esac
dir=build-pkg
cross=""
if [ -z "$arch" ]; then
  if [ "$deps" = 1 ]; then scripts/install-deps.sh; fi
else
  nodeps=""
  if [ "$deps" = 0 ]; then nodeps=--no-deps; fi
  # shellcheck disable=SC2086
  # the sysroot of scripts/test-arm64.sh's build dir (FAULTLINE_SYSROOT_BUILD, default build-arm64)
  sysroot=$(scripts/arm64-sysroot.sh --build "${FAULTLINE_SYSROOT_BUILD:-$PWD/build-arm64}" $nodeps)
  dir=build-pkg-$arch
  # -O2, not Release's -O3: at -O3, GCC 12 for aarch64 raises its known bogus -Wrestrict on
  # `"x" + std::string` (libstdc++'s char_traits::copy; walk.cpp, composite.cpp, fs_path.cpp, ...),
  # an error under FAULTLINE_WERROR; -O2 builds clean, as scripts/test-arm64.sh's build does
  cross="-DCMAKE_TOOLCHAIN_FILE=$PWD/cmake/toolchains/aarch64-linux-gnu.cmake -DFAULTLINE_SYSROOT=$sysroot"
  # the cross build is the slow one (about 7 min at -j2 with a cold cache): ccache when installed
  if command -v ccache >/dev/null 2>&1; then
    cross="$cross -DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache"
  fi
  set -- "-DCMAKE_CXX_FLAGS_RELEASE=-O2 -DNDEBUG" "-DCMAKE_C_FLAGS_RELEASE=-O2 -DNDEBUG"
fi
gen=""
if [ ! -f "$dir/CMakeCache.txt" ] && command -v ninja >/dev/null 2>&1; then gen="-G Ninja"; fi
# $@: the cross build's flags (empty for the host's package: the options were all shifted away)
# shellcheck disable=SC2086
cmake -S . -B "$dir" $gen $cross -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX=/usr \
  -DFAULTLINE_TESTS=OFF -DFAULTLINE_WERROR=ON "$@" >/dev/null
cmake --build "$dir" -j "$jobs"
out=$(cpack --config "$dir/CPackConfig.cmake" -B "$PWD/dist")
rm -rf dist/_CPack_Packages
# "CPack: - package: /path/faultline_0.1.0-1_amd64.deb generated."
deb=$(printf '%s\n' "$out" | sed -n 's/^CPack: - package: \(.*\) generated\.$/\1/p')
if [ -n "$arch" ]; then
  sh tests/package/deb_arm64_check.sh "$deb" "$sysroot" >&2
fi
printf '%s\n' "$deb"
