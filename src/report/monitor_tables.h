// mmtests monitor tables (compare-mmtests.pl --print-monitor ...): one value per column, no %
// column because compare-mmtests.pl sets $opt_hideCompare for monitors.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace numasim {

struct MonitorRow {
    std::string stat;            // "Duration", "Ops"
    std::string operation;       // "User", "NUMA PTE updates", ...
    std::vector<double> values;  // one per column
};

struct MonitorTable {
    std::vector<std::string> columns;
    std::vector<MonitorRow> rows;
    int field_length = 12;
    int precision = 2;
};

std::string render_monitor_table(const MonitorTable& table);

// --- Duration (MonitorDuration.pm): whole-run CPU and wall time per column. -----------------
struct DurationTimes {
    double user = 0;     // seconds
    double system = 0;   // seconds
    double elapsed = 0;  // seconds
};

MonitorTable build_duration_table(const std::vector<std::string>& columns,
                                  const std::vector<DurationTimes>& times);

// --- mmtests-vmstat (MonitorMmtestsvmstat.pm): /proc/vmstat after - before per column. ------
using VmstatDelta = std::map<std::string, double>;  // /proc/vmstat field name -> delta

inline constexpr int kMmtestsVmstatFieldLength = 15;
// Pages covered by one PMD-level NUMA hinting update (2 MiB / 4 KiB on x86-64); mmtests
// subtracts them to turn numa_pte_updates into "NUMA PTE updates".
inline constexpr double kMmtestsPagesPerPmd = 512;
// AutoNUMA cost weights from MonitorMmtestsvmstat.pm: Ca = 56/8 per PTE update,
// Cnumahint = 5000 per hinting fault, Ci = Ca + 12 per migrated page.
inline constexpr double kAutonumaCostPteUpdate = 56.0 / 8.0;
inline constexpr double kAutonumaCostHintFault = 5000;
inline constexpr double kAutonumaCostPageMigrated = kAutonumaCostPteUpdate + 12;

// (7 * numa_pte_updates + 5000 * numa_hint_faults + 19 * numa_pages_migrated) / 1e6.
double autonuma_cost(double numa_pte_updates, double numa_hint_faults, double numa_pages_migrated);

// Rows "Ops Minor Faults" ... "Ops AutoNUMA cost" in mmtests order (the rows of
// MonitorMmtestsvmstat.pm whose counters numasim keeps), then numasim's "THP migration success"
// and "THP migration failure"; fields are /proc/vmstat names, missing ones count as 0.
MonitorTable build_mmtests_vmstat_table(const std::vector<std::string>& columns,
                                        const std::vector<VmstatDelta>& deltas);

// --- NUMA task migrations (the sched_*_numa tracepoints). --------------------------------------
// The summary that 286549dc ("sched: add tracepoints related to NUMA task migration", v3.14)
// names as what the sched_move_numa, sched_swap_numa and sched_stick_numa tracepoints are for,
// under its names, as an mmtests ftrace monitor table (MonitorFtrace.pm: "Ops", FieldLength
// 16). mmtests' own ftracenumabalance monitor counts the same events under other names and
// has no per-task figures.
struct NumaTaskMigrations {
    double stuck = 0;              // sched_stick_numa events
    double idle = 0;               // sched_move_numa events
    double swapped = 0;            // sched_swap_numa events
    double local_swapped = 0;      // ... between two CPUs of one node
    double group_swapped = 0;      // ... between two tasks of one numa group
    std::vector<double> per_task;  // NUMA migrations (move + swap) of every task
};

inline constexpr int kMmtestsFtraceFieldLength = 16;

// Rows "Ops NUMA migrated stuck|idle|swapped", "Ops NUMA local|remote|group swapped" (remote =
// swapped - local), "Ops NUMA avg task migs.", "Ops NUMA stddev task mig" (sample stddev,
// n - 1; NaN for fewer than two tasks) and "Ops NUMA max task migs." (0 without tasks).
MonitorTable build_numa_task_migration_table(const std::vector<std::string>& columns,
                                             const std::vector<NumaTaskMigrations>& migrations);

}  // namespace numasim
