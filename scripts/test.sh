#!/bin/sh
# README command 2: install what is missing, build, and run every test: the whole suite in a
# normal build (build/), with the .deb of scripts/package.sh installed in a fresh Debian root
# (package_deb), then the same suite under AddressSanitizer + UndefinedBehaviorSanitizer
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
  if [ "$mode" = all ] && [ -z "${FAULTLINE_DEB:-}" ]; then
    # README's install path, as a user runs it (issue 36: its -O3 Release build broke on GCC 12
    # while CI built another configuration): scripts/package.sh builds build-pkg/ and the .deb,
    # which the fresh-root test (package_deb) then installs instead of a cpack of build/.
    # About 6-8 minutes of CI (a Release build without tests; ccache when warm).
    FAULTLINE_DEB=$(scripts/package.sh --no-deps --jobs "$jobs" | tail -n 1)
    export FAULTLINE_DEB
  fi
  ctest --test-dir build --output-on-failure -j "$jobs"
fi
if [ "$mode" != "--quick" ]; then
  export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:allocator_may_return_null=1
  export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
  scripts/build.sh --sanitize
  ctest --test-dir build-asan --output-on-failure -j "$jobs"
fi
