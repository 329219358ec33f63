// What migrating one folio costs (migrate_misplaced_folio -> migrate_pages, mm/migrate.c), for
// the task that migrates it and for everyone else who maps it.
//
// The migrating task walks the rmap replacing each mapping's PTE by a migration entry (half of
// MIGRATE_PER_MAPPING_NS per extra mapping, plus the latency beyond the local one of each line
// the step reads on another node, cost/constants.h RMAP_STEP_*; and a TLB flush for a PTE that
// was still accessible, mm/tlb.h), copies the folio (MIGRATE_FOLIO_OVERHEAD_NS and the copy at
// the memory system's rate) and walks the rmap again restoring the PTEs (the other half). All of it
// is its kernel time D. Mapping j is a migration entry from its own unmap step until its restore,
// E_j ns; any other task that touches the folio through it meanwhile faults, finds the entry and
// sleeps in migration_entry_wait() (TASK_UNINTERRUPTIBLE) until the restore. A running task
// whose streams cover the folio touches it within E_j with probability P (a sweep passes it once
// per pass of its region; random and hot-set streams touch it as a Poisson process at their
// rate per page), then sleeps E_j / 2 on average and pays a fault and two context switches. The
// expected values are charged: P * E_j / 2 of sleep and P of the fault. This is the waiting that
// the shared-COW posting (2018) removes for the 288 mappers of its data section.
#pragma once

#include <cstdint>
#include <vector>

#include "mm/tlb.h"
#include "sim/clock.h"

namespace numasim {

struct System;
struct Task;
struct Vma;

// What migrating one base page charged besides the migrating task's time, and for how many pages
// after it the same migration would charge exactly the same: a run of like pages (fault runs,
// docs/model.md) repeats it with repeat_migrate_folio_cost instead of walking the rmap again.
struct MigrateCostRecord {
    // Pages after the migrated one whose mappers hold the same PTE state and whose waiters see
    // them through the same streams at the same touch probability.
    uint64_t alike = 0;
    double bytes = 0;  // the copy, from node `from` to node `to`
    int from = 0, to = 0;
    struct Waiter {
        Task* task;
        Nanos blocked, kernel;  // added to its debts
    };
    std::vector<Waiter> waiters;  // in the order they were charged
    // The folio's sums of the waiters' expected number and sleep, which it added once to the
    // cost statistics (migration_waiters, migration_wait_ns); a like page adds them again.
    double stat_waiters = 0, stat_wait_ns = 0;
    TlbFlushLog tlb;
};

// Kernel ns of the migrating task `p` for moving the folio of `nr` pages at `idx` of `vma` from
// node `from` to `to`; charges the TLB flush targets and the waiting mappers. With `record` (a
// base page only), also fills it in.
double migrate_folio_cost(System& sys, Task& p, Vma& vma, uint64_t idx, uint64_t nr, int from,
                          int to, unsigned mapcount, MigrateCostRecord* record = nullptr);
// The same for a migration that a system call of a process outside the simulation makes
// (migrate_pages(2) from a daemon such as numad): it runs on `cpu` and none of the mappers'
// tasks is the migrating one.
double migrate_folio_cost(System& sys, const Task* p, int cpu, Vma& vma, uint64_t idx, uint64_t nr,
                          int from, int to, unsigned mapcount, MigrateCostRecord* record = nullptr);
// Charges what the recorded migration charged, once for each of `times` like pages, in the order
// migrating them one by one would: the copy traffic, the flush targets and the waiters.
void repeat_migrate_folio_cost(System& sys, const MigrateCostRecord& record, uint64_t times);

// Probability that a stream over pages of a region touches pages [idx, idx + nr) of the
// region's VMA within `window_ns`, progressing at `bytes_per_ns` (exposed for tests).
struct AccessStream;
double touch_probability(const AccessStream& s, double bytes_per_ns, uint64_t idx, uint64_t nr,
                         double window_ns);

}  // namespace numasim
