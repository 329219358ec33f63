// Demands shared between CPUs (cost/cost_model.h): on a machine of hundreds of CPUs the threads
// of one process run the same phase on many CPUs of a node, and a page that moves in their
// shared region makes each of them derive its demand again. Those derivations read the same
// inputs: the streams' patterns and shares, their regions' sizes and page counts per node (each
// thread has its own stack region, so regions are compared by these, not by identity), the
// CPU's node and its core's and LLC's sharing. One is derived and the others take a copy.
#include <array>
#include <bit>
#include <cstdint>
#include <optional>

#include "cost/cost_model.h"
#include "cost/counts_hash.h"
#include "mm/vma.h"

namespace numasim {

namespace {

// 2^64 over the golden ratio, rounded to odd: the usual multiplier of Fibonacci hashing.
constexpr uint64_t kFibonacci = 0x9E3779B97F4A7C15ull;

// 64-bit mixing of one more word into a hash; the shift folds the high bits back into the low
// ones, which pick the slot.
uint64_t mix_in(uint64_t h, uint64_t v) {
    h = (h ^ v) * kFibonacci;
    return h ^ (h >> 32);
}

// The multiplier of share_key's i-th input word (and of the region counts' words from 11 on,
// fresh_region_counts_hash): odd, and different for each i.
constexpr uint64_t key_weight(uint64_t i) {
    return kFibonacci * (2 * i + 1);
}

uint64_t bits(double v) {
    return std::bit_cast<uint64_t>(v);
}

// Whether two streams ask the same of the memory system but for their regions: equal in
// everything else but where a sweep starts, which line_demand never reads.
bool same_but_region(AccessStream a, AccessStream b) {
    a.region = b.region = nullptr;
    a.start_at_thread_offset = b.start_at_thread_offset = false;
    a.start_page = b.start_page = 0;
    return a == b;
}

// Whether line_demand reads the same of regions a and b: size, present pages and their nodes.
bool same_counts(const Region& a, const Region& b, int nodes) {
    if (&a == &b) return true;
    if (a.bytes() != b.bytes() || a.present != b.present) return false;
    for (int n = 0; n < nodes; ++n)
        if (a.pages_on(n) != b.pages_on(n)) return false;
    return true;
}

}  // namespace

uint64_t CostModel::share_key(const AccessMix& a, int cpu) const {
    // A weighted sum of the inputs, each word times its own odd multiplier, mixed once per
    // stream: the products do not wait on each other, where a chain of mixes would. A
    // collision costs only a derivation: shareable() compares the inputs themselves.
    const int core = core_of_cpu_[cpu];
    uint64_t h = static_cast<uint64_t>(node_of_cpu_[cpu]) * key_weight(0) +
                 static_cast<uint64_t>(core_busy_[core]) * key_weight(1) +
                 static_cast<uint64_t>(core_threads_[core]) * key_weight(2) +
                 bits(core_mlp_sum_[core]) * key_weight(3) +
                 bits(core_mlp_cap_[core]) * key_weight(4) +
                 bits(llc_footprint_[llc_of_cpu_[cpu]]) * key_weight(5) +
                 bits(a.rate_gbs) * key_weight(6) + bits(a.mlp) * key_weight(7);
    for (const AccessStream& s : a.streams) {
        const uint64_t v = bits(s.share) * key_weight(8) + bits(s.write_fraction) * key_weight(9) +
                           static_cast<uint64_t>(s.pattern) * key_weight(10) +
                           region_counts_hash(*s.region, nodes_);
        h = mix_in(h, v);
    }
    return mix_in(h, 0);
}

namespace {

// The hashes kept, direct-mapped by the region's address. An entry stands for the region at its
// address only while both its stamps are those it was taken at: a stamp's value is never had by
// another owner (PlacementStamp), so a region made where a freed one was does not take up its
// entry. Per host thread, as the simulations that run in parallel are (like PlacementStamp's
// epoch); its size only sets how often two regions take turns in one entry (16384 entries,
// 512 KiB, leave about one region in twenty of a 896-CPU machine's thousand sharing one).
struct KeptCountsHash {
    const Region* region = nullptr;
    uint64_t stamp = 0, shared_stamp = 0, hash = 0;
};
constexpr size_t kKeptCountsHashes = 16384;  // a power of two
thread_local std::array<KeptCountsHash, kKeptCountsHashes> kept_counts_hashes;

KeptCountsHash& kept_entry(const Region& r) {
    const uint64_t a = reinterpret_cast<uintptr_t>(&r) * kFibonacci;
    return kept_counts_hashes[(a >> 40) & (kKeptCountsHashes - 1)];
}

uint64_t shared_stamp_of(const Region& r) {
    return r.shared ? r.shared->stamp.value : 0;
}

bool stands(const KeptCountsHash& e, const Region& r) {
    return e.region == &r && e.stamp == r.stamp.value && e.shared_stamp == shared_stamp_of(r);
}

}  // namespace

uint64_t fresh_region_counts_hash(const Region& r, int nodes) {
    uint64_t v = r.count * key_weight(11) + r.present * key_weight(12);
    for (int n = 0; n < nodes; ++n)
        v += r.pages_on(n) * key_weight(13 + static_cast<uint64_t>(n));
    return v;
}

uint64_t region_counts_hash(const Region& r, int nodes) {
    KeptCountsHash& e = kept_entry(r);
    if (stands(e, r)) return e.hash;
    e = KeptCountsHash{&r, r.stamp.value, shared_stamp_of(r), fresh_region_counts_hash(r, nodes)};
    return e.hash;
}

std::optional<uint64_t> kept_region_counts_hash(const Region& r) {
    const KeptCountsHash& e = kept_entry(r);
    if (!stands(e, r)) return std::nullopt;
    return e.hash;
}

bool CostModel::shareable(const Demand& kept, int from, const AccessMix& a, int cpu) const {
    // Everything line_demand and for_each_use read besides the machine's constants: the node,
    // the core's threads, and the key a derivation on cpu would keep.
    const int core = core_of_cpu_[cpu];
    if (!kept.valid || node_of_cpu_[from] != node_of_cpu_[cpu] ||
        core_threads_[core_of_cpu_[from]] != core_threads_[core] || kept.rate_gbs != a.rate_gbs ||
        kept.mlp != a.mlp || kept.core_mlp_sum != core_mlp_sum_[core] ||
        kept.core_mlp_cap != core_mlp_cap_[core] || kept.core_busy != core_busy_[core] ||
        kept.llc_footprint != llc_footprint_[llc_of_cpu_[cpu]] ||
        kept.streams.size() != a.streams.size())
        return false;
    for (size_t i = 0; i < a.streams.size(); ++i) {
        // The kept demand still holds for its own regions (their views did not move), and
        // those read as a's do.
        const Demand::KeyStream& k = kept.streams[i];
        const Region& r = *k.stream.region;
        if (k.view != views_.id(r) || !same_but_region(k.stream, a.streams[i]) ||
            !same_counts(r, *a.streams[i].region, nodes_))
            return false;
    }
    return true;
}

void CostModel::derive_or_share(Demand& d, const AccessMix& a, int cpu) const {
    const uint64_t key = share_key(a, cpu);
    ShareSlot& slot = share_slots_[key & (share_slots_.size() - 1)];
    const Demand* from = nullptr;
    if (slot.key == key && slot.cpu >= 0 && slot.cpu != cpu &&
        shareable(demand_[static_cast<size_t>(slot.cpu)], slot.cpu, a, cpu))
        from = &demand_[static_cast<size_t>(slot.cpu)];
    if (!from) {
        derive_demand(d, a, cpu);
    } else {
        // The value as derive_demand would compute it from the same inputs, held with `from`;
        // the key from `a` (its own regions and sweep starts) with its regions' views.
        ++demand_shares_;
        if (d.value != from->value) {
            // d's own value, which no other demand holds, is kept for a later derivation.
            if (d.value && d.value.use_count() == 1) spare_values_.push_back(std::move(d.value));
            d.value = from->value;
        }
        key_streams(d, a);
        d.rate_gbs = from->rate_gbs;
        d.mlp = from->mlp;
        d.core_mlp_sum = from->core_mlp_sum;
        d.core_mlp_cap = from->core_mlp_cap;
        d.core_busy = from->core_busy;
        d.llc_footprint = from->llc_footprint;
        d.valid = true;
        d.solved_mix = nullptr;
    }
    slot = ShareSlot{key, cpu};
}

}  // namespace numasim
