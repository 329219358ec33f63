// The performance model: how fast a task makes progress given where its memory is, and what the
// memory traffic of kernel work costs.
//
// A phase's rate is what the task achieves with its data in local DRAM, alone and uncontended.
// From it the model derives the CPU time per cache line (the rate minus the local memory stall)
// and then, for the task's actual placement, adds the memory stall of each access: LLC hits at
// LLC latency, misses at the SLIT-distance latency of the node holding the page plus the
// queueing delay of that node's DRAM and of every link on the route, divided by the
// memory-level parallelism. Busy SMT siblings share the core's throughput and its line fill
// buffers. The queueing delays come from a closed-loop solve over all running tasks once per
// tick (cost/bandwidth.h): delivered traffic never exceeds a DRAM's or a link's bandwidth.
//
// What each CPU's task asks of the memory system (its per-line CPU time and the stall weight
// and bytes it puts on each DRAM and link) is derived again only when something it derives from
// changed: the task's access mix, the placement of the pages of its regions (the shares of their
// pages per node, which a PlacementView reads again when Region::stamp moves), or its core's and
// LLC's sharing. The solve runs at every tick unless it would repeat the last one
// bit for bit (the same input, and the last solve ended where it began). On a machine whose
// tasks keep running with settled memory, each tick reuses every CPU's demand and the solve.
//
// The model sees no task: at each update the engine hands it, per CPU, the access mix of what
// runs there, an identity to recognise it by and the share of its last tick it spent in user
// mode (CpuRunning). The kernel's cost paths (mm/, sched/, numab/) ask it for rates and times.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "cost/access.h"
#include "cost/bandwidth.h"
#include "cost/constants.h"
#include "cost/interconnect.h"
#include "cost/placement_view.h"
#include "sim/clock.h"

namespace numasim {

struct MemObject;
struct Region;
struct Topology;

// What the cost model sees of the task running on one CPU at an update.
struct CpuRunning {
    const AccessMix* mix = nullptr;  // what its phase touches; nullptr between phases
    int task = -1;                   // an identity (the task's index); -1: the CPU is idle
    double user_share = 1.0;         // share of its last tick spent in user mode
    // The owner's version of *mix: it changes whenever *mix does (0: none, the mix is compared
    // by content).
    uint64_t mix_version = 0;
};

class CostModel {
  public:
    // `k`: the cost figures of this run (the published ones unless a draw of
    // `compare --uncertainty` gives others).
    void init(const Topology& t, const cost::Constants& k = cost::kNominal);
    // The cost figures the kernel's cost paths charge (cost/constants.h).
    const cost::Constants& k() const { return k_; }
    // At every tick: LLC footprints, SMT sharing and the bandwidth solve for what runs now
    // (`running[cpu]`), with the kernel traffic since the last update as background load.
    // `same_running` is the caller's word that every CPU runs the same task with the same mix
    // (by content) as at the last update, so that the sharing need not be compared again;
    // otherwise `changed`, if not empty, is its word that only those CPUs may run another task
    // or mix, so that only theirs are compared.
    void update(std::span<const CpuRunning> running, Nanos now, bool same_running = false,
                std::span<const int> changed = {});
    // CPU time per byte for access mix `a` on `cpu` under the current contention. If
    // `miss_per_byte` is given, it receives the LLC misses per byte of progress.
    double ns_per_byte(const AccessMix& a, int cpu, double* miss_per_byte = nullptr) const;
    // What ns_per_byte gave for one access mix on one CPU, and when. The note stands while the
    // mix is the same (its owner clears the note when it changes the mix), on the same CPU, and
    // nothing the rate derives from moved since: no solve ran, the LLC and core sharing were not
    // derived again, and no placement changed anywhere (PlacementStamp::epoch).
    struct RateNote {
        int cpu = -1;
        uint64_t generation = 0, epoch = 0;
        double ns_per_byte = 0, miss_per_byte = 0;
    };
    // ns_per_byte through `note`: the same numbers, taken from the note while it stands.
    double ns_per_byte(const AccessMix& a, int cpu, double* miss_per_byte, RateNote& note) const;
    // The same, and for latency accounting (docs/latency.md) the remote-access stall of that
    // rate (demand_remote_per_byte) in `remote_per_byte`, which the caller keeps beside the note:
    // derived when the note is, left as it is while the note stands. Not in the note, which
    // the hot paths without latency accounting copy and compare.
    double ns_per_byte(const AccessMix& a, int cpu, double* miss_per_byte, RateNote& note,
                       double& remote_per_byte) const;
    // Whether ns_per_byte would take `note` for cpu: nothing it stands on moved since.
    bool note_stands(const RateNote& note, int cpu) const;
    // Bytes per ns that `a` makes progress at on `cpu`: from the last solve if task `task` was
    // counted there, at the current delays otherwise.
    double rate_gbs(const AccessMix& a, int cpu, int task) const;

    // --- the machine ---
    // Idle latency from a CPU on node `from` to memory on node `to`.
    double latency_ns(int from, int to) const { return lat_[from * nodes_ + to]; }
    // Moving a contended cache line between CPUs on nodes a and b (an atomic on a lock word, a
    // remote runqueue read): within a node the request goes through the LLC to the owning core,
    // across nodes it costs about a remote memory access.
    double line_transfer_ns(int a, int b) const {
        return a == b ? k_.LINE_TRANSFER_LLC_FACTOR * llc_lat_ : latency_ns(a, b);
    }
    // Nanoseconds for kernel work measured in cycles on this machine.
    double cycles_ns(double cycles) const { return cycles / ghz_; }
    int cpu_node(int cpu) const { return node_of_cpu_[cpu]; }
    const Interconnect& interconnect() const { return net_; }

    // --- the memory system under load (from the last solve) ---
    // Queueing delay a miss from a CPU on `cpu_node` to memory on `nid` waits on top of the idle
    // latency: the DRAM's and every link's on the way back.
    double path_delay_ns(int cpu_node, int nid) const;
    double node_utilisation(int nid) const { return solver_.utilisation(nid); }
    double node_load_gbs(int nid) const { return solver_.load(nid); }
    double node_delay_ns(int nid) const { return solver_.delay(nid); }
    // Load and utilisation of the direct link from node a to node b (0 if there is none).
    double link_load_gbs(int a, int b) const;
    double link_utilisation(int a, int b) const;
    const BandwidthSolver& solver() const { return solver_; }

    // --- kernel work that moves memory; its traffic loads the next solve ---
    // Clearing `bytes` of a new page on node `nid` from a CPU on `cpu_node` (clear_page with
    // fast string stores: one write per line, no read for ownership); `times` such pages, each
    // taking the time returned, load the next solve.
    double clear_ns(int cpu_node, int nid, double bytes, uint64_t times = 1) const;
    // Copying `bytes` from node `from` to node `to` on one core of node `to` (migration, COW);
    // `times` such copies, each taking the time returned, load the next solve.
    double copy_ns(double bytes, int from, int to, uint64_t times = 1) const;
    // Average time to fetch one line of `a`'s working set into a CPU of `cpu_node`, from
    // wherever its pages are, under the current load (0 without streams).
    double working_set_line_ns(const AccessMix& a, int cpu_node) const;
    // Cache refill (user stall, ns) after task `task`, touching `a` (nullptr: nothing the model
    // knows of), moves from `src_cpu` to `dst_cpu`: what it had cached and will use again, less
    // what is warm on the destination core (`core_mates`: what runs on the destination's SMT
    // siblings now; or `task` was the last to run on that core) and LLC (cost/cache_state.cpp).
    double move_refill_ns(const AccessMix* a, int task, int src_cpu, int dst_cpu,
                          std::span<const AccessMix* const> core_mates) const;

    // Whether the per-CPU demand, and the LLC and core sharing, are kept between updates (on by
    // default); off, they are derived again at every use, which must give the same numbers
    // (tests).
    void set_demand_cache(bool on) {
        demand_cache_ = on;
        ++generation_;
    }
    uint64_t demand_hits() const { return demand_hits_; }
    // Of the demand_misses, those served by a copy of another CPU's demand (tests).
    uint64_t demand_shares() const { return demand_shares_; }
    // Updates that kept the last solve, which they would have repeated bit for bit (tests).
    uint64_t solves_kept() const { return solves_kept_; }
    uint64_t demand_misses() const { return demand_misses_; }
    // If the demand kept for `a` on cpu is still valid by its key but differs from the demand
    // derived again now (a page count changed without its stamp), what differs; else nullopt.
    // The invariant checker asks this for every running task (kernel/invariants.h).
    std::optional<std::string> find_stale_demand(const AccessMix& a, int cpu) const;
    // If the update at `now` kept the last solve but a solve of the input that update was
    // given, from the same delays, gives other numbers (an input changed that the shortcut did
    // not see), what differs; else nullopt. The invariant checker asks this after each update.
    std::optional<std::string> find_stale_solve(Nanos now) const;
    // If `note` stands for `a` on cpu but differs from the rate derived again now, what
    // differs; else nullopt (the engine checks its tasks' notes with it).
    std::optional<std::string> find_stale_note(const RateNote& note, const AccessMix& a,
                                               int cpu) const;

    // Counts of the kernel cost paths since the start (tests, reports).
    struct KernelCostStats {
        uint64_t tlb_shootdowns = 0;
        uint64_t tlb_ipis = 0;
        double migration_waiters = 0;   // expected tasks that slept on a migration entry
        double migration_wait_ns = 0;   // their expected sleep
        double numa_search_ns = 0;      // time task_numa_find_cpu's searches spent pulling lines
        double fault_lock_wait_ns = 0;  // time faults waited for mmap_lock / VMA / PTE locks
    };
    KernelCostStats& stats() { return stats_; }
    const KernelCostStats& stats() const { return stats_; }

  private:
    // Cache lines of one region are shared by every mapping of the same object and offset.
    using RegionKey = std::pair<const MemObject*, uint64_t>;
    static RegionKey region_key(const Region& r);
    struct LineCost {
        double fixed_ns = 0;   // CPU work and idle memory stall per line
        double misses = 0;     // LLC misses per line
        double remote_ns = 0;  // of fixed_ns: idle latency beyond the CPU's own node's
    };
    // What one stream adds to a line's cost, as line_demand adds it up: its LLC hits' time and
    // misses, and for each node its misses go to, the stall time, the part of it beyond the
    // local latency, the stall weight and the bytes read, written back and written by the
    // directory. Taken for a stream, its region's placement view, the CPU's node, the mix's MLP
    // and the LLC share; `view` is 0 when none was kept.
    struct StreamTerms {
        uint64_t view = 0;
        double share = 0, write_fraction = 0;
        Pattern pattern{};
        double hit_ns = 0, miss = 0;
    };
    struct NodeTerms {
        bool used = false;  // the stream misses to this node
        double fixed_ns = 0, remote_ns = 0, w = 0, rd = 0, wb = 0, dir = 0;
    };
    // Per CPU, the terms of the streams of the demand last derived there, by position, and the
    // MLP and LLC share they were taken under; nodes_ NodeTerms per stream.
    struct LineTerms {
        double mlp = -1, llc_share = -1;
        std::vector<StreamTerms> streams;
        std::vector<NodeTerms> nodes;
    };
    // Stream s's terms on a CPU of `cnode` into st and nt (nodes_ entries).
    void stream_terms(const AccessStream& s, int cnode, double mlp, double llc_share,
                      StreamTerms& st, NodeTerms* nt) const;
    // Calls f(resource, stall_weight, bytes) for every resource the scratch demand uses.
    template <class F>
    void for_each_use(int cpu_node, F&& f) const;

    // One CPU's demand and what it was derived from.
    using Use = BandwidthSolver::Use;
    // What a demand gives: line_demand's result and for_each_use's calls, in order; and those
    // calls added up per resource (BandwidthSolver::add_up), as the solve takes them. A CPU
    // whose demand is a copy of another's (demand_share.cpp) holds the same value, not a copy
    // of its vectors; the value's id, new at each derivation, tells the solve which of its
    // tasks ask the same (BandwidthSolver::add_uses).
    struct DemandValue {
        LineCost lc;
        std::vector<Use> uses;
        std::vector<Use> per_resource;
        uint64_t id = 0;
        // demand_ns_per_byte under the delays of generation `rate_generation` (0: none yet): it
        // reads only the value and the last solve, so every CPU holding the value asks the
        // same until the generation moves (rates are asked in const paths, hence mutable).
        mutable uint64_t rate_generation = 0;
        mutable double rate_ns_per_byte = 0;
    };
    struct Demand {
        bool valid = false;
        // The key: the access mix (by value) with each stream's region's placement view
        // (PlacementViews::id), and the sharing of the CPU's core and LLC at the last update.
        // With each view, the region's stamps when it was last found to be the region's view:
        // while they stand, so do its shares, and the views' table is not asked (a stamp's
        // value is never had by another owner, so it also says the region is the one it was).
        struct KeyStream {
            AccessStream stream;
            uint64_t view;
            mutable uint64_t stamp = 0, shared_stamp = 0;
        };
        std::vector<KeyStream> streams;
        double rate_gbs = 0, mlp = 0;
        double core_mlp_sum = 0, core_mlp_cap = 0, llc_footprint = 0;
        int core_busy = 0;
        // The value (null until derived), held alike by the CPUs that took a copy of it.
        std::shared_ptr<DemandValue> value;
        // The mix the last solve took this demand for (nullptr once derived again since), and
        // that mix's version then.
        const AccessMix* solved_mix = nullptr;
        uint64_t solved_version = 0;
    };
    // Per-line demand of `a` on cpu into the scratch arrays (per node: stall weight, bytes read,
    // bytes written back). With `keys` (the key's streams of cpu's demand, with their views
    // now), a stream's terms kept for cpu are added again where they still stand; without,
    // every term is taken afresh (the invariant checker's derivations). Either way the same
    // terms are added in the same order, so the sums are the same bits.
    LineCost line_demand(const AccessMix& a, int cpu,
                         const std::vector<Demand::KeyStream>* keys = nullptr) const;
    bool demand_key_matches(const Demand& d, const AccessMix& a, int cpu) const;
    // The value a derivation into `d` writes: d's own if no other demand holds it, else a spare
    // one (or a new one) that d takes.
    DemandValue& own_value(Demand& d) const;
    // Derives `a`'s demand on cpu into `d` (key and value).
    void derive_demand(Demand& d, const AccessMix& a, int cpu) const;
    // Only the value, into a demand of its own (the invariant checker's: it keeps no view), or
    // with `kept_terms`, into cpu's kept demand whose key's streams are a's now.
    void derive_value(Demand& d, const AccessMix& a, int cpu, bool kept_terms = false) const;
    // Whether the placement views in `d`'s key are those of `a`'s regions now (`a` has the
    // key's streams): by the stamps kept with each, else by the views' table, whose answer,
    // if the same view, moves the kept stamps to the region's now.
    bool views_match(const Demand& d, const AccessMix& a) const;
    // The key's streams of `a`: each with its region's view now.
    void key_streams(Demand& d, const AccessMix& a) const;
    // `a`'s demand on cpu: the kept one if its key still matches, else derived again (or
    // shared, below) and kept. With `views_only`, the caller knows `a` is the mix the kept
    // demand was last solved with, under the same sharing: only its regions' placement views
    // are compared.
    const Demand& demand(const AccessMix& a, int cpu, bool views_only = false) const;

    // --- demands shared between CPUs (cost/demand_share.cpp) ---
    // The threads of one process on one node usually ask for the same demand: the same mix
    // over the same regions, on CPUs of the same node with the same core and LLC sharing. A
    // demand derived on one CPU is copied to another whose inputs to line_demand and
    // for_each_use are equal, bit for bit the numbers a derivation there would give.
    // A hash of what `a`'s demand on cpu derives from.
    uint64_t share_key(const AccessMix& a, int cpu) const;
    // Whether `kept`, derived on CPU `from`, is what deriving `a` on cpu now would give.
    bool shareable(const Demand& kept, int from, const AccessMix& a, int cpu) const;
    // Fills `d` (cpu's) from another CPU's kept demand with `key` if one is shareable; else
    // derives it. Either way cpu's demand is then the one kept for `key`.
    void derive_or_share(Demand& d, const AccessMix& a, int cpu) const;
    // Line time under the current delays and the smallest clip on the way.
    std::pair<double, double> loaded_line(const Demand& d) const;
    // ns_per_byte of a demand under the current delays.
    double demand_ns_per_byte(const Demand& d, double* miss_per_byte) const;
    // Nanoseconds per byte of progress of demand `d` that its misses to other nodes wait
    // beyond what the same misses to the CPU's own node would: the idle-latency difference
    // (SLIT distance, slower tiers), and the queueing on the interconnect links, which only
    // remote misses cross, over the memory-level parallelism; under the current delays and
    // bandwidth clip, as ns_per_byte. The DRAM queueing is left out: the misses would queue at
    // the local DRAM too, at a load the model cannot know without moving them. In the same pass
    // over the demand's resources, what demand_ns_per_byte gives, bit for bit: a note refreshed
    // for latency accounting costs one pass, as without it.
    double demand_remote_per_byte(const Demand& d, double& ns_per_byte,
                                  double* miss_per_byte) const;
    // Whether cpu's kept demand is the one the last solve took for `a`, with nothing it
    // derives from moved since: of the key, only the placement views are compared, and only if
    // a placement moved anywhere since. `note` is a's note on cpu
    // from before that solve (not cleared since), which says `a` did not change meanwhile.
    bool solve_took(const AccessMix& a, int cpu, const RateNote& note) const;
    // Per-core streaming rate of kernel work between a CPU on `cpu_node` and memory on `nid`.
    double kernel_stream_gbs(int cpu_node, int nid) const;
    // Kernel traffic: bytes read from memory on `mem_node` into a CPU on `cpu_node`, and written
    // the other way; both load the DRAM and the links on the route at the next solve. With
    // `times`, as many transfers one after another: each resource on the way is a different
    // sum, so adding them resource by resource gives the same bits as transfer by transfer.
    void read_traffic(int mem_node, int cpu_node, double bytes, uint64_t times = 1) const;
    void write_traffic(int cpu_node, int mem_node, double bytes, uint64_t times = 1) const;
    void update_llc_and_cores(std::span<const CpuRunning> running);
    // Whether update_llc_and_cores() would see what it saw last time: on every CPU the same
    // task, and the same streams and MLP (a region's size and object never change). Otherwise
    // takes note of `running` for the next update.
    bool same_sharing(std::span<const CpuRunning> running, std::span<const int> changed);

    int nodes_ = 0;
    std::vector<int> node_of_cpu_;
    double ghz_ = 2.0;
    double llc_bytes_ = 0;
    cost::Constants k_;
    double llc_lat_ = 0;
    double mlp_default_ = 10;
    double smt_speedup_ = 1;
    // Per (CPU node, memory node): whether a store from the first to the second's memory makes
    // the home write a directory update: the machine keeps its directory in DRAM
    // (MemoryHardware::memory_directory), the memory is a socket's DRAM (a node with CPUs) and
    // the CPU is on another socket. Empty without a directory.
    std::vector<char> directory_write_;
    std::vector<double> lat_;
    Interconnect net_;
    BandwidthSolver solver_;
    // kernel_stream_gbs() per (CPU node, memory node), derived once per solve: each page a fault
    // clears or a migration copies asks for it, and it reads nothing but fixed figures and the
    // last solve's delays and clips. An entry holds while its stamp is solves_.
    struct StreamRate {
        double gbs = 0;
        uint64_t solve = 0;
    };
    mutable std::vector<StreamRate> stream_rate_;
    uint64_t solves_ = 0;  // solves (and inits) of solver_, counted from 1
    KernelCostStats stats_;

    std::vector<double> llc_footprint_;  // per LLC: bytes of distinct regions touched
    // Per LLC: the regions of the tasks running there at this update.
    std::vector<std::vector<RegionKey>> llc_keys_;
    std::vector<int> llc_of_cpu_;
    std::vector<int> core_of_cpu_;
    std::vector<int> core_threads_;    // per core: SMT threads
    std::vector<int> core_busy_;       // per core: running tasks now
    std::vector<int> core_last_task_;  // per core: the last task seen running there (-1: none)
    // Per core: the sum of the MLP its busy threads would use alone, and what the core has.
    std::vector<double> core_mlp_sum_, core_mlp_cap_;

    // Per CPU: what update_llc_and_cores() last saw there.
    struct SharingInput {
        int task = -1;
        bool has_mix = false;
        double mlp = 0;
        std::vector<AccessStream> streams;
    };
    std::vector<SharingInput> sharing_input_;
    bool sharing_valid_ = false;

    // Per CPU: the task counted in the last solve (-1: none) and its index there.
    std::vector<int> solved_task_;
    std::vector<int> solved_index_;
    Nanos last_update_ = 0;

    // What the last solve was given besides the demands, which the sharing and the placement
    // epoch stand for: per CPU the mix's rate and the user-mode share, and the kernel traffic.
    struct SolvedInput {
        bool counted = false;
        double rate_gbs = 0, user_share = 0;
    };
    std::vector<SolvedInput> solved_input_;
    uint64_t solved_epoch_ = 0;
    bool solved_background_ = false;
    // Whether the last update kept the solve, and what it was given then (for find_stale_solve).
    std::vector<CpuRunning> last_running_;
    bool kept_solve_ = false;
    // Whether a solve of `running` now would be given exactly what the last one was: the same
    // demands (same sharing, as same_sharing() found, and no placement change since), rates,
    // shares and no kernel traffic. If that solve was at its fixed point, it would repeat it.
    bool repeats_last_solve(std::span<const CpuRunning> running) const;
    // Changes whenever a rate may have: a solve ran, the sharing was derived again, or the kept
    // demands were switched. Starts at 1, so that a cleared RateNote never stands.
    uint64_t generation_ = 1;
    uint64_t solve_generation_ = 0;  // generation_ right after the last solve
    uint64_t solves_kept_ = 0;

    // Per CPU: the demand last derived there (rates are asked for in const paths, hence
    // mutable; a hit changes no number).
    mutable std::vector<Demand> demand_;
    // The placement views of the regions the demands read (kept for them, hence mutable).
    mutable PlacementViews views_;
    bool demand_cache_ = true;
    mutable uint64_t demand_hits_ = 0, demand_misses_ = 0, demand_shares_ = 0;
    // Direct-mapped by share_key: the last CPU whose demand was derived or shared under a key.
    struct ShareSlot {
        uint64_t key = 0;
        int cpu = -1;
    };
    mutable std::vector<ShareSlot> share_slots_;
    // Values no demand holds any more, kept with their vectors' room for the next derivation;
    // and the last value id given.
    mutable std::vector<std::shared_ptr<DemandValue>> spare_values_;
    mutable uint64_t last_value_id_ = 0;

    // Kernel traffic since the last update, bytes per resource (bookkeeping of const paths).
    mutable std::vector<double> kernel_bytes_;
    // Scratch for line_demand: per node stall weight, bytes read and bytes written back, and the
    // directory writes the node's home agent makes for remote stores (they cross no link).
    mutable std::vector<double> w_, rd_, wb_, dir_;
    // Per CPU, the stream terms kept for its demand; and one stream's, for a derivation that
    // keeps none.
    mutable std::vector<LineTerms> line_terms_;
    struct ScratchTerms {
        StreamTerms one;
        std::vector<NodeTerms> nodes;
    };
    mutable ScratchTerms scratch_terms_;
};

}  // namespace numasim
