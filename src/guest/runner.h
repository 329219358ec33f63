// numasim-guest, the program the oracle's init runs on the real kernel:
//
//   numasim-guest SCENARIO.toml [--params FILE] [--duration-ms N] [--sample-ms N]
//                 [--progress-ms N] [--seed N] [--damon]
//   numasim-guest --calibrate-ms N     (guest/calibrate.h: no scenario)
//
// It reads the scenario's [[workload]] tables with the model's own readers (program/*_spec.h),
// applying the --param assignments listed one per line in FILE, forks one process per workload,
// each running its program (guest/programs.h), and meanwhile prints the runner's progress and,
// with --sample-ms, the /proc/vmstat NUMA counters since the start every interval. Its lines are
// those of guest/protocol.h. It stops every workload at the scenario's duration. With --damon,
// DAMON monitors the workload's processes and the runner prints its record (guest/damon.h).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace numasim::guest {

struct RunnerOptions {
    std::string scenario;
    std::string params_file;
    int64_t duration_ms = 60000;
    int64_t sample_ms = 0;  // 0: no samples
    int64_t progress_ms = 5000;
    uint64_t seed = 1;
    int64_t calibrate_ms = 0;  // > 0: measure the nodes for `numasim calibrate --oracle` instead
    bool damon = false;        // monitor the workload with DAMON (guest/damon.h)
};

// Throws std::invalid_argument naming the bad argument.
RunnerOptions parse_runner_args(const std::vector<std::string>& args);

// The /proc/vmstat counters a sample reports (numa_*, pgmigrate_*, thp_migration_*), from a
// /proc/vmstat text.
std::vector<std::pair<std::string, int64_t>> sample_counters(const std::string& vmstat);

int runner_main(const RunnerOptions& o);

}  // namespace numasim::guest
