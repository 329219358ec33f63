// Reads what one oracle boot printed: the guest's NUMASIM lines (guest/protocol.h) among
// the kernel's console output, into the kernel release, the nodes, the knobs as set, the
// /proc/vmstat deltas over the workload, the workload's tasks and regions at the end, and the
// samples taken during the run.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace numasim {

using KeyValues = std::map<std::string, std::string>;

struct GuestNode {
    int id = 0;
    std::string cpus;  // cpulist text
    uint64_t mem_kb = 0;
    std::string distance;
};

struct GuestSample {
    double t_s = 0;                        // seconds since the workload started
    std::map<std::string, int64_t> delta;  // counters since the start
};

struct BootLog {
    bool ended = false;  // the init reached its last line (else the boot died or timed out)
    int rc = -1;         // the runner's exit code
    std::string kernel_release;
    std::vector<GuestNode> nodes;
    KeyValues settings;
    std::map<std::string, int64_t> vmstat_before, vmstat_after;
    std::vector<KeyValues> tasks;         // `task` lines
    std::vector<KeyValues> regions;       // `region` lines
    std::vector<KeyValues> calibrations;  // `calibrate` lines (numasim-guest --calibrate-ms)
    // A tiered guest's memory tiers as its kernel formed them (`tier` lines): the id of each
    // /sys/devices/virtual/memory_tiering/memory_tier<id> and its nodelist text.
    std::map<int, std::string> tiers;
    std::vector<KeyValues> hmat;  // `hmat` lines: a node's HMAT latency and bandwidth
    // Per kprobe event the init armed ("task_numa_work", "task_numa_fault"): hits per thread
    // id. An event absent here was not armed (that kernel has no kprobe events, or no such
    // function); a thread absent from an armed event's map made no call.
    std::map<std::string, std::map<int, int64_t>> probe_hits;
    std::vector<GuestSample> samples;
    std::vector<std::string> damon_record;  // `damon` lines: the DAMON record, one line each
    std::vector<std::string> progress, errors;
    double elapsed_s = 0;  // the runner's own elapsed time, in guest seconds
    bool probe_ok = false;

    // after - before for every counter present in both.
    std::map<std::string, int64_t> vmstat_delta() const;
};

// Feeds console lines one at a time, so the host can show progress while a boot runs.
class BootLogReader {
  public:
    // Returns the parsed kind ("progress", "error", ...) or "" for a line that is not ours.
    std::string feed(std::string_view console_line);
    const BootLog& log() const { return log_; }
    BootLog take() { return std::move(log_); }

  private:
    BootLog log_;
};

BootLog parse_boot_log(std::string_view console);

// "a=1 b=x" -> {a: 1, b: x}; words without '=' are ignored.
KeyValues parse_key_values(std::string_view words);

}  // namespace numasim
