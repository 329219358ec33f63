#include "observe/numa_sampler.h"

#include <fmt/format.h>

#include "kernel/system.h"
#include "observe/output_files.h"

namespace numasim {

std::vector<std::string_view> sample_table_names() {
    return {kVmstatTable,   kNodesTable, kNumastatTable,
            kNumaMapsTable, kTasksTable, kConvergenceTable};
}

std::vector<std::pair<std::string_view, Vm>> sampled_vmstat_counters() {
    std::vector<std::pair<std::string_view, Vm>> v;
    for (const auto& [name, id] : kProcVmstatOrder)
        if (name.starts_with("numa_")) v.emplace_back(name, id);
    return v;
}

namespace {

std::vector<std::string> with_nodes(std::vector<std::string> head, int nr_nodes,
                                    const char* pattern, std::vector<std::string> tail = {}) {
    for (int n = 0; n < nr_nodes; ++n)
        head.push_back(fmt::format(fmt::runtime(pattern), n));
    head.insert(head.end(), tail.begin(), tail.end());
    return head;
}

// Resident pages of `mm` per node, over all its VMAs.
std::vector<uint64_t> mm_node_pages(const Mm& mm, int nr_nodes) {
    std::vector<uint64_t> pages(static_cast<size_t>(nr_nodes), 0);
    for (const auto& v : mm.vmas)
        for (size_t n = 0; n < pages.size(); ++n)
            pages[n] += v->pages_on(static_cast<int>(n));
    return pages;
}

constexpr double kMiB = 1024.0 * 1024.0;
constexpr int kTimePrecision = 3;  // ms: every sample falls on a 4 ms tick

}  // namespace

NumaSampler::NumaSampler(OutputFiles& files, const std::string& dir, const System& sys,
                         Nanos interval, const std::vector<std::string>& comments)
    : interval_(interval) {
    const int nodes = sys.nr_nodes();
    auto open = [&](std::string_view name) {
        return files.create("--out-dir", dir + "/" + std::string(name));
    };
    std::vector<std::string> vm_cols = {"time_s"};
    for (const auto& [name, id] : sampled_vmstat_counters())
        vm_cols.emplace_back(name);
    vmstat_ = std::make_unique<CsvWriter>(open(kVmstatTable), comments, vm_cols);
    nodes_ = std::make_unique<CsvWriter>(
        open(kNodesTable), comments,
        std::vector<std::string>{"time_s", "node", "mem_total_kb", "mem_free_kb", "mem_used_kb",
                                 "nr_running"});
    numastat_ = std::make_unique<CsvWriter>(
        open(kNumastatTable), comments,
        with_nodes({"time_s", "pid", "comm"}, nodes, "node{}_mb", {"total_mb"}));
    maps_ =
        std::make_unique<CsvWriter>(open(kNumaMapsTable), comments,
                                    with_nodes({"time_s", "pid", "address", "vma"}, nodes, "N{}"));
    tasks_ = std::make_unique<CsvWriter>(
        open(kTasksTable), comments,
        std::vector<std::string>{"time_s", "pid", "tgid", "comm", "cpu", "node", "preferred_nid",
                                 "ngid", "hint_faults", "hint_faults_local", "local_pct",
                                 "numa_task_migrations"});
    convergence_ = std::make_unique<CsvWriter>(open(kConvergenceTable), comments,
                                               std::vector<std::string>{"time_s", "convergence"});
    if (sys.tiers.tiers.size() > 1) {
        tiers_ = std::make_unique<CsvWriter>(
            open(kTiersTable), comments,
            std::vector<std::string>{"time_s", "tier", "resident_pages", "promoted", "demoted",
                                     "promoted_per_s", "demoted_per_s"});
        promoted_last_.assign(static_cast<size_t>(nodes), 0);
        demoted_last_.assign(static_cast<size_t>(nodes), 0);
    }
    convergence_log_ = open(kConvergenceLog);
    scheduling_log_ = open(kSchedulingLog);
    const std::string head = numa_scheduling_header(nodes);
    std::fwrite(head.data(), 1, head.size(), scheduling_log_);
}

void NumaSampler::sample(const System& sys) {
    const double t = ns_to_s(sys.now);
    const int nodes = sys.nr_nodes();

    vmstat_->fixed(t, kTimePrecision);
    for (const auto& [name, id] : sampled_vmstat_counters())
        vmstat_->num(sys.counters[id] - last_[id]);
    vmstat_->end_row();
    last_ = sys.counters;

    for (int n = 0; n < nodes; ++n) {
        const NodeMemory& m = sys.mem.nodes[static_cast<size_t>(n)];
        const uint64_t kb = sys.pages().kib();
        unsigned running = 0;
        for (int c : sys.topo.nodes[static_cast<size_t>(n)].cpus)
            running += sys.rqs[static_cast<size_t>(c)].nr_running;
        nodes_->fixed(t, kTimePrecision)
            .num(n)
            .num(m.present_pages * kb)
            .num(m.free_pages * kb)
            .num((m.present_pages - m.free_pages) * kb)
            .num(static_cast<uint64_t>(running));
        nodes_->end_row();
    }

    // Processes: every address space with a live thread, named after its thread-group leader.
    for (const auto& mm : sys.mms) {
        if (mm->tasks.empty()) continue;
        const Task& lead = *mm->tasks.front();
        const std::vector<uint64_t> pages = mm_node_pages(*mm, nodes);
        uint64_t total = 0;
        numastat_->fixed(t, kTimePrecision).num(lead.tgid).text(lead.comm);
        for (uint64_t p : pages) {
            numastat_->fixed(static_cast<double>(p * mm->pages.size()) / kMiB, 2);
            total += p;
        }
        numastat_->fixed(static_cast<double>(total * mm->pages.size()) / kMiB, 2);
        numastat_->end_row();
        for (const auto& v : mm->vmas) {
            maps_->fixed(t, kTimePrecision).num(lead.tgid).text(fmt::format("{:x}", v->start));
            maps_->text(v->name);
            for (int n = 0; n < nodes; ++n)
                maps_->num(v->pages_on(n));
            maps_->end_row();
        }
    }

    task_last_.resize(sys.tasks.size());
    for (const auto& tp : sys.tasks) {
        const Task& p = *tp;
        if (p.state == TaskState::Dead) continue;
        TaskFaults& last = task_last_[static_cast<size_t>(p.index)];
        const uint64_t faults = p.numa_hint_faults - last.faults;
        const uint64_t local = p.numa_hint_faults_local - last.local;
        last = {p.numa_hint_faults, p.numa_hint_faults_local};
        tasks_->fixed(t, kTimePrecision)
            .num(p.pid)
            .num(p.tgid)
            .text(p.comm)
            .num(p.cpu)
            .num(sys.cpu_to_node(p.cpu))
            .num(p.numa_preferred_nid)
            .num(p.numa_group ? p.numa_group->gid : 0)
            .num(faults)
            .num(local);
        if (faults)
            tasks_->fixed(100.0 * static_cast<double>(local) / static_cast<double>(faults), 1);
        else
            tasks_->empty();
        tasks_->num(p.numa_task_migrations);
        tasks_->end_row();
    }

    if (tiers_) sample_tiers(sys, t);

    convergence_window_.read(sys.counters[Vm::numa_hint_faults],
                             sys.counters[Vm::numa_hint_faults_local]);
    const double conv = convergence_window_.current();
    convergence_->fixed(t, kTimePrecision).fixed(conv, 6);
    convergence_->end_row();
    // watch-numa-convergence.pl: "%d %8.6f" with the time in whole seconds.
    const std::string line = fmt::format("{:d} {:8.6f}\n", sys.now / NSEC_PER_SEC, conv);
    std::fwrite(line.data(), 1, line.size(), convergence_log_);
    const std::string block = numa_scheduling_sample(sys, sys.now / NSEC_PER_SEC);
    std::fwrite(block.data(), 1, block.size(), scheduling_log_);
}

void NumaSampler::sample_tiers(const System& sys, double t) {
    // The last sample, taken when the run ends, may close a shorter interval.
    const double secs = ns_to_s(sys.now - tiers_last_at_);
    tiers_last_at_ = sys.now;
    for (const MemoryTier& tier : sys.tiers.tiers) {
        uint64_t resident = 0, promoted = 0, demoted = 0;
        for (int n : tier.nodes) {
            const auto i = static_cast<size_t>(n);
            const uint64_t p = sys.counters.pgpromote_success[i];
            const uint64_t d = sys.mem.nodes[i].pgdemote;
            resident += sys.mem.used_pages(n);
            promoted += p - promoted_last_[i];
            demoted += d - demoted_last_[i];
            promoted_last_[i] = p;
            demoted_last_[i] = d;
        }
        tiers_->fixed(t, kTimePrecision).num(tier.id()).num(resident).num(promoted).num(demoted);
        tiers_->fixed(secs > 0 ? static_cast<double>(promoted) / secs : 0.0, 1);
        tiers_->fixed(secs > 0 ? static_cast<double>(demoted) / secs : 0.0, 1);
        tiers_->end_row();
    }
}

}  // namespace numasim
