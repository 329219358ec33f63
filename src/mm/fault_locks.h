// Fault scalability within one address space: the locks every page fault takes.
//
// A fault first takes the address space for reading: mmap_lock (down_read/up_read, two atomics
// on the rwsem's count word), or since v6.4 the faulting VMA's own lock (lock_vma_under_rcu,
// knob `per_vma_lock`), which only threads faulting in the same VMA share. It then installs the
// PTE under the page-table lock of its PTE table, one per PMD (2 MiB on x86-64; the split PTE
// lock; a PMD-mapped THP takes the PMD table's lock, one per 1 GiB on x86-64). Readers never
// exclude each other, but the atomics on the shared word serialise: each must pull the cache line
// from the CPU that touched it last.
//
// Every fault of an interval is noted with its lock words; at the end of the interval (the tick)
// each word is a single server that held the line for h per fault (two transfers for the rwsem,
// one transfer plus the critical section for the PTE lock). A task whose faults met n_others
// faults of other tasks on the same word in an interval of length T waits, per fault,
//     W = min((m - 1) h, h U / (2 (1 - U))),   U = h n_others / T,
// the M/D/1 wait behind the others' holds, bounded by the closed-system worst case of every one
// of the other m - 1 faulting tasks ahead of it (W = (m - 1) h once U >= 1), plus the transfer
// of the line itself whenever another task held it last. Only the number of faults per lock
// word, per task and per node enter this, so a fault that repeats the word, task and node of
// the last one noted (a sweep faulting page after page of one table) is counted in that record
// rather than added as one more to sort. The waits are charged as kernel time
// after the interval, so the order in which CPUs were simulated does not matter. The fault entry
// (arch/x86/mm/fault.c, do_user_addr_fault, which takes these locks) is the engine's
// handle_touch; System::fault_locks keeps the faults of the current interval.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "sim/clock.h"

namespace numasim {

struct System;
struct Task;
struct Vma;

class FaultLocks {
  public:
    // A fault of `p` on page `idx` of `vma` (after the fault handler ran), or `count` faults on
    // pages from `idx` on that take the same lock words (one page table: a fault run).
    void note(const System& sys, const Task& p, const Vma& vma, uint64_t idx, uint32_t count = 1);
    // At the tick: charges the waits of the faults noted since the last settle and forgets them.
    void settle(System& sys);

    // Total since the start, for tests and reports.
    uint64_t faults_noted() const { return noted_; }

  private:
    enum Kind : uint8_t { kAddressSpace, kPageTable };
    // A lock word is named by simulated identities, not host addresses, so that the order in
    // which the words are settled (and the waits summed) is the same on every host.
    struct Record {
        uint64_t vma;  // start address of the VMA whose lock word was taken; 0 for mmap_lock
        uint64_t sub;  // page-table page within the VMA (kPageTable)
        int mm;        // Mm::id of the address space
        Kind kind;
        int task;        // index in System::tasks
        int node;        // node of the CPU that faulted
        uint32_t count;  // faults this record stands for
    };
    // A record as settle() sorts it: two words whose order is the records' (kind, mm, vma, sub,
    // task) order, so that a comparison is two integer compares rather than five fields.
    struct Key {
        uint64_t word;      // kind in the top bit, then the mm and the VMA, or their rank
        uint64_t sub_task;  // the page-table page in the upper half, the task in the lower
        int node;
        uint32_t count;
    };
    // Adds `r` to the last record of its kind (index `last`) if only the count differs. Inline:
    // every fault adds two records, and most add to the last ones.
    void add(const Record& r, std::size_t& last) {
        if (last < records_.size()) {
            Record& l = records_[last];
            if (l.kind == r.kind && l.mm == r.mm && l.vma == r.vma && l.sub == r.sub &&
                l.task == r.task && l.node == r.node) {
                l.count += r.count;
                return;
            }
        }
        last = records_.size();
        records_.push_back(r);
    }
    // Fills keys_ with the records in (kind, mm, vma, sub, task) order.
    void sort_keys();

    std::vector<Record> records_;
    std::vector<Key> keys_;
    std::size_t last_as_ = 0, last_pt_ = 0;  // the last record of each kind (when in range)
    std::vector<int> node_faults_;           // scratch: faults per node of one lock word
    uint64_t noted_ = 0;
    Nanos last_settle_ = 0;
};

}  // namespace numasim
