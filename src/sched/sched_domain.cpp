#include "sched/sched_domain.h"

#include <algorithm>
#include <set>

namespace numasim {

namespace {

std::vector<int> cpus_where(const Topology& t, auto pred) {
    std::vector<int> out;
    for (const auto& c : t.cpus)
        if (pred(c)) out.push_back(c.id);
    return out;
}

// init_numa_topology_type(): DIRECT with one remote distance; otherwise look at the two nodes
// farthest apart: if some third node is closer than that to both, the mesh is glueless.
NumaTopologyType numa_topology_type(const Topology& t, const std::vector<int>& distances) {
    if (distances.size() <= 2) return NumaTopologyType::Direct;
    const int maxd = distances.back();
    const int n = t.nr_nodes();
    for (int a = 0; a < n; ++a)
        for (int b = 0; b < n; ++b) {
            if (t.node_distance(a, b) != maxd) continue;
            for (int c = 0; c < n; ++c)
                if (t.node_distance(a, c) < maxd && t.node_distance(b, c) < maxd)
                    return NumaTopologyType::GluelessMesh;
            return NumaTopologyType::Backplane;
        }
    return NumaTopologyType::Direct;
}

}  // namespace

const SchedDomain* SchedTopology::sd_numa(int cpu) const {
    for (const auto& sd : domains[cpu])
        if (sd.numa) return &sd;
    return nullptr;
}

const SchedDomain* SchedTopology::sd_llc(int cpu) const {
    const SchedDomain* best = nullptr;
    for (const auto& sd : domains[cpu])
        if (sd.shares_llc) best = &sd;
    return best;
}

SchedTopology build_sched_domains(const Topology& t) {
    SchedTopology st;
    std::set<int> dset;
    for (int a = 0; a < t.nr_nodes(); ++a)
        for (int b = 0; b < t.nr_nodes(); ++b) dset.insert(t.node_distance(a, b));
    st.numa_distances.assign(dset.begin(), dset.end());
    st.sched_max_numa_distance = st.numa_distances.back();
    st.numa_topology_type = numa_topology_type(t, st.numa_distances);

    st.domains.resize(t.nr_cpus());
    for (const auto& cpu : t.cpus) {
        std::vector<SchedDomain> levels;
        auto push = [&](SchedDomain sd) {
            if (!levels.empty() && levels.back().span == sd.span) return;  // degenerate
            if (sd.span.size() <= 1) return;
            levels.push_back(std::move(sd));
        };
        SchedDomain smt;
        smt.name = "SMT";
        smt.shares_llc = true;
        smt.imbalance_pct = SD_IMBALANCE_PCT_SMT;
        smt.span = t.smt_siblings(cpu.id);
        push(smt);
        SchedDomain mc;
        mc.name = "MC";
        mc.shares_llc = true;
        mc.span = t.llc_cpus(cpu.id);
        push(mc);
        SchedDomain pkg;
        pkg.name = "PKG";
        pkg.span = cpus_where(t, [&](const CpuInfo& c) { return c.node == cpu.node; });
        push(pkg);
        for (int d : st.numa_distances) {
            if (d == st.numa_distances.front()) continue;  // the local distance
            SchedDomain nd;
            nd.name = "NUMA";
            nd.numa = true;
            nd.imbalance_pct = SD_IMBALANCE_PCT_NUMA;
            nd.cache_nice_tries = SD_CACHE_NICE_TRIES_NUMA;
            nd.span = cpus_where(t, [&](const CpuInfo& c) {
                return t.node_distance(cpu.node, c.node) <= d;
            });
            push(nd);
        }
        // Groups: the spans of the level below, as seen from each CPU of this level's span.
        for (size_t l = 0; l < levels.size(); ++l) {
            auto& sd = levels[l];
            sd.level = static_cast<int>(l);
            sd.min_interval_ms = static_cast<unsigned>(sd.span.size());
            std::set<std::vector<int>> groups;
            for (int c : sd.span) {
                if (l == 0) {
                    groups.insert({c});
                    continue;
                }
                // The child span of CPU c at level l-1, rebuilt from c's point of view.
                const std::string& child = levels[l - 1].name;
                std::vector<int> g;
                if (child == "SMT")
                    g = t.smt_siblings(c);
                else if (child == "MC")
                    g = t.llc_cpus(c);
                else if (child == "PKG")
                    g = cpus_where(t, [&](const CpuInfo& x) { return x.node == t.node_of(c); });
                else {
                    const auto& childspan = levels[l - 1].span;
                    int dchild = 0;
                    for (int x : childspan)
                        dchild = std::max(dchild, t.node_distance(cpu.node, t.node_of(x)));
                    g = cpus_where(t, [&](const CpuInfo& x) {
                        return t.node_distance(t.node_of(c), x.node) <= dchild;
                    });
                }
                groups.insert(g);
            }
            sd.groups.assign(groups.begin(), groups.end());
        }
        // imb_numa_nr (v5.18, build_sched_domains): set at the first domain above the LLC.
        int imb = 0;
        size_t imb_span = 0;
        for (size_t l = 0; l < levels.size(); ++l) {
            auto& sd = levels[l];
            if (sd.shares_llc || l == 0) continue;
            if (imb == 0 && levels[l - 1].shares_llc) {
                const size_t nr_llcs = sd.span.size() / levels[l - 1].span.size();
                imb = nr_llcs == 1 ? static_cast<int>(sd.span.size() >> 3) : static_cast<int>(nr_llcs);
                imb = std::max(1, imb);
                sd.imb_numa_nr = imb;
                size_t top = l;
                while (top < levels.size() && !levels[top].numa) ++top;
                imb_span = top < levels.size() ? levels[top].span.size() : sd.span.size();
            } else if (imb) {
                const int factor = std::max<int>(1, static_cast<int>(sd.span.size() / imb_span));
                sd.imb_numa_nr = imb * factor;
            }
        }
        st.domains[cpu.id] = std::move(levels);
    }
    return st;
}

}  // namespace numasim
