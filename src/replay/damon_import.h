// `numasim import damon`: a DAMON access profile turned into an ordinary `streams` scenario
// (docs/replay.md). The profile is read twice, each time as a stream with the memory of one
// window: the first pass checks it and learns each target's address ranges and time span, the
// second adds each window's accesses into a grid of phases x blocks whose size the options
// bound, never the file.
#pragma once

#include <cstdint>
#include <string>

#include "replay/damon_snapshot.h"

namespace numasim {

enum class DamonFormat { kAuto, kJson, kTrace, kSysfs };

struct DamonImportOptions {
    DamonFormat format = DamonFormat::kAuto;
    // The monitoring intervals, for the formats that do not record them (trace text, sysfs).
    int64_t sample_us = kDamonDefaultSampleUs;
    int64_t aggr_us = kDamonDefaultAggrUs;
    int64_t phase_ns = 1000000000;  // length of one scenario phase
    int64_t blocks = 16;            // memory regions per target, split evenly over its ranges
    int64_t threads = 0;            // 0: from sched_file, else 1
    std::string sched_file;         // a /proc/PID/sched snapshot: comm and thread count
    std::string maps_file;          // a /proc/PID/maps or numa_maps snapshot: the layout
    std::string machine = "cascadelake-2s";
};

// Bounds of the grid the second pass fills (phases x blocks doubles) and of the layout.
inline constexpr int64_t kMaxReplayBlocks = 4096;
inline constexpr int64_t kMaxReplayRanges = 4096;
inline constexpr int64_t kMaxReplayGridCells = int64_t{1} << 22;

// The scenario's text; throws InputError naming the file, the window or line and the problem.
std::string import_damon(const std::string& path, const DamonImportOptions& o);

}  // namespace numasim
