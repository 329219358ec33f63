#!/bin/busybox sh
# /init of the numasim oracle guest (busybox sh). It sets the knobs the host wrote to
# /oracle/env, reads /proc/vmstat before and after the workload, runs the workload with
# numasim-guest, and prints everything the host reads as "NUMASIM ..." lines on the serial
# console (src/guest/protocol.h), then powers the machine off.
/bin/busybox --install -s /bin
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
mkdir -p /tmp

say() { echo "NUMASIM $*"; }
off() {
    sync
    poweroff -f
}

# A boot probe (does this accelerator run the kernel at all?) needs nothing else.
if grep -qw numasim.probe /proc/cmdline; then
    say probe-ok
    off
fi

. /oracle/env
say kernel release="$(uname -r)"
for n in /sys/devices/system/node/node[0-9]*; do
    say node id="${n##*node}" cpus="$(cat "$n/cpulist")" \
        mem_kb="$(awk '/MemTotal/ {print $4}' "$n/meminfo")" distance="$(tr ' ' , < "$n/distance")"
done

if [ ! -w /proc/sys/kernel/numa_balancing ]; then
    say error "this kernel has no /proc/sys/kernel/numa_balancing (CONFIG_NUMA_BALANCING is off)"
    say end rc=1
    off
fi
echo "$NUMA_BALANCING" > /proc/sys/kernel/numa_balancing
say setting numa_balancing="$(cat /proc/sys/kernel/numa_balancing)"
THP_FILE=/sys/kernel/mm/transparent_hugepage/enabled
if [ -w $THP_FILE ]; then
    echo "$THP" > $THP_FILE
    say setting thp="$(sed 's/.*\[\(.*\)\].*/\1/' $THP_FILE)"
fi
DEFRAG_FILE=/sys/kernel/mm/transparent_hugepage/defrag
if [ -w $DEFRAG_FILE ]; then
    echo "$THP_DEFRAG" > $DEFRAG_FILE
    say setting thp_defrag="$(sed 's/.*\[\(.*\)\].*/\1/' $DEFRAG_FILE)"
fi
# Shared anonymous regions are shmem, whose huge pages follow shmem_enabled, not `enabled`: as
# in the model (mm/huge_memory.h), they get huge pages only where numasim-guest asks with
# MADV_HUGEPAGE, whatever the THP mode.
SHMEM_FILE=/sys/kernel/mm/transparent_hugepage/shmem_enabled
if [ -w $SHMEM_FILE ]; then
    echo advise > $SHMEM_FILE
fi

# A tiered guest (docs/oracle.md, "A tiered guest"): demotion as the scenario sets it, the
# memory tiers the kernel formed at boot with their nodes, and the latency and bandwidth each
# node got from the firmware's HMAT for its best CPU initiator (access class 1).
if [ "$TIERED" = 1 ]; then
    DEMOTION_FILE=/sys/kernel/mm/numa/demotion_enabled
    if [ -w $DEMOTION_FILE ]; then
        echo "$DEMOTION" > $DEMOTION_FILE
        say setting demotion_enabled="$(cat $DEMOTION_FILE)"
    else
        say error "this kernel has no $DEMOTION_FILE (CONFIG_MIGRATION is off)"
    fi
    for t in /sys/devices/virtual/memory_tiering/memory_tier[0-9]*; do
        [ -e "$t/nodelist" ] && say tier id="${t##*memory_tier}" nodes="$(cat "$t/nodelist")"
    done
    for n in /sys/devices/system/node/node[0-9]*; do
        a=$n/access1/initiators
        [ -e $a/read_latency ] &&
            say hmat node="${n##*node}" latency_ns="$(cat $a/read_latency)" \
                bandwidth_mbs="$(cat $a/read_bandwidth)"
    done
fi

# The scan knobs live in debugfs since v5.13 and in /proc/sys/kernel before.
set_knob() {
    f=/sys/kernel/debug/sched/numa_balancing/$1
    [ -e "$f" ] || f=/proc/sys/kernel/numa_balancing_$1
    if [ -e "$f" ]; then
        echo "$2" > "$f"
        say setting "$1=$(cat "$f")"
    else
        say error "this kernel has no knob $1 (wanted $2)"
    fi
}
for kv in $KNOBS; do
    set_knob "${kv%%=*}" "${kv#*=}"
done

# Per-task counts of task_numa_work() calls and hinting faults (task_numa_fault(), which
# do_numa_page() and do_huge_pmd_numa_page() call once per fault): a kprobe event on each
# function with a hist trigger keyed on the thread's pid, which counts without tracing. Each
# armed event is announced, so the host knows a missing pid means no call.
T=/sys/kernel/tracing
mount -t tracefs tracefs $T 2>/dev/null
[ -e $T/kprobe_events ] || T=/sys/kernel/debug/tracing
armed=""
for f in task_numa_work task_numa_fault; do
    if echo "p:numasim/$f $f" >> $T/kprobe_events 2>/dev/null &&
        echo 'hist:keys=common_pid' > $T/events/numasim/$f/trigger 2>/dev/null; then
        armed="$armed $f"
        say probe event=$f armed=1
    else
        say probe event=$f armed=0
    fi
done
# The sched_skip_vma_numa tracepoint (v6.7+) counted per thread and reason the same way: one
# probe event per reason, named by the kernel's NUMAB_SKIP_* value in the order of
# include/trace/events/sched.h, so that the host reads them as the probes above.
skip_reasons="UNSUITABLE SHARED_RO INACCESSIBLE SCAN_DELAY PID_INACTIVE IGNORE_PID SEQ_COMPLETED"
skip_armed=0
if echo 'hist:keys=common_pid,reason' > $T/events/sched/sched_skip_vma_numa/trigger 2>/dev/null; then
    skip_armed=1
    for r in $skip_reasons; do
        say probe event=sched_skip_vma_numa.$r armed=1
    done
fi
probe_counts() {
    for f in $armed; do
        sed -n 's/^{ common_pid: *\([0-9]*\) *} hitcount: *\([0-9]*\).*/\1 \2/p' \
            $T/events/numasim/$f/hist | while read -r pid hits; do
            say probe event=$f pid=$pid hits=$hits
        done
    done
    [ $skip_armed = 1 ] || return 0
    sed -n 's/^{ common_pid: *\([0-9]*\), *reason: *\([0-9]*\) *} hitcount: *\([0-9]*\).*/\1 \2 \3/p' \
        $T/events/sched/sched_skip_vma_numa/hist | while read -r pid reason hits; do
        set -- $skip_reasons
        shift "$reason"
        say probe event=sched_skip_vma_numa.$1 pid=$pid hits=$hits
    done
}

vmstat() {
    say vmstat when="$1" $(sed 's/ /=/' /proc/vmstat)
}
vmstat before
/bin/numasim-guest $RUNNER_ARGS
rc=$?
vmstat after
probe_counts
say end rc=$rc
off
