#!/usr/bin/env bash
# Issue 41's replay row: a synthetic one-hour DAMON profile (the damon_aggregated trace text
# `perf script` prints: 100 ms windows, 36,000 of them, three regions of 1 GiB, 256 MiB and
# 4 GiB whose access counts move through the hour, an idle minute every ten) imported with
# `numasim import damon` and replayed on a 2-socket preset. Prints the profile's size, the
# import's time and peak RSS, and the replay's simulated seconds per wall second (target: the
# hour replays at >= 100x real time).
# Usage: scripts/bench-replay.sh [MACHINE [THREADS]]   (default cascadelake-2s, 8 threads)
# Environment: BUILD_DIR (default build), OUT (default: a temporary dir).
set -euo pipefail
cd "$(dirname "$0")/.."
numasim="${BUILD_DIR:-build}/numasim"
machine="${1:-cascadelake-2s}"
threads="${2:-8}"
out="${OUT:-$(mktemp -d /tmp/numasim-bench-replay.XXXXXX)}"
mkdir -p "$out"

# Region r of window i: a hot set that drifts (nr_accesses 0..20 of 20 sampling intervals).
awk -v base=$((0x7f0000000000)) 'BEGIN {
  size[0] = 1073741824; size[1] = 268435456; size[2] = 4294967296
  for (i = 0; i < 36000; i++) {
    ts = sprintf("%d.%06d", (i + 1) / 10, ((i + 1) % 10) * 100000)
    idle = (int(i / 600) % 10 == 9)
    start = base
    for (r = 0; r < 3; r++) {
      n = idle ? 0 : int(10 + 10 * sin(i / 3000.0 + 2 * r)) % 21
      if (n < 0) n = 0
      printf "kdamond.0 4452 [000] %s: damon:damon_aggregated: target_id=0 nr_regions=3 %.0f-%.0f: %d %d\n", ts, start, start + size[r], n, i % 50
      start += size[r]
    }
  }
}' > "$out/hour.txt"

import=$( { /usr/bin/time -f '%e %M' "$numasim" import damon "$out/hour.txt" --threads "$threads" \
  --machine "$machine" -o "$out/hour.toml" >/dev/null; } 2>&1 )
run=$( { /usr/bin/time -f '%e %M' "$numasim" run "$out/hour.toml" --iterations 1 -j 1 --json \
  > "$out/run.json"; } 2>&1 )
sim=$(sed -n 's/.*"elapsed_s": *\([0-9.]*\).*/\1/p' "$out/run.json" | head -1)
printf 'profile          %s lines, %s MB\n' "$(wc -l < "$out/hour.txt")" \
  "$(du -m "$out/hour.txt" | cut -f1)"
printf 'scenario         %s bytes, %s phase lines\n' "$(wc -c < "$out/hour.toml")" \
  "$(grep -c '^  {' "$out/hour.toml")"
printf 'import           %.2f s wall, %d MB peak RSS\n' "${import% *}" $(( ${import#* } / 1024 ))
printf 'replay           %.2f s wall, %d MB peak RSS, %s simulated s\n' "${run% *}" \
  $(( ${run#* } / 1024 )) "$sim"
awk -v s="$sim" -v w="${run% *}" 'BEGIN { printf "ratio            %.0fx real time (target >= 100x)\n", s / (w > 0 ? w : 0.01) }'
