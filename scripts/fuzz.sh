#!/usr/bin/env bash
# Builds the libFuzzer targets with clang and fuzzes each for N seconds (default 60):
#   scenario_fuzz  the scenario parser, seeded with the examples, the experiments and the
#                  hostile-input corpus (tests/cli/hostile); every scenario that loads is also
#                  simulated briefly through the invariant checker (fuzz/scenario_fuzz.cpp)
#   input_fuzz     machine files, hwloc XML (loaded by libhwloc in a child process, so libhwloc's
#                  own crashes are refused inputs), --param/-V strings and perf-bench-numa
#                  parameters, seeded with the presets, the hwloc test files, the libhwloc crash
#                  reproducers in fuzz/known/ and the corpus (fuzz/input_fuzz.cpp)
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-60}
CC=clang CXX=clang++ cmake -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DNUMASIM_FUZZ=ON -DBUILD_TESTING=OFF -DNUMASIM_BENCH=OFF
cmake --build build-fuzz --target scenario_fuzz input_fuzz -j "$(nproc)"

corpus=build-fuzz/corpus
mkdir -p "$corpus"
cp examples/*.toml experiments/*.toml tests/cli/hostile/*.toml "$corpus"/ 2>/dev/null || true
./build-fuzz/fuzz/scenario_fuzz -max_total_time="$secs" -max_len=4096 -rss_limit_mb=4096 "$corpus"

# input_fuzz: the first byte of each seed picks the parser.
inputs=build-fuzz/corpus-inputs
mkdir -p "$inputs"
seed() { { printf "\\$(printf '%03o' "$1")"; cat "$2"; } > "$inputs/$1-$(basename "$2")"; }
for f in src/machine/presets/*.toml tests/cli/hostile/machine_*.toml; do seed 0 "$f"; done
for f in tests/machine/data/*.xml examples/machines/*.xml tests/cli/hostile/*.xml fuzz/known/*.xml; do
  seed 1 "$f"
done
printf '\002smallimp=0' > "$inputs/2-set"
printf '\002old:profile=v4.18,smallimp=0' > "$inputs/2-variant"
printf '\002workload.process.threads=4294967298' > "$inputs/2-threads"
printf '\003nr_proc = 2\nnr_threads = 4\nmb_proc = 512\n' > "$inputs/3-perf"
printf '\003nr_proc = 65536\nnr_threads = 65536\n' > "$inputs/3-perf-overflow"
printf '\003mb_global = 1e-7\n' > "$inputs/3-perf-subpage"
# max_len: the largest hwloc seed (tests/machine/data/four_nodes.xml) is 9.6 KB.
./build-fuzz/fuzz/input_fuzz -max_total_time="$secs" -max_len=16384 -rss_limit_mb=4096 "$inputs"
