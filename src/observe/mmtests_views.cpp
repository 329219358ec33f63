#include "observe/mmtests_views.h"

#include <fmt/format.h>

#include <algorithm>
#include <iterator>
#include <map>

#include "kernel/system.h"

namespace numasim {

void MmtestsConvergence::put(uint8_t remote) {
    remote_slots_ += remote;
    remote_slots_ -= window_[index_];
    window_[index_] = remote;
    if (++index_ == window_.size()) index_ = 0;
}

void MmtestsConvergence::read(uint64_t faults, uint64_t local) {
    uint64_t d_local = 0, d_remote = 0;
    // Perl's `if ($self->{_LastNumaFaults})`: no delta while the last reading was zero.
    if (last_faults_ != 0) {
        const uint64_t d = faults - last_faults_;
        d_local = local - last_local_;
        d_remote = d - d_local;
    }
    last_faults_ = faults;
    last_local_ = local;
    d_local /= kFaultsPerSlot;
    d_remote /= kFaultsPerSlot;
    while (d_remote || d_local) {
        if (d_remote) {
            put(1);
            --d_remote;
        }
        if (d_local) {
            put(0);
            --d_local;
        }
    }
}

double MmtestsConvergence::current() const {
    return static_cast<double>(window_.size() - remote_slots_) /
           static_cast<double>(window_.size());
}

std::string numa_scheduling_header(int nr_nodes) {
    std::string s =
        fmt::format("{:>5} {:>5} {:<16} {:>4} {:>3}", "PID", "TID", "NAME", "CPU", "RN");
    s += ' ';
    for (int n = 0; n < nr_nodes; ++n)
        s += fmt::format("{:>3}", fmt::format("C{}", n));
    for (int n = 0; n < nr_nodes; ++n)
        s += fmt::format("{:>5}", fmt::format("N{}", n));
    s += '\n';
    return s;
}

std::string numa_scheduling_sample(const System& sys, int64_t time) {
    std::string s = fmt::format("time: {}\n", time);
    // /proc/[0-9]* and /proc/PID/task/* come back from the glob sorted as strings.
    std::map<std::string, std::vector<const Task*>> processes;
    for (const auto& t : sys.tasks)
        if (t->state != TaskState::Dead) processes[std::to_string(t->tgid)].push_back(t.get());
    for (auto& [tgid, threads] : processes) {
        std::sort(threads.begin(), threads.end(), [](const Task* a, const Task* b) {
            if ((a->pid == a->tgid) != (b->pid == b->tgid)) return a->pid == a->tgid;
            return std::to_string(a->pid) < std::to_string(b->pid);
        });
        // The process's memory per node, from numa_maps (computed once per process).
        const Mm& mm = *threads.front()->mm;
        std::vector<uint64_t> pages(static_cast<size_t>(sys.nr_nodes()), 0);
        uint64_t total = 0;
        for (const auto& v : mm.vmas)
            for (size_t n = 0; n < pages.size(); ++n) {
                pages[n] += v->pages_on(static_cast<int>(n));
                total += v->pages_on(static_cast<int>(n));
            }
        std::string map = " ";
        int best = -1;
        if (total != 0) {
            // The percentage prints truncated ("%3d") but is compared unrounded.
            double best_pct = -1;
            for (int n = 0; n < sys.nr_nodes(); ++n) {
                const double pct = static_cast<double>(pages[static_cast<size_t>(n)]) * 100 /
                                   static_cast<double>(total);
                map += fmt::format("{:3d}% ", static_cast<int>(pct));
                if (pct > best_pct) {
                    best_pct = pct;
                    best = n;
                }
            }
        } else {
            best = sys.cpu_to_node(threads.front()->cpu);
        }
        for (const Task* t : threads) {
            const int node = sys.cpu_to_node(t->cpu);
            s += fmt::format("{:5d} {:5d} {:<16} {:4d} {:3d}", t->tgid, t->pid, t->comm, t->cpu,
                             node);
            s += ' ';
            for (int n = 0; n < sys.nr_nodes(); ++n)
                s += n == node ? "  X" : "  .";
            s += map;
            if (best != node) s += fmt::format(" STUPID {} != {}", node, best);
            s += '\n';
        }
    }
    return s;
}

}  // namespace numasim
