// For the scenario tests that run one workload twice with an engine switch flipped and check
// that both runs end in the same state: the workloads of a scenario's TOML text set up on a
// System, and the counters the two runs must agree on.
#pragma once

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "config/toml_reader.h"
#include "kernel/system.h"
#include "mm/mm.h"
#include "workload/registry.h"
#include "workload/workload.h"

namespace numasim::sametest {

// Sets up every [[workload]] table of `toml` on `sys`, as `numasim run` does; the workloads
// returned must live as long as the runs.
inline std::vector<std::unique_ptr<Workload>> setup_workloads(System& sys,
                                                              const std::string& toml) {
    const TomlTable doc = TomlTable::parse_text(toml, "test.toml");
    std::vector<std::unique_ptr<Workload>> ws;
    int i = 0;
    for (const TomlTable& t : doc.tables("workload")) {
        ws.push_back(find_workload(t.get_string("type"))->factory(t, sys.topo));
        t.finish();
        ws.back()->setup(sys, i++);
    }
    return ws;
}

// The /proc/vmstat counters, then the scheduler's: context switches, task migrations, NUMA
// moves and swaps, mm_migrate_pages events and LLC misses.
inline std::vector<uint64_t> counters(const System& sys) {
    std::vector<uint64_t> c(sys.counters.vm.begin(), sys.counters.vm.end());
    for (uint64_t n :
         {sys.counters.cs, sys.counters.migrations, sys.counters.sched_move_numa,
          sys.counters.sched_swap_numa, sys.counters.mm_migrate_pages, sys.counters.llc_misses})
        c.push_back(n);
    return c;
}

// Every page of every VMA: present and PROT_NONE bits, then the frame's 8 bytes.
inline std::vector<uint64_t> pages(const System& sys) {
    std::vector<uint64_t> out;
    for (const auto& mm : sys.mms)
        for (const auto& v : mm->vmas)
            for (uint64_t pg = 0; pg < v->nr_pages(); ++pg) {
                const bool present = v->present.size() && v->present.test(pg);
                uint64_t frame = 0;
                if (present) std::memcpy(&frame, &v->frame(pg), sizeof frame);
                out.push_back(present | (v->protnone.size() && v->protnone.test(pg)) << 1);
                out.push_back(frame);
            }
    return out;
}

// The kernel-cost statistics, compared bit for bit, named by kKernelCosts.
inline constexpr const char* kKernelCosts[] = {"tlb_shootdowns",    "tlb_ipis",
                                               "migration_waiters", "migration_wait_ns",
                                               "numa_search_ns",    "fault_lock_wait_ns"};
inline std::vector<double> kernel_costs(const System& sys) {
    const auto& k = sys.cost.stats();
    return {static_cast<double>(k.tlb_shootdowns),
            static_cast<double>(k.tlb_ipis),
            k.migration_waiters,
            k.migration_wait_ns,
            k.numa_search_ns,
            k.fault_lock_wait_ns};
}

}  // namespace numasim::sametest
