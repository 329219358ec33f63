#!/usr/bin/env bash
# Builds the libFuzzer target with clang and fuzzes the scenario parser for N seconds (default 60),
# seeded with the example scenarios; every scenario that loads is also simulated briefly through
# the invariant checker (fuzz/scenario_fuzz.cpp).
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-60}
CC=clang CXX=clang++ cmake -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DNUMASIM_FUZZ=ON -DBUILD_TESTING=OFF -DNUMASIM_BENCH=OFF
cmake --build build-fuzz --target scenario_fuzz -j "$(nproc)"
corpus=build-fuzz/corpus
mkdir -p "$corpus"
cp examples/*.toml experiments/*.toml "$corpus"/ 2>/dev/null || true
./build-fuzz/fuzz/scenario_fuzz -max_total_time="$secs" -max_len=4096 -rss_limit_mb=4096 "$corpus"
