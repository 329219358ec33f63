#!/usr/bin/env bash
# Fault runs change no output (docs/model.md, "Fault runs"): runs scenarios with fault runs and
# page by page (--param fault_runs=false) and compares the JSON results, and one ftrace, byte for
# byte. PARAM=deferred_ticks=false checks deferred ticks the same way (docs/model.md, "Deferred
# ticks"). With AGAINST=<other numasim>, compares that binary's default output with this one's
# instead (e.g. the commit before fault runs), leaving out the provenance (version, git
# revision and command line).
# Usage: scripts/check-fault-runs.sh [NUMASIM] [SCENARIO.toml ...]
#   NUMASIM defaults to build/numasim; the scenarios to a quick set (a few seconds in all).
# Environment: DURATION (simulated time per scenario, default 3s), PARAM (the scenario key that
# turns the shortcut off, default fault_runs=false), AGAINST (see above).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
NUMASIM="${1:-build/numasim}"
shift || true
DURATION="${DURATION:-3s}"
PARAM="${PARAM:-fault_runs=false}"
files=("$@")
[[ ${#files[@]} -gt 0 ]] ||
    files=(examples/streams.toml examples/autonumabench-numa01.toml examples/perf-bench-numa.toml
           experiments/inactive-vma-numa01-threadlocal.toml)
[[ -x "$NUMASIM" ]] || { echo "check-fault-runs.sh: no numasim at $NUMASIM" >&2; exit 2; }
OUT="$(mktemp -d "${TMPDIR:-/tmp}/numasim-fault-runs.XXXXXX")"
trap 'rm -rf "$OUT"' EXIT

# The output of one run with the provenance left out.
strip() { grep -v -E '"(command|numasim_version)":' "$1" || true; }

fail=0
for f in "${files[@]}"; do
    name="$(basename "$f" .toml)"
    common=(run "$f" --duration "$DURATION" --iterations 1 -j 1)
    "$NUMASIM" "${common[@]}" --json > "$OUT/$name.a.json"
    if [[ -n "${AGAINST:-}" ]]; then
        "$AGAINST" "${common[@]}" --json > "$OUT/$name.b.json"
    else
        "$NUMASIM" "${common[@]}" --param "$PARAM" --json > "$OUT/$name.b.json"
    fi
    if diff <(strip "$OUT/$name.a.json") <(strip "$OUT/$name.b.json") > "$OUT/$name.diff"; then
        echo "same: $f (json)"
    else
        echo "DIFFERENT: $f (json)"; head -20 "$OUT/$name.diff"; fail=1
    fi
done

# Traces of the first two: every tracepoint in order, and the numa_maps at the end.
for f in "${files[@]:0:2}"; do
    common=(run "$f" --duration "$DURATION" --iterations 1 -j 1)
    "$NUMASIM" "${common[@]}" --trace "$OUT/a.trace" > /dev/null
    if [[ -n "${AGAINST:-}" ]]; then
        "$AGAINST" "${common[@]}" --trace "$OUT/b.trace" > /dev/null
    else
        "$NUMASIM" "${common[@]}" --param "$PARAM" --trace "$OUT/b.trace" > /dev/null
    fi
    if cmp -s <(grep -v -E '^# (numasim_version|command):' "$OUT/a.trace") \
              <(grep -v -E '^# (numasim_version|command):' "$OUT/b.trace"); then
        echo "same: $f (trace, $(wc -l < "$OUT/a.trace") lines)"
    else
        echo "DIFFERENT: $f (trace)"; fail=1
    fi
done
exit "$fail"
