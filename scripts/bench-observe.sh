#!/usr/bin/env bash
# What observing a run costs: times one scenario plain, with --sample 1s, with ten times the
# samples (--sample 100ms), with a full ftrace text trace, with a Perfetto trace and with a
# trace.dat (one iteration, one worker, best of REPEAT), and prints each against the plain run
# with the targets (sampling <= 1.2x, a full trace <= 3x) and its peak RSS, which should stay the
# plain run's whatever the number of samples or the size of the trace (everything streams to disk).
# Usage: scripts/bench-observe.sh [FILE.toml [RUN-OPTION...]]
#        (default: examples/autonumabench-numa01.toml; options such as --duration 60s are given
#        to every run)
# Environment: BUILD_DIR (default build), REPEAT (default 3), OUT (default: a temporary dir).
set -euo pipefail
cd "$(dirname "$0")/.."
numasim="${BUILD_DIR:-build}/numasim"
file="${1:-examples/autonumabench-numa01.toml}"
shift $(( $# > 0 ? 1 : 0 ))
extra=("$@")
repeat="${REPEAT:-3}"
out="${OUT:-$(mktemp -d /tmp/numasim-bench-observe.XXXXXX)}"
mkdir -p "$out"

best() {  # "wall-seconds peak-RSS-MB" of the fastest of $repeat runs of `numasim run FILE ARGS...`
  local b="" t m r
  for _ in $(seq "$repeat"); do
    rm -rf "$out/run" "$out"/trace.*
    r=$( { /usr/bin/time -f '%e %M' "$numasim" run "$file" --iterations 1 -j 1 "${extra[@]}" "$@" >/dev/null; } 2>&1 )
    t=${r% *}
    if [ -z "$b" ] || awk "BEGIN{exit !($t < $b)}"; then b=$t; m=$(( ${r#* } / 1024 )); fi
  done
  echo "$b $m"
}

size() {  # the size of what the last run wrote, in MB
  du -sm "$@" 2>/dev/null | awk '{s += $1} END {print s + 0}'
}

read -r plain rss < <(best)
printf '%-28s %8s %7s %8s %8s %s\n' "mode" "wall s" "ratio" "RSS MB" "out MB" "target"
printf '%-28s %8.2f %7s %8d %8s\n' "plain" "$plain" "1.00x" "$rss" "-"
row() {  # row NAME TARGET OUTPUT ARGS...
  local name=$1 target=$2 output=$3 t m
  shift 3
  read -r t m < <(best "$@")
  printf '%-28s %8.2f %6.2fx %8d %8d %s\n' "$name" "$t" "$(awk "BEGIN{print $t / $plain}")" \
    "$m" "$(size "$output")" "$target"
}
row "--sample 1s" "<= 1.2x" "$out/run" --sample 1s --out-dir "$out/run"
row "--sample 100ms" "RSS as 1s" "$out/run" --sample 100ms --out-dir "$out/run"
row "--trace (ftrace text)" "<= 3x" "$out/trace.txt" --trace "$out/trace.txt"
row "--trace-format perfetto" "<= 3x" "$out/trace.json" --trace-format perfetto --trace "$out/trace.json"
row "--trace-format trace-dat" "<= 3x" "$out/trace.dat" --trace-format trace-dat --trace "$out/trace.dat"
echo "scenario $file ${extra[*]}; files in $out"
