// Racing huge-page clears (docs/model.md "Racing huge-page clears"). A first-touch fault on an
// empty PMD of an anonymous THP mapping (do_huge_pmd_anonymous_page) allocates its folio and
// clears all of it before it takes pmd_lock() and checks that the PMD is still empty. Another
// thread of the mm that faults on the same PMD meanwhile finds it empty too: it allocates and
// clears a folio of its own, then finds the PMD populated under the lock and frees its folio.
// Both faults count pgfault and pgalloc and pay the clear; only the one that populated the PMD
// counts thp_fault_alloc (v6.1, v6.6 and v6.12 alike). The model keeps, per mapping, the huge
// pages whose winning clear is in flight, [start, end) on the simulated clock, and charges each
// other thread of the mm whose touch of that huge page falls inside the window.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/clock.h"

namespace numasim {

struct System;
struct Task;
struct Vma;

// The first-touch fault that populated a huge page, while its clear may still be in flight.
struct HugeClear {
    uint64_t first = 0;        // the huge page's first page (VMA index)
    Nanos start = 0, end = 0;  // when the fault began, and when it took pmd_lock()
    int owner = 0;             // pid of the faulting thread
    std::vector<int> losers;   // pids of the threads that raced it and lost (each loses once)

    // Whether a fault on the same empty PMD by a thread whose touch came at `t` overlapped this
    // one: it began before this one populated the PMD, and this one began before it would have
    // (its own fault taking as long: the same clear, by a CPU of the same kind). The model keeps
    // the fault it decided first as the winner; the count of losers is the same either way.
    bool overlaps(Nanos t) const { return t < end && t + (end - start) > start; }
    bool lost_by(int pid) const;
};

// Notes that `p`'s fault on huge page `first` of `vma`, begun at `start`, took `ns` of kernel time
// and populated the PMD. Drops the clears that ended at or before `horizon` first.
void note_huge_clear(Vma& vma, uint64_t first, const Task& p, Nanos start, Nanos ns, Nanos horizon);

// Drops the clears of `vma` that ended at or before `horizon`: no touch still to be decided can
// come before it, so none can race them.
void prune_huge_clears(Vma& vma, Nanos horizon);

// The losing fault of `p` on huge page `first` of `vma`: pgfault, the folio's allocation (its
// pgalloc and NUMA counts), its clear, and its free. Returns its kernel time in ns. If no node
// has a huge page free, the kernel would fall back to base pages and find the PMD mapped: only
// the fault's entry is paid.
double lose_huge_clear(System& sys, Task& p, Vma& vma, uint64_t first);

}  // namespace numasim
