#include "report/compare_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <variant>

#include "policy/registry.h"
#include "report/json_out.h"
#include "report/mmtests_table.h"
#include "report/monitor_tables.h"
#include "report/run_report.h"
#include "report/seed_tables.h"

namespace numasim {

namespace {

std::vector<std::string> names(const std::vector<VariantRuns>& v) {
    std::vector<std::string> n;
    for (const auto& x : v)
        n.push_back(x.name);
    return n;
}

std::vector<OperationSamples> operations(const std::vector<VariantRuns>& v) {
    std::vector<OperationSamples> ops;
    std::map<std::string, size_t> index;
    for (size_t c = 0; c < v.size(); ++c)
        for (const auto& r : v[c].runs)
            for (const auto& o : run_operations(r)) {
                auto it = index.find(o.name);
                if (it == index.end()) {
                    it = index.emplace(o.name, ops.size()).first;
                    ops.push_back({o.name, o.lower_is_better ? Better::Lower : Better::Higher,
                                   std::vector<std::vector<double>>(v.size())});
                }
                ops[it->second].samples[c].push_back(o.value);
            }
    return ops;
}

CompareTable compare_table(const std::vector<VariantRuns>& v, const CompareReportOptions& o) {
    CompareOptions co;
    co.rule = o.rule;
    co.stat_set = o.stats_2019 ? StatSet::Multiops2019 : StatSet::Current;
    co.means_only = o.means_only;
    co.print_significance = o.print_significance;
    co.naming = o.dot_naming ? BestMeanNaming::Dot : BestMeanNaming::Dash;
    return build_compare_table(names(v), operations(v), co);
}

MonitorTable duration_table(const std::vector<VariantRuns>& v) {
    std::vector<DurationTimes> t;
    for (const auto& x : v) {
        DurationTimes d;
        for (const auto& r : x.runs) {
            d.user += r.user_s;
            d.system += r.system_s;
            d.elapsed += ns_to_s(r.elapsed);
        }
        t.push_back(d);
    }
    return build_duration_table(names(v), t);
}

// Counters summed over all iterations of a variant, by kernel name.
std::map<std::string, int64_t> counter_totals(const VariantRuns& x) {
    std::map<std::string, int64_t> m;
    for (const auto& r : x.runs) {
        for (size_t i = 0; i < kVmNames.size(); ++i)
            m[std::string(kVmNames[i])] += static_cast<int64_t>(r.counters.vm[i]);
        m["cs"] += static_cast<int64_t>(r.counters.cs);
        m["migrations"] += static_cast<int64_t>(r.counters.migrations);
        m["faults"] += static_cast<int64_t>(r.counters[Vm::pgfault]);
        m["cache-misses"] += static_cast<int64_t>(r.counters.llc_misses);
        m["sched:sched_move_numa"] += static_cast<int64_t>(r.counters.sched_move_numa);
        m["sched:sched_stick_numa"] += static_cast<int64_t>(r.counters.sched_stick_numa);
        m["sched:sched_swap_numa"] += static_cast<int64_t>(r.counters.sched_swap_numa);
        m["migrate:mm_migrate_pages"] += static_cast<int64_t>(r.counters.mm_migrate_pages);
        for (const auto& [name, per_node] : kNodeStats)
            m[std::string(name)] += static_cast<int64_t>(node_stat_total(r.counters.*per_node));
        m["wakeup_kswapd_calls"] += static_cast<int64_t>(r.counters.wakeup_kswapd_calls);
        for (const auto& [name, field] : kReclaimCounters)
            m[std::string(name)] += static_cast<int64_t>(r.counters.*field);
        for (const auto& [name, field] : kPghotCounters)
            m[std::string(name)] += static_cast<int64_t>(r.counters.*field);
    }
    return m;
}

// The promotion counters, in a table of their own on machines with a slower tier
// (docs/tiering.md): /proc/vmstat's node stats and numasim's count of kswapd wakeups.
const std::vector<std::string> kPromotionEvents = {"pgpromote_success", "pgpromote_candidate",
                                                   "wakeup_kswapd_calls"};

// With demotion_enabled in some variant, the demotion counters join them (mm/vmscan.h).
const std::vector<std::string> kDemotionEvents = {"pgdemote_kswapd", "pgdemote_direct",
                                                  "pgscan_kswapd", "pgscan_direct"};

bool reclaim_reported(const std::vector<VariantRuns>& v) {
    for (const auto& x : v)
        for (const auto& r : x.runs)
            if (r.counters.reclaim_reported) return true;
    return false;
}

// With the pghot knob in some variant, its counters join them (mm/pghot.h).
bool pghot_reported(const std::vector<VariantRuns>& v) {
    for (const auto& x : v)
        for (const auto& r : x.runs)
            if (r.counters.pghot_reported) return true;
    return false;
}

// The promotion table's rows.
std::vector<std::string> promotion_events(const std::vector<VariantRuns>& v) {
    std::vector<std::string> e = kPromotionEvents;
    if (reclaim_reported(v)) e.insert(e.end(), kDemotionEvents.begin(), kDemotionEvents.end());
    if (pghot_reported(v))
        for (const auto& [name, field] : kPghotCounters)
            e.emplace_back(name);
    return e;
}

bool promotion_possible(const std::vector<VariantRuns>& v) {
    for (const auto& x : v)
        for (const auto& r : x.runs)
            if (r.counters.promotion_possible) return true;
    return false;
}

MonitorTable ops_table(const std::vector<VariantRuns>& v) {
    std::vector<VmstatDelta> d;
    for (const auto& x : v) {
        // Under the /proc/vmstat names the Ops rows read (pgalloc is pgalloc_normal).
        const auto totals = counter_totals(x);
        VmstatDelta m;
        for (const auto& [proc, id] : kProcVmstatOrder)
            m[std::string(proc)] =
                static_cast<double>(totals.at(std::string(kVmNames[static_cast<size_t>(id)])));
        d.push_back(m);
    }
    return build_mmtests_vmstat_table(names(v), d);
}

// The sched_*_numa summary per variant, over all its iterations (every task of every run).
MonitorTable task_migration_table(const std::vector<VariantRuns>& v) {
    std::vector<NumaTaskMigrations> m;
    for (const auto& x : v) {
        NumaTaskMigrations t;
        for (const auto& r : x.runs) {
            t.stuck += static_cast<double>(r.counters.sched_stick_numa);
            t.idle += static_cast<double>(r.counters.sched_move_numa);
            t.swapped += static_cast<double>(r.counters.sched_swap_numa);
            t.local_swapped += static_cast<double>(r.counters.sched_swap_numa_local);
            t.group_swapped += static_cast<double>(r.counters.sched_swap_numa_group);
            for (const auto& p : r.tasks)
                t.per_task.push_back(static_cast<double>(p.numa_task_migrations));
        }
        m.push_back(std::move(t));
    }
    return build_numa_task_migration_table(names(v), m);
}

std::vector<std::map<std::string, int64_t>> all_totals(const std::vector<VariantRuns>& v) {
    std::vector<std::map<std::string, int64_t>> t;
    for (const auto& x : v)
        t.push_back(counter_totals(x));
    return t;
}

bool has_specjbb(const std::vector<VariantRuns>& v) {
    for (const auto& r : v.front().runs)
        for (const auto& w : r.workloads)
            if (std::holds_alternative<SpecjbbThroughput>(w.extra)) return true;
    return false;
}

// Mean bops over iterations, per variant: the posting's "Prev Current %Change" rows.
SpecjbbBlock specjbb_block(const std::vector<VariantRuns>& v) {
    SpecjbbBlock b;
    b.title = v.front().scenario.machine.description;
    b.settings = names(v);
    SpecjbbRow row;
    for (const auto& x : v) {
        double sum = 0;
        int jvms = 0;
        for (const auto& r : x.runs)
            for (const auto& w : r.workloads)
                if (const auto* t = std::get_if<SpecjbbThroughput>(&w.extra)) {
                    sum += t->bops;
                    jvms = t->jvms;
                }
        row.jvms = jvms;
        row.values.push_back(x.runs.empty() ? 0 : sum / static_cast<double>(x.runs.size()));
    }
    b.rows.push_back(std::move(row));
    return b;
}

}  // namespace

std::string compare_text(const std::vector<VariantRuns>& v, const CompareReportOptions& o) {
    const auto& sc = v.front().scenario;
    std::string s = fmt::format("numasim compare: {} on {}, {} iteration(s) per variant\n", sc.name,
                                sc.machine.name, sc.iterations);
    // When some variant runs a policy other than the kernel's own, each column's policy is
    // named; a compare of mainline variants reads as it always did.
    if (std::any_of(v.begin(), v.end(),
                    [](const VariantRuns& x) { return x.scenario.policy != kMainlinePolicy; })) {
        s += "policies:";
        for (const VariantRuns& x : v)
            s += fmt::format(" {} {}{}", x.name, x.scenario.policy, &x == &v.back() ? "" : ",");
        s += "\n";
    }
    s += "\n";
    s += render_compare_table(compare_table(v, o)) + "\n";
    s += render_monitor_table(duration_table(v)) + "\n";
    if (o.latency) s += render_compare_table(latency_compare_table(v, *o.latency)) + "\n";
    s += render_monitor_table(ops_table(v)) + "\n";
    s += render_monitor_table(task_migration_table(v)) + "\n";
    const auto totals = all_totals(v);
    s += render_perf_stats_table(sc.name, names(v), event_rows(kPerfStatEvents, totals)) + "\n";
    s += render_vmstat_table(sc.name, names(v), event_rows(kVmstatNumaEvents, totals));
    if (promotion_possible(v)) {
        s += "\n";
        s += render_vmstat_table(sc.name + " promotion", names(v),
                                 event_rows(promotion_events(v), totals));
    }
    if (has_specjbb(v)) {
        s += "\n";
        s += render_specjbb_block(specjbb_block(v));
    }
    return s;
}

nlohmann::json compare_json(const std::vector<VariantRuns>& v, const CompareReportOptions& o) {
    const auto totals = all_totals(v);
    nlohmann::json j = {
        {"scenario", v.front().scenario.name},
        {"machine", v.front().scenario.machine.name},
        {"variants", names(v)},
        {"compare", to_json(compare_table(v, o))},
        {"duration", to_json(duration_table(v))},
        {"ops", to_json(ops_table(v))},
        {"numa_task_migrations", to_json(task_migration_table(v))},
        {"perf_stats",
         event_table_json("perf stats", names(v), event_rows(kPerfStatEvents, totals))},
        {"vmstat", event_table_json("vmstat", names(v), event_rows(kVmstatNumaEvents, totals))}};
    if (promotion_possible(v))
        j["promotion"] =
            event_table_json("promotion", names(v), event_rows(promotion_events(v), totals));
    if (has_specjbb(v)) j["specjbb"] = to_json(specjbb_block(v));
    if (o.latency) {
        j["latency"] = {{"unit", o.latency->msecs ? "msecs" : "usecs"},
                        {"compare", to_json(latency_compare_table(v, *o.latency))},
                        {"variants", nlohmann::json::object()}};
        for (const auto& x : v)
            j["latency"]["variants"][x.name] = latency_variant_json(x, *o.latency);
    }
    nlohmann::json runs = nlohmann::json::object();
    for (const auto& x : v) {
        nlohmann::json a = nlohmann::json::array();
        for (const auto& r : x.runs)
            a.push_back(result_json(x.scenario, r));
        runs[x.name] = a;
    }
    j["runs"] = runs;
    return j;
}

}  // namespace numasim
