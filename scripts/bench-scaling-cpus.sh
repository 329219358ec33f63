#!/usr/bin/env bash
# Issue 39's scaling row: how the simulator's cost grows with the machine's CPUs. Runs
# autonumabench NUMA01 (2 processes x CPUs/2 threads) and specjbb2005 with one JVM per node on a
# family of 2-socket machines of 64, 128, 256, 512 and 768 CPUs, and prints per workload and
# size the CPU seconds the simulator spent per simulated second, with the fitted exponent: the
# least-squares slope of log(CPU s per simulated s) on log(CPUs), 1 meaning linear growth.
#
# The family is turin-2s-nps1 (src/machine/presets/) with 16, 32, 64, 128 and 192 cores per
# socket (SMT2, one node per socket, one 16-core LLC per CCD, 2 GiB of memory per CPU), so that
# only the size changes: the 768-CPU point is the preset itself. With one node per socket,
# specjbb's per_socket layout is one JVM per node (bound like numactl --cpunodebind), each with
# its default warehouses (CPUs / JVMs). Each run is one process, one worker (-j 1), one
# iteration, DURATION simulated seconds; CPU time is user + system of the run's process, taken
# as scripts/bench-targets.sh takes it (/usr/bin/time's figures, to the microsecond).
#
# Usage: scripts/bench-scaling-cpus.sh [CPUS ...]   (default: 64 128 256 512 768)
# Environment: BUILD_DIR (default build; a Release build is made if numasim is missing),
#              DURATION (simulated time per run, default 30s; "full" runs each scenario until
#              its tasks exit: NUMA01's 50 passes, specjbb's 30 s ramp-up and 240 s; a scenario
#              without a duration stops at 60 s), WORKLOADS (default
#              "numa01 specjbb"), RUNS (runs per point, default 1; the least CPU time counts, for
#              a shared host), OUT (raw logs; default a temporary directory, printed at the end),
#              PLOT (also draw the points and the fitted lines, log-log, as an SVG file).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
BUILD_DIR="${BUILD_DIR:-build}"
NUMASIM="$BUILD_DIR/numasim"
DURATION="${DURATION:-30s}"
WORKLOADS="${WORKLOADS:-numa01 specjbb}"
OUT="${OUT:-$(mktemp -d /tmp/numasim-scaling-cpus.XXXXXX)}"
mkdir -p "$OUT"

# rusage and ensure_numasim.
# shellcheck source=scripts/lib/bench.sh
source scripts/lib/bench.sh
ensure_numasim

sizes=("$@")
[[ ${#sizes[@]} -gt 0 ]] || sizes=(64 128 256 512 768)

# One machine file per size: the preset with its cores, LLCs and memory scaled.
PRESET=src/machine/presets/turin-2s-nps1.toml
for cpus in "${sizes[@]}"; do
    cores=$((cpus / 4))  # 2 sockets x SMT2
    if ((cores < 16 || cores % 16 != 0)); then
        echo "bench-scaling-cpus.sh: $cpus CPUs: need a multiple of 64 (16-core CCDs)" >&2
        exit 2
    fi
    sed -e "s/^name = .*/name = \"turin-2s-${cpus}cpu\"/" \
        -e "s/^description = .*/description = \"turin-2s-nps1 with ${cores} cores per socket (bench-scaling-cpus.sh)\"/" \
        -e "s/^cores_per_node = .*/cores_per_node = ${cores}/" \
        -e "s/^llcs_per_node = .*/llcs_per_node = $((cores / 16))/" \
        -e "s/^memory_per_node = .*/memory_per_node = \"$((cpus))GiB\"/" \
        "$PRESET" > "$OUT/turin-2s-${cpus}cpu.toml"
done

scenario() {  # workload cpus -> scenario file
    local f="$OUT/$1-$2.toml"
    {
        echo "[scenario]"
        echo "machine = \"$OUT/turin-2s-$2cpu.toml\""
        echo
        echo "[[workload]]"
        case $1 in
            numa01) printf 'type = "autonumabench"\ntest = "NUMA01"\n' ;;
            specjbb) printf 'type = "specjbb2005"\nlayout = "per_socket"\n' ;;
            *) echo "bench-scaling-cpus.sh: unknown workload '$1'" >&2; exit 2 ;;
        esac
    } > "$f"
    echo "$f"
}

# "full": the longest duration a scenario may give (config/limits.h), so the tasks' exit ends it.
if [[ "$DURATION" == full ]]; then extra=(--duration 86400s); else extra=(--duration "$DURATION"); fi
printf '%-8s %5s %7s %8s %12s %9s %9s\n' workload cpus sim_s cpu_s cpu_s/sim_s sim/cpu peak_RSS
for w in $WORKLOADS; do
    for cpus in "${sizes[@]}"; do
        f=$(scenario "$w" "$cpus")
        best=""
        for ((k = 1; k <= ${RUNS:-1}; k++)); do
            rusage "$OUT/$w-$cpus.try.time" "$NUMASIM" run "$f" "${extra[@]}" --iterations 1 -j 1 \
                --json > "$OUT/$w-$cpus.try.json" 2> "$OUT/$w-$cpus.err"
            cpu=$(awk -F': *' '/^\t(User|System) time \(seconds\)/ { s += $2 } END { print s }' \
                "$OUT/$w-$cpus.try.time")
            if [[ -z "$best" ]] || awk -v a="$cpu" -v b="$best" 'BEGIN { exit !(a < b) }'; then
                best=$cpu
                mv "$OUT/$w-$cpus.try.time" "$OUT/$w-$cpus.time"
                mv "$OUT/$w-$cpus.try.json" "$OUT/$w-$cpus.json"
            fi
        done
        python3 - "$OUT/$w-$cpus.json" "$OUT/$w-$cpus.time" "$w" "$cpus" <<'PY' | tee -a "$OUT/rows.txt"
import json, re, sys
path, timelog, w, cpus = sys.argv[1:]
j = json.load(open(path))
runs = j.get("runs") or [j]
sim = sum(float(r["elapsed_s"]) for r in runs)
log = open(timelog).read()
field = lambda name: float(re.search(re.escape(name) + r": *([0-9.]+)", log).group(1))
cpu = field("User time (seconds)") + field("System time (seconds)")
rss_kb = field("Maximum resident set size (kbytes)")
print(f"{w:<8} {int(cpus):5d} {sim:7.1f} {cpu:8.3f} {cpu / sim:12.5f} {sim / max(cpu, 1e-9):8.1f}x "
      f"{rss_kb / 1024:5.0f} MiB")
PY
    done
done
# The exponent per workload: the slope of log(CPU s per simulated s) on log(CPUs).
python3 - "$OUT/rows.txt" "${PLOT:-}" <<'PY'
import math, sys
by = {}
fits = {}
for line in open(sys.argv[1]):
    f = line.split()
    by.setdefault(f[0], []).append((int(f[1]), float(f[4])))
for w, pts in by.items():
    if len(pts) < 2:
        continue
    xs = [math.log(c) for c, _ in pts]
    ys = [math.log(max(v, 1e-9)) for _, v in pts]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    slope = sum((a - mx) * (b - my) for a, b in zip(xs, ys)) / sum((a - mx) ** 2 for a in xs)
    fits[w] = (slope, my - slope * mx)
    print(f"{w}: CPU s per simulated s grows as CPUs^{slope:.2f} "
          f"({pts[0][0]} to {pts[-1][0]} CPUs)")
if len(sys.argv) > 2 and sys.argv[2] and by:
    # A log-log chart: points, the fitted power law as a dashed line, and a line of slope 1
    # (linear growth) through the first point of the first workload for reference.
    W, H, L, R, T, B = 640, 400, 70, 150, 20, 50
    xs = [c for pts in by.values() for c, _ in pts]
    ys = [v for pts in by.values() for _, v in pts]
    x0, x1 = math.log10(min(xs) / 1.2), math.log10(max(xs) * 1.2)
    y0, y1 = math.floor(math.log10(min(ys))), math.ceil(math.log10(max(ys)))
    px = lambda c: L + (math.log10(c) - x0) / (x1 - x0) * (W - L - R)
    py = lambda v: T + (y1 - math.log10(v)) / (y1 - y0) * (H - T - B)
    colours = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd"]
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" '
           f'font-family="sans-serif" font-size="12">',
           f'<rect x="{L}" y="{T}" width="{W - L - R}" height="{H - T - B}" fill="none" '
           'stroke="#888"/>']
    for c in sorted(set(xs)):
        out.append(f'<text x="{px(c):.1f}" y="{H - B + 16}" text-anchor="middle">{c}</text>')
    for e in range(y0, y1 + 1):
        out.append(f'<line x1="{L}" x2="{W - R}" y1="{py(10 ** e):.1f}" y2="{py(10 ** e):.1f}" '
                   'stroke="#ddd"/>')
        out.append(f'<text x="{L - 6}" y="{py(10 ** e) + 4:.1f}" text-anchor="end">1e{e}</text>')
    out.append(f'<text x="{(L + W - R) / 2}" y="{H - 12}" text-anchor="middle">CPUs</text>')
    out.append(f'<text x="16" y="{(T + H - B) / 2}" text-anchor="middle" '
               f'transform="rotate(-90 16 {(T + H - B) / 2})">CPU s per simulated s</text>')
    for k, (w, pts) in enumerate(by.items()):
        col = colours[k % len(colours)]
        slope, icpt = fits.get(w, (0.0, 0.0))
        for c, v in pts:
            out.append(f'<circle cx="{px(c):.1f}" cy="{py(v):.1f}" r="4" fill="{col}"/>')
        a, b = pts[0][0], pts[-1][0]
        fa, fb = math.exp(icpt + slope * math.log(a)), math.exp(icpt + slope * math.log(b))
        out.append(f'<line x1="{px(a):.1f}" y1="{py(fa):.1f}" x2="{px(b):.1f}" y2="{py(fb):.1f}" '
                   f'stroke="{col}" stroke-dasharray="5,3"/>')
        out.append(f'<text x="{W - R + 8}" y="{T + 16 + 18 * k}" fill="{col}">{w}: '
                   f'CPUs^{slope:.2f}</text>')
    first = next(iter(by.values()))
    c0, v0 = first[0]
    c1 = max(xs)
    out.append(f'<line x1="{px(c0):.1f}" y1="{py(v0):.1f}" x2="{px(c1):.1f}" '
               f'y2="{py(v0 * c1 / c0):.1f}" stroke="#999" stroke-dasharray="2,3"/>')
    out.append(f'<text x="{W - R + 8}" y="{T + 16 + 18 * len(by)}" fill="#999">linear</text>')
    out.append("</svg>")
    open(sys.argv[2], "w").write("\n".join(out) + "\n")
PY
echo "raw output: $OUT"
