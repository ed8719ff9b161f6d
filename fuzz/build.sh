#!/bin/sh
# Builds the libFuzzer harnesses into build-fuzz/ (clang 14, ASan+UBSan, coverage) and their seed
# corpora into build-fuzz/seeds/ (docs/fuzzing.md). Then: fuzz/run.sh HARNESS SECONDS.
# The seeds of the parse harness need the normal build's binary (build/faultline): run
# scripts/build.sh first, or they are skipped.
set -eu
cd "$(dirname "$0")/.."
scripts/install-deps.sh --fuzz
if [ ! -f build-fuzz/CMakeCache.txt ]; then
  CC=clang-14 CXX=clang++-14 cmake -S . -B build-fuzz -G Ninja -DFAULTLINE_FUZZ=ON \
    -DFAULTLINE_TESTS=OFF -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
fi
cmake --build build-fuzz --target fuzzers -j 2
[ -d build-fuzz/seeds ] || fuzz/make-corpus.py --faultline build/faultline build-fuzz/seeds
