#!/usr/bin/env bash
# `numasim calibrate` across the oracle guest's emulated nodes (docs/machines.md, "In the
# oracle's guest"): one TCG boot of `numasim calibrate --oracle tiny-2n --time-budget 10s`
# (about 40 s of wall time at nice 5). The machine file must have the guest's two nodes, a
# measured line per node pair with its runs and spread, measured latencies and bandwidths that
# are plausible for an emulator (latency 10 ns .. 100 us, bandwidth 0.01 .. 1000 GB/s), and
# `numasim run --machine FILE` must accept it.
# Usage: scripts/oracle-calibrate-check.sh BUILD_DIR
#   (exit 77, skipped: no qemu-system-x86_64, busybox, numasim-guest or python3, or no kernel:
#   apt-get cannot fetch Debian's and none is cached)
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib/oracle-check.sh
oracle_check_start oracle-calibrate-check "$@"
if ! nice -n 5 "$build/numasim" calibrate --oracle tiny-2n --time-budget 10s -q \
  -o "$out/guest.toml" 2> "$out/calibrate.err"; then
  if grep -q -e "apt-get download" -e "apt knows no" "$out/calibrate.err"; then
    echo "oracle-calibrate-check: Debian's kernel cannot be fetched; skipped"
    cat "$out/calibrate.err"
    exit 77
  fi
  cat "$out/calibrate.err"
  exit 1
fi
"$build/numasim" run --machine "$out/guest.toml" --duration 2s > "$out/run.txt"
python3 - "$out/guest.toml" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
fail = []
if "name = 'calibrated-tiny-2n'" not in text:
    fail.append("the machine is not named calibrated-tiny-2n")
if text.count("[[node]]") != 2:
    fail.append(f"{text.count('[[node]]')} nodes, not the guest's 2")
pairs = re.findall(r"# node (\d) -> node (\d): latency ([\d.]+) ns \((\d+) runs.*read ([\d.]+) GB/s"
                   r".*write ([\d.]+) GB/s", text)
print(f"{len(pairs)} node pairs measured")
if sorted((a, b) for a, b, *_ in pairs) != [("0", "0"), ("0", "1"), ("1", "0"), ("1", "1")]:
    fail.append(f"node pairs {[(a, b) for a, b, *_ in pairs]}, not the four of two nodes")
for a, b, lat, runs, rd, wr in pairs:
    print(f"  {a} -> {b}: latency {lat} ns over {runs} runs, read {rd} GB/s, write {wr} GB/s")
    if int(runs) < 1:
        fail.append(f"pair {a}->{b}: no runs")
    if not 10 <= float(lat) <= 100000:
        fail.append(f"pair {a}->{b}: latency {lat} ns is not plausible")
    for what, v in (("read", rd), ("write", wr)):
        if not 0.01 <= float(v) <= 1000:
            fail.append(f"pair {a}->{b}: {what} {v} GB/s is not plausible")
for key in ("latency_ns.10", "latency_ns.21", "dram_bandwidth_gbs", "link_bandwidth_gbs"):
    if not re.search(r"# measured: .*\n" + re.escape(key) + r" = ", text):
        fail.append(f"{key} is not marked measured")
for f in fail:
    print("oracle-calibrate-check:", f)
sys.exit(1 if fail else 0)
PY
