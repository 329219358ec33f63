#include "experiment/oracle_figures.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <limits>
#include <map>
#include <set>

#include "kernel/counters.h"
#include "kernel/latency.h"

namespace numasim {

namespace {

// A task of the model that moved less than this did not run the workload's loops (numasim-guest
// reports only the tasks that do).
constexpr double kWorkerBytes = 1 << 20;
// The /proc/vmstat counters compared, in the order the report lists them.
const std::vector<std::string> kOracleVmstat = {"numa_pte_updates",
                                                "numa_huge_pte_updates",
                                                "numa_hint_faults",
                                                "numa_hint_faults_local",
                                                "numa_pages_migrated",
                                                "pgmigrate_success",
                                                "pgmigrate_fail",
                                                "thp_migration_success",
                                                "thp_migration_fail",
                                                "thp_fault_alloc",
                                                "numa_hit",
                                                "numa_miss",
                                                "numa_local",
                                                "numa_other",
                                                "pgfault"};
// ... and on a tiered guest (Topology::hmat) the tiering counters, then the page allocations by
// zone. The model keeps every page in ZONE_NORMAL (kernel/counters.h); the guest's memory below
// 4 GiB is ZONE_DMA32.
const std::vector<std::string> kOracleTieringVmstat = {
    "pgpromote_success", "pgpromote_candidate", "pgdemote_kswapd", "pgdemote_direct",
    "pgalloc_dma",       "pgalloc_dma32",       "pgalloc_normal",  "pgalloc_movable"};

// The model's value of a tiering counter; false for one it does not keep (pgalloc_dma*).
bool model_tiering_counter(const Counters& c, const std::string& k, double& v) {
    if (k == "pgpromote_success")
        v = static_cast<double>(node_stat_total(c.pgpromote_success));
    else if (k == "pgpromote_candidate")
        v = static_cast<double>(node_stat_total(c.pgpromote_candidate));
    else if (k == "pgdemote_kswapd")
        v = static_cast<double>(c.pgdemote_kswapd);
    else if (k == "pgdemote_direct")
        v = static_cast<double>(c.pgdemote_direct);
    else if (k == "pgalloc_normal")
        v = static_cast<double>(c[Vm::pgalloc]);
    else
        return false;
    return true;
}

void add_figure(std::vector<OracleFigure>& out, std::map<std::string, size_t>& index,
                const std::string& name, bool real, size_t sample, size_t samples, double value) {
    auto it = index.find(name);
    if (it == index.end()) {
        it = index.emplace(name, out.size()).first;
        out.push_back({name, {}, {}});
    }
    auto& v = real ? out[it->second].real : out[it->second].model;
    if (v.size() < samples) v.resize(samples, 0.0);
    v[sample] += value;
}

// "server.1" -> "server": the model names instances of a process like this.
std::string process_of(const std::string& comm) {
    const auto dot = comm.rfind('.');
    if (dot == std::string::npos || dot + 1 == comm.size()) return comm;
    for (size_t i = dot + 1; i < comm.size(); ++i)
        if (!std::isdigit(static_cast<unsigned char>(comm[i]))) return comm;
    return comm.substr(0, dot);
}

// The middle sample, or the mean of the two middle ones; 0 when there is none.
double middle(std::vector<double> v) {
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    const size_t n = v.size();
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

double number(const KeyValues& kv, const char* key) {
    const auto it = kv.find(key);
    return it == kv.end() ? 0.0 : std::atof(it->second.c_str());
}

// The per-task counts the guest's kprobe events give (guest/init.sh) and the latency
// histogram of the model that counts the same calls: task_numa_work() calls, and hinting
// faults (task_numa_fault(), called once per do_numa_page() / do_huge_pmd_numa_page()).
struct CountedCall {
    const char* event;  // the kprobe event's function
    LatencyKind kind;
    const char* label;
    double per_s;  // seconds per unit of the rate: task_numa_work's few calls per minute, as
                   // the public funclatency report counted them, so the table shows them
};
constexpr CountedCall kCountedCalls[] = {
    {"task_numa_work", LatencyKind::NumaWork, "task_numa_work calls/min", 60},
    {"task_numa_fault", LatencyKind::HintFault, "hinting faults/s", 1},
};

// Per unit of time of the run: the sum over the workload's tasks, and the median task.
void add_rates(std::vector<OracleFigure>& out, std::map<std::string, size_t>& index,
               const CountedCall& c, bool real, size_t sample, size_t samples,
               const std::vector<double>& counts, double seconds) {
    if (seconds <= 0) return;
    const double units = seconds / c.per_s;
    double sum = 0;
    for (double n : counts)
        sum += n;
    add_figure(out, index, fmt::format("tasks: {}", c.label), real, sample, samples, sum / units);
    add_figure(out, index, fmt::format("median task: {}", c.label), real, sample, samples,
               middle(counts) / units);
}

// The figures of kCountedCalls, for the events every boot armed: the real kernel's per thread
// of the workload (its `task` lines) from the probes, the model's from the latency histograms
// of the tasks that ran the workload.
void add_call_rates(std::vector<OracleFigure>& out, std::map<std::string, size_t>& index,
                    const std::vector<OracleBoot>& boots, const std::vector<RunResult>& runs) {
    for (const CountedCall& c : kCountedCalls) {
        const bool armed = !boots.empty() && std::all_of(boots.begin(), boots.end(), [&](auto& b) {
            return b.log.probe_hits.count(c.event) > 0;
        });
        if (!armed) continue;
        for (size_t b = 0; b < boots.size(); ++b) {
            const BootLog& log = boots[b].log;
            const auto& hits = log.probe_hits.at(c.event);
            std::vector<double> counts;
            for (const auto& t : log.tasks) {
                // The thread's id (`tid`; `pid` is its process's), which the probes key on.
                const auto it = hits.find(static_cast<int>(number(t, "tid")));
                counts.push_back(it == hits.end() ? 0.0 : static_cast<double>(it->second));
            }
            add_rates(out, index, c, true, b, boots.size(), counts, log.elapsed_s);
        }
        for (size_t i = 0; i < runs.size(); ++i) {
            const RunResult& r = runs[i];
            std::map<int, uint64_t> by_pid;
            for (const TaskLatency& t : r.latency)
                by_pid[t.pid] = t.hists.usecs[static_cast<size_t>(c.kind)].count();
            std::vector<double> counts;
            for (const ProcTask& t : r.tasks)
                if (t.bytes >= kWorkerBytes) {
                    const auto it = by_pid.find(t.pid);
                    counts.push_back(it == by_pid.end() ? 0.0 : static_cast<double>(it->second));
                }
            add_rates(out, index, c, false, i, runs.size(), counts, ns_to_s(r.elapsed));
        }
    }
}

}  // namespace

std::vector<OracleFigure> oracle_figures(const std::vector<OracleBoot>& boots,
                                         const std::vector<RunResult>& runs,
                                         const Topology& machine) {
    std::vector<OracleFigure> out;
    std::map<std::string, size_t> index;
    std::vector<std::string> vmstat = kOracleVmstat;
    if (machine.hmat)
        vmstat.insert(vmstat.end(), kOracleTieringVmstat.begin(), kOracleTieringVmstat.end());
    // Every figure exists on both sides, so that one side's zero is shown as such.
    for (const auto& k : vmstat) {
        index[k] = out.size();
        out.push_back(
            {k, std::vector<double>(boots.size(), 0.0), std::vector<double>(runs.size(), 0.0)});
    }
    std::vector<std::string> task_figures = {"tasks: se.nr_migrations",
                                             "tasks: numa_pages_migrated"};
    for (const auto& n : machine.nodes)
        task_figures.push_back(fmt::format("tasks ending on node {}", n.id));
    for (const auto& n : machine.nodes)
        task_figures.push_back(fmt::format("tasks preferring node {}", n.id));
    task_figures.push_back("tasks preferring no node");
    for (const auto& k : task_figures) {
        index[k] = out.size();
        out.push_back(
            {k, std::vector<double>(boots.size(), 0.0), std::vector<double>(runs.size(), 0.0)});
    }
    auto preferring = [](double nid) {
        return nid < 0 ? std::string("tasks preferring no node")
                       : fmt::format("tasks preferring node {}", static_cast<int>(nid));
    };

    std::set<std::string> real_regions;  // "process/region"
    for (const auto& boot : boots)
        for (const auto& r : boot.log.regions)
            real_regions.insert(r.at("process") + "/" + r.at("name"));
    for (size_t b = 0; b < boots.size(); ++b) {
        const BootLog& log = boots[b].log;
        const auto d = log.vmstat_delta();
        for (const auto& k : vmstat)
            if (auto it = d.find(k); it != d.end())
                add_figure(out, index, k, true, b, boots.size(), static_cast<double>(it->second));
        for (const auto& t : log.tasks) {
            add_figure(out, index, "tasks: se.nr_migrations", true, b, boots.size(),
                       number(t, "nr_migrations"));
            add_figure(out, index, "tasks: numa_pages_migrated", true, b, boots.size(),
                       number(t, "numa_pages_migrated"));
            add_figure(out, index,
                       fmt::format("tasks ending on node {}", static_cast<int>(number(t, "node"))),
                       true, b, boots.size(), 1);
            add_figure(out, index, preferring(number(t, "numa_preferred_nid")), true, b,
                       boots.size(), 1);
        }
        for (const auto& r : log.regions) {
            if (r.at("when") != "end") continue;
            for (const auto& n : machine.nodes)
                add_figure(out, index,
                           fmt::format("{}/{} N{}", r.at("process"), r.at("name"), n.id), true, b,
                           boots.size(), number(r, fmt::format("N{}", n.id).c_str()));
        }
    }
    for (size_t i = 0; i < runs.size(); ++i) {
        const RunResult& r = runs[i];
        for (size_t v = 0; v < kVmNames.size(); ++v) {
            const std::string k(kVmNames[v]);
            if (index.count(k) &&
                std::find(kOracleVmstat.begin(), kOracleVmstat.end(), k) != kOracleVmstat.end())
                add_figure(out, index, k, false, i, runs.size(),
                           static_cast<double>(r.counters.vm[v]));
        }
        if (machine.hmat)
            for (const auto& k : kOracleTieringVmstat)
                if (double v = 0; model_tiering_counter(r.counters, k, v))
                    add_figure(out, index, k, false, i, runs.size(), v);
        // The tasks that ran the workload: a parent that only forks and waits moved almost
        // nothing (its wait phases count a microsecond's worth of bytes).
        for (const ProcTask& t : r.tasks) {
            if (t.bytes < kWorkerBytes) continue;
            add_figure(out, index, "tasks: se.nr_migrations", false, i, runs.size(),
                       static_cast<double>(t.nr_migrations));
            add_figure(out, index, "tasks: numa_pages_migrated", false, i, runs.size(),
                       static_cast<double>(t.numa_pages_migrated));
            add_figure(out, index, fmt::format("tasks ending on node {}", t.node), false, i,
                       runs.size(), 1);
            add_figure(out, index, preferring(t.numa_preferred_nid), false, i, runs.size(), 1);
        }
        // Pages per node per process and region: a shared object counts once (the mapping that
        // has most of it), private objects add up over the instances.
        std::map<std::pair<std::string, int>, std::vector<double>> objects;
        for (const MappingPages& m : r.regions) {
            auto& v = objects[{process_of(m.comm) + "/" + m.region, m.object}];
            v.resize(std::max(v.size(), m.node_pages.size()), 0.0);
            for (size_t n = 0; n < m.node_pages.size(); ++n)
                v[n] = std::max(v[n], static_cast<double>(m.node_pages[n]));
        }
        for (const auto& [key, pages] : objects) {
            // The regions the guest reports: the model also maps what the guest's runner does
            // not have (ld.so, libraries, stacks of a dynamic program).
            if (!boots.empty() && !real_regions.count(key.first)) continue;
            for (const auto& n : machine.nodes)
                add_figure(out, index, fmt::format("{} N{}", key.first, n.id), false, i,
                           runs.size(),
                           static_cast<size_t>(n.id) < pages.size() ? pages[n.id] : 0.0);
        }
    }
    add_call_rates(out, index, boots, runs);
    // Figures only one side has get zeros on the other.
    for (auto& f : out) {
        f.real.resize(boots.size(), 0.0);
        f.model.resize(runs.size(), 0.0);
    }
    return out;
}

OracleVerdict judge_oracle_figure(const OracleFigure& f) {
    OracleVerdict v;
    v.name = f.name;
    v.real_median = middle(f.real);
    v.model_median = middle(f.model);
    if (v.real_median == 0)
        v.ratio = v.model_median == 0 ? 1.0 : std::numeric_limits<double>::infinity();
    else
        v.ratio = v.model_median / v.real_median;
    v.within = v.ratio >= 1.0 / kOracleAgreementFactor && v.ratio <= kOracleAgreementFactor;
    return v;
}

}  // namespace numasim
