#!/bin/sh
# README command 2: install what is missing, build, and run every test: the whole suite in a
# normal build (build/), then the same suite under AddressSanitizer + UndefinedBehaviorSanitizer
# (build-asan/), including the browser test of `faultline serve` (headless chromium).
# Usage: scripts/test.sh [--quick | --sanitize]
#   --quick     normal build only (for development)
#   --sanitize  sanitizer build only
set -eu
cd "$(dirname "$0")/.."
mode=${1:-all}
case "$mode" in
  all|--quick|--sanitize) ;;
  *) echo "usage: scripts/test.sh [--quick | --sanitize]" >&2; exit 2 ;;
esac
FAULTLINE_BROWSER_TESTS=1 scripts/install-deps.sh
jobs=$(nproc 2>/dev/null || echo 2)

if [ "$mode" != "--sanitize" ]; then
  scripts/build.sh
  ctest --test-dir build --output-on-failure -j "$jobs"
fi
if [ "$mode" != "--quick" ]; then
  export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:allocator_may_return_null=1
  export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
  scripts/build.sh --sanitize
  ctest --test-dir build-asan --output-on-failure -j "$jobs"
fi
