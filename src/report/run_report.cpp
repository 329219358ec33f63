#include "report/run_report.h"

#include <utility>

#include <fmt/format.h>

#include "policy/registry.h"

namespace numasim {

namespace {

nlohmann::json to_json(const Record& record);

nlohmann::json to_json(const FigureValue& v) {
    return std::visit(
        [](const auto& x) -> nlohmann::json {
            using T = std::decay_t<decltype(x)>;
            if constexpr (std::is_same_v<T, std::monostate>) {
                return nullptr;
            } else if constexpr (std::is_same_v<T, std::vector<Record>>) {
                nlohmann::json a = nlohmann::json::array();
                for (const Record& r : x)
                    a.push_back(to_json(r));
                return a;
            } else {
                return x;
            }
        },
        v.value());
}

nlohmann::json to_json(const Record& record) {
    nlohmann::json j = nlohmann::json::object();
    for (const Figure& f : record)
        j[f.name] = to_json(f.value);
    return j;
}

nlohmann::json to_json(const TaskRow& row) {
    nlohmann::json j = to_json(row.extra);
    if (const auto& t = row.task) {
        j["pid"] = t->pid;
        j["tgid"] = t->tgid;
        j["comm"] = t->comm;
        j["thread_index"] = t->thread_index;
        j["user_s"] = t->user_s;
        j["system_s"] = t->system_s;
        j["start_s"] = t->start_s;
        j["exit_s"] = t->exit_s ? nlohmann::json(*t->exit_s) : nlohmann::json();
        j["bytes"] = t->bytes;
        j["ops"] = t->ops;
        j["nr_migrations"] = t->nr_migrations;
        j["numa_pages_migrated"] = t->numa_pages_migrated;
        j["numa_preferred_nid"] = t->numa_preferred_nid;
        j["last_node"] = t->last_node;
    }
    return j;
}

// Filled key by key rather than from an initializer list, which copies every element (a
// json_ref) at least once: runs of hundreds of processes list thousands of tasks and regions.
// An object's keys are sorted, so the text is the same.
nlohmann::json to_json(const ProcTask& t) {
    nlohmann::json j = nlohmann::json::object();
    j["pid"] = t.pid;
    j["tgid"] = t.tgid;
    j["comm"] = t.comm;
    j["cpu"] = t.cpu;
    j["node"] = t.node;
    j["utime_s"] = t.utime_s;
    j["stime_s"] = t.stime_s;
    j["state"] = t.state;
    j["nr_migrations"] = t.nr_migrations;
    j["nvcsw"] = t.nvcsw;
    j["nivcsw"] = t.nivcsw;
    j["faults"] = t.faults;
    j["numa_preferred_nid"] = t.numa_preferred_nid;
    j["numa_pages_migrated"] = t.numa_pages_migrated;
    j["numa_task_migrations"] = t.numa_task_migrations;
    j["bytes"] = t.bytes;
    j["proc_sched"] = t.proc_sched;
    return j;
}

nlohmann::json to_json(const MappingPages& m) {
    nlohmann::json j = nlohmann::json::object();
    j["pid"] = m.pid;
    j["comm"] = m.comm;
    j["region"] = m.region;
    j["object"] = m.object;
    j["node_pages"] = m.node_pages;
    return j;
}

nlohmann::json vmstat_json(const Counters& c) {
    nlohmann::json v = nlohmann::json::object();
    for (size_t i = 0; i < kVmNames.size(); ++i)
        v[std::string(kVmNames[i])] = c.vm[i];
    if (c.thp_fault_fallback) v["thp_fault_fallback"] = c.thp_fault_fallback;
    if (c.promotion_possible) {
        v["pgpromote_success"] = node_stat_total(c.pgpromote_success);
        v["pgpromote_candidate"] = node_stat_total(c.pgpromote_candidate);
    }
    if (c.reclaim_reported)
        for (const auto& [name, field] : kReclaimCounters)
            v[std::string(name)] = c.*field;
    if (c.reclaim_reported)
        for (const auto& [name, field] : kReclaimEvents)
            v[std::string(name)] = c.*field;
    if (c.pghot_reported)
        for (const auto& [name, field] : kPghotCounters)
            v[std::string(name)] = c.*field;
    return v;
}

// The promotion node stats by node (/sys/devices/system/node/nodeN/vmstat) and the kswapd
// wakeups promotion asked for; only on a machine with a slower tier.
nlohmann::json node_vmstat_json(const Counters& c) {
    return {{"pgpromote_success", c.pgpromote_success},
            {"pgpromote_candidate", c.pgpromote_candidate},
            {"wakeup_kswapd_calls", c.wakeup_kswapd_calls}};
}

nlohmann::json sched_json(const Counters& c) {
    nlohmann::json j = nlohmann::json::object();
    for (const auto& [name, field] : kSchedCounters)
        j[std::string(name)] = c.*field;
    // The split of sched_swap_numa that compare's "NUMA local|remote|group swapped" rows print.
    j["sched_swap_numa_local"] = c.sched_swap_numa_local;
    j["sched_swap_numa_remote"] = c.sched_swap_numa - c.sched_swap_numa_local;
    j["sched_swap_numa_group"] = c.sched_swap_numa_group;
    nlohmann::json skip = nlohmann::json::object();
    for (size_t i = 0; i < kSkipVmaNames.size(); ++i)
        skip[std::string(kSkipVmaNames[i])] = c.sched_skip_vma_numa[i];
    j["sched_skip_vma_numa"] = skip;
    return j;
}

}  // namespace

nlohmann::json to_json(const WorkloadResult& w) {
    nlohmann::json j = to_json(w.figures);
    if (!w.operations.empty()) {
        nlohmann::json ops = nlohmann::json::array();
        for (const Operation& o : w.operations)
            ops.push_back({{"name", o.name},
                           {"value", o.value},
                           {"better", o.lower_is_better ? "lower" : "higher"}});
        j["operations"] = std::move(ops);
    }
    nlohmann::json tasks = nlohmann::json::array();
    for (const TaskRow& t : w.tasks)
        tasks.push_back(to_json(t));
    j["tasks"] = std::move(tasks);
    j["type"] = w.type;
    return j;
}

nlohmann::json result_json(const Scenario& sc, const RunResult& r) {
    const double pids = static_cast<double>(r.counters.pids_active_pids);
    nlohmann::json workloads = nlohmann::json::array();
    for (const WorkloadResult& w : r.workloads)
        workloads.push_back(to_json(w));
    nlohmann::json tasks = nlohmann::json::array();
    for (const ProcTask& t : r.tasks)
        tasks.push_back(to_json(t));
    nlohmann::json regions = nlohmann::json::array();
    for (const MappingPages& m : r.regions)
        regions.push_back(to_json(m));
    nlohmann::json j = {
        {"scenario", sc.name},
        {"machine", sc.machine.name},
        {"profile", sc.profile},
        {"seed", r.seed},
        {"elapsed_s", ns_to_s(r.elapsed)},
        {"user_s", r.user_s},
        {"system_s", r.system_s},
        {"vmstat", vmstat_json(r.counters)},
        {"sched", sched_json(r.counters)},
        {"pids_active",
         {{"samples", r.counters.pids_active_samples},
          {"pids", r.counters.pids_active_pids},
          {"colliding_pids", r.counters.pids_active_colliding_pids},
          {"collision_rate", pids > 0 ? r.counters.pids_active_colliding_pids / pids : 0.0}}},
        {"engine", {{"ticks", r.ticks}, {"events", r.events}}}};
    // Moved in, not listed above: an initializer list would copy the per-task arrays.
    j["workloads"] = std::move(workloads);
    j["tasks"] = std::move(tasks);
    j["regions"] = std::move(regions);
    if (r.counters.promotion_possible) j["node_vmstat"] = node_vmstat_json(r.counters);
    // kswapdN's CPU time by node, with the reclaim counters (demotion_enabled).
    if (r.counters.reclaim_reported) j["kswapd_stime_ns"] = r.counters.kswapd_stime_ns;
    if (r.agent)
        j["agent"] = {{"policy", sc.policy},
                      {"cpu_s", r.agent_read_s + r.agent_syscall_s},
                      {"proc_read_s", r.agent_read_s},
                      {"syscall_s", r.agent_syscall_s}};
    return j;
}

std::string result_text(const Scenario& sc, const RunResult& r) {
    // A policy other than the kernel's own is named; a mainline run reads as it always did.
    const std::string policy =
        sc.policy == kMainlinePolicy ? "" : fmt::format(", policy {}", sc.policy);
    std::string s = fmt::format("numasim: {} on {} (profile {}, seed {}{})\n", sc.name,
                                sc.machine.name, sc.profile, r.seed, policy);
    s += fmt::format("  elapsed {:.3f} s   user {:.3f} s   system {:.3f} s\n", ns_to_s(r.elapsed),
                     r.user_s, r.system_s);
    if (r.agent)
        s += fmt::format("  {}: cpu {:.3f} s (reading /proc {:.3f} s, system calls {:.3f} s)\n",
                         sc.policy, r.agent_read_s + r.agent_syscall_s, r.agent_read_s,
                         r.agent_syscall_s);
    for (const WorkloadResult& w : r.workloads)
        s += w.summary;
    s += "vmstat:\n";
    for (size_t i = 0; i < kVmNames.size(); ++i)
        s += fmt::format("  {:<24} {:>14}\n", kVmNames[i], r.counters.vm[i]);
    if (r.counters.thp_fault_fallback)
        s += fmt::format("  {:<24} {:>14}\n", "thp_fault_fallback", r.counters.thp_fault_fallback);
    if (r.counters.promotion_possible) {
        s += fmt::format("  {:<24} {:>14}\n", "pgpromote_success",
                         node_stat_total(r.counters.pgpromote_success));
        s += fmt::format("  {:<24} {:>14}\n", "pgpromote_candidate",
                         node_stat_total(r.counters.pgpromote_candidate));
        s +=
            fmt::format("  {:<24} {:>14}\n", "wakeup_kswapd_calls", r.counters.wakeup_kswapd_calls);
    }
    if (r.counters.reclaim_reported)
        for (const auto& [name, field] : kReclaimCounters)
            s += fmt::format("  {:<24} {:>14}\n", name, r.counters.*field);
    if (r.counters.reclaim_reported)
        for (const auto& [name, field] : kReclaimEvents)
            s += fmt::format("  {:<24} {:>14}\n", name, r.counters.*field);
    if (r.counters.pghot_reported)
        for (const auto& [name, field] : kPghotCounters)
            s += fmt::format("  {:<24} {:>14}\n", name, r.counters.*field);
    s += "sched:\n";
    for (const auto& [name, field] : kSchedCounters)
        s += fmt::format("  {:<24} {:>14}\n", name, r.counters.*field);
    for (size_t i = 0; i < kSkipVmaNames.size(); ++i)
        if (r.counters.sched_skip_vma_numa[i])
            s += fmt::format("  sched_skip_vma_numa {:<20} {:>8}\n", kSkipVmaNames[i],
                             r.counters.sched_skip_vma_numa[i]);
    return s;
}

std::string results_text(const Scenario& sc, const std::vector<RunResult>& runs) {
    std::string s;
    for (const auto& r : runs)
        s += result_text(sc, r);
    return s;
}

nlohmann::json results_json(const Scenario& sc, const std::vector<RunResult>& runs) {
    nlohmann::json j = result_json(sc, runs.front());
    if (runs.size() > 1) {
        j["runs"] = nlohmann::json::array();
        for (const auto& r : runs)
            j["runs"].push_back(result_json(sc, r));
    }
    return j;
}

}  // namespace numasim
