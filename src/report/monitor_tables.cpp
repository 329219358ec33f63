#include "report/monitor_tables.h"

#include <algorithm>
#include <stdexcept>

#include "report/mmtests_header.h"
#include "report/stats.h"
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
    // MonitorMmtestsvmstat.pm's @_fieldOrder, keeping the rows whose counters numasim has.
    static const RowSpec kRows[] = {
        // mmtests_minor_faults = pgfault - pgmajfault; nothing in the model is read from disk,
        // so pgmajfault is absent (0) unless a caller supplies it.
        {"Minor Faults",
         [](const VmstatDelta& d) { return field(d, "pgfault") - field(d, "pgmajfault"); }},
        {"Normal allocs", [](const VmstatDelta& d) { return field(d, "pgalloc_normal"); }},
        {"THP fault alloc", [](const VmstatDelta& d) { return field(d, "thp_fault_alloc"); }},
        // thp_split_page: the kernel's NUMA-hinting migrations never split a THP (they pass
        // MR_NUMA_MISPLACED, for which migrate_pages() does not split), and numasim does not
        // count the splits it makes for other reasons, so the row reads 0 unless supplied.
        {"THP split", [](const VmstatDelta& d) { return field(d, "thp_split_page"); }},
        {"Page migrate success",
         [](const VmstatDelta& d) { return field(d, "pgmigrate_success"); }},
        {"Page migrate failure", [](const VmstatDelta& d) { return field(d, "pgmigrate_fail"); }},
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
        // Not in MonitorMmtestsvmstat.pm, which does not list the v5.9 THP migration counters:
        // numasim's additions, after mmtests' rows so that those keep mmtests' order.
        {"THP migration success",
         [](const VmstatDelta& d) { return field(d, "thp_migration_success"); }},
        {"THP migration failure",
         [](const VmstatDelta& d) { return field(d, "thp_migration_fail"); }},
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

MonitorTable build_numa_task_migration_table(const std::vector<std::string>& columns,
                                             const std::vector<NumaTaskMigrations>& migrations) {
    check_columns(columns.size(), migrations.size(), "NUMA task migration table");
    struct RowSpec {
        const char* label;
        double (*value)(const NumaTaskMigrations&);
    };
    static const RowSpec kRows[] = {
        {"NUMA migrated stuck", [](const NumaTaskMigrations& m) { return m.stuck; }},
        {"NUMA migrated idle", [](const NumaTaskMigrations& m) { return m.idle; }},
        {"NUMA migrated swapped", [](const NumaTaskMigrations& m) { return m.swapped; }},
        {"NUMA local swapped", [](const NumaTaskMigrations& m) { return m.local_swapped; }},
        {"NUMA remote swapped",
         [](const NumaTaskMigrations& m) { return m.swapped - m.local_swapped; }},
        {"NUMA group swapped", [](const NumaTaskMigrations& m) { return m.group_swapped; }},
        {"NUMA avg task migs.",
         [](const NumaTaskMigrations& m) { return m.per_task.empty() ? 0 : amean(m.per_task); }},
        {"NUMA stddev task mig",
         [](const NumaTaskMigrations& m) { return stddev_amean(m.per_task); }},
        {"NUMA max task migs.",
         [](const NumaTaskMigrations& m) { return m.per_task.empty() ? 0 : max_of(m.per_task); }},
    };
    MonitorTable t;
    t.columns = columns;
    t.field_length = kMmtestsFtraceFieldLength;
    for (const RowSpec& spec : kRows) {
        MonitorRow row{"Ops", spec.label, {}};
        for (const auto& m : migrations)
            row.values.push_back(spec.value(m));
        t.rows.push_back(std::move(row));
    }
    return t;
}

}  // namespace numasim
