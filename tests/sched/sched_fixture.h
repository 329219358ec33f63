// Helpers for the scheduler tests that run tasks through the engine: a phase of CPU work and the
// programs of the processes a test forks, which must live as long as the System that runs them.
// (An affinity mask set by hand is Task::allow_only.)
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <utility>
#include <vector>

#include "engine/process.h"
#include "kernel/system.h"
#include "workload/phase_list.h"

namespace numasim::schedtest {

// Pure CPU work (no memory streams) for `cpu_time`, then a sleep of `sleep_after`.
inline Phase cpu_work(Nanos cpu_time, Nanos sleep_after = 0) {
    Phase ph;
    ph.rate_gbs = 1.0;
    ph.cpu_time = cpu_time;
    ph.sleep_after = sleep_after;
    return ph;
}

// The programs of the processes a test forks, one per process, in fork order.
struct Programs {
    // A new process with its own mm running `phases`, forked from `parent` (or from nobody).
    Task& fork(System& sys, Task* parent, std::vector<Phase> phases) {
        list.push_back(std::make_unique<PhaseList>(std::move(phases)));
        Mm& mm = mm_create(sys);
        return create_process(sys, mm, parent, "t", list.back().get(), 0,
                              static_cast<int>(list.size()) - 1);
    }
    std::vector<std::unique_ptr<PhaseList>> list;
};

// Forks `n` processes of one second of CPU work, each from the first, and counts by node the
// CPUs fork placement put them on.
inline std::map<int, int> fork_nodes_of(System& sys, Programs& programs, int n) {
    Task* parent = nullptr;
    std::map<int, int> per_node;
    for (int i = 0; i < n; ++i) {
        Task& t = programs.fork(sys, parent, {cpu_work(NSEC_PER_SEC)});
        if (!parent) parent = &t;
        ++per_node[sys.cpu_to_node(t.cpu)];
    }
    return per_node;
}

}  // namespace numasim::schedtest
