// Cache state after a task moves (CostModel::move_refill_ns).
//
// What a task loses by moving is what it had cached and would have used again: for each of its
// streams, the part of the region its LLC held (a sweep larger than its share of the LLC keeps
// nothing it will reuse; random and hot-set streams keep a share, cost_model.cpp). The hottest
// PRIVATE_CACHE_BYTES of it lived in the core's L2. On the destination
//   - the L2 is warm for the regions that a task running on an SMT sibling of the destination
//     CPU also uses (siblings share L1 and L2), or entirely when the task itself was the last to
//     run on that core;
//   - the LLC is warm for the regions that the tasks running on that LLC use, or entirely when
//     the source and destination share the LLC.
// Cold L2 lines are fetched from the LLC when it is warm for them and from memory otherwise;
// cold LLC lines come from memory, from wherever the pages are, under the current load. Two
// idle CPUs of a node therefore differ: one whose sibling runs a thread of the same process
// refills less than one on a core that ran something else.
#include <algorithm>

#include "cost/constants.h"
#include "cost/cost_model.h"
#include "mm/vma.h"

namespace numasim {

double CostModel::move_refill_ns(const AccessMix* a, int task, int src_cpu, int dst_cpu,
                                 std::span<const AccessMix* const> core_mates) const {
    const int dst_node = node_of_cpu_[dst_cpu];
    const double line = cost::CACHE_LINE_BYTES;
    if (!a || a->streams.empty()) {
        // No working set the model knows of: its stack and code, an L2's worth, from local memory.
        return k_.PRIVATE_CACHE_BYTES / line * latency_ns(dst_node, dst_node) / mlp_default_;
    }
    const int src_llc = llc_of_cpu_[src_cpu], dst_llc = llc_of_cpu_[dst_cpu];
    const bool same_llc = src_llc == dst_llc;
    // The source LLC's footprint as of the last update, with the task's own regions in it (it
    // may have arrived there since).
    double footprint = llc_footprint_[src_llc];
    const auto& src_keys = llc_keys_[src_llc];
    for (const AccessStream& s : a->streams)
        if (std::find(src_keys.begin(), src_keys.end(), region_key(*s.region)) == src_keys.end())
            footprint += static_cast<double>(s.region->bytes());
    const double llc_share =
        llc_bytes_ > 0 && footprint > 0 ? std::min(1.0, llc_bytes_ / footprint) : 1.0;
    const bool core_was_mine = task >= 0 && core_last_task_[core_of_cpu_[dst_cpu]] == task;
    double cached = 0, warm_core = 0, warm_llc = 0;
    for (const AccessStream& s : a->streams) {
        const double bytes = static_cast<double>(s.region->bytes());
        const double kept = llc_share >= 1                ? bytes
                            : s.pattern == Pattern::Sweep ? 0.0
                                                          : bytes * llc_share;
        if (kept <= 0) continue;
        cached += kept;
        const RegionKey key = region_key(*s.region);
        bool sibling = false;
        for (const AccessMix* m : core_mates)
            for (const AccessStream& o : m ? m->streams : std::span<const AccessStream>{})
                sibling = sibling || region_key(*o.region) == key;
        if (sibling || core_was_mine) warm_core += kept;
        const auto& keys = llc_keys_[dst_llc];
        if (same_llc || std::find(keys.begin(), keys.end(), key) != keys.end()) warm_llc += kept;
    }
    if (cached <= 0) return 0.0;
    if (llc_bytes_ > 0 && cached > llc_bytes_) {  // no more than the LLC held
        warm_core *= llc_bytes_ / cached;
        warm_llc *= llc_bytes_ / cached;
        cached = llc_bytes_;
    }
    const double f_core = warm_core / cached, f_llc = warm_llc / cached;
    const double l2 = std::min(k_.PRIVATE_CACHE_BYTES.value, cached) * (1 - f_core) / line;
    const double llc_cold = same_llc ? 0.0 : cached * (1 - f_llc) / line;
    // Cold L2 lines that the LLC has come at LLC latency; the LLC's cold lines from memory.
    return l2 * f_llc * llc_lat_ / mlp_default_ +
           std::max(llc_cold, l2 * (1 - f_llc)) * working_set_line_ns(*a, dst_node);
}

}  // namespace numasim
