#!/bin/sh
# README command 2: install what is missing, build, and run every test.
# Usage: scripts/test.sh [--sanitize]   (--sanitize: the same tests under ASan+UBSan, in build-asan/)
set -eu
cd "$(dirname "$0")/.."
scripts/install-deps.sh
dir=build
if [ "${1:-}" = "--sanitize" ]; then
  dir=build-asan
  export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
  export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
  scripts/build.sh --sanitize
else
  scripts/build.sh
fi
jobs=$(nproc 2>/dev/null || echo 2)
ctest --test-dir "$dir" --output-on-failure -j "$jobs"
