#!/usr/bin/env bash
# How the simulator's cost grows with CPUs, tasks, memory and simulated time: runs BM_Scaling
# (bench/bench_foundation.cpp) and prints, per dimension, wall milliseconds per simulated second
# at 1x, 2x, 4x and 8x with the fitted growth exponent (least-squares slope of log(wall per
# simulated second) on log(x)). Each point runs REPEAT times (default 3), each in its own
# process, and the fastest counts.
# Usage: scripts/bench-scaling.sh [BENCH_BUILD_DIR]   (default: build-bench, Release; built if
# numasim_bench is missing)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BD="${1:-$ROOT/build-bench}"
if [[ ! -x "$BD/bench/numasim_bench" ]]; then
    cmake -S "$ROOT" -B "$BD" -G Ninja -DCMAKE_BUILD_TYPE=Release >&2
    cmake --build "$BD" --target numasim_bench >&2
fi
dir=$(mktemp -d /tmp/numasim-scaling.XXXXXX)
trap 'rm -rf "$dir"' EXIT
# Each point in a process of its own, REPEAT times (default 3), keeping the fastest: in one
# process, what the allocator and the host kept from the points before (freed frame arrays,
# faulted-in pages) changed a point's time by up to 2x, and single runs of a few milliseconds
# are noisy on a shared host.
i=0
while read -r name; do
    for _ in $(seq "${REPEAT:-3}"); do
        "$BD/bench/numasim_bench" --benchmark_filter="^${name}\$" --benchmark_format=json \
            --benchmark_out="$dir/$i.json" --benchmark_out_format=json > /dev/null
        i=$((i + 1))
    done
done < <("$BD/bench/numasim_bench" --benchmark_list_tests --benchmark_filter='^BM_Scaling/')
python3 - "$dir"/*.json <<'PY'
import json, math, sys
fastest = {}
for f in sys.argv[1:]:
    for r in json.load(open(f))["benchmarks"]:
        if r["name"] not in fastest or r["real_time"] < fastest[r["name"]]["real_time"]:
            fastest[r["name"]] = r
runs = list(fastest.values())
names = {0: "CPUs", 1: "tasks", 2: "memory (GiB)", 3: "CPUs+tasks (busy)",
         4: "simulated seconds"}
by = {}
for r in runs:
    parts = dict(p.split(":") for p in r["name"].split("/")[1:] if ":" in p)
    d, x = int(parts["dim"]), int(parts["x"])
    sim_s = r["sim_s"]
    wall = r["real_time"] / 1000 if r["time_unit"] == "ms" else r["real_time"] / 1e9
    key = {0: "cpus", 1: "tasks", 2: "GiB", 3: "cpus", 4: "sim_s"}[d]
    by.setdefault(d, []).append((x, r[key], wall / sim_s, r.get("sim_x_realtime", 0)))
print(f"{'dimension':<20} {'1x':>17} {'2x':>17} {'4x':>17} {'8x':>17}   exponent")
for d, rows in sorted(by.items()):
    rows.sort()
    xs = [math.log(x) for x, *_ in rows]
    ys = [math.log(w) for _, _, w, _ in rows]
    n = len(xs); mx = sum(xs) / n; my = sum(ys) / n
    slope = sum((a - mx) * (b - my) for a, b in zip(xs, ys)) / sum((a - mx) ** 2 for a in xs)
    cells = " ".join(f"{v:>6g}: {1000 * w:6.2f} ms/s" for _, v, w, _ in rows)
    print(f"{names[d]:<20} {cells}   {slope:5.2f}")
print("(cells: value of the dimension: wall milliseconds per simulated second; for simulated")
print(" seconds an exponent of 0 means the cost grows linearly with the duration)")
PY
