// What a user-space daemon reads of the simulated system, in the units /proc and sysfs give:
// per process /proc/PID/stat and /proc/PID/numa_maps, per CPU the idle time of /proc/stat, per
// node /sys/devices/system/node/nodeN/meminfo. Reading changes nothing. A process is a thread
// group (its pid is the tgid), listed while any of its threads is alive.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/clock.h"

namespace numasim {

struct System;
struct Mm;

// USER_HZ: /proc/stat and /proc/PID/stat count CPU time in clock ticks of 1/100 s
// (include/asm-generic/param.h; nsec_to_clock_t).
inline constexpr Nanos USER_HZ_TICK_NS = NSEC_PER_SEC / 100;

// The fields of /proc/PID/stat a daemon reads (fs/proc/array.c do_task_stat).
struct ProcPidStat {
    int pid = 0;
    std::string comm;
    uint64_t utime = 0, stime = 0;  // fields 14, 15: the thread group's, exited threads included
    int64_t num_threads = 0;        // field 20
    uint64_t vsize = 0;             // field 23, bytes
    uint64_t rss = 0;               // field 24, pages of mm->pages' base size
    Mm* mm = nullptr;               // the address space behind it (what the pid names)
};

// Every process, by ascending pid (the order of /proc's directory).
std::vector<ProcPidStat> proc_pid_stats(const System& sys);

// /proc/PID/numa_maps added up over its lines: bytes on each node (N<node>= pages times
// kernelpagesize_kB), and whether a line's policy is interleave.
struct NumaMapsTotals {
    std::vector<uint64_t> node_bytes;
    bool interleaved = false;
};
NumaMapsTotals numa_maps_totals(const System& sys, const Mm& mm);

// The idle field of /proc/stat's line for `cpu`, in clock ticks: the time it ran no task.
uint64_t proc_stat_idle(const System& sys, int cpu);

// nodeN/meminfo's MemTotal and MemFree, in kB.
struct NodeMeminfo {
    uint64_t mem_total_kb = 0, mem_free_kb = 0;
};
NodeMeminfo node_meminfo(const System& sys, int nid);

}  // namespace numasim
