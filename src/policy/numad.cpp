// "numad": the user-space NUMA daemon shipped with RHEL and Fedora, built as its source is
// written (numad.c, version 20150602, the yhaenggi/numad mirror of pagure's numad; 20160428
// differs only in accepting -m). Every pass it reads the nodes' free memory and idle CPU
// (update_nodes), the processes' size and CPU use (update_processes), and then, for the
// processes large and busy enough to manage, picks the fewest nodes with room for each
// (pick_numa_nodes, policy/numad_pick.h) and binds one of them there: sched_setaffinity() on
// each of its threads, then migrate_pages() from its other nodes (bind_process_and_migrate_memory).
// It sleeps min_interval after a pass that moved a process and max_interval after one that did
// not (manage_loads). docs/placement-policies.md lists the rules with their places in numad.c.
#include <algorithm>
#include <array>
#include <bit>
#include <cstdlib>

#include "config/toml_reader.h"
#include "kernel/agent_calls.h"
#include "kernel/proc_view.h"
#include "kernel/system.h"
#include "machine/topology.h"
#include "policy/numad_options.h"
#include "policy/numad_pick.h"
#include "policy/registry.h"

namespace numasim {

namespace {

// numad counts time in hundredths of a second (get_time_stamp, ONE_HUNDRED) and CPU in
// hundredths of a CPU.
constexpr Nanos kHundredth = NSEC_PER_SEC / 100;
constexpr int64_t kOneHundred = 100;
constexpr int64_t kMegabyte = 1024 * 1024;
// numad.c: a process is managed once it uses more than CPU_THRESHOLD (50: half a CPU) and more
// than MEMORY_THRESHOLD (300) MB.
constexpr int64_t kCpuThreshold = 50;
constexpr int64_t kMemoryThreshold = 300;
// numad.c manage_loads(): a process bound less than MIN_DELAY_FOR_REEVALUATION (300 s) ago is
// not looked at again unless it sits on the busiest node; one with interleaved memory is
// looked at every MIN_DELAY_FOR_INTERLEAVE (1800 s). initialize_mem_node_list(): a process
// found already confined to fewer nodes counts as bound 1800 s ago.
constexpr int64_t kMinDelayForReevaluation = 300 * kOneHundred;
constexpr int64_t kMinDelayForInterleave = 1800 * kOneHundred;
constexpr int64_t kAlreadyBoundAge = 1800 * kOneHundred;
// numad.c: RING_BUF_SIZE 8 samples of each process's CPU use, the largest of which counts;
// MIN_PROCESS_HASH_TABLE_SIZE 16, the table doubling when more than 4/7 full.
constexpr size_t kRingBufSize = 8;
constexpr size_t kMinProcessHashTableSize = 16;
// update_nodes() reads /proc/stat again only once 7/100 s have passed since the last read,
// sleeping 1/10 s at a time (nanosleep) until then.
constexpr int64_t kMinCpuSampleGap = 7;
constexpr Nanos kCpuSampleWait = 100 * NSEC_PER_MSEC;
// numad's pid as its system calls' trace events show it: a daemon started at boot, before the
// simulated tasks (System::next_pid), after the kernel threads (kswapd's are from 100).
constexpr int kDaemonPid = 900;

// process_data_t: numad's entry for one process.
struct NumadProcess {
    int pid = 0;                  // 0: an empty slot
    bool interleaved = false;     // PROCESS_FLAG_INTERLEAVED
    int64_t data_time_stamp = 0;  // when last read (hundredths); 0: stale
    bool bound = false;           // bind_time_stamp set
    int64_t bind_time_stamp = 0;
    int64_t num_threads = 0, mbs_size = 0, mbs_used = 0;
    uint64_t cpu_util = 0;  // utime + stime, ticks
    int64_t cpus_used = 0;  // hundredths of a CPU
    std::array<int64_t, kRingBufSize> ring{};
    size_t ring_ix = 0;
    bool has_node_list = false;
    uint64_t node_list = 0;
    std::vector<int64_t> process_mbs;
};

// numad's globals for one run.
struct NumadState : PolicyRunState {
    // update_nodes()
    std::vector<NumadNode> node;
    std::vector<std::vector<int>> node_cpus;
    uint64_t all_nodes = 0;
    int64_t sum_cpus_total = 0;
    int64_t min_mbs_free = 0, max_mbs_free = 0, avg_mbs_free = 0;
    int64_t min_cpus_free = 0, max_cpus_free = 0, avg_cpus_free = 0;
    int min_mbs_free_ix = -1, min_cpus_free_ix = -1;
    // Two /proc/stat reads: the current one and the one before.
    struct CpuSample {
        bool taken = false;
        int64_t time_stamp = 0;
        std::vector<uint64_t> idle;
    };
    std::array<CpuSample, 2> cpu_data;
    int cur_cpu_data = 0;
    // The process hash table (process_hash_ix: pid * 717 >> 8, linear probing).
    std::vector<NumadProcess> table;
    size_t pindex_size = 0;
    // After a pass that moved a process: update_nodes() again, then sleep this long.
    bool refresh_pending = false;
    int pending_interval = 0;
    // The daemon's thread, the context of its migrate_pages(2) calls' trace events.
    Task daemon;
};

// numad's clock counts hundredths since boot, never 0 while it runs (0 marks an entry not read
// this pass); the simulation's starts at 0, hence the one.
int64_t time_stamp(const System& sys) {
    return sys.now / kHundredth + 1;
}

class Numad : public PlacementPolicy {
  public:
    explicit Numad(const TomlTable* params)
        : PlacementPolicy(kAgent), o_(read_numad_options(params)) {}

    Nanos agent(System& sys) const override;

  private:
    // One wake-up's work; returns the sleep that follows.
    Nanos pass(System& sys, NumadState& st) const;
    bool cpu_sample_due(const System& sys, const NumadState& st) const;
    void update_nodes(System& sys, NumadState& st) const;
    void update_processes(System& sys, NumadState& st) const;
    int manage_loads(System& sys, NumadState& st) const;
    bool pick_numa_nodes(System& sys, NumadState& st, NumadProcess& p, int64_t cpus, int64_t mbs,
                         bool assume_enough_cpus) const;
    bool bind_process_and_migrate_memory(System& sys, NumadState& st, NumadProcess& p) const;

    NumadOptions o_;
};

// --- the process hash table, as numad.c keeps it ---

size_t hash_ix(const NumadState& st, int pid) {
    unsigned ix = static_cast<unsigned>(pid);
    ix *= 717;
    ix >>= 8;
    return ix & (st.table.size() - 1);
}

int hash_lookup(const NumadState& st, int pid) {
    const size_t start = hash_ix(st, pid);
    size_t ix = start;
    while (st.table[ix].pid) {
        if (st.table[ix].pid == pid) return static_cast<int>(ix);
        ix = (ix + 1) & (st.table.size() - 1);
        if (ix == start) break;
    }
    return -1;
}

int hash_insert(NumadState& st, int pid) {
    const size_t start = hash_ix(st, pid);
    size_t ix = start;
    while (st.table[ix].pid) {
        if (st.table[ix].pid == pid) return static_cast<int>(ix);
        ix = (ix + 1) & (st.table.size() - 1);
        if (ix == start) return -1;  // full: "should never happen"
    }
    st.table[ix].pid = pid;
    return static_cast<int>(ix);
}

void hash_expand(NumadState& st) {
    std::vector<NumadProcess> old = std::move(st.table);
    st.table.assign(old.empty() ? kMinProcessHashTableSize : old.size() * 2, NumadProcess{});
    for (NumadProcess& p : old)
        if (p.pid) st.table[static_cast<size_t>(hash_insert(st, p.pid))] = std::move(p);
}

void hash_remove(NumadState& st, int pid) {
    int found = hash_lookup(st, pid);
    if (found < 0) return;
    auto ix = static_cast<size_t>(found);
    st.table[ix] = NumadProcess{};
    // Entries after it in its collision chain move up where they now belong.
    for (;;) {
        ix = (ix + 1) & (st.table.size() - 1);
        const int next = st.table[ix].pid;
        if (next <= 0) break;
        if (hash_lookup(st, next) < 0) {
            NumadProcess moved = std::move(st.table[ix]);
            st.table[ix] = NumadProcess{};
            st.table[static_cast<size_t>(hash_insert(st, next))] = std::move(moved);
        }
    }
}

// --- the passes ---

bool Numad::cpu_sample_due(const System& sys, const NumadState& st) const {
    const NumadState::CpuSample& cur = st.cpu_data[static_cast<size_t>(st.cur_cpu_data)];
    return !cur.taken || cur.time_stamp + kMinCpuSampleGap < time_stamp(sys);
}

void Numad::update_nodes(System& sys, NumadState& st) const {
    const Topology& m = sys.topo;
    const int num_nodes = m.nr_nodes();
    if (st.node.empty()) {
        // The static part: each node's CPUs (with hyperthread siblings worth htt_percent of a
        // core), its distances, and which nodes have memory.
        st.node.resize(static_cast<size_t>(num_nodes));
        st.node_cpus.assign(static_cast<size_t>(num_nodes), {});
        const auto threads_per_core = static_cast<int64_t>(m.smt_siblings(0).size());
        for (int c = 0; c < m.nr_cpus(); ++c)
            st.node_cpus[static_cast<size_t>(m.cpus[c].node)].push_back(c);
        for (int n = 0; n < num_nodes; ++n) {
            NumadNode& nd = st.node[static_cast<size_t>(n)];
            auto cpus = static_cast<int64_t>(st.node_cpus[static_cast<size_t>(n)].size());
            if (threads_per_core == 1 || o_.htt_percent >= 100) {
                nd.cpus_total = cpus * kOneHundred;
            } else {
                cpus /= threads_per_core;
                nd.cpus_total = cpus * kOneHundred + cpus * (threads_per_core - 1) * o_.htt_percent;
            }
            st.sum_cpus_total += nd.cpus_total;
            nd.distance = m.distance[static_cast<size_t>(n)];
        }
    }
    // The dynamic part: /proc/stat's idle times, and each node's meminfo.
    st.cur_cpu_data = 1 - st.cur_cpu_data;
    NumadState::CpuSample& cur = st.cpu_data[static_cast<size_t>(st.cur_cpu_data)];
    const NumadState::CpuSample& old = st.cpu_data[static_cast<size_t>(1 - st.cur_cpu_data)];
    cur.taken = true;
    cur.time_stamp = time_stamp(sys);
    cur.idle.resize(static_cast<size_t>(m.nr_cpus()));
    // One read of /proc/stat, then one of each node's meminfo (below).
    sys.agent_read_ns += PROC_TABLE_READ_NS * (1 + num_nodes);
    for (int c = 0; c < m.nr_cpus(); ++c)
        cur.idle[static_cast<size_t>(c)] = proc_stat_idle(sys, c);
    const auto threads_per_core = static_cast<int64_t>(m.smt_siblings(0).size());
    st.all_nodes = 0;
    st.max_mbs_free = st.max_cpus_free = 0;
    st.min_mbs_free = st.min_cpus_free = INT64_MAX;
    int64_t sum_mbs_free = 0, sum_cpus_free = 0;
    for (int n = 0; n < num_nodes; ++n) {
        NumadNode& nd = st.node[static_cast<size_t>(n)];
        const NodeMeminfo mi = node_meminfo(sys, n);
        nd.mbs_total = static_cast<int64_t>(mi.mem_total_kb / 1024);
        nd.mbs_free = static_cast<int64_t>(mi.mem_free_kb / 1024);
        if (nd.mbs_total >= 1) st.all_nodes |= uint64_t{1} << n;
        sum_mbs_free += nd.mbs_free;
        if (st.min_mbs_free > nd.mbs_free) {
            st.min_mbs_free = nd.mbs_free;
            st.min_mbs_free_ix = n;
        }
        st.max_mbs_free = std::max(st.max_mbs_free, nd.mbs_free);
        if (!old.taken) {
            nd.cpus_free = 0;
            continue;
        }
        uint64_t idle_ticks = 0;
        for (int c : st.node_cpus[static_cast<size_t>(n)])
            idle_ticks += cur.idle[static_cast<size_t>(c)] - old.idle[static_cast<size_t>(c)];
        const int64_t time_diff = cur.time_stamp - old.time_stamp;
        nd.cpus_free = static_cast<int64_t>(idle_ticks) * kOneHundred / time_diff;
        if (threads_per_core > 1 && o_.htt_percent < 100) {
            const auto lcpus = static_cast<int64_t>(st.node_cpus[static_cast<size_t>(n)].size());
            const int64_t htt_discount =
                (lcpus - lcpus / threads_per_core) * (kOneHundred - o_.htt_percent);
            nd.cpus_free = nd.cpus_free > htt_discount ? nd.cpus_free - htt_discount : 0;
        }
        nd.cpus_free = std::min(nd.cpus_free, nd.cpus_total);
        sum_cpus_free += nd.cpus_free;
        if (st.min_cpus_free > nd.cpus_free) {
            st.min_cpus_free = nd.cpus_free;
            st.min_cpus_free_ix = n;
        }
        st.max_cpus_free = std::max(st.max_cpus_free, nd.cpus_free);
    }
    st.avg_mbs_free = sum_mbs_free / num_nodes;
    st.avg_cpus_free = sum_cpus_free / num_nodes;
}

void Numad::update_processes(System& sys, NumadState& st) const {
    const int64_t now = time_stamp(sys);
    const auto page = static_cast<int64_t>(sys.pages().size());
    size_t new_candidates = 0;
    for (const ProcPidStat& s : proc_pid_stats(sys)) {
        // Every pid of /proc's directory, and its stat file.
        sys.agent_read_ns += PROC_DIR_ENTRY_NS + PROC_PID_STAT_READ_NS;
        const int64_t mbs_used = static_cast<int64_t>(s.rss) * page / kMegabyte;
        if (mbs_used <= kMemoryThreshold || new_candidates >= st.table.size() / 3) continue;
        const int ix = hash_insert(st, s.pid);
        if (ix < 0) continue;
        NumadProcess& p = st.table[static_cast<size_t>(ix)];
        const uint64_t cpu_util = s.utime + s.stime;
        if (p.data_time_stamp) {
            // process_hash_update(): the newest CPU sample into the ring, the largest counts.
            p.ring_ix = (p.ring_ix + 1) & (kRingBufSize - 1);
            p.ring[p.ring_ix] = static_cast<int64_t>(
                100 * (cpu_util - p.cpu_util) / static_cast<uint64_t>(now - p.data_time_stamp));
            p.cpus_used = *std::max_element(p.ring.begin(), p.ring.end());
        } else {
            ++new_candidates;
        }
        p.mbs_size = static_cast<int64_t>(s.vsize) / kMegabyte;
        p.mbs_used = mbs_used;
        p.cpu_util = cpu_util;
        p.num_threads = s.num_threads;
        p.data_time_stamp = now;
    }
    // process_hash_table_cleanup(): an entry not read this pass goes stale (its CPU use to
    // zero); one whose process is gone leaves the table.
    const std::vector<ProcPidStat> live = proc_pid_stats(sys);
    size_t used = 0;
    for (size_t ix = 0; ix < st.table.size(); ++ix) {
        NumadProcess& p = st.table[ix];
        if (!p.pid) continue;
        ++used;
        if (p.data_time_stamp >= now) continue;
        p.data_time_stamp = 0;
        p.cpus_used = 0;
        const bool alive = std::any_of(live.begin(), live.end(),
                                       [&](const ProcPidStat& s) { return s.pid == p.pid; });
        if (!alive) {
            hash_remove(st, p.pid);
            --used;
        }
    }
    if (used * 7 / 4 > st.table.size()) hash_expand(st);
}

// pick_numa_nodes() for a managed process: its memory per node from numa_maps, the choice, and
// the hysteresis: a process already bound where it would go, with enough of its memory there
// (target_memlocality), stays. Returns whether it is to be bound to p.node_list.
bool Numad::pick_numa_nodes(System& sys, NumadState& st, NumadProcess& p, int64_t cpus, int64_t mbs,
                            bool assume_enough_cpus) const {
    const ProcPidStat* s = nullptr;
    const std::vector<ProcPidStat> procs = proc_pid_stats(sys);
    for (const ProcPidStat& q : procs)
        if (q.pid == p.pid) s = &q;
    if (!s) return false;  // "it apparently went away"
    const NumaMapsTotals maps = numa_maps_totals(sys, *s->mm);
    sys.agent_read_ns += numa_maps_read_ns(sys, *s->mm);
    const size_t num_nodes = st.node.size();
    p.process_mbs.assign(num_nodes, 0);
    for (size_t n = 0; n < num_nodes; ++n)
        p.process_mbs[n] = static_cast<int64_t>(maps.node_bytes[n]) / kMegabyte;
    if (maps.interleaved && o_.keep_interleaved) {
        p.interleaved = true;
        p.bound = true;
        p.bind_time_stamp = time_stamp(sys);
        return false;
    }
    const NumadPickProcess pick{p.cpus_used, p.mbs_used, p.process_mbs, p.node_list};
    const uint64_t target = numad_pick_nodes(st.node, st.all_nodes, &pick, cpus, mbs,
                                             assume_enough_cpus, o_.target_utilization);
    if (!target) return false;
    int64_t nonlocal = 0;
    for (size_t n = 0; n < num_nodes; ++n)
        if (!((target >> n) & 1)) nonlocal += p.process_mbs[n];
    const int64_t disp_percent = 100 * nonlocal / p.mbs_used;
    if (disp_percent <= 100 - o_.target_memlocality && p.bound && target == p.node_list) {
        p.bind_time_stamp = time_stamp(sys);
        return false;
    }
    p.node_list = target;
    return true;
}

// bind_process_and_migrate_memory(): the threads onto the CPUs of the chosen nodes, then the
// memory over from the other nodes, the fullest source first into the emptiest destination,
// one migrate_pages() call per pair, until no source is left (or the same one comes twice).
bool Numad::bind_process_and_migrate_memory(System& sys, NumadState& st, NumadProcess& p) const {
    std::vector<int> cpus;
    for (size_t n = 0; n < st.node.size(); ++n)
        if ((p.node_list >> n) & 1)
            cpus.insert(cpus.end(), st.node_cpus[n].begin(), st.node_cpus[n].end());
    std::sort(cpus.begin(), cpus.end());
    // The threads are found in /proc/PID/task's directory, an entry each.
    const int threads = sched_setaffinity_threads(sys, p.pid, cpus);
    sys.agent_read_ns += PROC_DIR_ENTRY_NS * threads;
    if (threads == 0) return false;
    int prev_from = -1;
    for (;;) {
        int dest = -1, from = -1;
        for (size_t n = 0; n < st.node.size(); ++n) {
            const int id = static_cast<int>(n);
            if ((p.node_list >> n) & 1) {
                // ">=": ties go to the higher-numbered node.
                if (dest < 0 || p.process_mbs[static_cast<size_t>(dest)] >= p.process_mbs[n])
                    dest = id;
            } else if (from < 0 || p.process_mbs[static_cast<size_t>(from)] < p.process_mbs[n]) {
                from = id;
            }
        }
        // Every node chosen leaves no source (numad itself would read past its array here).
        if (from < 0 || p.process_mbs[static_cast<size_t>(from)] == 0 || from == prev_from) break;
        if (sys_migrate_pages(sys, p.pid, uint64_t{1} << from, uint64_t{1} << dest, sys.agent_cpu,
                              &st.daemon) < 0)
            return false;  // "it apparently went away"
        // numad assumes the memory moved, for its own accounting.
        p.process_mbs[static_cast<size_t>(dest)] += p.process_mbs[static_cast<size_t>(from)];
        p.process_mbs[static_cast<size_t>(from)] = 0;
        prev_from = from;
    }
    p.bound = true;
    p.bind_time_stamp = time_stamp(sys);
    return true;
}

int Numad::manage_loads(System& sys, NumadState& st) const {
    const int64_t now = time_stamp(sys);
    if (st.pindex_size < st.table.size()) {
        // A quick second pass whenever the table grows, mostly to avoid the long wait at start.
        st.pindex_size = st.table.size();
        return o_.min_interval / 2;
    }
    std::vector<NumadProcess*> pindex;
    int64_t sum_cpus_used = 0;
    for (NumadProcess& p : st.table) {
        if (!p.pid || p.cpus_used <= kCpuThreshold || p.mbs_used <= kMemoryThreshold) continue;
        pindex.push_back(&p);
        sum_cpus_used += p.cpus_used;
        if (!p.has_node_list) {
            // initialize_mem_node_list(): Mems_allowed_list, every node with memory here (no
            // cpuset narrows it); fewer than all nodes counts as bound half an hour ago.
            p.has_node_list = true;
            p.node_list = st.all_nodes;
            if (std::popcount(st.all_nodes) < static_cast<int>(st.node.size())) {
                p.bound = true;
                p.bind_time_stamp = now - kAlreadyBoundAge;
            }
        }
    }
    // The order numad considers them in: the not yet bound first, largest CPU x memory first;
    // then the bound, by magnitude, those within 20 % of each other oldest bound first. The
    // selection sorts and their unsigned arithmetic are numad's.
    const size_t nprocs = pindex.size();
    size_t num_unbound = 0;
    for (size_t ij = 0; ij < nprocs; ++ij)
        if (!pindex[ij]->bound) std::swap(pindex[num_unbound++], pindex[ij]);
    auto mag = [](const NumadProcess* p) {
        return static_cast<uint64_t>(p->cpus_used) * static_cast<uint64_t>(p->mbs_used);
    };
    for (size_t ij = 0; ij < num_unbound; ++ij) {
        size_t best = ij;
        for (size_t ik = ij + 1; ik < num_unbound; ++ik)
            if (mag(pindex[ik]) > mag(pindex[best])) best = ik;
        std::swap(pindex[ij], pindex[best]);
    }
    for (size_t ij = num_unbound; ij < nprocs; ++ij) {
        size_t best = ij;
        for (size_t ik = ij + 1; ik < nprocs; ++ik) {
            const uint64_t ik_mag = mag(pindex[ik]), best_mag = mag(pindex[best]);
            const uint64_t diff_mag = best_mag - ik_mag;  // unsigned: never negative
            if (diff_mag > 0 && ik_mag / diff_mag < 5) {
                if (ik_mag <= best_mag) continue;
            } else if (pindex[ik]->bind_time_stamp > pindex[best]->bind_time_stamp) {
                continue;
            }
            best = ik;
        }
        std::swap(pindex[ij], pindex[best]);
    }
    const NumadNode& node0 = st.node[0];
    for (NumadProcess* pp : pindex) {
        NumadProcess& p = *pp;
        if (p.interleaved && p.bind_time_stamp + kMinDelayForInterleave > now) continue;
        // The request: the memory and CPU it uses, grown to the target utilisation; memory by
        // its virtual size once it fills most of a node; no more CPUs than it has threads.
        const int64_t mem_target_utilization = std::min(o_.target_utilization, 100);
        const int64_t cpu_target_utilization = o_.target_utilization;
        const int64_t mb_request =
            p.mbs_size > node0.mbs_total && p.mbs_used * 5 / 4 > node0.mbs_total
                ? p.mbs_size * 100 / mem_target_utilization
                : p.mbs_used * 100 / mem_target_utilization;
        const int64_t cpu_request =
            std::min(p.cpus_used * 100 / cpu_target_utilization, p.num_threads * kOneHundred);
        if (p.bound && p.bind_time_stamp + kMinDelayForReevaluation > now) {
            // Recently bound: looked at again only if it sits on the node with the least free
            // CPU or memory and moving it would even the nodes out.
            const bool on_busiest = ((p.node_list >> st.min_cpus_free_ix) & 1) ||
                                    ((p.node_list >> st.min_mbs_free_ix) & 1);
            const bool evens_out =
                std::abs(st.min_cpus_free + p.cpus_used - st.avg_cpus_free) +
                        std::abs(st.max_cpus_free - p.cpus_used - st.avg_cpus_free) <
                    st.max_cpus_free - st.min_cpus_free - kCpuThreshold &&
                std::abs(st.min_mbs_free + p.mbs_used - st.avg_mbs_free) +
                        std::abs(st.max_mbs_free - p.mbs_used - st.avg_mbs_free) <
                    st.max_mbs_free - st.min_mbs_free;
            if (!(st.min_cpus_free_ix >= 0 && on_busiest && cpu_request < node0.cpus_total &&
                  mb_request < node0.mbs_total && evens_out))
                continue;
        }
        const bool assume_enough_cpus = sum_cpus_used <= st.sum_cpus_total;
        if (pick_numa_nodes(sys, st, p, cpu_request, mb_request, assume_enough_cpus) &&
            bind_process_and_migrate_memory(sys, st, p))
            return o_.min_interval;
    }
    return o_.max_interval;
}

Nanos Numad::agent(System& sys) const {
    if (!sys.policy_state) {
        auto st = std::make_unique<NumadState>();
        st->daemon.pid = st->daemon.tgid = kDaemonPid;
        st->daemon.comm = "numad";
        hash_expand(*st);  // process_hash_table_expand() at start: the first table
        sys.policy_state = std::move(st);
    }
    auto& st = static_cast<NumadState&>(*sys.policy_state);
    sys.agent_cpu = agent_wake_cpu(sys);
    const Nanos sleep = pass(sys, st);
    // What the pass read and called is time of the CPU it ran on.
    charge_agent_pass(sys);
    return sleep;
}

Nanos Numad::pass(System& sys, NumadState& st) const {
    // update_nodes() sleeps 1/10 s at a time until 7/100 s have passed since its last read.
    if (!cpu_sample_due(sys, st)) return kCpuSampleWait;
    update_nodes(sys, st);
    if (st.refresh_pending) {
        // The refresh after a pass that moved a process; then the sleep that pass chose.
        st.refresh_pending = false;
        return st.pending_interval * NSEC_PER_SEC;
    }
    int interval = o_.max_interval;
    if (st.node.size() > 1) {
        update_processes(sys, st);
        interval = manage_loads(sys, st);
        if (interval < o_.max_interval) {
            st.refresh_pending = true;
            st.pending_interval = interval;
            return kCpuSampleWait;
        }
    }
    return interval * NSEC_PER_SEC;
}

const PolicyRegistrar reg("numad",
                          "the user-space daemon numad (20150602): every few seconds, binds each "
                          "large busy process to the fewest nodes with room and migrates its "
                          "memory there",
                          [](const TomlTable* t, const Topology&) {
                              return std::make_unique<Numad>(t);
                          });

}  // namespace

}  // namespace numasim
