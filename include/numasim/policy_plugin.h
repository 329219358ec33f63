// numasim's placement-policy plugin ABI (docs/placement-policies.md, "Plugins").
//
// A plugin is a shared object that numasim loads with `--policy-plugin PATH.so`. It defines one
// placement policy: a class derived from numasim_plugin::Policy, and the entry point that
// NUMASIM_POLICY_PLUGIN below defines, which returns the ABI version the plugin was built for
// and its descriptor. This header is all a plugin needs: it links against nothing of numasim,
// and what crosses the boundary is abstract classes and plain types.
//
// The ABI version changes whenever anything in this file changes its layout or meaning; numasim
// loads only a plugin built for its own version.
//
// Determinism: numasim promises the same output for the same inputs and seed at any thread
// count. A policy keeps that promise by deciding only from what a call is given: its
// parameters, the view of the task or the fault, the run's clock and random stream (Run). One
// policy object serves every run of a scenario, and runs go in parallel: the hooks are const,
// and a policy must keep no state that a run changes.
#pragma once

#include <cstddef>
#include <cstdint>

namespace numasim_plugin {

inline constexpr uint32_t kAbiVersion = 2;

// "No node": a fault hook's answer for "leave the page where it is"; an unset field.
inline constexpr int kNoNode = -1;

// The decisions a policy takes over from the kernel's NUMA balancing, one bit each; numasim
// asks only for the declared ones.
enum Hook : uint32_t {
    // A process started from outside (not a fork) is about to be placed for the first time:
    // what a launcher (numactl, taskset) sets before exec().
    kHookExec = 1u << 0,
    // A NUMA hinting fault on a misplaced page: migrate it or not, and where
    // (should_numa_migrate_memory's decision in the kernel).
    kHookNumaFault = 1u << 1,
    // The task_numa_work side: numasim's PTE scanner stays off (no PTE is made PROT_NONE, no
    // hinting fault is taken), and the policy is told of every step of user work a task makes
    // instead (at most a tick long), with what access-sampling hardware (AMD IBS, Intel PEBS)
    // sees of it; it acts by feeding sampled accesses to NUMA balancing (ScanStep::access).
    kHookNumaScan = 1u << 3,
};

// The machine, as the factory and every hook see it.
class Machine {
  public:
    virtual int nr_nodes() const = 0;
    virtual int nr_cpus() const = 0;
    virtual int cpu_node(int cpu) const = 0;
    virtual bool node_has_memory(int node) const = 0;
    virtual int node_distance(int from, int to) const = 0;  // the SLIT value, 10 = local

  protected:
    ~Machine() = default;
};

// The run a hook is called in: its machine, its clock and its random stream (the stream
// "policy.plugin.NAME" of the run's seed), the only things that vary a policy may read.
class Run : public Machine {
  public:
    virtual uint64_t now_ns() const = 0;  // simulated time since the run started
    virtual uint64_t random_u64() = 0;
    virtual double random_uniform() = 0;  // [0, 1)

  protected:
    ~Run() = default;
};

// The policy's [policy.NAME] table of the scenario, as key/value strings (a TOML value other
// than a string is given as its TOML text: 2, true, [0, 1]).
class Params {
  public:
    virtual size_t size() const = 0;
    virtual const char* key(size_t i) const = 0;
    virtual const char* value(size_t i) const = 0;

  protected:
    ~Params() = default;
};

// The memory policies set_mempolicy(2) sets, as numactl names them.
enum class MemPolicy : uint32_t { kDefault, kBind, kInterleave, kPreferred, kLocal };

// kHookExec: the process's first task, between fork() and exec().
class ExecView {
  public:
    virtual int process() const = 0;  // processes started from outside in this run, from 0
    virtual int pid() const = 0;
    virtual const char* comm() const = 0;
    // sched_setaffinity(): the task may run on these CPUs only (at least one).
    virtual void set_cpus_allowed(const int* cpus, size_t nr) = 0;
    // set_mempolicy(): `nodes` is a node mask, bit n for node n (empty for kDefault and kLocal).
    virtual void set_mempolicy(MemPolicy mode, uint64_t nodes) = 0;

  protected:
    ~ExecView() = default;
};

// kHookNumaFault: a hinting fault the kernel would pass to should_numa_migrate_memory, with
// what the kernel knows at that point. The folio's last-fault tag (last_cpupid) has already
// been replaced by this fault's, as the kernel does; the previous tag is given here.
struct NumaFault {
    uint64_t address;        // the faulting virtual address
    int page_node;           // the node the page is on (folio_nid)
    int cpu;                 // the faulting CPU
    int cpu_node;            // its node: where the kernel would migrate the page
    int pid;                 // the faulting task
    int preferred_node;      // its numa_preferred_nid, or kNoNode
    uint32_t scan_seq;       // its numa_scan_seq: how many scan passes it has started
    int last_cpu;            // the CPU of the page's previous hinting fault, or -1 (never faulted)
    int last_node;           // that CPU's node, or kNoNode
    bool last_same_pid;      // the previous fault's pid bits match this task's: a private fault
    bool shared_mapping;     // the page is mapped by more than one process through a shared mapping
    bool write;              // the PTE is writable (a read-only fault never groups tasks)
    uint64_t allowed_nodes;  // the nodes the answer may name (bit n = node n): those with memory
                             // that the task's memory policy allows
};

// kHookNumaScan: how a step's accesses fall on one range of the task's address space (one
// access stream of the workload's phase).
enum class Pattern : uint32_t {
    kSweep,   // in order, wrapping around: the cursor passed the pages just before sweep_page
    kRandom,  // uniformly over the range (or its first chunk_start_pages pages)
    kHotSet,  // hot_share of the accesses on the first hot_fraction of the pages
};
struct AccessRange {
    uint64_t start;       // virtual address of the range's first page
    uint64_t pages;       // its length in base pages
    uint64_t page_bytes;  // the base page size
    double share;         // the fraction of the step's bytes that went to it
    Pattern pattern;
    double hot_fraction;         // kHotSet
    double hot_share;            // kHotSet
    uint64_t chunk_start_pages;  // kRandom: pages the accesses may start in (<= pages)
    uint64_t sweep_page;         // kSweep: the cursor's page at the step's end (< pages)
};

// kHookNumaScan: one step of user work of a task, and the one action a sampling policy has.
class ScanStep {
  public:
    virtual int pid() const = 0;
    virtual int cpu() const = 0;
    virtual double bytes() const = 0;       // the bytes the step moved
    virtual double llc_misses() const = 0;  // its last-level-cache misses (expected count)
    virtual size_t nr_ranges() const = 0;
    virtual AccessRange range(size_t i) const = 0;
    // Feeds one sampled access by the task at `address` to NUMA balancing as a hinting-fault
    // equivalent (the IBS posting's do_numa_access: counted as a NUMA hint fault, the page
    // migrated toward the task's node if the kernel's decision says so, the fault statistics
    // updated). An address in no suitable mapping is ignored. Returns the kernel time in ns a
    // migration took (0 if none); the sample's own cost is the policy's to add.
    virtual double access(uint64_t address) = 0;

  protected:
    ~ScanStep() = default;
};

class Policy {
  public:
    virtual ~Policy() = default;
    // kHookExec.
    virtual void exec(ExecView& task, Run& run) const {
        (void)task;
        (void)run;
    }
    // kHookNumaFault: the node to migrate the page to, or kNoNode to leave it. A node must
    // exist and have memory. The answer is taken for the run of like pages the fault starts
    // (pages with the same node, tag and mapping, faulted by the same task at the same time),
    // as the kernel would decide each of them alike.
    virtual int numa_fault(const NumaFault& fault, Run& run) const {
        (void)fault;
        (void)run;
        return kNoNode;
    }
    // kHookNumaScan: after each step of user work; returns the kernel time in ns the policy's
    // work took (the sampling interrupts, the handling of each sample and what access()
    // returned), which the task pays as system time (>= 0).
    virtual double numa_scan(ScanStep& step, Run& run) const {
        (void)step;
        (void)run;
        return 0;
    }
};

// What the entry point returns. `create` reads the policy's parameters (it may throw to refuse
// them: the message is shown to the user) and returns a policy that numasim deletes.
struct Descriptor {
    const char* name;         // what `policy = "NAME"` selects; [a-z0-9_-]+
    const char* description;  // one line, for `numasim policies`
    uint32_t hooks;           // Hook bits
    Policy* (*create)(const Params& params, const Machine& machine);
};

}  // namespace numasim_plugin

// The entry point numasim looks up: returns the ABI version and sets *out to the descriptor.
#define NUMASIM_POLICY_PLUGIN_ENTRY numasim_policy_plugin
#define NUMASIM_POLICY_PLUGIN_ENTRY_NAME "numasim_policy_plugin"
#define NUMASIM_POLICY_PLUGIN(descriptor)                                                   \
    extern "C" __attribute__((visibility("default"))) uint32_t NUMASIM_POLICY_PLUGIN_ENTRY( \
        const ::numasim_plugin::Descriptor** out) {                                         \
        *out = &(descriptor);                                                               \
        return ::numasim_plugin::kAbiVersion;                                               \
    }
