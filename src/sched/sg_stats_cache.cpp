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

void SgStatsCache::enable(int nr_groups, const std::vector<std::vector<int>>& cpu_groups) {
    enabled_ = true;
    first_.assign(1, 0);
    ids_.clear();
    for (const auto& groups : cpu_groups) {
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

const SgSums& SgStatsCache::get(const System& sys, int id, const std::vector<int>& cpus) {
    const size_t i = static_cast<size_t>(id);
    if (valid_[i]) {
        ++hits_;
        return sums_[i];
    }
    ++misses_;
    sums_[i] = sum_group(sys, cpus);
    valid_[i] = 1;
    return sums_[i];
}

}  // namespace numasim
