// Table layouts of the "sched/numa: Avoid task migration for small NUMA improvement" (SMALLIMP)
// posting: a specjbb JVMS/Prev/Current/%Change block, and perf-stat / vmstat event tables.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace numasim {

// --- specjbb ---------------------------------------------------------------------------------
struct SpecjbbRow {
    int jvms = 0;
    std::vector<double> values;  // one per setting (e.g. Prev, Current)
};

struct SpecjbbBlock {
    std::string title;                                        // "2 Socket - 2  Node Haswell - X86"
    std::vector<std::string> settings = {"Prev", "Current"};  // column names
    std::vector<SpecjbbRow> rows;
};

// (new - base) / base * 100, positive = more bops (higher is better).
double specjbb_change_pct(double base, double value);

// Title line, then "JVMS  Prev  Current  %Change" with values printed as printf("%g").
// With more than two settings every later setting gets a "%Change-<name>" column vs the first.
std::string render_specjbb_block(const SpecjbbBlock& block);

// --- event tables ----------------------------------------------------------------------------
struct EventRow {
    std::string event;
    std::vector<std::int64_t> values;  // one per column
};

// The perf-stat events of the posting, in its order.
extern const std::vector<std::string> kPerfStatEvents;
// The /proc/vmstat NUMA fields of the posting, in its (alphabetical) order.
extern const std::vector<std::string> kVmstatNumaEvents;

// Rows for `events` taking each column's value from its map (missing = 0).
std::vector<EventRow> event_rows(const std::vector<std::string>& events,
                                 const std::vector<std::map<std::string, std::int64_t>>& columns);

// "<heading>\nEvent  <col...>\n<event> <values>..." left-aligned; `thousands` prints values
// with ',' separators (perf stat style).
std::string render_event_table(std::string_view heading, const std::vector<std::string>& columns,
                               const std::vector<EventRow>& rows, bool thousands);

// "perf stats <title>" with Before/After (or any number of) columns and ',' separators.
std::string render_perf_stats_table(std::string_view title, const std::vector<std::string>& columns,
                                    const std::vector<EventRow>& rows);

// "vmstat <title>" with plain integers.
std::string render_vmstat_table(std::string_view title, const std::vector<std::string>& columns,
                                const std::vector<EventRow>& rows);

}  // namespace numasim
