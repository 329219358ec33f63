#!/usr/bin/env bash
# Builds the libFuzzer targets with clang and fuzzes each of them (docs/reliability.md):
#   scripts/fuzz.sh [SECS]               short run, SECS seconds per target (default 60; CI: 30);
#                                        stops at the first crash, as a test does
#   scripts/fuzz.sh --long SECS [JOBS]   long run: SECS seconds per target in JOBS forked workers
#                                        (default: nproc) that go on past crashes, hangs and
#                                        out-of-memory inputs, so that one bug does not hide the
#                                        next; the findings are left in build-fuzz/artifacts/,
#                                        and the inputs that reached new coverage are merged,
#                                        minimised, into the checked-in corpus fuzz/corpus/TARGET
#
# The targets:
#   scenario_fuzz  the scenario parser, seeded with the examples, the experiments and the
#                  hostile-input corpus (tests/cli/hostile); every scenario that loads is also
#                  simulated briefly through the invariant checker (fuzz/scenario_fuzz.cpp)
#   input_fuzz     machine files, hwloc XML (loaded by libhwloc in a child process, so libhwloc's
#                  own crashes are refused inputs), --param/-V strings, perf-bench-numa
#                  parameters, sweep specs and sweep case files, seeded with the presets, the
#                  hwloc test files, the libhwloc crash reproducers in fuzz/known/, the example
#                  sweeps and the corpus (fuzz/input_fuzz.cpp)
#   profile_fuzz   the recorded-profile importers of `numasim import damon` (damo JSON, plain and
#                  compressed, DAMON trace text, /proc/PID/maps copies), seeded with the test
#                  fixtures (fuzz/profile_fuzz.cpp)
# Each starts from fuzz/corpus/TARGET as well, the corpus earlier long runs grew.
set -euo pipefail
cd "$(dirname "$0")/.."
long=0
if [ "${1:-}" = "--long" ]; then
  long=1
  shift
fi
secs=${1:-60}
jobs=${2:-$(nproc)}
CC=clang CXX=clang++ cmake -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DNUMASIM_FUZZ=ON -DBUILD_TESTING=OFF -DNUMASIM_BENCH=OFF
cmake --build build-fuzz --target scenario_fuzz input_fuzz profile_fuzz -j "$(nproc)"

# Seeds go to a scratch corpus beside the checked-in one, which only a long run's merge changes.
seeds=build-fuzz/seeds
rm -rf "$seeds"
mkdir -p "$seeds/scenario_fuzz" "$seeds/input_fuzz" "$seeds/profile_fuzz"
cp examples/*.toml experiments/*.toml tests/cli/hostile/*.toml "$seeds/scenario_fuzz"/

# input_fuzz: the first byte of each seed picks the parser.
inputs=$seeds/input_fuzz
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
for f in examples/sweeps/*.toml; do seed 4 "$f"; done
# Case files (selector 5) are in the checked-in corpus: writing one needs a numasim build.

# profile_fuzz: the first byte picks the reader (0 JSON, 1 trace text, 2 either, 3 maps).
profiles=$seeds/profile_fuzz
pseed() { { printf "\\$(printf '%03o' "$1")"; cat "$2"; } > "$profiles/$1-$(basename "$2")"; }
for f in tests/replay/fixtures/*.json tests/replay/fixtures/*.json_compressed; do pseed 0 "$f"; done
for f in tests/replay/fixtures/*.txt; do pseed 1 "$f"; pseed 2 "$f"; done
printf '\003555555554000-555555556000 r-xp 00000000 08:01 42 /usr/bin/app\n' > "$profiles/3-maps"
printf '\0037f0000000000 default anon=4 dirty=4 N0=4 kernelpagesize_kB=4\n' > "$profiles/3-numa_maps"

# max_len: the largest hwloc seed (tests/machine/data/four_nodes.xml) is 9.6 KB; the largest
# profile seed (tests/replay/fixtures/damo-hot-cold.json) 42 KB.
declare -A max_len=([scenario_fuzz]=4096 [input_fuzz]=16384 [profile_fuzz]=49152)
# A hang: one input that runs for longer than this (a simulated run of a fuzzed scenario takes
# milliseconds, libhwloc's child process is bounded by kMaxHwlocLoadSeconds).
timeout=120
for target in scenario_fuzz input_fuzz profile_fuzz; do
  checked_in=fuzz/corpus/$target
  mkdir -p "$checked_in"
  if [ "$long" = 0 ]; then
    work=build-fuzz/corpus-$target
    mkdir -p "$work"
    ./build-fuzz/fuzz/$target -max_total_time="$secs" -max_len="${max_len[$target]}" \
      -rss_limit_mb=4096 -timeout="$timeout" "$work" "$checked_in" "$seeds/$target"
    continue
  fi
  work=build-fuzz/long-$target
  artifacts=build-fuzz/artifacts/$target/
  mkdir -p "$work" "$artifacts"
  log=build-fuzz/long-$target.log
  echo "fuzz: $target for $secs s in $jobs workers (log: $log, findings: $artifacts)"
  /usr/bin/time -f "fuzz: $target: %U s user, %S s system, %e s elapsed" \
    ./build-fuzz/fuzz/$target -fork="$jobs" -ignore_crashes=1 -ignore_timeouts=1 \
    -ignore_ooms=1 -max_total_time="$secs" -max_len="${max_len[$target]}" -rss_limit_mb=4096 \
    -timeout="$timeout" -artifact_prefix="$artifacts" "$work" "$checked_in" "$seeds/$target" \
    2>&1 | tee "$log" | grep -E '^#[0-9]+: cov|INFO: fuzzed|crash|Timeout|^fuzz:' || true
  # Add to the checked-in corpus the fewest of the new inputs that reach coverage it lacks (the
  # seeds stay where they are: the short runs read them from the tree).
  ./build-fuzz/fuzz/$target -merge=1 -max_len="${max_len[$target]}" -rss_limit_mb=4096 \
    -timeout="$timeout" "$checked_in" "$work" 2>&1 | tail -n 2
  echo "fuzz: $target: $(find "$artifacts" -type f | wc -l) findings in $artifacts," \
    "$(find "$checked_in" -type f | wc -l) inputs in $checked_in"
done
