// `--sample INTERVAL`: what mmtests' monitors record during a benchmark, read from the simulated
// system every INTERVAL of simulated time and streamed to one CSV file per table (bounded
// memory), plus mmtests' numa-convergence and numa-scheduling logs:
//
//   vmstat.csv       /proc/vmstat numa_* counters, increase since the previous sample
//   nodes.csv        per node: MemTotal, MemFree, MemUsed (kB), runnable tasks on its CPUs
//   numastat.csv     per process and node: resident MB (numastat -p)
//   numa_maps.csv    per process, VMA and node: resident pages (/proc/<pid>/numa_maps N<n>=)
//   tasks.csv        per task: CPU, node, numa_preferred_nid, numa group, its NUMA hinting
//                    faults since the previous sample and the local share of them
//   convergence.csv  mmtests' numa-convergence value
//   tiers.csv        per memory tier, on a machine with more than one: resident pages, and the
//                    pages promoted into it and demoted from it in the interval and per second
//   numa-convergence.log, numa-scheduling.log   the two monitors' own text
//
// Every table starts with the simulated time in seconds. docs/reports.md describes each column.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "engine/sampler.h"
#include "kernel/counters.h"
#include "observe/csv.h"
#include "observe/mmtests_views.h"

namespace numasim {

class OutputFiles;

inline constexpr std::string_view kVmstatTable = "vmstat.csv";
inline constexpr std::string_view kNodesTable = "nodes.csv";
inline constexpr std::string_view kNumastatTable = "numastat.csv";
inline constexpr std::string_view kNumaMapsTable = "numa_maps.csv";
inline constexpr std::string_view kTasksTable = "tasks.csv";
inline constexpr std::string_view kConvergenceTable = "convergence.csv";
inline constexpr std::string_view kTiersTable = "tiers.csv";  // tiered machines only
inline constexpr std::string_view kConvergenceLog = "numa-convergence.log";
inline constexpr std::string_view kSchedulingLog = "numa-scheduling.log";
// The CSV tables in the order they are written (tiers.csv, which only some runs write, apart).
std::vector<std::string_view> sample_table_names();

// The /proc/vmstat numa_* counters sampled into vmstat.csv, in the kernel's order.
std::vector<std::pair<std::string_view, Vm>> sampled_vmstat_counters();

class NumaSampler : public Sampler {
  public:
    // Creates the tables in `dir` through `files`; `comments` head each CSV file.
    NumaSampler(OutputFiles& files, const std::string& dir, const System& sys, Nanos interval,
                const std::vector<std::string>& comments);
    Nanos interval() const override { return interval_; }
    void sample(const System& sys) override;

  private:
    Nanos interval_;
    void sample_tiers(const System& sys, double t);

    std::unique_ptr<CsvWriter> vmstat_, nodes_, numastat_, maps_, tasks_, convergence_;
    std::unique_ptr<CsvWriter> tiers_;  // null on a machine with one memory tier
    std::FILE* convergence_log_;
    std::FILE* scheduling_log_;
    Counters last_;
    struct TaskFaults {
        uint64_t faults = 0, local = 0;
    };
    std::vector<TaskFaults> task_last_;  // by Task::index
    // Each node's promoted (pgpromote_success) and demoted pages at the previous sample.
    std::vector<uint64_t> promoted_last_, demoted_last_;
    Nanos tiers_last_at_ = 0;  // the previous sample's time
    MmtestsConvergence convergence_window_;
};

}  // namespace numasim
