// The placement-policy API (docs/placement-policies.md): the decisions about where tasks run and
// where their memory lives that a policy may take over from the kernel's own NUMA balancing.
//
// The kernel's loop is the reference implementation, "mainline": a run with no policy
// (System::placement_policy null) is that loop, and each hook below is asked only by a policy
// that declares it, so mainline's paths carry no indirection. A policy is a const object shared
// by every run of a scenario (runs go in parallel): its per-run state lives in System, and what
// it may read is what a real implementation at that point could see.
#pragma once

#include <cstdint>
#include <span>

#include "mm/cpupid.h"
#include "sim/clock.h"

namespace numasim {

struct System;
struct Task;
struct AccessStream;

// What the kernel knows of a hinting fault where it would call should_numa_migrate_memory. The
// folio's tag already holds this fault's (cpu, pid); `last_cpupid` is the one it replaced.
struct NumaFaultInfo {
    uint64_t address;        // the faulting address
    int page_nid;            // folio_nid
    int cpu;                 // the faulting CPU
    cpupid_t last_cpupid;    // the folio's previous tag
    uint64_t allowed_nodes;  // the nodes the memory policy lets the page go to
    bool shared;             // TNF_SHARED: mapped by more than one process, VM_SHARED
    bool writable;           // the restored PTE may be writable (else TNF_NO_GROUP)
};

// What a step of a task's user work did, as hardware that watches memory accesses could see it
// (kNumaScan): how many bytes it moved and how many of its accesses left the last-level cache,
// and where they went: the phase's streams (cost/access.h), each a range of pages with its
// share of the bytes and its pattern, and each sweep's cursor at the step's start.
struct UserStep {
    int cpu;
    double bytes;
    double llc_misses;  // expected misses of the step (the cost model's miss rate x bytes)
    std::span<const AccessStream> streams;
    std::span<const uint64_t> sweep_pos;  // per stream, its page offset in the region
};

// What a policy keeps for one run (a daemon's tables): System::policy_state owns it.
struct PolicyRunState {
    virtual ~PolicyRunState() = default;
};

class PlacementPolicy {
  public:
    // The decisions a policy may take, one bit each; the kernel asks only for declared ones.
    enum Hook : uint32_t {
        // A process started from outside (a workload's program, not a fork: a child inherits
        // what its parent has) is about to be placed for the first time: what a launcher such as
        // numactl or taskset sets before exec() (the CPU affinity, the task memory policy).
        kExec = 1u << 0,
        // A NUMA hinting fault on a page that the task's memory policy lets NUMA balancing move
        // toward the faulting CPU (MPOL_F_MORON), on a top-tier node: migrate it or not, and
        // where. Replaces should_numa_migrate_memory; asked once per fault run.
        kNumaFault = 1u << 1,
        // A user-space daemon such as numad, which the kernel never calls: it wakes at intervals
        // of its own choosing, reads what /proc and sysfs show (kernel/proc_view.h) and acts
        // through the system calls a daemon has (kernel/agent_calls.h), paying their costs.
        kAgent = 1u << 2,
        // The task_numa_work side: which memory to look at, and when. Declared, the kernel's
        // PTE scanner stays off (task_tick_numa queues no task_numa_work, so nothing is made
        // PROT_NONE and no hinting fault is taken), and the policy is told of every step of
        // user work a task makes instead (numa_scan), the way access-sampling hardware sees
        // the accesses as they happen.
        kNumaScan = 1u << 3,
        // The task_numa_placement / task_numa_migrate side's timing: when a placement pass runs
        // and how its period adapts, what counts as early in a task's life for
        // should_numa_migrate_memory, and the retry interval of numa_migrate_preferred. The
        // pass itself (fault statistics, preferred node, task moves) stays the kernel's.
        kNumaPlacement = 1u << 4,
    };

    explicit PlacementPolicy(uint32_t hooks) : hooks_(hooks) {}
    virtual ~PlacementPolicy() = default;
    PlacementPolicy(const PlacementPolicy&) = delete;
    PlacementPolicy& operator=(const PlacementPolicy&) = delete;

    bool has(Hook h) const { return (hooks_ & h) != 0; }

    // kExec: `leader` is the process's first task, not yet placed or enqueued; `process` counts
    // the processes started from outside in this run, from 0, in the order they start.
    virtual void exec(System& sys, Task& leader, int process) const;
    // kNumaFault: the node to migrate the page to (one of f.allowed_nodes), or NUMA_NO_NODE to
    // leave it; `p` took the fault. The answer holds for the run of like pages the fault starts.
    virtual int numa_fault(System& sys, Task& p, const NumaFaultInfo& f) const;
    // kAgent: the daemon's pass at sys.now, at the first tick of the run and then at the first
    // tick at or after each wake-up it asked for; returns how long it sleeps now (> 0). What it
    // keeps between passes lives in sys.policy_state (one run's, as the policy is shared).
    virtual Nanos agent(System& sys) const;
    // kNumaScan: after each step of user work of `p` (on step.cpu, where it still runs); returns
    // the kernel CPU time the policy's work took, which `p` pays as system time. Asked once per
    // step, never per page.
    virtual double numa_scan(System& sys, Task& p, const UserStep& step) const;
    // kNumaPlacement: asked where task_numa_placement tests whether a new scan sequence began:
    // whether a placement pass runs now.
    virtual bool numa_placement_due(System& sys, Task& p) const;
    // kNumaPlacement: in place of update_task_scan_period at the end of a pass, with the pass's
    // shared and private fault counts.
    virtual void numa_placement_done(System& sys, Task& p, unsigned long shared,
                                     unsigned long priv) const;
    // kNumaPlacement: should_numa_migrate_memory's "early in the task's life" (first touches and
    // private faults migrate at once), in place of numa_scan_seq <= NUMA_EARLY_SCAN_SEQ.
    virtual bool numa_early_life(const System& sys, const Task& p) const;
    // kNumaPlacement: the period in ms whose sixteenth bounds numa_migrate_preferred's retry
    // interval, in place of numa_scan_period.
    virtual unsigned numa_retry_period_ms(const System& sys, const Task& p) const;

  private:
    uint32_t hooks_;
};

}  // namespace numasim
