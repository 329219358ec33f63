#!/usr/bin/env bash
# The counts behind the latency histograms against the real kernel (docs/oracle.md,
# "Latency"): one TCG boot of the oracle's numa01tl scenario (about 75 s of wall time, at nice
# 5), whose guest counts task_numa_work() calls and hinting faults per thread with kprobe
# events. Both sides must have counted calls and faults, and the task_numa_work calls per
# minute of the workload's threads must agree within the oracle's factor of two.
# Usage: scripts/oracle-latency-counts-check.sh BUILD_DIR
#   (exit 77, skipped: no qemu-system-x86_64, busybox, numasim-guest or python3)
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib/oracle-check.sh
oracle_check_start oracle-latency-counts-check "$@"
nice -n 5 "$build/numasim" oracle experiments/oracle-numa01tl-2n.toml --boots 1 --iterations 1 \
  --json > "$out/oracle.json"
python3 - "$out/oracle.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
v = {x["figure"]: x for x in j["verdicts"]}
probes = j["boots"][0]["probes"]
fail = []
for event in ("task_numa_work", "task_numa_fault"):
    if event not in probes:
        fail.append(f"the guest did not arm a kprobe event on {event}")
# Each hinting fault of the guest is one task_numa_fault() call of some thread, but the two are
# not counted over quite the same span: numa_hint_faults is the vmstat difference around the
# workload, the calls run from arming the probe to reading it (the init shell's own faults
# outside the workload count there only), and a kprobe that fires while another probe's handler
# runs on that CPU is missed. A boot of 2026-12-06 counted 696,825 calls for 696,826 faults.
hint = j["boots"][0]["vmstat"].get("numa_hint_faults", 0)
calls = sum(probes.get("task_numa_fault", {}).values())
if abs(calls - hint) > hint // 1000:
    fail.append(f"task_numa_fault calls {calls} against numa_hint_faults {hint}: over 0.1 % apart")
for name in ("tasks: task_numa_work calls/min", "tasks: hinting faults/s"):
    f = v.get(name)
    if f is None:
        fail.append(f"no figure {name!r}")
        continue
    print(f"{name}: oracle {f['oracle_median']:.1f}, numasim {f['numasim_median']:.1f}")
    if not f["oracle_median"] > 0 or not f["numasim_median"] > 0:
        fail.append(f"{name}: a side counted nothing")
if "tasks: task_numa_work calls/min" in v and not v["tasks: task_numa_work calls/min"]["within_2x"]:
    fail.append("task_numa_work calls/min not within 2x of the real kernel's")
for f in fail:
    print("oracle-latency-counts-check:", f)
sys.exit(1 if fail else 0)
PY
