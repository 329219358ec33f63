#!/usr/bin/env bash
# A lower memory tier on the real kernel (docs/oracle.md, "A lower memory tier"): one TCG boot of
# Debian's 6.1 kernel on a guest whose node 1 is persistent memory (a memmap=nn!ss range) onlined
# through dax/kmem, with numa_balancing=2 and demotion on, running scripts/oracle-tier/scenario.toml
# with numasim-guest; then the same scenario in the model on the guest's machine
# (scripts/oracle-tier/machine.toml). Prints the promotion and demotion counters side by side and
# fails unless node 1 came up in a lower tier than node 0 and both sides promote and demote.
# About 105 s of wall time at nice 5. The nvdimm and dax modules come from the same Debian package
# as the cached kernel (`numasim oracle` keeps only its boot/): fetched once with apt-get
# download into the oracle's cache. The guest's console log is kept as
# BUILD_DIR/oracle-tier-console.log.
# Usage: scripts/oracle-tier-check.sh BUILD_DIR
#   (exit 77, skipped: no qemu-system-x86_64, busybox, cpio, python3, numasim-guest or cached
#   Debian kernel, or the modules cannot be fetched)
set -euo pipefail
cd "$(dirname "$0")/.."
build=$(realpath "${1:?usage: $0 BUILD_DIR}")
skip() {
  echo "oracle-tier-check: $*; skipped"
  exit 77
}
for need in qemu-system-x86_64 busybox cpio python3; do
  command -v "$need" > /dev/null || skip "$need not installed"
done
[ -x "$build/numasim-guest" ] || skip "$build/numasim-guest not built"
cache=${XDG_CACHE_HOME:-$HOME/.cache}/numasim/oracle
vmlinuz=$(ls "$cache"/kernels/linux-image-*-unsigned/boot/vmlinuz-* 2> /dev/null | sort -V | tail -1)
[ -n "$vmlinuz" ] || skip "no Debian kernel in $cache (run numasim oracle once)"
release=${vmlinuz##*/vmlinuz-}
mods=$cache/modules/$release
# The modules pre-init.sh loads, in dependency order (each package's modules.dep).
modules="libnvdimm nd_btt nd_pmem nd_e820 device_dax dax_pmem kmem"
if [ ! -e "$mods/kmem.ko" ]; then
  command -v apt-get > /dev/null && command -v dpkg-deb > /dev/null || skip "no apt-get/dpkg-deb"
  dl=$(mktemp -d)
  (cd "$dl" && apt-get download "linux-image-$release-unsigned" > /dev/null 2>&1) ||
    { rm -rf "$dl"; skip "apt-get download linux-image-$release-unsigned failed"; }
  dpkg-deb --fsys-tarfile "$dl"/*.deb | tar -x -C "$dl" --wildcards \
    "./lib/modules/$release/kernel/drivers/nvdimm/*" "./lib/modules/$release/kernel/drivers/dax/*"
  mkdir -p "$mods.tmp"
  for m in $modules; do
    find "$dl/lib/modules" -name "$m.ko" -exec cp {} "$mods.tmp/" \;
  done
  rm -rf "$dl"
  mv "$mods.tmp" "$mods"
fi
out=$(mktemp -d "${TMPDIR:-/tmp}/oracle-tier.XXXXXX")
trap 'rm -rf "$out"' EXIT
root=$out/root
mkdir -p "$root"/{bin,dev,proc,sys,tmp,oracle,mod}
cp "$(command -v busybox)" "$root/bin/busybox"
cp "$build/numasim-guest" "$root/bin/numasim-guest"
for m in $modules; do cp "$mods/$m.ko" "$root/mod/"; done
cp scripts/oracle-tier/pre-init.sh "$root/init"
cp src/guest/init.sh "$root/oracle-init"
chmod 755 "$root/init" "$root/oracle-init"
cp scripts/oracle-tier/scenario.toml "$root/oracle/scenario.toml"
: > "$root/oracle/params"
duration_ms=60000  # the scenario's duration
cat > "$root/oracle/env" << ENV
NUMA_BALANCING=2
THP='madvise'
KNOBS=''
RUNNER_ARGS='/oracle/scenario.toml --params /oracle/params --duration-ms $duration_ms --seed 38'
ENV
(cd "$root" && find . | cpio -o -H newc --quiet) > "$out/initrd"
# q35 keeps guest RAM below 4 GiB up to 2.75 GiB: node 0 is [0, 640 MiB), node 1
# [640 MiB, 1280 MiB). memmap=512M!640M makes node 1's first 512 MiB an e820 persistent-memory
# range, memmap=128M$1152M reserves the rest (the firmware's last 128 KiB lie there, and would
# leave the range short of a whole memory block), so node 1 has no RAM at boot and its memory
# tier is the one kmem gives it. no_timer_check: on a loaded host the emulated CPUs can be too
# slow for the kernel's IO-APIC timer check, which then panics ("IO-APIC + timer doesn't work").
nice -n 5 timeout 300 qemu-system-x86_64 -accel tcg,thread=multi,tb-size=512 -cpu qemu64 \
  -machine q35 -smp 2 -m 1280M \
  -object memory-backend-ram,id=m0,size=640M -object memory-backend-ram,id=m1,size=640M \
  -numa node,nodeid=0,cpus=0-1,memdev=m0 -numa node,nodeid=1,memdev=m1 \
  -numa dist,src=0,dst=1,val=21 \
  -kernel "$vmlinuz" -initrd "$out/initrd" \
  -append 'console=ttyS0 loglevel=3 panic=-1 mitigations=off no_timer_check memmap=512M!640M memmap=128M$1152M' \
  -display none -serial stdio -monitor none -no-reboot -nic none > "$out/console.log" 2>&1 || true
cp "$out/console.log" "$build/oracle-tier-console.log"
(cd scripts/oracle-tier && "$build/numasim" run scenario.toml --proc-vmstat) > "$out/model.txt"
python3 - "$out/console.log" "$out/model.txt" << 'PY'
import re, sys
log = open(sys.argv[1], errors="replace").read().splitlines()
lines = [l.split("NUMASIM ", 1)[1] for l in log if "NUMASIM " in l]
fail = []
for l in lines:
    if l.startswith(("tier", "error", "node", "end", "setting demotion")):
        print("guest:", l)
errors = [l for l in lines if l.startswith("error")]
if errors:
    fail.append("the guest reported errors")
vm = {}
for l in lines:
    if l.startswith("vmstat "):
        words = dict(w.split("=", 1) for w in l.split()[1:])
        when = words.pop("when")
        vm[when] = {k: int(v) for k, v in words.items()}
tiers = {}
for l in lines:
    m = re.match(r"tier memory_tier(\d+)=(\S+)", l)
    if m:
        tiers[m.group(2)] = int(m.group(1))
if not ("0" in tiers and "1" in tiers and tiers["1"] > tiers["0"]):
    fail.append(f"node 1 is not in a lower memory tier than node 0: {tiers}")
model = dict((k, int(v)) for k, v in (l.split() for l in open(sys.argv[2]) if l.strip()))
names = ["pgpromote_success", "pgpromote_candidate", "pgdemote_kswapd", "pgdemote_direct",
         "numa_hint_faults", "numa_pages_migrated", "pgmigrate_success", "pgmigrate_fail",
         "pgscan_kswapd", "pgsteal_kswapd"]
if "before" in vm and "after" in vm:
    real = {n: vm["after"].get(n, 0) - vm["before"].get(n, 0) for n in names}
    print(f"{'counter':24} {'oracle':>10} {'numasim':>10} {'ratio':>7}")
    for n in names:
        r, s = real[n], model.get(n, 0)
        print(f"{n:24} {r:>10} {s:>10} {s / r if r else float('nan'):>7.2f}")
    for n in ("pgpromote_success", "pgdemote_kswapd"):
        if real[n] <= 0:
            fail.append(f"the real kernel's {n} is 0")
        if model.get(n, 0) <= 0:
            fail.append(f"numasim's {n} is 0")
else:
    fail.append("no vmstat before/after from the guest (see the console log)")
for f in fail:
    print("oracle-tier-check:", f)
if fail:
    print("\n".join(log[-40:]))
sys.exit(1 if fail else 0)
PY
