#!/usr/bin/env bash
# Builds numasim and runs the whole test suite with ctest, as CI does.
#   scripts/test.sh             release build in build/, all tests
#   scripts/test.sh --sanitize  ASan+UBSan build in build-asan/, all tests but the slow label
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
jobs=$(nproc)
if [ "${1:-}" = "--sanitize" ]; then
  # -O1: AddressSanitizer's documented setting for usable speed (at -O0 the cost model ran 10-15x
  # slower than Release and the CLI tests' per-case timeouts were the first to feel it); Debug
  # keeps assertions and the invariant checks on.
  cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG="-g -O1" \
    -DNUMASIM_SANITIZE=ON -DBUILD_TESTING=ON -DNUMASIM_BENCH=OFF
  cmake --build build-asan -j "$jobs"
  ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
    ctest --test-dir build-asan --output-on-failure -j "$jobs" -LE slow --no-tests=error
else
  # BUILD_TESTING=ON: `setup.sh --run` may have configured build/ without the tests, and the
  # cache would keep that; NUMASIM_BENCH=ON likewise, so that the benchmarks are compiled (not
  # run) and one that no longer builds fails here; --no-tests=error: a suite that ran nothing
  # has failed.
  cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=ON -DNUMASIM_BENCH=ON
  cmake --build build -j "$jobs"
  ctest --test-dir build --output-on-failure -j "$jobs" --no-tests=error
fi
