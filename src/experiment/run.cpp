#include "experiment/run.h"

#include <map>

#include "engine/engine.h"
#include "experiment/pool.h"
#include "experiment/scenario.h"
#include "kernel/numa_maps.h"
#include "kernel/system.h"
#include "mm/vma.h"
#include "numab/placement_policy.h"
#include "numab/proc_sched.h"
#include "sim/rng.h"
#include "workload/workload.h"

namespace numasim {

namespace {

const char* state_name(TaskState s) {
    return s == TaskState::Dead ? "exited" : s == TaskState::Sleeping ? "sleeping" : "runnable";
}

std::vector<MappingPages> mapping_pages(const System& sys) {
    std::map<const MemObject*, int> ids;
    std::vector<MappingPages> out;
    for (const auto& t : sys.tasks) {
        if (t->pid != t->tgid || !t->mm) continue;
        for (const auto& r : t->mm->regions) {
            if (r->name.find('#') != std::string::npos) continue;  // a thread's slice
            const int id =
                ids.emplace(r->vma->object.get(), static_cast<int>(ids.size())).first->second;
            std::vector<uint64_t> pages(r->node_pages.size());
            for (size_t n = 0; n < pages.size(); ++n)
                pages[n] = r->pages_on(static_cast<int>(n));  // own part + the object's totals
            out.push_back({t->pid, t->comm, r->name, id, std::move(pages)});
        }
    }
    return out;
}

}  // namespace

RunResult run_once(const Scenario& sc, uint64_t seed, const ObserveOptions* obs,
                   const RunLabel& label) {
    System sys(sc.machine, sc.knobs, seed, sc.figures);
    sys.set_kernel_release(profile_release(sc.profile));
    sys.placement_policy = sc.placement.get();
    std::optional<RunObservation> observation;
    if (obs && obs->any()) observation.emplace(*obs, label, sc, sys, seed);
    std::optional<LatencyRecorder> latency;
    if (obs && obs->latency) sys.latency = &latency.emplace();
    auto workloads = sc.make_workloads();
    for (size_t i = 0; i < workloads.size(); ++i)
        workloads[i]->setup(sys, static_cast<int>(i));
    Engine engine(sys);
    if (observation) observation->add_samplers(engine);
    if (sc.check_invariants) engine.set_check_invariants(true);
    engine.set_fault_runs(sc.fault_runs);
    engine.set_deferred_ticks(sc.deferred_ticks);
    sys.settled_tick_in_place = sc.settled_tick_in_place;
    RunResult r;
    r.seed = seed;
    r.elapsed = engine.run(sc.duration);
    // The trace ends with what every process's memory looks like now (/proc/<pid>/numa_maps).
    trace_numa_maps(sys, r.elapsed);
    if (observation) observation->finish(r.elapsed);
    r.counters = sys.counters;
    r.ticks = engine.ticks();
    // The events the simulation's cost grows with: a scheduler tick on every CPU, every fault
    // (first touch, COW, NUMA hint), every page migrated and every task migration.
    r.events = r.ticks * static_cast<uint64_t>(sys.nr_cpus()) + sys.counters[Vm::pgfault] +
               sys.counters[Vm::numa_pages_migrated] + sys.counters.migrations;
    for (const auto& t : sys.tasks) {
        r.user_s += ns_to_s(t->utime);
        r.system_s += ns_to_s(t->stime);
        ProcTask p;
        p.pid = t->pid;
        p.tgid = t->tgid;
        p.comm = t->comm;
        p.cpu = t->cpu;
        p.node = sys.task_node(*t);
        p.utime_s = ns_to_s(t->utime);
        p.stime_s = ns_to_s(t->stime);
        p.state = state_name(t->state);
        p.nr_migrations = t->nr_migrations;
        p.nvcsw = t->nvcsw;
        p.nivcsw = t->nivcsw;
        p.faults = t->nr_faults;
        p.numa_preferred_nid = t->numa_preferred_nid;
        p.numa_pages_migrated = t->numa_pages_migrated;
        p.bytes = t->total_bytes;
        p.numa_task_migrations = t->numa_task_migrations;
        p.proc_sched =
            t->state == TaskState::Dead ? t->proc_sched_at_exit : sched_show_numa(sys, *t);
        r.tasks.push_back(std::move(p));
    }
    r.regions = mapping_pages(sys);
    if (sys.placement_policy && sys.placement_policy->has(PlacementPolicy::kAgent)) {
        r.agent = true;
        r.agent_read_s = sys.agent_read_ns / static_cast<double>(NSEC_PER_SEC);
        r.agent_syscall_s = sys.agent_kernel_ns / static_cast<double>(NSEC_PER_SEC);
    }
    if (latency) {
        sys.latency = nullptr;
        r.latency_recorded = true;
        for (const auto& t : sys.tasks)
            if (const LatencyHists* h = latency->of(t->index); h && !h->empty())
                r.latency.push_back({t->pid, t->tgid, t->comm, *h});
    }
    for (size_t i = 0; i < workloads.size(); ++i) {
        r.workloads.push_back(workloads[i]->result(sys));
        r.workloads.back().type = sc.workloads[i].type;
    }
    return r;
}

uint64_t iteration_seed(const Scenario& sc, int i) {
    return i == 0 ? sc.seed : derive_seed(sc.seed, static_cast<uint64_t>(i));
}

std::vector<RunResult> run_iterations(const Scenario& sc, int workers, const ObserveOptions* obs,
                                      const std::function<void()>& progress) {
    std::vector<RunResult> results(static_cast<size_t>(sc.iterations));
    run_jobs(
        results.size(), workers,
        [&](size_t i) {
            const int it = static_cast<int>(i);
            results[i] = run_once(sc, iteration_seed(sc, it), obs, {"", it, sc.iterations});
        },
        progress);
    return results;
}

std::vector<Operation> run_operations(const RunResult& r) {
    std::vector<Operation> ops;
    for (const auto& w : r.workloads)
        ops.insert(ops.end(), w.operations.begin(), w.operations.end());
    if (ops.empty()) ops.push_back({"elsp", ns_to_s(r.elapsed), true});
    return ops;
}

std::optional<double> run_metric(const RunResult& r, std::string_view name) {
    if (name == "elapsed_s") return ns_to_s(r.elapsed);
    if (name == "system_s") return r.system_s;
    if (name == "user_s") return r.user_s;
    if (name == "hint_local_pct") {
        const double f = static_cast<double>(r.counters[Vm::numa_hint_faults]);
        return f > 0 ? 100.0 * static_cast<double>(r.counters[Vm::numa_hint_faults_local]) / f
                     : 100.0;
    }
    if (name.rfind("vmstat.", 0) == 0) {
        for (size_t i = 0; i < kVmNames.size(); ++i)
            if (kVmNames[i] == name.substr(7)) return static_cast<double>(r.counters.vm[i]);
        for (const auto& [n, per_node] : kNodeStats)
            if (n == name.substr(7))
                return static_cast<double>(node_stat_total(r.counters.*per_node));
        if (name.substr(7) == "thp_fault_fallback")
            return static_cast<double>(r.counters.thp_fault_fallback);
        return std::nullopt;
    }
    if (name.rfind("sched.", 0) == 0) {
        for (const auto& [n, field] : kSchedCounters)
            if (n == name.substr(6)) return static_cast<double>(r.counters.*field);
        return std::nullopt;
    }
    for (const auto& o : run_operations(r))
        if (o.name == name) return o.value;
    return std::nullopt;
}

}  // namespace numasim
