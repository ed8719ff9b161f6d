#!/bin/sh
# Builds the Debian package of faultline: a Release build in build-pkg/ (no tests), then CPack.
# Prints the path of the .deb (dist/faultline_<version>_<arch>.deb). Install it with
#   apt install ./dist/faultline_*.deb
# Usage: scripts/package.sh [--jobs N]     (docs/packaging.md)
set -eu
cd "$(dirname "$0")/.."
jobs=$(nproc 2>/dev/null || echo 2)
while [ $# -gt 0 ]; do
  case "$1" in
    --jobs|-j) jobs=$2; shift ;;
    *) echo "usage: scripts/package.sh [--jobs N]" >&2; exit 2 ;;
  esac
  shift
done
scripts/install-deps.sh
dir=build-pkg
gen=""
if [ ! -f "$dir/CMakeCache.txt" ] && command -v ninja >/dev/null 2>&1; then gen="-G Ninja"; fi
# shellcheck disable=SC2086
cmake -S . -B "$dir" $gen -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX=/usr \
  -DFAULTLINE_TESTS=OFF -DFAULTLINE_WERROR=ON >/dev/null
cmake --build "$dir" -j "$jobs"
out=$(cpack --config "$dir/CPackConfig.cmake" -B "$PWD/dist")
rm -rf dist/_CPack_Packages
# "CPack: - package: /path/faultline_0.1.0-1_amd64.deb generated."
printf '%s\n' "$out" | sed -n 's/^CPack: - package: \(.*\) generated\.$/\1/p'
