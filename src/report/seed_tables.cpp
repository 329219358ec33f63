#include "report/seed_tables.h"

#include "report/aligned_text.h"
#include "report/text_format.h"

namespace numasim {

const std::vector<std::string> kPerfStatEvents = {
    "cs",
    "migrations",
    "faults",
    "cache-misses",
    "sched:sched_move_numa",
    "sched:sched_stick_numa",
    "sched:sched_swap_numa",
    "migrate:mm_migrate_pages",
};

const std::vector<std::string> kVmstatNumaEvents = {
    "numa_hint_faults", "numa_hint_faults_local",
    "numa_hit",         "numa_huge_pte_updates",
    "numa_interleave",  "numa_local",
    "numa_other",       "numa_pages_migrated",
    "numa_pte_updates",
};

double specjbb_change_pct(double base, double value) {
    return (value - base) / base * 100.0;
}

std::string render_specjbb_block(const SpecjbbBlock& block) {
    TextTable t;
    t.header.push_back("JVMS");
    for (const auto& s : block.settings)
        t.header.push_back(s);
    const size_t n = block.settings.size();
    for (size_t k = 1; k < n; ++k) {
        t.header.push_back(n == 2 ? std::string("%Change") : "%Change-" + block.settings[k]);
    }
    for (const auto& r : block.rows) {
        std::vector<std::string> cells = {std::to_string(r.jvms)};
        for (double v : r.values)
            cells.push_back(format_general(v));
        for (size_t k = 1; k < r.values.size(); ++k) {
            cells.push_back(format_general(specjbb_change_pct(r.values[0], r.values[k])));
        }
        t.rows.push_back(std::move(cells));
    }
    return block.title + "\n" + render_aligned(t);
}

std::vector<EventRow> event_rows(const std::vector<std::string>& events,
                                 const std::vector<std::map<std::string, std::int64_t>>& columns) {
    std::vector<EventRow> rows;
    for (const auto& e : events) {
        EventRow r{e, {}};
        for (const auto& c : columns) {
            auto it = c.find(e);
            r.values.push_back(it == c.end() ? 0 : it->second);
        }
        rows.push_back(std::move(r));
    }
    return rows;
}

std::string render_event_table(std::string_view heading, const std::vector<std::string>& columns,
                               const std::vector<EventRow>& rows, bool thousands) {
    TextTable t;
    t.header.push_back("Event");
    t.header.insert(t.header.end(), columns.begin(), columns.end());
    for (const auto& r : rows) {
        std::vector<std::string> cells = {r.event};
        for (auto v : r.values)
            cells.push_back(thousands ? with_thousands(v) : std::to_string(v));
        t.rows.push_back(std::move(cells));
    }
    return std::string(heading) + "\n" + render_aligned(t);
}

std::string render_perf_stats_table(std::string_view title, const std::vector<std::string>& columns,
                                    const std::vector<EventRow>& rows) {
    return render_event_table("perf stats " + std::string(title), columns, rows, true);
}

std::string render_vmstat_table(std::string_view title, const std::vector<std::string>& columns,
                                const std::vector<EventRow>& rows) {
    return render_event_table("vmstat " + std::string(title), columns, rows, false);
}

}  // namespace numasim
