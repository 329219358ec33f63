#!/usr/bin/env bash
# Builds the libFuzzer targets with clang and fuzzes each of them (docs/reliability.md):
#   scripts/fuzz.sh [SECS]               short run, SECS seconds per target (default 60; CI: 30);
#                                        stops at the first crash, as a test does
#   scripts/fuzz.sh --long SECS [JOBS [TARGET...]]
#                                        long run: the three targets (or the TARGETs named) at
#                                        once, each until it has
#                                        used SECS seconds of CPU time (user + system, its forked
#                                        workers included; wall time varies with the host's load)
#                                        in JOBS forked workers (default 1) that go on past
#                                        crashes, hangs and out-of-memory inputs, so that one bug
#                                        does not hide the next; the findings are left in
#                                        build-fuzz/artifacts/, and the inputs that reached new
#                                        coverage are merged, minimised, into the checked-in
#                                        corpus fuzz/corpus/TARGET
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
#                  compressed, DAMON trace text, /proc/PID/maps copies) and `numasim import
#                  perf-mem` (perf script text of perf mem/c2c samples), seeded with the test
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
jobs=${2:-1}
all_targets=(scenario_fuzz input_fuzz profile_fuzz)
targets=("${all_targets[@]}")
if [ "$long" = 1 ] && [ $# -gt 2 ]; then
  targets=("${@:3}")
  for target in "${targets[@]}"; do
    case " ${all_targets[*]} " in
      *" $target "*) ;;
      *)
        echo "fuzz.sh: unknown target '$target' (targets: ${all_targets[*]})" >&2
        exit 2
        ;;
    esac
  done
fi
CC=clang CXX=clang++ cmake -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DNUMASIM_FUZZ=ON -DBUILD_TESTING=OFF -DNUMASIM_BENCH=OFF
cmake --build build-fuzz --target scenario_fuzz input_fuzz profile_fuzz -j "$(nproc)"

# The targets write each input to a file under TMPDIR (fuzz/fuzz_file.h), as does libFuzzer's
# fork mode with its jobs' corpora: a tmpfs keeps a disk mounted with `discard` from making every
# input wait for the device (a long run of profile_fuzz went from 222 to 7,785 executions a second).
if [ -z "${TMPDIR:-}" ] && [ -d /dev/shm ] && [ -w /dev/shm ]; then export TMPDIR=/dev/shm; fi

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

# profile_fuzz: the first byte picks the reader (0 JSON, 1 trace text, 2 either, 3 maps,
# 4 perf mem samples).
profiles=$seeds/profile_fuzz
pseed() { { printf "\\$(printf '%03o' "$1")"; cat "$2"; } > "$profiles/$1-$(basename "$2")"; }
for f in tests/replay/fixtures/*.json tests/replay/fixtures/*.json_compressed; do pseed 0 "$f"; done
for f in tests/replay/fixtures/damon-*.txt; do pseed 1 "$f"; pseed 2 "$f"; done
for f in tests/replay/fixtures/perf-*.txt; do pseed 4 "$f"; done
printf '\003555555554000-555555556000 r-xp 00000000 08:01 42 /usr/bin/app\n' > "$profiles/3-maps"
printf '\0037f0000000000 default anon=4 dirty=4 N0=4 kernelpagesize_kB=4\n' > "$profiles/3-numa_maps"

# max_len: the largest hwloc seed (tests/machine/data/four_nodes.xml) is 9.6 KB; the largest
# profile seed (tests/replay/fixtures/damo-hot-cold.json) 42 KB.
declare -A max_len=([scenario_fuzz]=4096 [input_fuzz]=16384 [profile_fuzz]=49152)
# A hang: one input that runs for longer than this (a simulated run of a fuzzed scenario takes
# milliseconds, libhwloc's child process is bounded by kMaxHwlocLoadSeconds).
timeout=120
if [ "$long" = 0 ]; then
  for target in "${targets[@]}"; do
    work=build-fuzz/corpus-$target
    mkdir -p "$work" "fuzz/corpus/$target"
    ./build-fuzz/fuzz/$target -max_total_time="$secs" -max_len="${max_len[$target]}" \
      -rss_limit_mb=4096 -timeout="$timeout" "$work" "fuzz/corpus/$target" "$seeds/$target"
  done
  exit 0
fi

# CPU seconds used by the process group PGID: each live member's own time and that of the
# children it has reaped (/proc/PID/stat fields 14-17). A worker's time moves into its parent's
# reaped-children fields when it ends, so nothing is counted twice.
clk_tck=$(getconf CLK_TCK)
cpu_seconds() {
  local files=()
  for member in $(pgrep -g "$1"); do files+=("/proc/$member/stat"); done
  { cat "${files[@]}" 2> /dev/null || true; } |
    awk -v hz="$clk_tck" '{ t += $14 + $15 + $16 + $17 } END { print int(t / hz) }'
}

# One target's long run: libFuzzer in fork mode in a process group of its own, ended once the
# group has used its CPU budget. SIGKILL, not SIGINT: a shell that starts a command in the
# background without job control makes it ignore SIGINT, and so would its fuzzers. What is lost
# is the running job's last inputs; the parent's corpus holds every earlier job's, and the
# directory it kept its jobs in is removed here. Wall time is capped at 20 times the budget
# so that a stopped host cannot keep it running for ever.
long_run() {
  local target=$1 work=build-fuzz/long-$1 artifacts=build-fuzz/artifacts/$1/
  local log=build-fuzz/long-$1.log used=0 now
  mkdir -p "$work" "$artifacts" "fuzz/corpus/$target"
  setsid ./build-fuzz/fuzz/$target -fork="$jobs" -ignore_crashes=1 -ignore_timeouts=1 \
    -ignore_ooms=1 -max_total_time=$((secs * 20)) -max_len="${max_len[$target]}" \
    -rss_limit_mb=4096 -timeout="$timeout" -artifact_prefix="$artifacts" "$work" \
    "fuzz/corpus/$target" "$seeds/$target" > "$log" 2>&1 &
  local pid=$!
  while kill -0 "$pid" 2> /dev/null; do
    sleep 5
    # Only upwards: once the group is gone (ended, or killed from outside) the sum falls.
    now=$(cpu_seconds "$pid")
    if [ "$now" -gt "$used" ]; then used=$now; fi
    if [ "$used" -ge "$secs" ]; then
      kill -KILL -- "-$pid" 2> /dev/null || true
      break
    fi
  done
  wait "$pid" 2> /dev/null || true
  rm -rf "${TMPDIR:-/tmp}/libFuzzerTemp.FuzzWithFork$pid.dir"
  echo "fuzz: $target: $used s of CPU time; $(grep -E '^#[0-9]+: cov' "$log" | tail -n 1)"
}

echo "fuzz: ${targets[*]} at once, each for $secs s of CPU time in $jobs workers" \
  "(logs: build-fuzz/long-TARGET.log, findings: build-fuzz/artifacts/TARGET/)"
for target in "${targets[@]}"; do long_run "$target" & done
wait
for target in "${targets[@]}"; do
  checked_in=fuzz/corpus/$target
  artifacts=build-fuzz/artifacts/$target/
  # Add to the checked-in corpus the fewest of the new inputs that reach coverage it lacks (the
  # seeds stay where they are: the short runs read them from the tree).
  ./build-fuzz/fuzz/$target -merge=1 -max_len="${max_len[$target]}" -rss_limit_mb=4096 \
    -timeout="$timeout" "$checked_in" "build-fuzz/long-$target" 2>&1 | tail -n 2
  echo "fuzz: $target: $(find "$artifacts" -type f | wc -l) findings in $artifacts," \
    "$(find "$checked_in" -type f | wc -l) inputs in $checked_in"
done
