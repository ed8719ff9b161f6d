#!/bin/sh
# Configures and builds faultline into build/ (binary: build/faultline).
# Usage: scripts/build.sh [--sanitize] [--no-tests]
set -eu
cd "$(dirname "$0")/.."
dir=build
extra=""
for a in "$@"; do
  case "$a" in
    --sanitize) dir=build-asan; extra="$extra -DFAULTLINE_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug" ;;
    --no-tests) extra="$extra -DFAULTLINE_TESTS=OFF" ;;
    *) echo "usage: scripts/build.sh [--sanitize] [--no-tests]" >&2; exit 2 ;;
  esac
done
gen=""
if command -v ninja >/dev/null 2>&1; then gen="-G Ninja"; fi
if [ ! -f "$dir/CMakeCache.txt" ]; then
  # shellcheck disable=SC2086
  cmake -S . -B "$dir" $gen -DFAULTLINE_WERROR=ON $extra >/dev/null
fi
jobs=$(nproc 2>/dev/null || echo 2)
cmake --build "$dir" -j "$jobs"
