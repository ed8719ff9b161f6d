#!/bin/sh
# Browser test of `faultline serve` (run by ctest): see browser_test.py.
# usage: browser_test.sh FAULTLINE SOURCE_DIR BUILD_DIR
# Exits 77 (ctest SKIP_RETURN_CODE) when headless chromium or python3 is not installed
# (scripts/install-deps.sh installs chromium with FAULTLINE_BROWSER_TESTS=1).
set -u
if [ $# -ne 3 ]; then
  echo "usage: $0 FAULTLINE SOURCE_DIR BUILD_DIR" >&2
  exit 2
fi
chromium=""
for c in chromium chromium-browser; do
  if command -v "$c" >/dev/null 2>&1; then chromium=$(command -v "$c"); break; fi
done
if [ -z "$chromium" ]; then
  echo "SKIP: chromium is not installed (Debian package 'chromium'; FAULTLINE_BROWSER_TESTS=1 scripts/install-deps.sh)"
  exit 77
fi
if ! command -v python3 >/dev/null 2>&1; then
  echo "SKIP: python3 is not installed"
  exit 77
fi
exec python3 "$(dirname "$0")/browser_test.py" "$1" "$2" "$3" "$chromium"
