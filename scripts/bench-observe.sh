#!/usr/bin/env bash
# What observing a run costs: times one scenario plain, with --sample 1s, with a full ftrace
# text trace and with a Perfetto trace (one iteration, one worker, best of REPEAT), and prints
# each against the plain run with the targets (sampling <= 1.2x, a full trace <= 3x).
# Usage: scripts/bench-observe.sh [FILE.toml]   (default: examples/autonumabench-numa01.toml)
# Environment: BUILD_DIR (default build), REPEAT (default 3), OUT (default: a temporary dir).
set -euo pipefail
cd "$(dirname "$0")/.."
numasim="${BUILD_DIR:-build}/numasim"
file="${1:-examples/autonumabench-numa01.toml}"
repeat="${REPEAT:-3}"
out="${OUT:-$(mktemp -d /tmp/numasim-bench-observe.XXXXXX)}"

best() {  # best wall seconds of `numasim run FILE ARGS...` over $repeat runs
  local b="" t
  for _ in $(seq "$repeat"); do
    rm -rf "$out/run" "$out"/trace.*
    t=$( { /usr/bin/time -f %e "$numasim" run "$file" --iterations 1 -j 1 "$@" >/dev/null; } 2>&1 )
    if [ -z "$b" ] || awk "BEGIN{exit !($t < $b)}"; then b=$t; fi
  done
  echo "$b"
}

plain=$(best)
printf '%-28s %8s %7s %s\n' "mode" "wall s" "ratio" "target"
printf '%-28s %8.2f %7s\n' "plain" "$plain" "1.00x"
row() {  # row NAME TARGET ARGS...
  local name=$1 target=$2 t
  shift 2
  t=$(best "$@")
  printf '%-28s %8.2f %6.2fx %s\n' "$name" "$t" "$(awk "BEGIN{print $t / $plain}")" "$target"
}
row "--sample 1s" "<= 1.2x" --sample 1s --out-dir "$out/run"
row "--trace (ftrace text)" "<= 3x" --trace "$out/trace.txt"
row "--trace-format perfetto" "<= 3x" --trace-format perfetto --trace "$out/trace.json"
echo "scenario $file; files in $out"
