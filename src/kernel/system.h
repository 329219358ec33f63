// The simulated machine and kernel as one object: topology, physical memory, tasks, address
// spaces, runqueues, NUMA groups, knobs, counters, the clock and the event queue. Every
// subsystem is a set of free functions over System, named after the kernel functions they model
// and declared in their own headers (mm/, sched/, numab/), so that a kernel developer can read
// each beside its kernel counterpart.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "cost/cost_model.h"
#include "kernel/counters.h"
#include "kernel/tracer.h"
#include "machine/topology.h"
#include "mm/fault_locks.h"
#include "mm/lru_add.h"
#include "mm/memory_tiers.h"
#include "mm/mm.h"
#include "mm/node_memory.h"
#include "mm/pghot.h"
#include "numab/knobs.h"
#include "numab/numa_group.h"
#include "numab/placement_policy.h"
#include "sched/nohz.h"
#include "sched/rq.h"
#include "sched/sched_domain.h"
#include "sched/sg_stats_cache.h"
#include "sched/task.h"
#include "sim/event_queue.h"
#include "sim/rng.h"

namespace numasim {

// Kinds of events in System::events.
enum EventKind : uint32_t {
    EV_TICK = 1,       // the global scheduler tick (every CPU whose tick is not stopped)
    EV_WAKEUP = 2,     // a = task index, b = wake_generation
    EV_STOP = 3,       // end of the run
    EV_PHASE_END = 4,  // a = CPU: the predicted end of a phase with Phase::exact_end
    // Nothing happens but that every CPU is brought to this time: a workload's request arrives
    // (workload/request_serving.cpp), and a worker deciding how to wait for it must not find
    // the CPUs already advanced past it.
    EV_SYNC = 5,
    // A node's kswapd thread is woken (mm/vmscan.h): a = node, b = its wake generation. Queued
    // by wakeup_kswapd() at the waker's time, and by the end of kswapd's short nap.
    EV_KSWAPD_WAKEUP = 6,
};

class LatencyRecorder;

struct System {
    // `k`: the cost figures of this run (cost/constants.h).
    System(Topology topo, NumaBalancingKnobs knobs, uint64_t seed,
           const cost::Constants& k = cost::kNominal);
    System(const System&) = delete;
    System& operator=(const System&) = delete;

    Topology topo;
    SchedTopology sched;
    NumaBalancingKnobs knobs;
    uint64_t seed;

    Nanos now = 0;
    EventQueue events;
    Counters counters;
    Tracer tracer;  // tracepoints; off unless a sink is attached
    // Latency accounting (kernel/latency.h): null unless `--latency` attached a recorder.
    LatencyRecorder* latency = nullptr;
    // The placement policy of the run (numab/placement_policy.h): null for mainline, the
    // kernel's own loop. Not owned; the scenario keeps it for all its runs.
    const PlacementPolicy* placement_policy = nullptr;
    // The streams note each region's expected accesses (Region::accesses) for reclaim's aging
    // when demotion is on, and for `--damon-record` (observe/damon_recorder.h) when this is set.
    bool damon_recording = false;
    bool note_region_accesses() const { return knobs.demotion_enabled || damon_recording; }
    // The streams note each task's bytes per region (Task::traffic) for `--perf-mem-record`.
    bool perf_mem_recording = false;
    int nr_exec_processes = 0;  // processes started from outside so far (PlacementPolicy::kExec)
    // A kAgent policy's daemon: when its next pass is due, and what it keeps between passes.
    Nanos agent_wake = 0;
    std::unique_ptr<PolicyRunState> policy_state;
    double agent_kernel_ns = 0;   // kernel time of its system calls (kernel/agent_calls.h)
    double agent_read_ns = 0;     // kernel time of its reads of /proc and sysfs
    double agent_charged_ns = 0;  // of both, what charge_agent_pass() charged to a CPU
    int agent_cpu = 0;            // the CPU its last pass ran on
    CostModel cost;
    FaultLocks fault_locks;  // the faults of the current tick and the locks they took
    PhysMem mem;
    // The memory tiers and promotion behaviour of the profile's kernel (set_kernel_release);
    // until set, no tiers: every node is top tier, as before v6.1.
    MemoryTiers tiers;
    PromotionKernel promotion;
    bool has_slow_tier = false;  // some node with memory is below the top tier
    // The kernel has the mm_migrate_pages_start tracepoint (every profile from v6.1; not the
    // v4.18 and v4.19 kernels).
    bool has_migrate_pages_start = false;
    // Where a THP fault looks for its huge page (mm/huge_memory.h): the local node first, then,
    // for a mask that reclaims directly, every allowed node (v5.4 on); v4.18 and v4.19 the local
    // node alone.
    ThpFaultNodes thp_fault_nodes = ThpFaultNodes::LocalFirst;
    PghotState pghot;  // the pghot knob's records and kmigrated threads (mm/pghot.h)

    std::vector<std::unique_ptr<Task>> tasks;
    // kswapd's kernel thread of each node (kswapd%d), made at its first wakeup (mm/vmscan.h): a
    // task on the runqueues like any other while it is awake, but no member of `tasks` (it has
    // no mm, no program, and does not keep a run alive).
    std::vector<std::unique_ptr<Task>> kswapd;
    size_t nr_exited_tasks = 0;  // tasks in TaskState::Dead (do_exit counts them)
    std::vector<std::unique_ptr<Mm>> mms;
    std::vector<std::unique_ptr<NumaGroup>> numa_groups;
    // The page cache of the files processes map (executables, libraries), by path and segment
    // layout (one inode each): every process that maps libc shares its pages
    // (workload/process_layout).
    std::map<std::string, std::shared_ptr<MemObject>> files;
    std::vector<Rq> rqs;
    // Declared after mms and files, so destroyed before them: it points into their frames.
    LruAddBatches lru_add;
    int khugepaged_mms = 0;          // mms on khugepaged's list (mm/khugepaged.h)
    Nanos khugepaged_next_pass = 0;  // when khugepaged's sleep ends
    int next_pid = 1000;  // pids of simulated tasks start here; hash_32 sees realistic values
    uint64_t next_group_order = 0;
    int balancing_depth = 0;  // >0 while a load balance runs: no nested newidle balancing
    SgStatsCache sg_cache;    // sched-group sums between balancing passes (on in Engine::run)
    Nohz nohz;                // NO_HZ idle CPUs and the idle load balancer's state
    // Whether scheduler_tick() takes a busy CPU's settled tick as SettledTicks does (fair.cpp);
    // off (the scenario key `settled_tick_in_place = false`) only to check that it changes no
    // outcome. settled_ticks_in_place counts those ticks (read by tests).
    bool settled_tick_in_place = true;
    uint64_t settled_ticks_in_place = 0;

    Rng rng_access;  // which protnone pages random streams touch
    Rng rng_sched;   // tie-breaks in the scheduler
    // Reclaim's draws (mm/vmscan.h): whether a page was accessed since its list was last
    // scanned, and next_demotion_node()'s choice among equally near targets.
    Rng rng_reclaim;
    // The placement policy's draws (a plugin's Run::random_u64): its own stream, so a policy's
    // randomness shifts no other component's.
    Rng rng_policy;

    int nr_nodes() const { return topo.nr_nodes(); }
    int nr_cpus() const { return topo.nr_cpus(); }
    int cpu_to_node(int cpu) const { return topo.cpus[cpu].node; }
    int task_node(const Task& p) const { return cpu_to_node(p.cpu); }
    int64_t jiffies() const { return ns_to_jiffies(now); }
    Rq& cpu_rq(int cpu) { return rqs[cpu]; }
    // The engine may hold back the ticks of a CPU whose one task has settled (engine/engine.h,
    // "Deferred ticks"). Whatever is about to change such a CPU's runqueue, or read its clock
    // or vruntimes, first calls catch_up_cpu(), which plays them.
    std::function<void(int)> play_deferred_ticks;
    void catch_up_cpu(int cpu) {
        if (rqs[static_cast<size_t>(cpu)].ticks_deferred) play_deferred_ticks(cpu);
    }
    bool numa_balancing_enabled() const { return knobs.enabled(); }
    // Forms the memory tiers as the kernel `release` ("v6.6") does, and takes its promotion
    // behaviour and its THP fault's nodes.
    void set_kernel_release(std::string_view release);
    bool node_is_toptier(int nid) const { return tiers.node_is_toptier(nid); }
    const PageGeometry& pages() const { return topo.hw.pages; }  // the base page and PMD THP
};

}  // namespace numasim
