// The per-CPU LRU add batches (mm/swap.c, cpu_fbatches.lru_add): a new folio (a first touch, a
// page-cache read, a copy-on-write copy, a migration's destination) is not put on its node's LRU
// list at once but into a batch of the CPU that made it, and the batch moves to the LRU as a
// whole when it fills (folio_batch_add_and_move) or when the CPU drains it (lru_add_drain; every
// CPU's at once: lru_add_drain_all, which khugepaged's passes call, mm/khugepaged.h). Until
// then the folio is not on the LRU, so isolating it fails, and with it the folio's next NUMA
// migration (numamigrate_isolate_page / migrate_misplaced_folio_prepare: -EAGAIN,
// TNF_MIGRATE_FAIL). A CPU that allocates often drains within microseconds; one that only
// migrates a few pages a second keeps the last of them off the LRU for seconds.
//
// The model keeps, per CPU, the frames of its batch in order, and marks each with PF_LRU_PENDING.
// Capacity: knob `pagevec_size` (PAGEVEC_SIZE, the folio_batch size). A large folio drains the
// batch as it is added.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "mm/page.h"

namespace numasim {

struct System;

class LruAddBatches {
  public:
    void resize(int nr_cpus) { batches_.assign(static_cast<size_t>(nr_cpus), {}); }
    // Frames in CPU `cpu`'s batch, in the order they were added; a slot whose folio was freed
    // meanwhile is null (the kernel's batch keeps its reference until the drain).
    const std::vector<PageFrame*>& batch(int cpu) const {
        return batches_[static_cast<size_t>(cpu)];
    }
    std::vector<PageFrame*>& batch(int cpu) { return batches_[static_cast<size_t>(cpu)]; }
    int nr_cpus() const { return static_cast<int>(batches_.size()); }

  private:
    std::vector<std::vector<PageFrame*>> batches_;
};

// folio_add_lru() of base-page folios, `nr` frames from `first` on (consecutive in memory: one
// frame array), made by CPU `cpu`, in order.
void folio_add_lru(System& sys, int cpu, PageFrame* first, uint64_t nr = 1);
// folio_add_lru() of a large folio (a THP): the batch moves to the LRU with it.
void folio_add_lru_large(System& sys, int cpu);
// lru_add_drain() on CPU `cpu`.
void lru_add_drain(System& sys, int cpu);
// lru_add_drain_all(): every CPU's batch.
void lru_add_drain_all(System& sys);
// A frame is freed or moves to `to` (nullptr: freed) while it may sit in a batch: its slot
// follows it, or holds a freed folio, and `f` itself is no longer marked as waiting (`to` keeps
// the mark it was given).
void lru_add_forget(System& sys, PageFrame& f, PageFrame* to = nullptr);

}  // namespace numasim
