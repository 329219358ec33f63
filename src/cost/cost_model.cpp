#include "cost/cost_model.h"

#include <algorithm>
#include <bit>
#include <cmath>

#include <fmt/format.h>

#include "cost/constants.h"
#include "cost/counts_hash.h"
#include "cost/node_figures.h"
#include "machine/topology.h"
#include "mm/vma.h"
#include "sim/exact_add.h"

namespace numasim {

namespace {

// Newton passes per solve. Warm-started from the last tick, one or two passes usually reach the
// tolerance; the cap bounds the work when the running set changed a lot.
constexpr int kSolverPasses = 8;

// Regions whose placement views are kept at once: more than the distinct regions the running
// tasks of the largest preset read (896 CPUs, each with its own stack), so that two seldom take
// turns in one entry (PlacementViews, direct-mapped).
constexpr size_t kPlacementViews = 16384;

// Whether what runs on a CPU takes part in the solve: a task in a phase that touches memory.
bool in_solve(const CpuRunning& r) {
    return r.task >= 0 && r.mix && !r.mix->streams.empty();
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

CostModel::RegionKey CostModel::region_key(const Region& r) {
    return {r.vma->object.get(), r.vma->pgoff + r.first};
}

void CostModel::init(const Topology& t, const cost::Constants& k) {
    k_ = k;
    nodes_ = t.nr_nodes();
    ghz_ = t.hw.cpu_ghz > 0 ? t.hw.cpu_ghz : 2.0;
    llc_bytes_ = static_cast<double>(t.hw.llc_bytes);
    llc_lat_ = t.hw.llc_latency_ns;
    mlp_default_ = t.hw.line_fill_buffers;
    smt_speedup_ = t.hw.smt_core_speedup;
    directory_write_.clear();
    if (t.hw.memory_directory) {
        directory_write_.assign(static_cast<size_t>(nodes_) * nodes_, 0);
        const auto package = [&](int n) { return t.cpus[t.nodes[n].cpus.front()].package; };
        for (int a = 0; a < nodes_; ++a)
            for (int b = 0; b < nodes_; ++b)
                if (!t.nodes[a].cpus.empty() && !t.nodes[b].cpus.empty())
                    directory_write_[a * nodes_ + b] = package(a) != package(b);
    }
    lat_.assign(static_cast<size_t>(nodes_) * nodes_, 0);
    for (int a = 0; a < nodes_; ++a)
        for (int b = 0; b < nodes_; ++b)
            lat_[a * nodes_ + b] = idle_latency_ns(t, a, b);

    // Resources: each node's DRAM, then each direction of each direct link. The knee of a
    // resource's loaded-latency curve scales with the idle latency it adds to an access.
    net_.init(t);
    const double local = t.hw.latency(10);
    std::vector<BandwidthSolver::Resource> res;
    for (int n = 0; n < nodes_; ++n)
        res.push_back(
            {memory_bandwidth_gbs(t, n), k_.LOADED_LATENCY_KNEE * memory_latency_ns(t, n)});
    for (int l = 0; l < net_.nr_links(); ++l) {
        const auto& k = net_.link(l);
        const double hop = std::max(1.0, latency_ns(k.from, k.to) - local);
        res.push_back({t.hw.link_bandwidth_gbs, k_.LOADED_LATENCY_KNEE * hop});
    }
    solver_.init(std::move(res));
    stream_rate_.assign(static_cast<size_t>(nodes_) * nodes_, StreamRate{});
    ++solves_;
    kernel_bytes_.assign(static_cast<size_t>(solver_.nr_resources()), 0.0);
    w_.assign(nodes_, 0);
    rd_.assign(nodes_, 0);
    wb_.assign(nodes_, 0);
    dir_.assign(nodes_, 0);

    const int ncpu = t.nr_cpus();
    llc_of_cpu_.resize(ncpu);
    core_of_cpu_.resize(ncpu);
    node_of_cpu_.resize(ncpu);
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
    core_last_task_.assign(ncore, -1);
    core_mlp_sum_.assign(ncore, 0);
    core_mlp_cap_.assign(ncore, mlp_default_);
    for (const auto& c : t.cpus)
        ++core_threads_[c.core];
    solved_task_.assign(ncpu, -1);
    solved_index_.assign(ncpu, -1);
    demand_.assign(ncpu, Demand{});
    line_terms_.assign(ncpu, LineTerms{});
    views_.init(nodes_, kPlacementViews);
    share_slots_.assign(std::bit_ceil(2 * static_cast<size_t>(ncpu)), ShareSlot{});
    sharing_input_.assign(ncpu, SharingInput{});
    solved_input_.assign(ncpu, SolvedInput{});
    sharing_valid_ = false;
}

double CostModel::path_delay_ns(int cpu_node, int nid) const {
    double q = solver_.delay(nid);
    for (const auto& h : net_.route(nid, cpu_node))
        q += h.share * solver_.delay(nodes_ + h.link);
    return q;
}

double CostModel::link_load_gbs(int a, int b) const {
    const int l = net_.direct(a, b);
    return l < 0 ? 0.0 : solver_.load(nodes_ + l);
}

double CostModel::link_utilisation(int a, int b) const {
    const int l = net_.direct(a, b);
    return l < 0 ? 0.0 : solver_.utilisation(nodes_ + l);
}

CostModel::LineCost CostModel::line_demand(const AccessMix& ph, int cpu,
                                           const std::vector<Demand::KeyStream>* keys) const {
    const int cnode = node_of_cpu_[cpu];
    const int core = core_of_cpu_[cpu];
    // The task's own MLP, and its share of the core's line fill buffers when SMT siblings
    // stream at the same time (Intel's LFBs are shared competitively between the threads).
    const double own = ph.mlp > 0 ? ph.mlp : mlp_default_;
    const double sum = core_mlp_sum_[core];
    const double mlp = sum > core_mlp_cap_[core] ? own * core_mlp_cap_[core] / sum : own;
    // CPU work per line: the rate at local latency minus the local memory stall (alone).
    double t_cpu = std::max(
        0.0, cost::CACHE_LINE_BYTES / std::max(ph.rate_gbs, 1e-9) - latency_ns(cnode, cnode) / own);
    if (core_busy_[core] > 1 && core_threads_[core] > 1)
        t_cpu *= static_cast<double>(core_busy_[core]) / smt_speedup_;
    const double llc_share = llc_bytes_ > 0 && llc_footprint_[llc_of_cpu_[cpu]] > 0
                                 ? llc_bytes_ / llc_footprint_[llc_of_cpu_[cpu]]
                                 : 1.0;
    std::fill(w_.begin(), w_.end(), 0.0);
    std::fill(rd_.begin(), rd_.end(), 0.0);
    std::fill(wb_.begin(), wb_.end(), 0.0);
    std::fill(dir_.begin(), dir_.end(), 0.0);
    // The terms of each stream are those kept for cpu where the stream, its region's view and
    // what the whole mix shares (MLP, LLC share) are what they were taken with; else taken now.
    LineTerms* kept = nullptr;
    if (keys) {
        kept = &line_terms_[static_cast<size_t>(cpu)];
        if (kept->mlp != mlp || kept->llc_share != llc_share) {
            kept->mlp = mlp;
            kept->llc_share = llc_share;
            kept->streams.clear();
        }
        if (kept->streams.size() < ph.streams.size()) {
            kept->streams.resize(ph.streams.size());
            kept->nodes.resize(ph.streams.size() * static_cast<size_t>(nodes_));
        }
    } else {
        scratch_terms_.nodes.resize(static_cast<size_t>(nodes_));
    }
    LineCost lc;
    lc.fixed_ns = t_cpu;
    for (size_t i = 0; i < ph.streams.size(); ++i) {
        const AccessStream& s = ph.streams[i];
        StreamTerms* st = &scratch_terms_.one;
        NodeTerms* nt = scratch_terms_.nodes.data();
        if (kept) {
            st = &kept->streams[i];
            nt = kept->nodes.data() + i * static_cast<size_t>(nodes_);
            const uint64_t view = (*keys)[i].view;
            if (st->view != view || st->share != s.share ||
                st->write_fraction != s.write_fraction || st->pattern != s.pattern) {
                stream_terms(s, cnode, mlp, llc_share, *st, nt);
                st->view = view;
            }
        } else {
            stream_terms(s, cnode, mlp, llc_share, *st, nt);
        }
        // Added up in the order the terms were taken in, stream by stream, node by node.
        lc.fixed_ns += st->hit_ns;
        lc.misses += st->miss;
        if (st->miss <= 0) continue;
        for (int n = 0; n < nodes_; ++n) {
            const NodeTerms& t = nt[n];
            if (!t.used) continue;
            lc.fixed_ns += t.fixed_ns;
            lc.remote_ns += t.remote_ns;
            w_[n] += t.w;
            rd_[n] += t.rd;
            wb_[n] += t.wb;
            if (!directory_write_.empty() && directory_write_[cnode * nodes_ + n]) dir_[n] += t.dir;
        }
    }
    return lc;
}

void CostModel::stream_terms(const AccessStream& s, int cnode, double mlp, double llc_share,
                             StreamTerms& st, NodeTerms* nt) const {
    const double line = cost::CACHE_LINE_BYTES;
    const Region* r = s.region;
    const double footprint = static_cast<double>(r->bytes());
    const double hit = llc_hit_fraction(s.pattern, footprint, footprint * std::min(1.0, llc_share));
    const double miss = s.share * (1 - hit);
    const double wback = s.write_fraction * (cost::WRITE_TRAFFIC_FACTOR - 1.0);
    st.share = s.share;
    st.write_fraction = s.write_fraction;
    st.pattern = s.pattern;
    st.hit_ns = s.share * hit * llc_lat_ / mlp;
    st.miss = miss;
    for (int n = 0; n < nodes_; ++n)
        nt[n].used = false;
    if (miss <= 0) return;
    for (int n = 0; n < nodes_; ++n) {
        // Pages not yet touched are first-touched on the task's node.
        const double f = r->present == 0 ? (n == cnode ? 1.0 : 0.0)
                                         : static_cast<double>(r->pages_on(n)) / r->present;
        if (f <= 0) continue;
        NodeTerms& t = nt[n];
        t.used = true;
        t.fixed_ns = miss * f * latency_ns(cnode, n) / mlp;
        t.remote_ns = miss * f * (latency_ns(cnode, n) - latency_ns(cnode, cnode)) / mlp;
        t.w = miss * f / mlp;
        t.rd = line * miss * f;
        t.wb = line * miss * f * wback;
        // A store that misses to another socket's DRAM takes the line exclusive there: with a
        // memory directory the home writes the line back to record that (I -> A).
        t.dir = line * miss * f * s.write_fraction * cost::DIRECTORY_WRITES_PER_REMOTE_STORE;
    }
}

// DRAM of every node the task misses to (reads and write-backs); the links on the route of the
// data back to the CPU (whose delay the task waits on) and of the write-backs out (posted).
template <class F>
void CostModel::for_each_use(int cpu_node, F&& f) const {
    for (int n = 0; n < nodes_; ++n) {
        if (w_[n] <= 0 && rd_[n] <= 0 && wb_[n] <= 0) continue;
        f(n, w_[n], rd_[n] + wb_[n] + dir_[n]);
        if (n == cpu_node) continue;
        for (const auto& h : net_.route(n, cpu_node))
            f(nodes_ + h.link, w_[n] * h.share, rd_[n] * h.share);
        if (wb_[n] > 0)
            for (const auto& h : net_.route(cpu_node, n))
                f(nodes_ + h.link, 0.0, wb_[n] * h.share);
    }
}

bool CostModel::demand_key_matches(const Demand& d, const AccessMix& a, int cpu) const {
    // The placement views first: where pages move, they are what differs (the streams'
    // regions are compared with the streams below).
    if (!d.valid || a.streams.size() != d.streams.size() || !views_match(d, a)) return false;
    if (d.rate_gbs != a.rate_gbs || d.mlp != a.mlp) return false;
    const int core = core_of_cpu_[cpu];
    if (d.core_mlp_sum != core_mlp_sum_[core] || d.core_mlp_cap != core_mlp_cap_[core] ||
        d.core_busy != core_busy_[core] || d.llc_footprint != llc_footprint_[llc_of_cpu_[cpu]])
        return false;
    for (size_t i = 0; i < a.streams.size(); ++i)
        if (!(a.streams[i] == d.streams[i].stream)) return false;
    return true;
}

namespace {

uint64_t shared_stamp(const Region& r) {
    return r.shared ? r.shared->stamp.value : 0;
}

}  // namespace

bool CostModel::views_match(const Demand& d, const AccessMix& a) const {
    for (size_t i = 0; i < a.streams.size(); ++i) {
        const Region& r = *a.streams[i].region;
        const Demand::KeyStream& k = d.streams[i];
        const uint64_t shared = shared_stamp(r);
        if (r.stamp.value == k.stamp && shared == k.shared_stamp) continue;
        if (views_.id(r) != k.view) return false;
        k.stamp = r.stamp.value;
        k.shared_stamp = shared;
    }
    return true;
}

void CostModel::key_streams(Demand& d, const AccessMix& a) const {
    d.streams.clear();
    for (const AccessStream& s : a.streams)
        d.streams.push_back(
            {s, views_.id(*s.region), s.region->stamp.value, shared_stamp(*s.region)});
}

CostModel::DemandValue& CostModel::own_value(Demand& d) const {
    if (!d.value || d.value.use_count() != 1) {
        if (spare_values_.empty()) {
            d.value = std::make_shared<DemandValue>();
        } else {
            d.value = std::move(spare_values_.back());
            spare_values_.pop_back();
        }
    }
    return *d.value;
}

void CostModel::derive_value(Demand& d, const AccessMix& a, int cpu, bool kept_terms) const {
    DemandValue& v = own_value(d);
    v.lc = line_demand(a, cpu, kept_terms ? &d.streams : nullptr);
    v.uses.clear();
    for_each_use(node_of_cpu_[cpu], [&](int r, double w, double bytes) {
        v.uses.push_back({r, w, bytes});
    });
    v.per_resource.clear();
    for (const Use& u : v.uses)
        BandwidthSolver::add_up(v.per_resource, 0, u);
    v.id = ++last_value_id_;
    v.rate_generation = 0;
}

void CostModel::derive_demand(Demand& d, const AccessMix& a, int cpu) const {
    // The key first: its views say which streams' terms kept for cpu still stand.
    key_streams(d, a);
    derive_value(d, a, cpu, demand_cache_);
    d.rate_gbs = a.rate_gbs;
    d.mlp = a.mlp;
    const int core = core_of_cpu_[cpu];
    d.core_mlp_sum = core_mlp_sum_[core];
    d.core_mlp_cap = core_mlp_cap_[core];
    d.core_busy = core_busy_[core];
    d.llc_footprint = llc_footprint_[llc_of_cpu_[cpu]];
    d.valid = true;
    d.solved_mix = nullptr;
}

const CostModel::Demand& CostModel::demand(const AccessMix& a, int cpu, bool views_only) const {
    Demand& d = demand_[cpu];
    if (demand_cache_) {
        if (views_only ? views_match(d, a) : demand_key_matches(d, a, cpu)) {
            ++demand_hits_;
            return d;
        }
        ++demand_misses_;
        derive_or_share(d, a, cpu);
        return d;
    }
    derive_demand(d, a, cpu);
    return d;
}

std::optional<std::string> CostModel::find_stale_demand(const AccessMix& a, int cpu) const {
    // The counts' hash kept for each region (cost/counts_hash.h), taken again from the counts.
    for (const AccessStream& s : a.streams) {
        const Region& r = *s.region;
        const std::optional<uint64_t> kept = kept_region_counts_hash(r);
        const uint64_t now = fresh_region_counts_hash(r, nodes_);
        if (kept && *kept != now)
            return fmt::format(
                "cpu {}: region {}: the page counts' hash kept at its stamps ({:#x}) differs from "
                "the hash of its counts now ({:#x}): a page count changed without Region::stamp",
                cpu, r.name, *kept, now);
        // And the shares its placement view keeps at those stamps.
        if (const auto stale = views_.find_stale(r)) return fmt::format("cpu {}: {}", cpu, *stale);
    }
    const Demand& kept = demand_[cpu];
    // The rate kept with the kept value for this generation, against the rate's own sum.
    if (kept.value && kept.value->rate_generation == generation_) {
        const auto [t, theta] = loaded_line(kept);
        const double npb = t / (cost::CACHE_LINE_BYTES * theta);
        if (npb != kept.value->rate_ns_per_byte)
            return fmt::format(
                "cpu {}: the rate kept with its demand for this solve ({} ns per byte) differs "
                "from the rate of that demand under the solve's delays ({}): a delay or the "
                "demand changed without CostModel's generation",
                cpu, kept.value->rate_ns_per_byte, npb);
    }
    if (!demand_cache_ || a.streams.empty() || !demand_key_matches(kept, a, cpu))
        return std::nullopt;
    Demand now;
    derive_value(now, a, cpu);
    const DemandValue &k = *kept.value, &n = *now.value;
    if (k.lc.fixed_ns == n.lc.fixed_ns && k.lc.misses == n.lc.misses && k.uses == n.uses &&
        k.per_resource == n.per_resource)
        return std::nullopt;
    return "cpu " + std::to_string(cpu) + ": the kept memory demand (" +
           std::to_string(k.lc.fixed_ns) + " ns per line, " + std::to_string(k.uses.size()) +
           " resources) differs from the demand derived now (" + std::to_string(n.lc.fixed_ns) +
           " ns, " + std::to_string(n.uses.size()) +
           ") with the same placement stamps: a page count changed without Region::stamp";
}

std::optional<std::string> CostModel::find_stale_solve(Nanos now) const {
    if (!kept_solve_ || now != last_update_) return std::nullopt;
    // The solve the update skipped, on a copy: the same delays and step memory to start from.
    BandwidthSolver fresh = solver_;
    fresh.clear();
    for (size_t cpu = 0; cpu < last_running_.size(); ++cpu) {
        const CpuRunning& r = last_running_[cpu];
        if (!in_solve(r)) continue;
        Demand d;
        derive_value(d, *r.mix, static_cast<int>(cpu));
        // Each task on its own (no value id): the solve the update's would be without taking
        // one task's figures for another's.
        fresh.add_task(d.value->lc.fixed_ns, r.user_share);
        fresh.add_uses(d.value->per_resource);
    }
    fresh.solve(kSolverPasses);
    if (fresh.same_result(solver_)) return std::nullopt;
    return "the bandwidth solve kept at this update differs from a solve of its input: an input "
           "changed without moving PlacementStamp::epoch or what runs on a CPU";
}

std::optional<std::string> CostModel::find_stale_note(const RateNote& note, const AccessMix& a,
                                                      int cpu) const {
    if (!a.streams.empty() && solve_took(a, cpu, note) && !demand_key_matches(demand_[cpu], a, cpu))
        return fmt::format(
            "cpu {}: the kept memory demand would be taken as the last solve's for this mix, "
            "but its key no longer matches the mix",
            cpu);
    if (!note_stands(note, cpu)) return std::nullopt;
    // Derived into a demand of its own, not through the kept one that ns_per_byte would use.
    double npb, miss = 0;
    if (a.streams.empty()) {
        npb = ns_per_byte(a, cpu, &miss);
    } else {
        Demand d;
        derive_value(d, a, cpu);
        npb = demand_ns_per_byte(d, &miss);
    }
    if (npb == note.ns_per_byte && miss == note.miss_per_byte) return std::nullopt;
    return fmt::format(
        "cpu {}: a rate note says {} ns and {} LLC misses per byte, the rate "
        "derived now {} and {}, with nothing moved that it stands on",
        cpu, note.ns_per_byte, note.miss_per_byte, npb, miss);
}

std::pair<double, double> CostModel::loaded_line(const Demand& d) const {
    double t = d.value->lc.fixed_ns, theta = 1.0;
    for (const Use& u : d.value->uses) {
        t += u.stall_weight * solver_.delay(u.resource);
        if (u.bytes > 0) theta = std::min(theta, solver_.clip(u.resource));
    }
    return {t, theta};
}

double CostModel::ns_per_byte(const AccessMix& a, int cpu, double* miss_per_byte) const {
    if (a.streams.empty()) {
        if (miss_per_byte) *miss_per_byte = 0;
        return 1.0 / std::max(a.rate_gbs, 1e-9);
    }
    return demand_ns_per_byte(demand(a, cpu), miss_per_byte);
}

double CostModel::demand_ns_per_byte(const Demand& d, double* miss_per_byte) const {
    const DemandValue& v = *d.value;
    if (miss_per_byte) *miss_per_byte = v.lc.misses / cost::CACHE_LINE_BYTES;
    if (v.rate_generation != generation_) {
        const auto [t, theta] = loaded_line(d);
        v.rate_ns_per_byte = t / (cost::CACHE_LINE_BYTES * theta);
        v.rate_generation = generation_;
    }
    return v.rate_ns_per_byte;
}

// Inlined into the note refresh, its one caller at run time, as loaded_line is into the other
// overload's: called, its spills and returns cost more than the remote sum it adds.
[[gnu::always_inline]] inline double CostModel::demand_remote_per_byte(
    const Demand& d, double& ns_per_byte, double* miss_per_byte) const {
    // loaded_line's sum and clip, with the remote part summed beside the whole: each use's
    // stall is the same product in both. The bandwidth clip stretches every line alike, the
    // remote part with it.
    const DemandValue& v = *d.value;
    double t = v.lc.fixed_ns, remote = v.lc.remote_ns, theta = 1.0;
    for (const Use& u : v.uses) {
        const double stall = u.stall_weight * solver_.delay(u.resource);
        t += stall;
        if (u.resource >= nodes_) remote += stall;
        if (u.bytes > 0) theta = std::min(theta, solver_.clip(u.resource));
    }
    if (miss_per_byte) *miss_per_byte = v.lc.misses / cost::CACHE_LINE_BYTES;
    ns_per_byte = t / (cost::CACHE_LINE_BYTES * theta);
    return std::max(remote, 0.0) / (cost::CACHE_LINE_BYTES * theta);
}

bool CostModel::note_stands(const RateNote& note, int cpu) const {
    return note.cpu == cpu && note.generation == generation_ && note.epoch == PlacementStamp::epoch;
}

// The solve compared the key (or derived the demand) for the mix at &a, and nothing the key
// holds has moved since: not the sharing (generation), not the placement views of its regions
// (none if no placement moved anywhere, epoch; else compared), not the kept demand (derived
// again for another mix, solved_mix would be cleared). The mix itself changes only with a
// cleared note, and a note taken after the solve would still stand here.
bool CostModel::solve_took(const AccessMix& a, int cpu, const RateNote& note) const {
    const Demand& d = demand_[cpu];
    return demand_cache_ && note.cpu == cpu && generation_ == solve_generation_ &&
           d.solved_mix == &a && (PlacementStamp::epoch == solved_epoch_ || views_match(d, a));
}

double CostModel::ns_per_byte(const AccessMix& a, int cpu, double* miss_per_byte,
                              RateNote& note) const {
    if (!note_stands(note, cpu)) {
        double miss = 0;
        double npb;
        if (!a.streams.empty() && solve_took(a, cpu, note)) {
            ++demand_hits_;  // what the key comparison would have found
            npb = demand_ns_per_byte(demand_[cpu], &miss);
        } else {
            npb = ns_per_byte(a, cpu, &miss);
        }
        note = RateNote{cpu, demand_cache_ ? generation_ : 0, PlacementStamp::epoch, npb, miss};
    }
    if (miss_per_byte) *miss_per_byte = note.miss_per_byte;
    return note.ns_per_byte;
}

double CostModel::ns_per_byte(const AccessMix& a, int cpu, double* miss_per_byte, RateNote& note,
                              double& remote_per_byte) const {
    if (!note_stands(note, cpu)) {
        // The other overload's derivation, with the remote part from the same pass.
        double miss = 0;
        double npb;
        if (a.streams.empty()) {
            npb = ns_per_byte(a, cpu, &miss);
            remote_per_byte = 0.0;
        } else if (solve_took(a, cpu, note)) {
            ++demand_hits_;  // what the key comparison would have found
            remote_per_byte = demand_remote_per_byte(demand_[cpu], npb, &miss);
        } else {
            remote_per_byte = demand_remote_per_byte(demand(a, cpu), npb, &miss);
        }
        note = RateNote{cpu, demand_cache_ ? generation_ : 0, PlacementStamp::epoch, npb, miss};
    }
    if (miss_per_byte) *miss_per_byte = note.miss_per_byte;
    return note.ns_per_byte;
}

double CostModel::rate_gbs(const AccessMix& a, int cpu, int task) const {
    if (task >= 0 && solved_task_[cpu] == task)
        return cost::CACHE_LINE_BYTES * solver_.task_rate(solved_index_[cpu]);
    return 1.0 / ns_per_byte(a, cpu);
}

double CostModel::kernel_stream_gbs(int cpu_node, int nid) const {
    StreamRate& kept = stream_rate_[static_cast<size_t>(cpu_node) * nodes_ + nid];
    if (kept.solve == solves_) return kept.gbs;
    // One core streams line_fill_buffers lines per latency (Little's law), at the loaded latency
    // of the path and no faster than the resources on it deliver.
    double theta = solver_.clip(nid);
    for (const auto& h : net_.route(nid, cpu_node))
        theta = std::min(theta, solver_.clip(nodes_ + h.link));
    for (const auto& h : net_.route(cpu_node, nid))
        theta = std::min(theta, solver_.clip(nodes_ + h.link));
    const double lat = latency_ns(cpu_node, nid) + path_delay_ns(cpu_node, nid);
    kept = {mlp_default_ * cost::CACHE_LINE_BYTES / lat * theta, solves_};
    return kept.gbs;
}

// `times` transfers add up one after the other: the bits they reach (a product would round
// differently).
void CostModel::read_traffic(int mem_node, int cpu_node, double bytes, uint64_t times) const {
    exact_add_n(kernel_bytes_[mem_node], bytes, times);
    for (const auto& h : net_.route(mem_node, cpu_node))
        exact_add_n(kernel_bytes_[nodes_ + h.link], bytes * h.share, times);
}

void CostModel::write_traffic(int cpu_node, int mem_node, double bytes, uint64_t times) const {
    exact_add_n(kernel_bytes_[mem_node], bytes, times);
    for (const auto& h : net_.route(cpu_node, mem_node))
        exact_add_n(kernel_bytes_[nodes_ + h.link], bytes * h.share, times);
}

double CostModel::clear_ns(int cpu_node, int nid, double bytes, uint64_t times) const {
    const double rate = kernel_stream_gbs(cpu_node, nid);
    write_traffic(cpu_node, nid, bytes, times);
    return bytes / rate;
}

double CostModel::copy_ns(double bytes, int from, int to, uint64_t times) const {
    const double rate = std::min(kernel_stream_gbs(to, from), kernel_stream_gbs(to, to));
    // The read loads `from` and the links back to `to`, the write only `to` (the write's route
    // is empty): different sums, or with from == to the same bytes added to one, in any order.
    read_traffic(from, to, bytes, times);
    write_traffic(to, to, bytes, times);
    return bytes / (rate * k_.COPY_BANDWIDTH_FRACTION);
}

double CostModel::working_set_line_ns(const AccessMix& a, int cpu_node) const {
    double lat = 0, weight = 0;
    for (const AccessStream& s : a.streams) {
        const Region* r = s.region;
        for (int n = 0; n < nodes_; ++n) {
            const double f = r->present == 0 ? (n == cpu_node ? 1.0 : 0.0)
                                             : static_cast<double>(r->pages_on(n)) / r->present;
            if (f <= 0) continue;
            lat += s.share * f * (latency_ns(cpu_node, n) + path_delay_ns(cpu_node, n));
            weight += s.share * f;
        }
    }
    return weight > 0 ? lat / weight / mlp_default_ : 0.0;
}

void CostModel::update_llc_and_cores(std::span<const CpuRunning> running) {
    std::fill(core_busy_.begin(), core_busy_.end(), 0);
    std::fill(core_mlp_sum_.begin(), core_mlp_sum_.end(), 0.0);
    std::fill(core_mlp_cap_.begin(), core_mlp_cap_.end(), mlp_default_);
    std::fill(llc_footprint_.begin(), llc_footprint_.end(), 0.0);
    // LLC footprints: distinct memory objects touched by the tasks running on each LLC. Each
    // LLC keeps its own short list of keys, so the de-duplication stays linear in the tasks.
    for (auto& keys : llc_keys_)
        keys.clear();
    for (size_t cpu = 0; cpu < running.size(); ++cpu) {
        const CpuRunning& r = running[cpu];
        if (r.task < 0) continue;
        const int core = core_of_cpu_[cpu];
        core_last_task_[core] = r.task;
        if (!r.mix) continue;
        ++core_busy_[core];
        if (!r.mix->streams.empty()) {
            const double own = r.mix->mlp > 0 ? r.mix->mlp : mlp_default_;
            core_mlp_sum_[core] += own;
            core_mlp_cap_[core] = std::max(core_mlp_cap_[core], own);
        }
        const int llc = llc_of_cpu_[cpu];
        auto& keys = llc_keys_[llc];
        for (const AccessStream& s : r.mix->streams) {
            // Mappings of the same object share cache lines (COW-shared or file pages).
            const RegionKey key = region_key(*s.region);
            if (std::find(keys.begin(), keys.end(), key) != keys.end()) continue;
            keys.push_back(key);
            llc_footprint_[llc] += static_cast<double>(s.region->bytes());
        }
    }
}

bool CostModel::same_sharing(std::span<const CpuRunning> running, std::span<const int> changed) {
    bool same = sharing_valid_;
    // The inputs of the CPUs left out are those recorded at the last comparison: they ran the
    // same since, as the caller vouches.
    const bool all = !sharing_valid_ || changed.empty();
    const size_t nr = all ? running.size() : changed.size();
    for (size_t k = 0; k < nr; ++k) {
        const size_t cpu = all ? k : static_cast<size_t>(changed[k]);
        const CpuRunning& r = running[cpu];
        SharingInput& in = sharing_input_[cpu];
        const bool has_mix = r.task >= 0 && r.mix;
        if (r.task == in.task && has_mix == in.has_mix &&
            (!has_mix ||
             (r.mix->mlp == in.mlp && std::equal(r.mix->streams.begin(), r.mix->streams.end(),
                                                 in.streams.begin(), in.streams.end()))))
            continue;
        same = false;
        in.task = r.task;
        in.has_mix = has_mix;
        in.mlp = has_mix ? r.mix->mlp : 0;
        if (has_mix)
            in.streams.assign(r.mix->streams.begin(), r.mix->streams.end());
        else
            in.streams.clear();
    }
    sharing_valid_ = true;
    return same;
}

bool CostModel::repeats_last_solve(std::span<const CpuRunning> running) const {
    if (!solver_.at_fixed_point() || solved_background_ || solved_epoch_ != PlacementStamp::epoch)
        return false;
    for (double bytes : kernel_bytes_)
        if (bytes != 0) return false;
    for (size_t cpu = 0; cpu < running.size(); ++cpu) {
        const CpuRunning& r = running[cpu];
        const SolvedInput& in = solved_input_[cpu];
        const bool counted = in_solve(r);
        if (counted != in.counted ||
            (counted && (r.mix->rate_gbs != in.rate_gbs || r.user_share != in.user_share)))
            return false;
    }
    return true;
}

void CostModel::update(std::span<const CpuRunning> running, Nanos now, bool same_running,
                       std::span<const int> changed) {
    const Nanos window = now - last_update_;
    // Whether the sharing is still what the last solve compared the kept demands' keys under.
    const bool sharing_as_solved = generation_ == solve_generation_;
    // Footprints and SMT sharing depend only on what runs where.
    const bool same =
        ((same_running && sharing_valid_) || same_sharing(running, changed)) && demand_cache_;
    if (!same) {
        update_llc_and_cores(running);
        ++generation_;
    }
    // A solve given what the last one was, from the delays it ended at, would repeat it bit for
    // bit: keep its result (a settled machine, where nothing moves, solves once).
    kept_solve_ = same && repeats_last_solve(running);
    if (kept_solve_) {
        last_running_.assign(running.begin(), running.end());  // for find_stale_solve
        ++solves_kept_;
        last_update_ = now;
        return;
    }

    solver_.clear();
    // Kernel copies and clears since the last update load this solve (without an interval to
    // spread them over they wait for the next).
    bool had_background = false;
    if (window > 0)
        for (int r = 0; r < solver_.nr_resources(); ++r) {
            had_background |= kernel_bytes_[r] != 0;
            solver_.set_background(r, kernel_bytes_[r] / static_cast<double>(window));
            kernel_bytes_[r] = 0;
        }
    std::fill(solved_task_.begin(), solved_task_.end(), -1);
    int k = 0;
    for (size_t cpu = 0; cpu < running.size(); ++cpu) {
        const CpuRunning& r = running[cpu];
        SolvedInput& in = solved_input_[cpu];
        in.counted = in_solve(r);
        if (!in.counted) {
            demand_[cpu].solved_mix = nullptr;
            continue;
        }
        in.rate_gbs = r.mix->rate_gbs;
        in.user_share = r.user_share;
        const int c = static_cast<int>(cpu);
        Demand& kept = demand_[cpu];
        const bool as_solved = same && sharing_as_solved && r.mix_version != 0 &&
                               kept.solved_mix == r.mix && kept.solved_version == r.mix_version;
        const Demand& d = demand(*r.mix, c, as_solved);
        solver_.add_task(d.value->lc.fixed_ns, r.user_share);
        solver_.add_uses(d.value->per_resource, d.value->id);
        kept.solved_mix = r.mix;
        kept.solved_version = r.mix_version;
        solved_task_[c] = r.task;
        solved_index_[c] = k++;
    }
    solver_.solve(kSolverPasses);
    ++solves_;
    ++generation_;
    solve_generation_ = generation_;
    solved_epoch_ = PlacementStamp::epoch;
    solved_background_ = had_background;
    last_update_ = now;
}

}  // namespace numasim
