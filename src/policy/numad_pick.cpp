#include "policy/numad_pick.h"

#include <bit>
#include <cmath>

namespace numasim {

namespace {

bool in_list(uint64_t mask, size_t n) {
    return n < 64 && ((mask >> n) & 1);
}

// numad's selection sort of node indices by distance from node `from` (nearest first), a tie
// going to the larger magnitude and then staying in the order the swaps left.
std::vector<size_t> by_distance(const std::vector<NumadNode>& t,
                                const std::vector<uint64_t>& magnitude, size_t from) {
    const size_t n = t.size();
    std::vector<size_t> index(n);
    for (size_t i = 0; i < n; ++i)
        index[i] = i;
    for (size_t ij = 0; ij < n; ++ij) {
        size_t best = ij;
        for (size_t ik = ij + 1; ik < n; ++ik) {
            const int ik_dist = t[index[ik]].distance[from];
            const int best_dist = t[index[best]].distance[from];
            if (best_dist > ik_dist ||
                (best_dist == ik_dist && magnitude[index[best]] < magnitude[index[ik]]))
                best = ik;
        }
        std::swap(index[ij], index[best]);
    }
    return index;
}

int64_t ceil_div(int64_t a, int64_t b) {
    return static_cast<int64_t>(std::ceil(static_cast<double>(a) / static_cast<double>(b)));
}

}  // namespace

uint64_t numad_magnitude(int64_t mbs, int64_t cpus, int64_t mbs_free, int64_t cpus_free) {
    const int64_t needed_mem = mbs_free > mbs ? mbs : mbs_free;
    const int64_t excess_mem = mbs_free > mbs ? mbs_free - mbs : 0;
    const int64_t needed_cpu = cpus_free > cpus ? cpus : cpus_free;
    const int64_t excess_cpu = cpus_free > cpus ? cpus_free - cpus : 0;
    const int64_t memfactor = needed_mem * 10 + excess_mem * 4;
    const int64_t cpufactor = needed_cpu * 6 + excess_cpu * 1;
    return static_cast<uint64_t>(memfactor * cpufactor);
}

uint64_t numad_pick_nodes(const std::vector<NumadNode>& nodes, uint64_t all_nodes,
                          const NumadPickProcess* p, int64_t cpus, int64_t mbs,
                          bool assume_enough_cpus, int target_utilization) {
    const size_t num_nodes = nodes.size();
    // The nodes' free resources as this process would see them: what it uses itself is added
    // back where it is, so that staying put compares fairly with moving.
    std::vector<NumadNode> t = nodes;
    std::vector<uint64_t> magnitude(num_nodes);
    int64_t sum_cpus_free = 0;
    const int bound_to = p ? std::popcount(p->node_list) : 0;
    int64_t proc_avg_node_cpus_free = 0;
    if (p) {
        proc_avg_node_cpus_free = p->cpus_used;
        for (size_t ix = 0; ix < num_nodes; ++ix)
            if (in_list(p->node_list, ix)) proc_avg_node_cpus_free += nodes[ix].cpus_free;
        proc_avg_node_cpus_free /= bound_to;
    }
    for (size_t ix = 0; ix < num_nodes; ++ix) {
        if (p) {
            const int64_t mine = p->process_mbs[ix];
            if (bound_to >= static_cast<int>(num_nodes)) {
                // Not yet bound: its memory here back with a light bias (17/16), and its CPU in
                // proportion to that memory.
                t[ix].mbs_free += mine * 17 / 16;
                t[ix].cpus_free += p->cpus_used * mine / p->mbs_used;
            } else {
                // Bound: its memory back with a heavy bias (5/4), and on its nodes the average
                // CPU it finds there.
                t[ix].mbs_free += mine * 5 / 4;
                if (in_list(p->node_list, ix)) t[ix].cpus_free = proc_avg_node_cpus_free;
            }
            sum_cpus_free += t[ix].cpus_free;
            t[ix].cpus_free = std::min(t[ix].cpus_free, t[ix].cpus_total);
            t[ix].mbs_free = std::min(t[ix].mbs_free, t[ix].mbs_total);
        }
        t[ix].cpus_free = std::max<int64_t>(t[ix].cpus_free, 1);  // at least 1/100 of a CPU
        magnitude[ix] = numad_magnitude(mbs, cpus, t[ix].mbs_free, t[ix].cpus_free);
    }
    // An oversubscribed machine is placed by memory alone.
    if (p && cpus > sum_cpus_free) assume_enough_cpus = true;
    // Half of the utilisation margin of one node's CPUs may go unmet.
    int64_t cpu_flex = 0;
    if (p && target_utilization < 100)
        cpu_flex = (100 - target_utilization) * nodes[0].cpus_total / 200;
    // The fewest nodes the request needs, counting every node as large as node 0.
    int64_t min_req_nodes =
        std::max(ceil_div(mbs, nodes[0].mbs_total), ceil_div(cpus - cpu_flex, nodes[0].cpus_total));
    min_req_nodes = std::min<int64_t>(min_req_nodes, static_cast<int64_t>(num_nodes));
    // For each node, the magnitudes of the nodes nearest it that the request needs, each
    // divided by the square of its distance; the best sum picks where to start.
    size_t best_node = 0;
    std::vector<uint64_t> totmag(num_nodes, 0);
    for (size_t ix = 0; ix < num_nodes; ++ix) {
        const std::vector<size_t> index = by_distance(t, magnitude, ix);
        for (int64_t ij = 0; ij < min_req_nodes; ++ij) {
            const auto dist = static_cast<uint64_t>(t[index[ij]].distance[ix]);
            totmag[ix] += magnitude[index[ij]] / (dist * dist);
        }
        if (totmag[best_node] < totmag[ix]) best_node = ix;
    }
    // Take nodes outward from there until the request is met.
    const std::vector<size_t> index = by_distance(t, magnitude, best_node);
    uint64_t target = 0;
    for (size_t k = 0; k < num_nodes &&
                       (min_req_nodes > 0 || mbs > 0 || (cpus > cpu_flex && !assume_enough_cpus));
         ++k) {
        NumadNode& n = t[index[k]];
        target |= uint64_t{1} << index[k];
        --min_req_nodes;
        if (target == all_nodes) break;  // every node with memory is taken
        if (n.mbs_free >= mbs + NUMAD_MBS_MARGIN) {
            n.mbs_free -= mbs;
            mbs = 0;
        } else {
            mbs -= n.mbs_free - NUMAD_MBS_MARGIN;
            n.mbs_free = NUMAD_MBS_MARGIN;
        }
        if (n.cpus_free >= cpus + NUMAD_CPUS_MARGIN) {
            n.cpus_free -= cpus;
            cpus = 0;
        } else {
            cpus -= n.cpus_free - NUMAD_CPUS_MARGIN;
            n.cpus_free = NUMAD_CPUS_MARGIN;
        }
    }
    return target;
}

}  // namespace numasim
