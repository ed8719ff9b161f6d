#!/bin/sh
# README command 1: install what is missing, build, analyze a sample bundle and print the report.
set -eu
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh --no-tests >&2
bundle=${1:-samples/seed-driver-reboot-pending}
echo "faultline: analyzing $bundle" >&2
set +e
build/faultline analyze "$bundle" --db build/demo.db
rc=$?
set -e
# exit 1 only means "a finding at or above --fail-on": the demo still succeeded
if [ "$rc" -le 1 ]; then exit 0; fi
exit "$rc"
