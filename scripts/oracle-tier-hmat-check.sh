#!/usr/bin/env bash
# A tiered guest in `numasim oracle` (docs/oracle.md, "A tiered guest"): one TCG boot of Debian's
# 6.12 kernel (`--kernel-package linux-image-6.12-amd64`) on scripts/oracle-tier/hmat-machine.toml,
# whose CPU-less node 1 the guest's ACPI HMAT puts in a lower memory tier, running
# scripts/oracle-tier/hmat-scenario.toml (mode 2, demotion on), and the model's v6.12 run beside
# it. Checks that the real kernel formed the model's tiers (ids and nodes) from the HMAT figures
# qemu published, took the knobs, that both sides promote, and that the model demotes with
# kswapd and neither side directly. First, without booting, that Debian's 6.1 kernel is refused
# for this scenario (it puts CPU-less boot memory in the DRAM tier). About 70 s of wall time at
# nice 5.
# Usage: scripts/oracle-tier-hmat-check.sh BUILD_DIR
#   (exit 77, skipped: no qemu-system-x86_64, busybox, numasim-guest or python3, or apt-get
#   cannot fetch the 6.12 kernel and none is cached)
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib/oracle-check.sh
oracle_check_start oracle-tier-hmat-check "$@"
scenario=scripts/oracle-tier/hmat-scenario.toml
# Refused before any boot when the default (6.1) kernel is at hand; its fetch failing is no
# verdict on the tiers.
rc=0
"$build/numasim" oracle "$scenario" --boots 1 > "$out/old.out" 2> "$out/old.err" || rc=$?
if ! grep -q -e "apt-get download" -e "apt knows no" "$out/old.err"; then
  if [ "$rc" != 2 ] || ! grep -q "numasim: error: --kernel-package: linux-image-amd64: .*v6.10" \
    "$out/old.err" || [ -s "$out/old.out" ]; then
    echo "oracle-tier-hmat-check: the 6.1 kernel was not refused (exit $rc):"
    cat "$out/old.err"
    exit 1
  fi
fi
if ! nice -n 5 "$build/numasim" oracle "$scenario" --kernel-package linux-image-6.12-amd64 \
  --boots 1 --iterations 1 --json > "$out/oracle.json" 2> "$out/oracle.err"; then
  if grep -q -e "apt-get download" -e "apt knows no" "$out/oracle.err"; then
    echo "oracle-tier-hmat-check: Debian's 6.12 kernel cannot be fetched; skipped"
    cat "$out/oracle.err"
    exit 77
  fi
  cat "$out/oracle.err"
  exit 1
fi
python3 - "$out/oracle.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
boot = j["boots"][0]
fail = []
real, model = boot["memory_tiers"], j["model_memory_tiers"]
print(f"memory tiers: oracle {real}, numasim {model}")
# 576 * (2 * 305) / (2 * 90) * (2 * 60000) / (2 * 39400) = 2972: memory_tier23 (mm/memory-tiers.c).
if real != {"memory_tier4": "0", "memory_tier23": "1"}:
    fail.append(f"the real kernel formed {real}, not memory_tier4 (0) and memory_tier23 (1)")
if model != real:
    fail.append(f"the model formed {model}, the real kernel {real}")
hmat = {h["node"]: (h["latency_ns"], h["bandwidth_mbs"]) for h in boot["hmat"]}
print(f"HMAT as the guest read it: {hmat}")
if hmat.get("1") != ("305", "39400") or hmat.get("0") != ("90", "60000"):
    fail.append(f"the guest's HMAT figures are {hmat}")
settings = boot["settings"]
if settings.get("numa_balancing") != "2" or settings.get("demotion_enabled") != "true":
    fail.append(f"the guest's settings are {settings}")
medians = {v["figure"]: (v["oracle_median"], v["numasim_median"]) for v in j["verdicts"]}
for c in ("pgpromote_candidate", "pgpromote_success", "numa_pages_migrated"):
    r, m = medians.get(c, (0, 0))
    print(f"{c}: oracle {r}, numasim {m}")
    if r == 0 or m == 0:
        fail.append(f"{c}: oracle {r}, numasim {m}; both sides should count some")
# The model promotes the whole buffer into node 0's last 128 MiB and must demote to do so; the
# emulated kernel promotes fewer pages under TCG, and demotes only when they overrun node 0's
# room, which depends on the host's speed (docs/oracle.md): its demotions are printed, not checked.
for c in ("pgdemote_kswapd", "pgdemote_direct"):
    r, m = medians.get(c, (0, 0))
    print(f"{c}: oracle {r}, numasim {m}")
if medians.get("pgdemote_kswapd", (0, 0))[1] == 0:
    fail.append("numasim demoted nothing with kswapd")
if any(medians.get("pgdemote_direct", (0, 0))):
    fail.append(f"direct demotion: {medians['pgdemote_direct']}; node 0 never runs out")
for f in fail:
    print("oracle-tier-hmat-check:", f)
sys.exit(1 if fail else 0)
PY
