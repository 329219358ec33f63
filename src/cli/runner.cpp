#include "cli/runner.h"

#include <fmt/format.h>

#include <atomic>
#include <functional>
#include <mutex>
#include <thread>

#include "cli/scenario.h"
#include "engine/engine.h"
#include "engine/system.h"
#include "numab/proc_sched.h"
#include "sim/rng.h"
#include "workload/workload.h"

namespace numasim {

RunResult run_once(const Scenario& sc, uint64_t seed, std::FILE* trace) {
    System sys(sc.machine, sc.knobs, seed);
    sys.tracer = Tracer(trace);
    auto workloads = sc.make_workloads();
    for (size_t i = 0; i < workloads.size(); ++i)
        workloads[i]->setup(sys, static_cast<int>(i));
    bool finite = true;
    for (const auto& w : workloads)
        finite &= w->finite();
    Engine engine(sys);
    const Nanos end = engine.run(sc.duration);
    (void)finite;

    RunResult r;
    r.seed = seed;
    r.elapsed = end;
    r.counters = sys.counters;
    r.ticks = engine.ticks();
    // The events the simulation's cost grows with: a scheduler tick on every CPU, every fault
    // (first touch, COW, NUMA hint), every page migrated and every task migration.
    r.events = r.ticks * static_cast<uint64_t>(sys.nr_cpus()) + sys.counters[Vm::pgfault] +
               sys.counters[Vm::numa_pages_migrated] + sys.counters.migrations;
    for (const auto& t : sys.tasks) {
        r.user_s += ns_to_s(t->utime);
        r.system_s += ns_to_s(t->stime);
        r.tasks.push_back({{"pid", t->pid},
                           {"tgid", t->tgid},
                           {"comm", t->comm},
                           {"cpu", t->cpu},
                           {"node", sys.task_node(*t)},
                           {"utime_s", ns_to_s(t->utime)},
                           {"stime_s", ns_to_s(t->stime)},
                           {"state", t->state == TaskState::Dead       ? "exited"
                                     : t->state == TaskState::Sleeping ? "sleeping"
                                                                       : "runnable"},
                           {"nr_migrations", t->nr_migrations},
                           {"nvcsw", t->nvcsw},
                           {"nivcsw", t->nivcsw},
                           {"faults", t->nr_faults},
                           {"numa_preferred_nid", t->numa_preferred_nid},
                           {"numa_pages_migrated", t->numa_pages_migrated},
                           {"proc_sched", t->state == TaskState::Dead ? t->proc_sched_at_exit
                                                                      : sched_show_numa(sys, *t)}});
    }
    for (size_t i = 0; i < workloads.size(); ++i) {
        nlohmann::json w = workloads[i]->metrics(sys, end);
        w["type"] = sc.workload_types[i];
        r.workloads.push_back(std::move(w));
        r.text += workloads[i]->summary(sys, end);
    }
    return r;
}

std::vector<RunResult> run_iterations(const Scenario& sc, int jobs, std::FILE* trace,
                                      const std::function<void()>& progress) {
    const int n = sc.iterations;
    std::vector<RunResult> results(n);
    auto seed_of = [&](int i) { return i == 0 ? sc.seed : derive_seed(sc.seed, i); };
    if (trace || jobs <= 1 || n == 1) {
        // A trace is one stream of events: keep iterations in order on one thread.
        for (int i = 0; i < n; ++i) {
            results[i] = run_once(sc, seed_of(i), trace);
            if (progress) progress();
        }
        return results;
    }
    std::atomic<int> next{0};
    std::mutex mu;
    std::exception_ptr error;
    std::vector<std::thread> pool;
    for (int w = 0; w < std::min(jobs, n); ++w)
        pool.emplace_back([&] {
            for (int i = next++; i < n; i = next++) {
                try {
                    results[i] = run_once(sc, seed_of(i), nullptr);
                } catch (...) {
                    std::lock_guard<std::mutex> g(mu);
                    if (!error) error = std::current_exception();
                }
                if (progress) progress();
            }
        });
    for (auto& t : pool)
        t.join();
    if (error) std::rethrow_exception(error);
    return results;
}

nlohmann::json vmstat_json(const Counters& c) {
    nlohmann::json v = nlohmann::json::object();
    for (size_t i = 0; i < kVmNames.size(); ++i)
        v[std::string(kVmNames[i])] = c.vm[i];
    return v;
}

nlohmann::json sched_json(const Counters& c) {
    nlohmann::json skip = nlohmann::json::object();
    for (size_t i = 0; i < kSkipVmaNames.size(); ++i)
        skip[std::string(kSkipVmaNames[i])] = c.sched_skip_vma_numa[i];
    return {{"cs", c.cs},
            {"migrations", c.migrations},
            {"sched_move_numa", c.sched_move_numa},
            {"sched_swap_numa", c.sched_swap_numa},
            {"sched_stick_numa", c.sched_stick_numa},
            {"mm_migrate_pages", c.mm_migrate_pages},
            {"sched_skip_vma_numa", skip}};
}

nlohmann::json result_json(const Scenario& sc, const RunResult& r) {
    const double pids = static_cast<double>(r.counters.pids_active_pids);
    return {{"scenario", sc.name},
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
            {"engine", {{"ticks", r.ticks}, {"events", r.events}}},
            {"workloads", r.workloads},
            {"tasks", r.tasks}};
}

std::string result_text(const Scenario& sc, const RunResult& r) {
    std::string s = fmt::format("numasim: {} on {} (profile {}, seed {})\n", sc.name,
                                sc.machine.name, sc.profile, r.seed);
    s += fmt::format("  elapsed {:.3f} s   user {:.3f} s   system {:.3f} s\n", ns_to_s(r.elapsed),
                     r.user_s, r.system_s);
    s += r.text;
    s += "vmstat:\n";
    for (size_t i = 0; i < kVmNames.size(); ++i)
        s += fmt::format("  {:<24} {:>14}\n", kVmNames[i], r.counters.vm[i]);
    s += "sched:\n";
    s += fmt::format("  {:<24} {:>14}\n", "cs", r.counters.cs);
    s += fmt::format("  {:<24} {:>14}\n", "migrations", r.counters.migrations);
    s += fmt::format("  {:<24} {:>14}\n", "sched_move_numa", r.counters.sched_move_numa);
    s += fmt::format("  {:<24} {:>14}\n", "sched_swap_numa", r.counters.sched_swap_numa);
    s += fmt::format("  {:<24} {:>14}\n", "sched_stick_numa", r.counters.sched_stick_numa);
    s += fmt::format("  {:<24} {:>14}\n", "mm_migrate_pages", r.counters.mm_migrate_pages);
    for (size_t i = 0; i < kSkipVmaNames.size(); ++i)
        if (r.counters.sched_skip_vma_numa[i])
            s += fmt::format("  sched_skip_vma_numa {:<20} {:>8}\n", kSkipVmaNames[i],
                             r.counters.sched_skip_vma_numa[i]);
    return s;
}

}  // namespace numasim
