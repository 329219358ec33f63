#include "mm/lru_add.h"

#include <algorithm>

#include "kernel/system.h"

namespace numasim {

namespace {

// folio_batch_move_lru(): every folio of the batch is on the LRU now.
void move_lru(std::vector<PageFrame*>& batch) {
    for (PageFrame* f : batch)
        if (f) f->flags &= static_cast<uint8_t>(~PF_LRU_PENDING);
    batch.clear();
}

}  // namespace

void folio_add_lru(System& sys, int cpu, PageFrame* first, uint64_t nr) {
    std::vector<PageFrame*>& batch = sys.lru_add.batch(cpu);
    const uint64_t size = sys.knobs.pagevec_size;
    // One at a time, the batch moves whenever an add leaves it no room (folio_batch_add()
    // returns the room left). So of all the frames, the batch's and these, the last
    // (batch + nr) mod size stay in it, and every one before them is on the LRU: a run of first
    // touches costs what its last few frames cost.
    const uint64_t total = batch.size() + nr;
    const uint64_t keep = total % size;
    if (total >= size) move_lru(batch);
    for (uint64_t k = nr - std::min(keep, nr); k < nr; ++k) {
        first[k].flags |= PF_LRU_PENDING;
        batch.push_back(first + k);
    }
}

void folio_add_lru_large(System& sys, int cpu) {
    lru_add_drain(sys, cpu);
}

void lru_add_drain(System& sys, int cpu) {
    move_lru(sys.lru_add.batch(cpu));
}

void lru_add_drain_all(System& sys) {
    for (int cpu = 0; cpu < sys.lru_add.nr_cpus(); ++cpu)
        move_lru(sys.lru_add.batch(cpu));
}

void lru_add_forget(System& sys, PageFrame& f, PageFrame* to) {
    if (!(f.flags & PF_LRU_PENDING)) return;
    f.flags &= static_cast<uint8_t>(~PF_LRU_PENDING);
    // At most pagevec_size - 1 frames per CPU are pending, and frames are freed or moved while
    // pending only at unmap and copy-on-write reuse: the search stays short and rare.
    for (int cpu = 0; cpu < sys.lru_add.nr_cpus(); ++cpu)
        for (PageFrame*& slot : sys.lru_add.batch(cpu))
            if (slot == &f) {
                slot = to;
                return;
            }
}

}  // namespace numasim
