#!/bin/sh
# Configures and builds faultline (binary: build/faultline; sanitizer build: build-asan/faultline).
# Usage: scripts/build.sh [--sanitize] [--no-tests]
set -eu
cd "$(dirname "$0")/.."
dir=build
tests=ON
extra=""
for a in "$@"; do
  case "$a" in
    --sanitize) dir=build-asan; extra="$extra -DFAULTLINE_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug" ;;
    --no-tests) tests=OFF ;;
    *) echo "usage: scripts/build.sh [--sanitize] [--no-tests]" >&2; exit 2 ;;
  esac
done
gen=""
if [ ! -f "$dir/CMakeCache.txt" ] && command -v ninja >/dev/null 2>&1; then gen="-G Ninja"; fi
# configure every time (cheap): the options of this call win over an earlier configuration
# shellcheck disable=SC2086
cmake -S . -B "$dir" $gen -DFAULTLINE_WERROR=ON -DFAULTLINE_TESTS=$tests $extra >/dev/null
jobs=$(nproc 2>/dev/null || echo 2)
cmake --build "$dir" -j "$jobs"
