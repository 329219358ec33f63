// Sched-group sums kept from one load-balancing pass to the next while nothing they read changes.
//
// update_sg_lb_stats() adds up per-CPU figures (PELT load, utilisation and runnable averages,
// capacity, task counts) over every group of a domain each time load_balance() runs. The kernel
// recomputes them in every pass; it can afford to because one CPU per group balances and busy
// CPUs balance rarely. The simulator balances all CPUs in lockstep, and every CPU that goes idle
// walks all of its levels (newidle balancing), so the same groups were summed over and over at one
// instant. The cache keeps each group's sums (by SchedTopology group id) with a valid bit, and
// whatever changes a figure the sums read clears the bits of the groups holding that CPU:
// enqueue/dequeue and the switch of the running task, a PELT update of a task, the NUMA counters
// of a runqueue. A group that other groups partition (a node of cores, a core of CPUs:
// SchedTopology::group_parts) is summed from its parts, so that one CPU's change costs the sums
// of the groups above it, not of all their CPUs. Decisions are the same as without the cache
// (the sums are integers, whatever the order they are added in; each CPU's figures come from
// its own floating-point sums taken in the same order), which the invariant checker verifies
// for every valid entry (kernel/invariants.cpp) and a scenario test checks end to end
// (tests/sched/sg_stats_cache_test.cpp).
//
// The cache is on only while Engine::run() runs, so that callers which set runqueues up by hand
// (the unit tests) always get freshly computed sums.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace numasim {

struct System;
struct SchedTopology;

// The per-CPU figures of one group added up; what SgStats holds before classification.
struct SgSums {
    unsigned long load = 0, util = 0, runnable = 0, capacity = 0;
    unsigned sum_nr_running = 0, idle_cpus = 0, weight = 0;
    unsigned nr_numa_running = 0, nr_preferred_running = 0;
    bool operator==(const SgSums&) const = default;
    SgSums& operator+=(const SgSums& o);
};

// The sums over `cpus`, computed from the runqueues.
SgSums sum_group(const System& sys, const std::vector<int>& cpus);

class SgStatsCache {
  public:
    // Empties the cache and turns it on for the groups of `st` (SchedTopology's group ids).
    void enable(const SchedTopology& st);
    void disable();
    bool enabled() const { return enabled_; }

    // Something the sums of `cpu`'s groups read has changed. Called at every PELT update, so the
    // lists are one flat array (a few KiB that stay in the host's cache).
    void cpu_changed(int cpu) {
        if (!enabled_) return;
        // Through local pointers: a byte store may alias the vectors' own members, which the
        // compiler would otherwise load again after every store.
        const size_t c = static_cast<size_t>(cpu);
        const int* id = ids_.data() + first_[c];
        const int* const end = ids_.data() + first_[c + 1];
        uint8_t* const valid = valid_.data();
        for (; id != end; ++id)
            valid[*id] = 0;
    }
    // The sums of group `id` (of sys.sched), from the cache or computed and kept.
    const SgSums& get(const System& sys, int id) {
        const size_t i = static_cast<size_t>(id);
        if (valid_[i]) {
            ++hits_;
            return sums_[i];
        }
        return fill(sys, id);
    }

    // For the invariant checker: the entry of group `id` if it is valid, else nullptr.
    const SgSums* cached(int id) const {
        return enabled() && valid_[static_cast<size_t>(id)] ? &sums_[static_cast<size_t>(id)]
                                                            : nullptr;
    }
    int nr_groups() const { return static_cast<int>(sums_.size()); }
    uint64_t hits() const { return hits_; }
    uint64_t misses() const { return misses_; }

  private:
    // A miss: the group's sums from its parts (which may miss in turn) or from its CPUs.
    const SgSums& fill(const System& sys, int id);

    bool enabled_ = false;
    // The group ids of cpu are ids_[first_[cpu] .. first_[cpu + 1]).
    std::vector<uint32_t> first_;
    std::vector<int> ids_;
    std::vector<SgSums> sums_;
    std::vector<uint8_t> valid_;
    uint64_t hits_ = 0, misses_ = 0;
};

}  // namespace numasim
