// Helpers for scenario tests that drive the engine directly: phase builders, and a small
// NUMA01_THREADLOCAL-like setup (threads that first-touch all of
// their memory on one node, then sweep their own slice).
#pragma once

#include <memory>
#include <vector>

#include "engine/engine.h"
#include "engine/process.h"
#include "kernel/system.h"
#include "machine/presets.h"
#include "numab/profile.h"
#include "workload/phase_list.h"

namespace numasim::testing {

using numasim::PhaseList;

inline Phase sweep_phase(Region* r, double passes, double rate_gbs = 4.0) {
    Phase ph;
    ph.streams.push_back(AccessStream{r, Pattern::Sweep, 1.0, 1.0});
    ph.rate_gbs = rate_gbs;
    ph.work_bytes = passes * static_cast<double>(r->bytes());
    return ph;
}

// `threads` threads of one process, each with `mb` MiB first-touched from `node`'s CPUs, then
// sweeping their own region for `seconds` of CPU time.
struct ThreadLocalSetup {
    std::vector<std::unique_ptr<PhaseList>> programs;
    std::vector<Task*> tasks;
    Mm* mm = nullptr;
};

inline ThreadLocalSetup thread_local_setup(System& sys, int threads, uint64_t mb, int node,
                                           double seconds) {
    ThreadLocalSetup s;
    Mm& mm = mm_create(sys);
    s.mm = &mm;
    std::vector<Region*> regions;
    for (int i = 0; i < threads; ++i) {
        Vma& v = do_mmap(sys, mm, mb << 20, VM_READ | VM_WRITE, "slice");
        regions.push_back(&add_region(sys, v, 0, v.nr_pages(), "slice" + std::to_string(i)));
    }
    // The main thread binds to `node` and touches everything, then the workers run.
    std::vector<Phase> init;
    for (Region* r : regions) {
        Phase ph = sweep_phase(r, 1.0);
        MemPolicy bind;
        bind.mode = MpolMode::Bind;
        bind.nodes = uint64_t{1} << node;
        ph.set_mempolicy = bind;
        ph.set_affinity = sys.topo.nodes[node].cpus;
        init.push_back(ph);
    }
    s.programs.push_back(std::make_unique<PhaseList>(init));
    Task& main = create_process(sys, mm, nullptr, "main", s.programs.back().get(), 0, 0);
    s.tasks.push_back(&main);
    for (int i = 0; i < threads; ++i) {
        Phase wait;  // start after the main thread has touched everything
        wait.cpu_time = 1;
        wait.sleep_after = 2 * NSEC_PER_SEC;
        Phase work = sweep_phase(regions[i], 1e9);
        work.cpu_time = static_cast<Nanos>(seconds * NSEC_PER_SEC);
        s.programs.push_back(std::make_unique<PhaseList>(std::vector<Phase>{wait, work}));
        s.tasks.push_back(&create_thread(sys, main, "worker", s.programs.back().get(), i + 1));
    }
    return s;
}

}  // namespace numasim::testing
