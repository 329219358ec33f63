#!/bin/busybox sh
# The first /init of scripts/oracle-tier-check.sh's guest: it onlines node 1's persistent memory
# (a memmap=nn!ss range, which nd_e820 presents as a raw pmem namespace) as system RAM in a
# lower memory tier, the steps `ndctl create-namespace -m devdax` and `daxctl
# reconfigure-device -m system-ram` make (neither is in busybox), turns demotion on, and then
# runs the oracle's own init (src/guest/init.sh), which sets the knobs and runs the workload.
/bin/busybox --install -s /bin
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
say() { echo "NUMASIM $*"; }
fail() {
    say error "tier: $*"
    say end rc=1
    poweroff -f
}
# libnvdimm and its e820 bus (the memmap range), the pmem and btt namespace drivers, the dax
# core's device driver, the nvdimm-to-dax bridge, and kmem.
for m in libnvdimm nd_btt nd_pmem nd_e820 device_dax dax_pmem kmem; do
    insmod /mod/$m.ko || fail "insmod $m"
done
ND=/sys/bus/nd
i=0
while [ ! -e $ND/devices/region0/dax_seed ]; do
    i=$((i + 1))
    [ $i -gt 50 ] && fail "no nvdimm region0 (is memmap=nn!ss on the command line?)"
    sleep 0.1
done
# The raw namespace nd_pmem bound becomes the backing of the region's idle dax device.
NS=$(ls -d $ND/devices/namespace0.* | head -1)
NS=${NS##*/}
DAX=$(cat $ND/devices/region0/dax_seed)
echo "$NS" > $ND/drivers/nd_pmem/unbind || fail "unbind $NS from nd_pmem"
echo 2d6ebe35-4c31-4a3e-9b9d-8c1b1f0e0a38 > $ND/devices/$DAX/uuid || fail "$DAX uuid"
echo 2097152 > $ND/devices/$DAX/align || fail "$DAX align"
echo ram > $ND/devices/$DAX/mode || fail "$DAX mode"  # struct pages in DRAM, not in the device
echo "$NS" > $ND/devices/$DAX/namespace || fail "$DAX namespace"
echo "$DAX" > $ND/drivers/dax_pmem/bind || fail "bind $DAX to dax_pmem"
DEV=$(ls /sys/bus/dax/devices | head -1)
[ -n "$DEV" ] || fail "no device on the dax bus"
say tier dax="$DEV" target_node="$(cat /sys/bus/dax/devices/$DEV/target_node)" \
    bytes="$(cat /sys/bus/dax/devices/$DEV/size)"
# From device_dax (a character device) to kmem (hot-added system RAM of the target node, which
# kmem puts in the dax memory type's tier before adding it).
echo "$DEV" > /sys/bus/dax/drivers/device_dax/unbind || fail "unbind $DEV from device_dax"
echo "$DEV" > /sys/bus/dax/drivers/kmem/new_id || fail "bind $DEV to kmem"
# CONFIG_MEMORY_HOTPLUG_DEFAULT_ONLINE is off in Debian's kernel: the blocks come up offline.
n=0
for b in /sys/devices/system/memory/memory*; do
    if [ "$(cat $b/state)" = offline ]; then
        echo online_movable > $b/state || fail "online ${b##*/}"
        n=$((n + 1))
    fi
done
say tier onlined_blocks=$n block_bytes=$((0x$(cat /sys/devices/system/memory/block_size_bytes)))
for t in /sys/devices/virtual/memory_tiering/memory_tier*; do
    say tier "${t##*/}"="$(cat $t/nodelist)"
done
for n in 0 1; do
    say tier node=$n free_kb="$(awk '/MemFree/ {print $4}' /sys/devices/system/node/node$n/meminfo)"
done
echo 1 > /sys/kernel/mm/numa/demotion_enabled || fail "demotion_enabled"
say setting demotion_enabled="$(cat /sys/kernel/mm/numa/demotion_enabled)"
umount /proc /sys
exec /bin/busybox sh /oracle-init
