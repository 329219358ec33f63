#!/usr/bin/env bash
# The DAMON round trip through a real kernel (docs/replay.md, "DAMON on the oracle's kernel"):
# one TCG boot of Debian's 6.12 kernel (`--kernel-package linux-image-6.12-amd64`, which has
# DAMON) running the oracle's numa01tl scenario under DAMON's vaddr monitoring; the record is
# imported with `numasim import damon` and the replay run with `numasim run`. It checks the
# record's structure (windows, regions inside the workload's mappings, nr_accesses within the
# windows' sampling intervals and some of them nonzero) and that the replay runs and takes
# hinting faults. About two to three minutes of wall time at nice 5.
# Usage: scripts/oracle-damon-check.sh BUILD_DIR
#   (exit 77, skipped: no qemu-system-x86_64, busybox, numasim-guest or python3, or apt-get
#   cannot fetch the 6.12 kernel and none is cached)
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib/oracle-check.sh
oracle_check_start oracle-damon-check "$@"
if ! nice -n 5 "$build/numasim" oracle experiments/oracle-numa01tl-2n.toml \
  --kernel-package linux-image-6.12-amd64 --iterations 1 --damon-record "$out/tl.damon" \
  --json > "$out/oracle.json" 2> "$out/oracle.err"; then
  if grep -q -e "apt-get download" -e "apt knows no" "$out/oracle.err"; then
    echo "oracle-damon-check: Debian's 6.12 kernel cannot be fetched; skipped"
    cat "$out/oracle.err"
    exit 77
  fi
  cat "$out/oracle.err"
  exit 1
fi
# The target's layout and thread count, as the record's comments give them (what --maps and
# --sched would take from /proc/PID/maps and /proc/PID/sched).
sed -n 's/^# maps target_id=0 //p' "$out/tl.damon" > "$out/maps.txt"
threads=$(sed -n 's/^# target_id=0 .* threads=\([0-9]*\)$/\1/p' "$out/tl.damon")
"$build/numasim" import damon "$out/tl.damon" --maps "$out/maps.txt" --threads "$threads" \
  --machine tiny-2n -o "$out/replay.toml"
"$build/numasim" run "$out/replay.toml" --json > "$out/replay.json"
python3 - "$out/oracle.json" "$out/tl.damon" "$out/replay.json" <<'PY'
import json, re, sys
oracle = json.load(open(sys.argv[1]))
fail = []
if not oracle["kernel"]["release"].startswith("6.12"):
    fail.append(f"booted {oracle['kernel']['release']}, not 6.12")
maps, targets, windows, accessed, regions = [], [], set(), 0, 0
aggr = sample = None
for line in open(sys.argv[2]):
    if m := re.match(r"# sample_us=(\d+) aggr_us=(\d+)", line):
        sample, aggr = int(m[1]), int(m[2])
    elif m := re.match(r"# target_id=(\d+) pid=(\d+) comm=(\S+)", line):
        targets.append(m[3])
    elif m := re.match(r"# maps target_id=0 ([0-9a-f]+)-([0-9a-f]+) (\S+)", line):
        maps.append((int(m[1], 16), int(m[2], 16)))
    elif m := re.search(r" (\d+\.\d+): damon_aggregated: target_id=(\d+) nr_regions=(\d+) "
                        r"(\d+)-(\d+): (\d+) (\d+)$", line):
        windows.add(m[1][:-3])  # a window's lines lie within the same millisecond or so
        start, end, nr = int(m[4]), int(m[5]), int(m[6])
        regions += 1
        if nr > aggr // sample:
            fail.append(f"nr_accesses {nr} above {aggr // sample}: {line.strip()}")
        if nr > 0:
            accessed += end - start
            # DAMON's vaddr regions span the gaps between mappings, but a region seen accessed
            # overlaps a mapping (the importer checks this too, with --maps).
            if not any(s < end and start < e for s, e in maps):
                fail.append(f"an accessed region outside every mapping: {line.strip()}")
print(f"targets {targets}, {len(maps)} mappings, {regions} region lines, "
      f"about {len(windows)} windows, {accessed / 2**30:.2f} GiB x windows accessed")
if targets != ["numa01_tl"]:
    fail.append(f"targets {targets}, expected the one numa01_tl process")
# 40 s of scenario, the workload's 21 s or so: at least 100 windows of 100 ms.
if len(windows) < 100:
    fail.append(f"only {len(windows)} windows")
if accessed == 0:
    fail.append("no region was seen accessed")
replay = json.load(open(sys.argv[3]))
vm = replay["iterations"][0]["vmstat"] if "iterations" in replay else replay["vmstat"]
print(f"replay: numa_hint_faults {vm.get('numa_hint_faults')}, "
      f"numa_pages_migrated {vm.get('numa_pages_migrated')}")
if not vm.get("numa_hint_faults"):
    fail.append("the replay took no hinting faults")
for f in fail:
    print("oracle-damon-check:", f)
sys.exit(1 if fail else 0)
PY
