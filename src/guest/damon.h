// `numasim-guest --damon`: the workload's processes monitored by DAMON's virtual-address
// operations through the kernel's sysfs interface (/sys/kernel/mm/damon/admin, the kernel's
// Documentation/admin-guide/mm/damon/usage.rst), each aggregation window's regions collected by
// the kernel's damon:damon_aggregated tracepoint in the trace buffer. At the end the record is
// printed as `damon` lines (guest/protocol.h) that the host writes, one a line, to
// `numasim oracle --damon-record FILE`: comments naming the attributes, the targets and their
// /proc/PID/maps, then the trace buffer's damon_aggregated lines, which `numasim import damon`
// reads as trace text (replay/damon_trace.h).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace numasim::guest {

// The monitoring attributes: DAMON's defaults, which are damo's (`damo record`'s
// --monitoring_intervals 5ms 100ms 1s and --monitoring_nr_regions_range 10 1000), and those
// `numasim run --damon-record` records with.
struct DamonAttrs {
    int64_t sample_us = 5000;
    int64_t aggr_us = 100000;
    int64_t update_us = 1000000;
    int min_nr_regions = 10;
    int max_nr_regions = 1000;
};

// The processes below `root` that have no children of their own, in pid order, from (pid,
// parent pid) pairs: the runner forks one process per workload, and a streams workload's
// process forks its instances and only waits, so the leaves are the processes that own the
// workload's memory.
std::vector<int> leaf_descendants(int root, const std::vector<std::pair<int, int>>& pid_ppid);

// The (pid, parent pid) of every process, from /proc/PID/stat.
std::vector<std::pair<int, int>> process_parents();

class DamonMonitor {
  public:
    // Sets DAMON up on `pids` and turns its kdamond on. Throws std::runtime_error naming what
    // the kernel lacks (no /sys/kernel/mm/damon/admin: CONFIG_DAMON_SYSFS is off; no vaddr
    // operations; no damon_aggregated tracepoint).
    DamonMonitor(std::vector<int> pids, const DamonAttrs& a);
    // Reads each live target's /proc/PID/maps and thread count: the last maps read and the most
    // threads seen are printed.
    void snapshot_targets();
    // Turns the kdamond off (it stops by itself when its targets have exited) and prints the
    // record. Returns false (after an `error` line) if the trace buffer lost events.
    bool finish();

  private:
    struct Target {
        int pid = 0;
        std::string comm;
        int threads = 0;
        std::vector<std::string> maps;
    };
    DamonAttrs attrs_;
    std::string tracing_;  // the tracefs directory
    std::vector<Target> targets_;
};

}  // namespace numasim::guest
