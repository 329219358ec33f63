#include "sched/sg_stats_cache.h"

#include "kernel/system.h"
#include "sched/fair.h"

namespace numasim {

SgSums sum_group(const System& sys, const std::vector<int>& cpus) {
    SgSums s;
    for (int c : cpus) {
        const Rq& rq = sys.rqs[c];
        s.load += cpu_load(sys, c);
        s.util += cpu_util_cfs(sys, c);
        s.runnable += cpu_runnable(sys, c);
        s.capacity += capacity_of(sys, c);
        s.sum_nr_running += rq.nr_running;
        s.nr_numa_running += rq.nr_numa_running;
        s.nr_preferred_running += rq.nr_preferred_running;
        s.idle_cpus += idle_cpu(sys, c);
        ++s.weight;
    }
    return s;
}

SgSums& SgSums::operator+=(const SgSums& o) {
    load += o.load;
    util += o.util;
    runnable += o.runnable;
    capacity += o.capacity;
    sum_nr_running += o.sum_nr_running;
    idle_cpus += o.idle_cpus;
    weight += o.weight;
    nr_numa_running += o.nr_numa_running;
    nr_preferred_running += o.nr_preferred_running;
    return *this;
}

void SgStatsCache::enable(const SchedTopology& st) {
    const int nr_groups = st.nr_groups;
    enabled_ = true;
    first_.assign(1, 0);
    ids_.clear();
    for (const auto& groups : st.cpu_groups) {
        ids_.insert(ids_.end(), groups.begin(), groups.end());
        first_.push_back(static_cast<uint32_t>(ids_.size()));
    }
    sums_.assign(static_cast<size_t>(nr_groups), SgSums{});
    valid_.assign(static_cast<size_t>(nr_groups), 0);
}

void SgStatsCache::disable() {
    enabled_ = false;
    first_.clear();
    ids_.clear();
    sums_.clear();
    valid_.clear();
}

const SgSums& SgStatsCache::fill(const System& sys, int id) {
    const size_t i = static_cast<size_t>(id);
    ++misses_;
    const std::vector<int>& parts = sys.sched.group_parts[i];
    if (parts.empty()) {
        sums_[i] = sum_group(sys, sys.sched.group_cpus[i]);
    } else {
        // Parts are smaller groups, so this ends; a part's entry is not moved by filling another.
        SgSums s;
        for (int part : parts)
            s += get(sys, part);
        sums_[i] = s;
    }
    valid_[i] = 1;
    return sums_[i];
}

}  // namespace numasim
