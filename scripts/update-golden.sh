#!/bin/sh
# Refreshes the golden reports of every sample (tests/golden/<sample>.{md,json}) from the current
# build. Review the diff before committing: a golden change is a behaviour change.
set -eu
cd "$(dirname "$0")/.."
python3 tests/samples/check_samples.py build/faultline . --update
