#include "engine/invariants.h"

#include "kernel/system.h"

namespace numasim {

bool InvariantCadence::due(const System& sys, uint64_t ticks) {
    const Counters& c = sys.counters;
    // Scanned PTEs are walked a bitmap word (64 PTEs) at a time.
    const uint64_t work = ticks * static_cast<uint64_t>(sys.nr_cpus()) + c[Vm::pgfault] +
                          c[Vm::numa_pte_updates] / 64 + c[Vm::pgmigrate_success] +
                          c[Vm::pgmigrate_fail] + c.migrations;
    uint64_t pages = 0;
    for (const auto& m : sys.mms)
        for (const auto& v : m->vmas)
            pages += v->nr_pages();
    if (work - last_work_ < pages / PAGES_PER_EVENT) return false;
    last_work_ = work;
    return true;
}

}  // namespace numasim
