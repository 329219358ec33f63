// One DAMON aggregation window of one monitoring target, as every profile format carries it:
// the regions DAMON kept with how many of the window's sampling intervals found each accessed
// (nr_accesses) and for how many windows that count has held (age). The format readers
// (damo_json.h, damon_trace.h, damon_sysfs.h) hand these to the importer one at a time, so that
// a profile of any length is read with the memory of one window.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace numasim {

struct DamonRegion {
    uint64_t start = 0;  // [start, end): virtual (vaddr) or physical (paddr) addresses
    uint64_t end = 0;
    uint64_t nr_accesses = 0;  // sampling intervals of the window that saw an access
    int64_t age = -1;          // aggregation intervals nr_accesses has held; -1: not recorded
};

struct DamonSnapshot {
    uint64_t target_id = 0;  // damo's target_id; the tracepoint's target_id; 0 for sysfs
    int64_t start_ns = 0;    // the window [start_ns, end_ns)
    int64_t end_ns = 0;
    int64_t sample_us = 0;  // the monitoring intervals in force (nr_accesses <= aggr/sample)
    int64_t aggr_us = 0;
    std::string where;  // "record 0, snapshot 3" or "line 120": for error messages
    std::vector<DamonRegion> regions;
};

using SnapshotHandler = std::function<void(const DamonSnapshot&)>;

// DAMON's own defaults (mm/damon/core.c, damon_new_ctx(): sample 5 ms, aggregation 100 ms),
// used when a format does not record the intervals (the tracepoint text, a sysfs snapshot).
inline constexpr int64_t kDamonDefaultSampleUs = 5000;
inline constexpr int64_t kDamonDefaultAggrUs = 100000;

// Regions in one window. DAMON's max_nr_regions is a user setting (default 1000, damo's
// --nr_regions); a million regions of one 4 KiB page each already describe 4 GiB, and the
// importer holds one window's regions, so a profile claiming more is refused rather than read.
inline constexpr uint64_t kMaxDamonRegionsPerSnapshot = uint64_t{1} << 20;

// Monitoring targets (processes) in one profile: each becomes a process of the scenario, and a
// DAMON context monitors a handful; 64 keeps the per-target state of a hostile file small.
inline constexpr size_t kMaxDamonTargets = 64;

}  // namespace numasim
