#include "report/monitor_tables.h"

#include <algorithm>
#include <stdexcept>

#include "report/mmtests_header.h"
#include "report/text_format.h"

namespace numasim {

namespace {

void check_columns(size_t columns, size_t values, const char* what) {
    if (columns != values) {
        throw std::invalid_argument(std::string(what) + ": " + std::to_string(values) +
                                    " value sets for " + std::to_string(columns) + " columns");
    }
}

double field(const VmstatDelta& d, const char* name) {
    auto it = d.find(name);
    return it == d.end() ? 0.0 : it->second;
}

}  // namespace

std::string render_monitor_table(const MonitorTable& table) {
    size_t stat_width = 0;
    size_t op_width = 0;
    for (const auto& r : table.rows) {
        stat_width = std::max(stat_width, r.stat.size());
        op_width = std::max(op_width, r.operation.size());
    }
    std::string out = render_header_rows(table.columns, stat_width + 1 + op_width,
                                         static_cast<size_t>(table.field_length));
    for (const auto& r : table.rows) {
        out += pad_right(r.stat, stat_width);
        out += ' ';
        out += pad_right(r.operation, op_width);
        for (double v : r.values)
            out += format_fixed(v, table.field_length, table.precision);
        out += '\n';
    }
    return out;
}

MonitorTable build_duration_table(const std::vector<std::string>& columns,
                                  const std::vector<DurationTimes>& times) {
    check_columns(columns.size(), times.size(), "duration table");
    MonitorTable t;
    t.columns = columns;
    MonitorRow user{"Duration", "User", {}};
    MonitorRow system{"Duration", "System", {}};
    MonitorRow elapsed{"Duration", "Elapsed", {}};
    for (const auto& d : times) {
        user.values.push_back(d.user);
        system.values.push_back(d.system);
        elapsed.values.push_back(d.elapsed);
    }
    t.rows = {user, system, elapsed};
    return t;
}

double autonuma_cost(double numa_pte_updates, double numa_hint_faults, double numa_pages_migrated) {
    // mmtests also defines a Cpagerw term, but it sits in a separate statement and is never
    // added to the cost, so it is deliberately absent here.
    return (kAutonumaCostPteUpdate * numa_pte_updates + kAutonumaCostHintFault * numa_hint_faults +
            kAutonumaCostPageMigrated * numa_pages_migrated) /
           1e6;
}

MonitorTable build_mmtests_vmstat_table(const std::vector<std::string>& columns,
                                        const std::vector<VmstatDelta>& deltas) {
    check_columns(columns.size(), deltas.size(), "mmtests-vmstat table");
    // Each row: label and how to derive it from one column's deltas.
    struct RowSpec {
        const char* label;
        double (*value)(const VmstatDelta&);
    };
    static const RowSpec kRows[] = {
        {"NUMA alloc hit", [](const VmstatDelta& d) { return field(d, "numa_hit"); }},
        {"NUMA alloc miss", [](const VmstatDelta& d) { return field(d, "numa_miss"); }},
        {"NUMA interleave hit", [](const VmstatDelta& d) { return field(d, "numa_interleave"); }},
        {"NUMA alloc local", [](const VmstatDelta& d) { return field(d, "numa_local"); }},
        {"NUMA base-page range updates",
         [](const VmstatDelta& d) { return field(d, "numa_pte_updates"); }},
        {"NUMA PTE updates",
         [](const VmstatDelta& d) {
             return field(d, "numa_pte_updates") -
                    kMmtestsPagesPerPmd * field(d, "numa_huge_pte_updates");
         }},
        {"NUMA PMD updates",
         [](const VmstatDelta& d) { return field(d, "numa_huge_pte_updates"); }},
        {"NUMA hint faults", [](const VmstatDelta& d) { return field(d, "numa_hint_faults"); }},
        // A raw count despite the '%' in the label (mmtests naming).
        {"NUMA hint local faults %",
         [](const VmstatDelta& d) { return field(d, "numa_hint_faults_local"); }},
        {"NUMA hint local percent",
         [](const VmstatDelta& d) {
             const double faults = field(d, "numa_hint_faults");
             return faults == 0 ? 100.0 : 100.0 * field(d, "numa_hint_faults_local") / faults;
         }},
        {"NUMA pages migrated",
         [](const VmstatDelta& d) { return field(d, "numa_pages_migrated"); }},
        {"AutoNUMA cost",
         [](const VmstatDelta& d) {
             return autonuma_cost(field(d, "numa_pte_updates"), field(d, "numa_hint_faults"),
                                  field(d, "numa_pages_migrated"));
         }},
    };
    MonitorTable t;
    t.columns = columns;
    t.field_length = kMmtestsVmstatFieldLength;
    for (const RowSpec& spec : kRows) {
        MonitorRow row{"Ops", spec.label, {}};
        for (const auto& d : deltas)
            row.values.push_back(spec.value(d));
        t.rows.push_back(std::move(row));
    }
    return t;
}

}  // namespace numasim
