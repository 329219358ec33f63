#include "cost/cost_model.h"

#include <algorithm>
#include <cmath>

#include "cost/constants.h"
#include "machine/topology.h"
#include "mm/vma.h"

namespace numasim {

namespace {

double loaded_latency_multiplier(double rho) {
    rho = std::min(rho, cost::MAX_UTILISATION);
    return 1.0 + cost::LOADED_LATENCY_KNEE * rho / (1.0 - rho);
}

// Fraction of a stream's accesses that hit the LLC: a region that fits in its share of the LLC
// stays resident; a sweep larger than the cache evicts itself (LRU), random access hits in
// proportion to the cached fraction.
double llc_hit_fraction(Pattern pattern, double footprint, double llc_share) {
    if (footprint <= 0) return 1.0;
    if (footprint <= llc_share) return 1.0;
    if (pattern == Pattern::Sweep) return 0.0;
    return llc_share / footprint;
}

}  // namespace

void CostModel::init(const Topology& t) {
    nodes_ = t.nr_nodes();
    ghz_ = t.hw.cpu_ghz > 0 ? t.hw.cpu_ghz : 2.0;
    llc_bytes_ = static_cast<double>(t.hw.llc_bytes);
    llc_lat_ = t.hw.llc_latency_ns;
    mlp_default_ = t.hw.line_fill_buffers;
    smt_speedup_ = t.hw.smt_core_speedup;
    dram_bw_ = t.hw.dram_bandwidth_gbs;
    link_bw_ = t.hw.link_bandwidth_gbs;
    lat_.assign(nodes_ * nodes_, 0);
    for (int a = 0; a < nodes_; ++a)
        for (int b = 0; b < nodes_; ++b)
            lat_[a * nodes_ + b] = t.hw.latency(t.node_distance(a, b));
    node_mult_.assign(nodes_, 1.0);
    node_util_.assign(nodes_, 0.0);
    link_mult_.assign(nodes_ * nodes_, 1.0);
    llc_of_cpu_.resize(t.nr_cpus());
    core_of_cpu_.resize(t.nr_cpus());
    node_of_cpu_.resize(t.nr_cpus());
    int nllc = 0, ncore = 0;
    for (const auto& c : t.cpus) {
        llc_of_cpu_[c.id] = c.llc;
        core_of_cpu_[c.id] = c.core;
        node_of_cpu_[c.id] = c.node;
        nllc = std::max(nllc, c.llc + 1);
        ncore = std::max(ncore, c.core + 1);
    }
    llc_footprint_.assign(nllc, 0);
    llc_keys_.assign(nllc, {});
    core_busy_.assign(ncore, 0);
    core_threads_.assign(ncore, 0);
    for (const auto& c : t.cpus)
        ++core_threads_[c.core];
}

double CostModel::copy_ns(double bytes, int from, int to) const {
    // One core streams at line_fill_buffers lines per latency; a copy reads and writes.
    const double lat = latency_ns(to, from);
    const double per_core_gbs = mlp_default_ * cost::CACHE_LINE_BYTES / lat;
    return bytes / (per_core_gbs * cost::COPY_BANDWIDTH_FRACTION);
}

double CostModel::refill_ns(double bytes, int cpu_node, int nid) const {
    const double per_core_gbs = mlp_default_ * cost::CACHE_LINE_BYTES / latency_ns(cpu_node, nid);
    return bytes / per_core_gbs;
}

// Time per cache line of progress for access mix `ph` on cpu; optionally accumulates the DRAM
// bytes per ns the task generates toward each node (at the returned speed).
double CostModel::line_ns(const AccessMix& ph, int cpu, std::vector<double>* node_bytes,
                          double* miss_per_line) const {
    const int cnode = node_of_cpu_[cpu];
    const double mlp = ph.mlp > 0 ? ph.mlp : mlp_default_;
    const double line = cost::CACHE_LINE_BYTES;
    // CPU work per line: the rate at local latency minus the local memory stall.
    const double local_stall = lat_[cnode * nodes_ + cnode] / mlp;
    double t_cpu = std::max(0.0, line / std::max(ph.rate_gbs, 1e-9) - local_stall);
    const int core = core_of_cpu_[cpu];
    if (core_busy_[core] > 1 && core_threads_[core] > 1)
        t_cpu *= static_cast<double>(core_busy_[core]) / smt_speedup_;
    const double llc_share = llc_bytes_ > 0 && llc_footprint_[llc_of_cpu_[cpu]] > 0
                                 ? llc_bytes_ / llc_footprint_[llc_of_cpu_[cpu]]
                                 : 1.0;
    double t_mem = 0;
    double misses = 0;
    struct Split {
        double share, miss, traffic;
        const Region* r;
    };
    Split splits[8];
    int ns = 0;
    for (const AccessStream& s : ph.streams) {
        const Region* r = s.region;
        const double footprint = static_cast<double>(r->bytes());
        const double hit =
            llc_hit_fraction(s.pattern, footprint, footprint * std::min(1.0, llc_share));
        double miss_lat = 0;
        if (r->present == 0) {
            miss_lat = lat_[cnode * nodes_ + cnode] * node_mult_[cnode];
        } else {
            for (int n = 0; n < nodes_; ++n) {
                if (!r->node_pages[n]) continue;
                const double f = static_cast<double>(r->node_pages[n]) / r->present;
                double l = lat_[cnode * nodes_ + n] * node_mult_[n];
                if (n != cnode) l *= link_mult_[cnode * nodes_ + n];
                miss_lat += f * l;
            }
        }
        t_mem += s.share * (hit * llc_lat_ + (1 - hit) * miss_lat) / mlp;
        misses += s.share * (1 - hit);
        const double traffic = 1.0 + s.write_fraction * (cost::WRITE_TRAFFIC_FACTOR - 1.0);
        if (node_bytes && ns < 8) splits[ns++] = Split{s.share, 1 - hit, traffic, r};
    }
    const double t_line = t_cpu + t_mem;
    if (node_bytes) {
        const double bpn = line / t_line;  // bytes of progress per ns
        for (int i = 0; i < ns; ++i) {
            const Region* r = splits[i].r;
            const double dram = bpn * splits[i].share * splits[i].miss * splits[i].traffic;
            if (r->present == 0) {
                (*node_bytes)[cnode * nodes_ + cnode] += dram;
                continue;
            }
            for (int n = 0; n < nodes_; ++n)
                if (r->node_pages[n])
                    (*node_bytes)[cnode * nodes_ + n] +=
                        dram * static_cast<double>(r->node_pages[n]) / r->present;
        }
    }
    if (miss_per_line) *miss_per_line = misses;
    return t_line;
}

double CostModel::ns_per_byte(const AccessMix& a, int cpu, double* miss_per_byte) const {
    if (a.streams.empty()) {
        if (miss_per_byte) *miss_per_byte = 0;
        return 1.0 / std::max(a.rate_gbs, 1e-9);
    }
    double miss_per_line = 0;
    const double ns = line_ns(a, cpu, nullptr, &miss_per_line) / cost::CACHE_LINE_BYTES;
    if (miss_per_byte) *miss_per_byte = miss_per_line / cost::CACHE_LINE_BYTES;
    return ns;
}

void CostModel::update(const std::vector<const AccessMix*>& running) {
    std::fill(core_busy_.begin(), core_busy_.end(), 0);
    std::fill(llc_footprint_.begin(), llc_footprint_.end(), 0.0);
    // LLC footprints: distinct memory objects touched by the tasks running on each LLC. Each
    // LLC keeps its own short list of keys, so the de-duplication stays linear in the tasks.
    for (auto& keys : llc_keys_)
        keys.clear();
    for (size_t cpu = 0; cpu < running.size(); ++cpu) {
        const AccessMix* t = running[cpu];
        if (!t) continue;
        ++core_busy_[core_of_cpu_[cpu]];
        const int llc = llc_of_cpu_[cpu];
        auto& keys = llc_keys_[llc];
        for (const AccessStream& s : t->streams) {
            // Mappings of the same object share cache lines (COW-shared or file pages).
            const std::pair<const MemObject*, uint64_t> key{s.region->vma->object.get(),
                                                            s.region->vma->pgoff + s.region->first};
            if (std::find(keys.begin(), keys.end(), key) != keys.end()) continue;
            keys.push_back(key);
            llc_footprint_[llc] += static_cast<double>(s.region->bytes());
        }
    }
    // Contention: fixed point between per-task speed and per-node / per-link utilisation.
    std::vector<double> demand(nodes_ * nodes_);
    // Warm-started from the last tick: contention changes slowly, so a few damped steps per tick
    // track the fixed point.
    for (int iter = 0; iter < 3; ++iter) {
        std::fill(demand.begin(), demand.end(), 0.0);
        for (size_t cpu = 0; cpu < running.size(); ++cpu)
            if (running[cpu] && !running[cpu]->streams.empty())
                line_ns(*running[cpu], static_cast<int>(cpu), &demand, nullptr);
        for (int n = 0; n < nodes_; ++n) {
            double d = 0;
            for (int a = 0; a < nodes_; ++a)
                d += demand[a * nodes_ + n];
            node_util_[n] = d / dram_bw_;
            node_mult_[n] = std::sqrt(node_mult_[n] * loaded_latency_multiplier(node_util_[n]));
        }
        for (int a = 0; a < nodes_; ++a)
            for (int b = 0; b < nodes_; ++b) {
                if (a == b) continue;
                const double rho = demand[a * nodes_ + b] / link_bw_;
                double& m = link_mult_[a * nodes_ + b];
                m = std::sqrt(m * loaded_latency_multiplier(rho));
            }
    }
}

}  // namespace numasim
