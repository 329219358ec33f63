#!/usr/bin/env bash
# The issue's whole-run speed targets, measured with scripts/bench-e2e.sh (one worker):
#   NUMA01_THREADLOCAL on cascadelake-2s   >= 100x faster than real time (aim 1000x)
#   examples/cowsum.toml (288 processes, shared .data, x86-8s-144c)   >= 20x
# The NUMA01_THREADLOCAL scenario is written to a temporary file (autonumabench defaults:
# 2 processes x 40 threads, 3 GiB each, 1000 passes per thread slice; the run stops at the
# scenario's default duration unless DURATION is set).
# Usage: scripts/bench-targets.sh   (environment as for bench-e2e.sh; BUILD_DIR, DURATION)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
tmp=$(mktemp -d /tmp/numasim-targets.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/targets"
cat > "$tmp/targets/numa01-threadlocal-cascadelake.toml" <<'TOML'
[scenario]
machine = "cascadelake-2s"

[[workload]]
type = "autonumabench"
test = "NUMA01_THREADLOCAL"
TOML
SKIP_COMPARE=1 "$ROOT/scripts/bench-e2e.sh" "$tmp/targets/numa01-threadlocal-cascadelake.toml" \
    "$ROOT/examples/cowsum.toml"
