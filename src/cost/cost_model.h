// The performance model: how fast a task makes progress given where its memory is.
//
// A phase's rate is what the task achieves with its data in local DRAM, alone and uncontended.
// From it the model derives the CPU time per cache line (the rate minus the local memory stall)
// and then, for the task's actual placement, adds the memory stall of each access: LLC hits at
// LLC latency, misses at the SLIT-distance latency of the node holding the page, inflated by the
// loaded-latency curve of that node's DRAM and of the interconnect link, divided by the
// memory-level parallelism. SMT siblings that are both busy share the core's throughput.
// Contention is solved once per tick as a fixed point over all running tasks.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "cost/access.h"

namespace numasim {

struct MemObject;
struct Topology;

class CostModel {
  public:
    void init(const Topology& t);
    // Recomputes contention multipliers and LLC footprints from what runs now: `running[cpu]`
    // is the access mix of the task running on `cpu`, or nullptr when there is none.
    void update(const std::vector<const AccessMix*>& running);
    // CPU time per byte for access mix `a` on `cpu` under the current contention. If
    // `miss_per_byte` is given, it receives the LLC misses per byte of progress.
    double ns_per_byte(const AccessMix& a, int cpu, double* miss_per_byte = nullptr) const;
    // Idle latency from a CPU on node `from` to memory on node `to`.
    double latency_ns(int from, int to) const { return lat_[from * nodes_ + to]; }
    double node_multiplier(int nid) const { return node_mult_[nid]; }
    double link_multiplier(int from, int to) const { return link_mult_[from * nodes_ + to]; }
    double node_utilisation(int nid) const { return node_util_[nid]; }
    // Nanoseconds for kernel work measured in cycles on this machine.
    double cycles_ns(double cycles) const { return cycles / ghz_; }
    // Time to copy `bytes` from node `from` to node `to` on one core.
    double copy_ns(double bytes, int from, int to) const;
    // Time to refill `bytes` of cache from memory on node `nid` for a CPU on node `cpu_node`.
    double refill_ns(double bytes, int cpu_node, int nid) const;
    double llc_bytes() const { return llc_bytes_; }

  private:
    double line_ns(const AccessMix& a, int cpu, std::vector<double>* node_bytes,
                   double* miss_per_line) const;
    int nodes_ = 0;
    std::vector<int> node_of_cpu_;
    double ghz_ = 2.0;
    double llc_bytes_ = 0;
    double llc_lat_ = 0;
    double mlp_default_ = 10;
    double smt_speedup_ = 1;
    double dram_bw_ = 1;  // bytes per ns, per node
    double link_bw_ = 1;
    std::vector<double> lat_;
    std::vector<double> node_mult_, link_mult_, node_util_;
    std::vector<double> llc_footprint_;  // per LLC: bytes of distinct regions touched
    // Per LLC: the (object, first page) of the regions counted this update.
    std::vector<std::vector<std::pair<const MemObject*, uint64_t>>> llc_keys_;
    std::vector<int> llc_of_cpu_;
    std::vector<int> core_busy_;  // per core: running tasks now
    std::vector<int> core_of_cpu_;
    std::vector<int> core_threads_;  // per core: SMT threads
};

}  // namespace numasim
