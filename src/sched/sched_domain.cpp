#include "sched/sched_domain.h"

#include <algorithm>
#include <cstdint>
#include <set>
#include <unordered_map>

#include "sched/reclaim_distance.h"

namespace numasim {

namespace {

std::vector<int> cpus_where(const Topology& t, auto pred) {
    std::vector<int> out;
    for (const auto& c : t.cpus)
        if (pred(c)) out.push_back(c.id);
    return out;
}

// Since v5.18 (0fb3978b0aac, "sched/numa: Fix NUMA topology for systems with CPU-less nodes")
// the NUMA levels come from the nodes that have CPUs only (for_each_cpu_node_but): a CPU-less
// memory node's distances would add levels that span no new CPUs.
bool has_cpus(const Topology& t, int n) {
    return !t.nodes[n].cpus.empty();
}

// init_numa_topology_type(): DIRECT with one remote distance; otherwise look at the two nodes
// farthest apart: if some third node is closer than that to both, the mesh is glueless.
NumaTopologyType numa_topology_type(const Topology& t, const std::vector<int>& distances) {
    if (distances.size() <= 2) return NumaTopologyType::Direct;
    const int maxd = distances.back();
    const int n = t.nr_nodes();
    for (int a = 0; a < n; ++a)
        for (int b = 0; b < n; ++b) {
            if (!has_cpus(t, a) || !has_cpus(t, b) || t.node_distance(a, b) != maxd) continue;
            for (int c = 0; c < n; ++c)
                if (has_cpus(t, c) && t.node_distance(a, c) < maxd && t.node_distance(b, c) < maxd)
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

namespace {

// One id per distinct group CPU set, whichever CPU's domains list it, numbered in the order the
// sets first appear. Sets are found by a hash of their CPUs: a machine has a few hundred distinct
// ones but lists them (CPUs x levels x groups) tens of thousands of times.
void number_groups(SchedTopology& st, int nr_cpus) {
    auto hash = [](const std::vector<int>& g) {
        uint64_t h = 0xcbf29ce484222325ull;  // FNV-1a over the CPU numbers
        for (int c : g)
            h = (h ^ static_cast<uint32_t>(c)) * 0x100000001b3ull;
        return h;
    };
    std::unordered_map<uint64_t, std::vector<int>> ids_by_hash;
    std::vector<std::vector<int>> sets;  // by id: the CPUs, ascending
    std::vector<int> sorted;
    st.cpu_groups.assign(static_cast<size_t>(nr_cpus), {});
    for (auto& levels : st.domains)
        for (auto& sd : levels) {
            sd.group_ids.clear();
            for (const auto& g : sd.groups) {
                // Groups are built ascending; the key is the sorted set whatever the order.
                const std::vector<int>* key = &g;
                if (!std::is_sorted(g.begin(), g.end())) {
                    sorted = g;
                    std::sort(sorted.begin(), sorted.end());
                    key = &sorted;
                }
                std::vector<int>& same_hash = ids_by_hash[hash(*key)];
                int id = -1;
                for (int k : same_hash)
                    if (sets[static_cast<size_t>(k)] == *key) id = k;
                if (id < 0) {
                    id = static_cast<int>(sets.size());
                    sets.push_back(*key);
                    same_hash.push_back(id);
                    for (int c : *key)
                        st.cpu_groups[static_cast<size_t>(c)].push_back(id);
                }
                sd.group_ids.push_back(id);
            }
        }
    st.nr_groups = static_cast<int>(sets.size());
    // A group that is a domain's span is split into that domain's groups when they partition
    // it: their CPUs, put together, are the span once each (they overlap at some NUMA levels).
    st.group_parts.assign(sets.size(), {});
    for (const auto& levels : st.domains)
        for (const auto& sd : levels) {
            if (sd.groups.size() < 2) continue;
            const auto found = ids_by_hash.find(hash(sd.span));
            if (found == ids_by_hash.end()) continue;
            for (int id : found->second) {
                std::vector<int>& parts = st.group_parts[static_cast<size_t>(id)];
                if (sets[static_cast<size_t>(id)] != sd.span || !parts.empty()) continue;
                sorted.clear();
                for (const auto& g : sd.groups)
                    sorted.insert(sorted.end(), g.begin(), g.end());
                std::sort(sorted.begin(), sorted.end());
                if (sorted == sd.span) parts = sd.group_ids;
            }
        }
    st.group_cpus = std::move(sets);
}

// The CPUs of each core, LLC or node (indexed by its global number), ascending.
std::vector<std::vector<int>> cpus_by(const Topology& t, int CpuInfo::*key) {
    std::vector<std::vector<int>> out;
    for (const auto& c : t.cpus) {
        const size_t k = static_cast<size_t>(c.*key);
        if (k >= out.size()) out.resize(k + 1);
        out[k].push_back(c.id);
    }
    return out;
}

}  // namespace

SchedTopology build_sched_domains(const Topology& t) {
    SchedTopology st;
    const std::vector<std::vector<int>> core_cpus = cpus_by(t, &CpuInfo::core);
    const std::vector<std::vector<int>> llc_cpus = cpus_by(t, &CpuInfo::llc);
    const std::vector<std::vector<int>> node_cpus = cpus_by(t, &CpuInfo::node);
    auto smt_of = [&](int cpu) -> const std::vector<int>& { return core_cpus[t.cpus[cpu].core]; };
    auto llc_of = [&](int cpu) -> const std::vector<int>& { return llc_cpus[t.cpus[cpu].llc]; };
    for (const auto& c : t.cpus) {
        st.smt_mask.push_back(smt_of(c.id));
        st.smt_present |= st.smt_mask.back().size() > 1;
    }
    std::set<int> dset;
    for (int a = 0; a < t.nr_nodes(); ++a)
        for (int b = 0; b < t.nr_nodes(); ++b)
            if (has_cpus(t, a) && has_cpus(t, b)) dset.insert(t.node_distance(a, b));
    st.numa_distances.assign(dset.begin(), dset.end());
    st.sched_max_numa_distance = st.numa_distances.back();
    st.numa_topology_type = numa_topology_type(t, st.numa_distances);
    // within[node][k]: the CPUs of the nodes at most numa_distances[k] from `node`, ascending
    // (sched_domains_numa_masks): the spans of the NUMA levels and of their groups.
    std::vector<std::vector<std::vector<int>>> within(static_cast<size_t>(t.nr_nodes()));
    for (int n = 0; n < t.nr_nodes(); ++n)
        for (int d : st.numa_distances)
            within[static_cast<size_t>(n)].push_back(
                cpus_where(t, [&](const CpuInfo& c) { return t.node_distance(n, c.node) <= d; }));
    auto within_of = [&](int node, int d) -> const std::vector<int>& {
        const auto k = std::lower_bound(st.numa_distances.begin(), st.numa_distances.end(), d) -
                       st.numa_distances.begin();
        return within[static_cast<size_t>(node)][static_cast<size_t>(k)];
    };
    // Which CPUs the groups of the level being built cover: each level (of each CPU) stamps with
    // a number of its own, so that the array is never cleared.
    std::vector<int> covered(static_cast<size_t>(t.nr_cpus()), -1);
    int covering = 0;

    st.domains.resize(t.nr_cpus());
    for (const auto& cpu : t.cpus) {
        // Every topology level first, degenerate ones included: the kernel computes
        // imb_numa_nr before it removes levels whose span equals their child's.
        std::vector<SchedDomain> all;
        SchedDomain smt;
        smt.name = "SMT";
        smt.shares_llc = true;
        smt.imbalance_pct = SD_IMBALANCE_PCT_SMT;
        smt.span = smt_of(cpu.id);
        all.push_back(smt);
        SchedDomain mc;
        mc.name = "MC";
        mc.shares_llc = true;
        mc.span = llc_of(cpu.id);
        all.push_back(mc);
        SchedDomain pkg;
        pkg.name = "PKG";
        pkg.span = node_cpus[cpu.node];
        all.push_back(pkg);
        for (int d : st.numa_distances) {
            if (d == st.numa_distances.front()) continue;  // the local distance
            SchedDomain nd;
            nd.name = "NUMA";
            nd.numa = true;
            nd.imbalance_pct = SD_IMBALANCE_PCT_NUMA;
            nd.cache_nice_tries = SD_CACHE_NICE_TRIES_NUMA;
            nd.span = within_of(cpu.node, d);
            nd.numa_distance = d;
            all.push_back(nd);
        }
        // imb_numa_nr (v5.18): at the first domain above the LLC, the number of LLCs it spans
        // (or an eighth of its CPUs if it spans one), scaled up for the higher levels by how
        // many first-NUMA-level spans they cover.
        int imb = 0;
        size_t imb_span = 1;
        for (size_t l = 1; l < all.size(); ++l) {
            SchedDomain& sd = all[l];
            if (!sd.shares_llc && all[l - 1].shares_llc) {
                const size_t nr_llcs = sd.span.size() / all[l - 1].span.size();
                imb = nr_llcs == 1 ? static_cast<int>(sd.span.size() >> 3)
                                   : static_cast<int>(nr_llcs);
                imb = std::max(1, imb);
                sd.imb_numa_nr = imb;
                size_t top = l + 1;
                while (top < all.size() && !all[top].numa)
                    ++top;
                imb_span = top < all.size() ? all[top].span.size() : sd.span.size();
            } else if (!sd.shares_llc) {
                const int factor = std::max<int>(1, static_cast<int>(sd.span.size() / imb_span));
                sd.imb_numa_nr = imb * factor;
            }
        }
        // Degenerate levels go: single-CPU spans, and a parent with its child's span. The
        // parent's NUMA identity survives (a NUMA level keeps its flags and imb_numa_nr).
        std::vector<SchedDomain> levels;
        for (auto& sd : all) {
            if (sd.span.size() <= 1) continue;
            if (!levels.empty() && levels.back().span == sd.span) {
                if (sd.numa) levels.back() = sd;
                continue;
            }
            levels.push_back(std::move(sd));
        }
        // Groups: the child domains' spans. At NUMA levels the spans overlap, and, as
        // build_overlap_sched_groups() does, a CPU already covered by a group starts none.
        for (size_t l = 0; l < levels.size(); ++l) {
            auto& sd = levels[l];
            sd.level = static_cast<int>(l);
            sd.min_interval_ms = static_cast<unsigned>(sd.span.size());
            const int stamp = covering++;
            int dchild = -1;  // the reach of the NUMA level below, from this CPU's node
            auto pos = std::find(sd.span.begin(), sd.span.end(), cpu.id) - sd.span.begin();
            for (size_t k = 0; k < sd.span.size(); ++k) {
                const int c = sd.span[(pos + k) % sd.span.size()];
                if (covered[static_cast<size_t>(c)] == stamp) continue;
                std::vector<int> g;
                if (l == 0) {
                    g = {c};
                } else if (levels[l - 1].name == "SMT") {
                    g = smt_of(c);
                } else if (levels[l - 1].name == "MC") {
                    g = llc_of(c);
                } else if (levels[l - 1].name == "PKG") {
                    g = node_cpus[t.node_of(c)];
                } else {
                    // CPU c's own NUMA domain one level down: nodes within the child's reach.
                    if (dchild < 0)
                        for (int x : levels[l - 1].span)
                            dchild = std::max(dchild, t.node_distance(cpu.node, t.node_of(x)));
                    g = within_of(t.node_of(c), dchild);
                }
                for (int x : g)
                    covered[static_cast<size_t>(x)] = stamp;
                sd.holds_cpu.push_back(std::find(g.begin(), g.end(), cpu.id) != g.end());
                sd.groups.push_back(std::move(g));
            }
            // SD_PREFER_SIBLING: every non-NUMA level carries it; the parent reads the child's.
            sd.prefer_sibling = l > 0 && !levels[l - 1].numa;
        }
        st.domains[cpu.id] = std::move(levels);
    }
    number_groups(st, t.nr_cpus());
    // Until the profile says which kernel runs, the architecture's distance; System's
    // set_kernel_release() applies the release's (a Zen part's 32 from v5.4).
    apply_node_reclaim_distance(st, node_reclaim_distance(t.cpu, std::nullopt));
    return st;
}

}  // namespace numasim
