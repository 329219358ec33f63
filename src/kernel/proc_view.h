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

// What reading costs the reader, in kernel time: open(), read() to the end and close(),
// measured as thread CPU time on a 2-CPU KVM guest (AMD EPYC, Linux 6.18), medians of 9 runs
// (docs/model.md, "A daemon's own time"). Reading still changes nothing: the caller charges it.
inline constexpr double PROC_PID_STAT_READ_NS = 7700;  // /proc/PID/stat (do_task_stat)
// /proc/stat and nodeN/meminfo, each a table of lines (10.6 and 10.7 us measured). /proc/stat
// has a line per CPU, so it costs more on larger machines; the 2-CPU figure is used for all.
inline constexpr double PROC_TABLE_READ_NS = 10700;
inline constexpr double PROC_DIR_ENTRY_NS = 345;  // readdir() of /proc, per entry
// /proc/PID/numa_maps: a line per VMA (seq_file, mpol_to_str: 54.7 us for 27 VMAs), and
// gather_pte_stats() per present page-table entry (59.6 ns per 4 KiB PTE over 1 GiB). A
// PMD-mapped THP is one entry (gather_pmd_stats()); its cost was below the noise of the
// measurement and is taken as a PTE's.
inline constexpr double NUMA_MAPS_LINE_NS = 2000;
inline constexpr double NUMA_MAPS_ENTRY_NS = 60;

// The kernel time of reading /proc/PID/numa_maps of `mm` once: its VMAs' lines and the
// page-table entries the walk finds present.
double numa_maps_read_ns(const System& sys, const Mm& mm);

}  // namespace numasim
