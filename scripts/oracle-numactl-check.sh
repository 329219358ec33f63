#!/usr/bin/env bash
# Static bindings against the real kernel (docs/oracle.md, "Static bindings"): one TCG boot of
# experiments/oracle-numactl-2n.toml's `crossed` variant (about 50 s of wall time with the
# model's run, at nice 5), two processes each started by the guest runner under a numactl line
# that runs it on one node and binds its memory to the other. On the real kernel and in the
# model alike: no PTE updates, no hinting faults, no migrations, every page of each buffer on the
# node it was bound to, and each thread ending on its own node's CPUs.
# Usage: scripts/oracle-numactl-check.sh BUILD_DIR
#   (exit 77, skipped: no qemu-system-x86_64, busybox, numasim-guest or python3)
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib/oracle-check.sh
oracle_check_start oracle-numactl-check "$@"
nice -n 5 "$build/numasim" oracle experiments/oracle-numactl-2n.toml --variant crossed \
  --boots 1 --iterations 1 --json > "$out/oracle.json"
python3 - "$out/oracle.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
boot, run = j["boots"][0], j["runs"][0]
fail = []
# The real counters are the whole guest's: the runner and busybox are not bound, and could take
# a hinting fault or two on their own few pages (none did in the boots of 2026-12-06).
REAL_SLACK = 100
for c in ("numa_pte_updates", "numa_hint_faults", "numa_pages_migrated"):
    real, model = boot["vmstat"].get(c, 0), run["vmstat"].get(c, 0)
    print(f"{c}: oracle {real}, numasim {model}")
    if real > REAL_SLACK:
        fail.append(f"real kernel {c} = {real}: the bound buffers were scanned")
    if model != 0:
        fail.append(f"numasim {c} = {model}: the bound buffers were scanned")
# worker.K runs on node K with its memory bound to node 1 - K.
BUFFER_PAGES = 256 << 20 >> 12
for r in boot["regions"]:
    if r["name"] != "buffer" or r["when"] != "end":
        continue
    k = int(r["instance"])
    on = int(r.get(f"N{1 - k}", 0))
    print(f"oracle worker.{k} buffer: {on} pages on node {1 - k}")
    if on < BUFFER_PAGES:
        fail.append(f"real worker.{k}: {on} of {BUFFER_PAGES} buffer pages on bound node {1 - k}")
model_regions = [r for r in run["regions"] if r["region"] == "buffer"]
if len(model_regions) != 2:
    fail.append(f"numasim has {len(model_regions)} buffer regions, not 2")
for r in model_regions:
    k = int(r["comm"].split(".")[1])
    on = r["node_pages"][1 - k]
    print(f"numasim {r['comm']} buffer: {on} pages on node {1 - k}")
    if on != BUFFER_PAGES:
        fail.append(f"numasim {r['comm']}: {on} of {BUFFER_PAGES} buffer pages on node {1 - k}")
if len(boot["tasks"]) != 4:
    fail.append(f"the guest reported {len(boot['tasks'])} threads, not 4")
for t in boot["tasks"]:
    if t["node"] != t["instance"]:
        fail.append(f"real worker.{t['instance']} thread {t['thread']} ended on node {t['node']}")
for t in run["tasks"]:
    if t["comm"].startswith("worker.") and t["node"] != int(t["comm"].split(".")[1]):
        fail.append(f"numasim {t['comm']} (pid {t['pid']}) ended on node {t['node']}")
for f in fail:
    print("oracle-numactl-check:", f)
sys.exit(1 if fail else 0)
PY
