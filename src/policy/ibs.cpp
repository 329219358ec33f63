// "ibs": NUMA balancing driven by hardware access sampling instead of PTE scanning and hinting
// faults, as Bharata B Rao posted it to linux-mm ("[RFC PATCH 0/5] Memory access profiler(IBS)
// driven NUMA balancing", 2023-02-08, <20230208073533.715-1-bharata@amd.com>). AMD's
// Instruction-Based Sampling tags one op every sample period; the NMI handler keeps the
// user-space loads and stores that reached DRAM and queues each as task work, which feeds it to
// NUMA balancing as a hinting-fault equivalent (do_numa_access). The scanner is off, and the
// fault statistics, the migrate decision and task placement are the kernel's, with the
// posting's timing changes (patch 4/5): placement every `access_faults_threshold` samples, a
// per-task sample period adapted as the scan period is, and "early life" counted in samples.
// docs/placement-policies.md, "ibs", says what is left out.
#include <fmt/format.h>

#include <algorithm>
#include <unordered_map>
#include <vector>

#include "config/toml_reader.h"
#include "kernel/system.h"
#include "mm/vma.h"
#include "numab/numab.h"
#include "policy/ibs_sampler.h"
#include "policy/registry.h"

namespace numasim {

namespace {

// The knobs, under the names of the posting's debugfs files (patches 4/5 and 5/5), with its
// defaults, plus the two costs the posting does not state.
struct IbsOptions {
    // Ops between tagged ops (IBS_SAMPLE_PERIOD / sysctl_numa_balancing_sample_period_def).
    unsigned sample_period_def = 10000;
    // The bounds update_task_sample_period keeps a task's period within.
    unsigned sample_period_min = 5000;
    unsigned sample_period_max = 20000;
    // Samples between placement passes; four times it is a task's "early life".
    unsigned access_faults_threshold = 250;
    // Sampling starts this long after the address space was first seen (numa_hw_access_delay).
    unsigned access_faults_delay_ms = 1000;
    // The counter-overflow NMI: entry and exit, the IBS MSR reads and the write that re-arms
    // the counter, the GFP_ATOMIC allocation and task_work_add. 1 us: the interrupt round trip
    // of the TLB-shootdown papers behind TLB_FLUSH_IPI_NS (0.5-1 us) at its top, as six
    // serialising MSR accesses come on top. perf's default budget per sample interrupt
    // (perf_cpu_time_max_percent 25 of 1 / perf_event_max_sample_rate 100000 s) is 2.5 us.
    double nmi_ns = 1000;
    // Handling one sample in task work (do_numa_access: mmap_read_trylock, find_vma, the page
    // lookup, numa_migrate_prep, task_numa_fault): a hinting fault's work, which mmtests' cost
    // model charges at 5000 cycles per numa_hint_faults event (Cnumahint, HINT_FAULT_CYCLES),
    // the counter the posting's kernel increments once per sample. A migration is charged
    // apart, as for a hinting fault.
    double sample_cycles = 5000;
};

unsigned read_uint(const TomlTable& t, const char* key, unsigned fallback, unsigned lo) {
    const int64_t v = t.get_int(key, fallback);
    if (v < lo || v > int64_t{1} << 31)
        t.fail(key, fmt::format("{} is out of range: {} to 2147483648", v, lo));
    return static_cast<unsigned>(v);
}

double read_cost(const TomlTable& t, const char* key, double fallback) {
    const double v = t.get_double(key, fallback);
    if (!(v >= 0 && v <= 1e9)) t.fail(key, fmt::format("{} is out of range: 0 to 1e9", v));
    return v;
}

IbsOptions read_options(const TomlTable* t) {
    IbsOptions o;
    if (!t) return o;
    o.sample_period_def = read_uint(*t, "sample_period_def", o.sample_period_def, 1);
    o.sample_period_min = read_uint(*t, "sample_period_min", o.sample_period_min, 1);
    o.sample_period_max = read_uint(*t, "sample_period_max", o.sample_period_max, 1);
    o.access_faults_threshold =
        read_uint(*t, "access_faults_threshold", o.access_faults_threshold, 1);
    o.access_faults_delay_ms = read_uint(*t, "access_faults_delay_ms", o.access_faults_delay_ms, 0);
    o.nmi_ns = read_cost(*t, "nmi_ns", o.nmi_ns);
    o.sample_cycles = read_cost(*t, "sample_cycles", o.sample_cycles);
    if (o.sample_period_min > o.sample_period_max)
        t->fail("sample_period_min", fmt::format("{} is above sample_period_max ({})",
                                                 o.sample_period_min, o.sample_period_max));
    t->finish();
    return o;
}

// What the posting adds to task_struct, per task.
struct TaskSampling {
    unsigned numa_sample_period = 0;  // 0: not seen yet
    unsigned numa_access_faults = 0;
    unsigned numa_access_faults_window = 0;
    double carry = 0;  // the fraction of a sample the counter holds
};

struct IbsRunState final : PolicyRunState {
    std::vector<TaskSampling> tasks;  // by Task::index
    // mm->numa_hw_access_delay, by the thread group's id (pids are never reused in a run, where
    // an Mm's address could be); only looked up, never walked.
    std::unordered_map<int, Nanos> hw_access_delay;
};

class Ibs : public PlacementPolicy {
  public:
    explicit Ibs(const IbsOptions& o) : PlacementPolicy(kNumaScan | kNumaPlacement), o_(o) {}

    double numa_scan(System& sys, Task& p, const UserStep& step) const override {
        // hw_access_sched_in(): kernel threads are not sampled; nothing is without balancing.
        if (!p.mm || !sys.numa_balancing_enabled()) return 0;
        IbsRunState& st = state(sys);
        // delay_hw_access_profiling() (patch 5/5): the first sight of the address space starts
        // its delay.
        const Nanos start =
            st.hw_access_delay
                .try_emplace(
                    p.tgid, sys.now + static_cast<Nanos>(o_.access_faults_delay_ms) * NSEC_PER_MSEC)
                .first->second;
        if (sys.now < start) return 0;
        TaskSampling& t = task(st, p);
        const uint64_t n = ibs_samples(t.carry, step.llc_misses, t.numa_sample_period);
        double ns = static_cast<double>(n) * (o_.nmi_ns + sys.cost.cycles_ns(o_.sample_cycles));
        for (uint64_t i = 0; i < n; ++i) {
            const auto s = ibs_sample_page(step, sys.rng_policy);
            if (!s) break;
            const Region& r = *step.streams[s->stream].region;
            ns += do_numa_access(sys, p, *r.vma, r.first + s->page);
        }
        return ns;
    }

    // task_numa_placement() under hw_access_hints: every call counts one access fault, and a
    // pass runs once the window holds access_faults_threshold of them.
    bool numa_placement_due(System& sys, Task& p) const override {
        TaskSampling& t = task(state(sys), p);
        ++t.numa_access_faults_window;
        ++t.numa_access_faults;
        if (t.numa_access_faults_window < o_.access_faults_threshold) return false;
        t.numa_access_faults_window = 0;
        return true;
    }

    // update_task_sample_period() (patch 4/5): update_task_scan_period's rule on the sample
    // period, within sample_period_min and _max.
    void numa_placement_done(System& sys, Task& p, unsigned long shared,
                             unsigned long priv) const override {
        TaskSampling& t = task(state(sys), p);
        const unsigned long remote = p.numa_faults_locality[0];
        const unsigned long local = p.numa_faults_locality[1];
        if (local + shared == 0 || p.numa_faults_locality[2]) {
            t.numa_sample_period = std::min(o_.sample_period_max, t.numa_sample_period << 1);
            return;  // the locality counters stay, as in the posting
        }
        constexpr long kSlots = 10, kThreshold = 7;  // NUMA_PERIOD_SLOTS, NUMA_PERIOD_THRESHOLD
        const long period_slot = (static_cast<long>(t.numa_sample_period) + kSlots - 1) / kSlots;
        const long lr_ratio =
            local + remote ? static_cast<long>(local) * kSlots / static_cast<long>(local + remote)
                           : 0;
        const long ps_ratio =
            priv + shared ? static_cast<long>(priv) * kSlots / static_cast<long>(priv + shared) : 0;
        long diff;
        // The posting tests the private share first, then the local one (its comments are the
        // other way round); the code's order is kept.
        if (ps_ratio >= kThreshold)
            diff = std::max<long>(1, ps_ratio - kThreshold) * period_slot;
        else if (lr_ratio >= kThreshold)
            diff = std::max<long>(1, lr_ratio - kThreshold) * period_slot;
        else
            diff = -(kThreshold - std::max(lr_ratio, ps_ratio)) * period_slot;
        t.numa_sample_period = static_cast<unsigned>(std::clamp(
            static_cast<long>(t.numa_sample_period) + diff, static_cast<long>(o_.sample_period_min),
            static_cast<long>(o_.sample_period_max)));
        std::fill(std::begin(p.numa_faults_locality), std::end(p.numa_faults_locality), 0);
    }

    // should_numa_migrate_memory(): early while fewer than four windows of samples came.
    bool numa_early_life(const System& sys, const Task& p) const override {
        const IbsRunState* st = static_cast<const IbsRunState*>(sys.policy_state.get());
        const size_t i = static_cast<size_t>(p.index);
        const unsigned faults = st && i < st->tasks.size() ? st->tasks[i].numa_access_faults : 0;
        return faults < o_.access_faults_threshold * 4;
    }

    // numa_migrate_preferred(): the posting hands the sample period, a count of ops, to
    // msecs_to_jiffies() as if it were milliseconds; kept as posted.
    unsigned numa_retry_period_ms(const System& sys, const Task& p) const override {
        const IbsRunState* st = static_cast<const IbsRunState*>(sys.policy_state.get());
        const size_t i = static_cast<size_t>(p.index);
        return st && i < st->tasks.size() && st->tasks[i].numa_sample_period
                   ? st->tasks[i].numa_sample_period
                   : o_.sample_period_def;
    }

  private:
    static IbsRunState& state(System& sys) {
        if (!sys.policy_state) sys.policy_state = std::make_unique<IbsRunState>();
        return static_cast<IbsRunState&>(*sys.policy_state);
    }

    // init_numa_balancing() sets numa_sample_period to the default: here, at first sight.
    TaskSampling& task(IbsRunState& st, const Task& p) const {
        const size_t i = static_cast<size_t>(p.index);
        if (i >= st.tasks.size()) st.tasks.resize(i + 1);
        TaskSampling& t = st.tasks[i];
        if (!t.numa_sample_period) t.numa_sample_period = o_.sample_period_def;
        return t;
    }

    IbsOptions o_;
};

const PolicyRegistrar reg("ibs",
                          "sampled memory accesses (AMD IBS) instead of PTE scanning and hinting "
                          "faults, as the 2023 linux-mm RFC feeds them to NUMA balancing",
                          [](const TomlTable* t, const Topology&) {
                              return std::make_unique<Ibs>(read_options(t));
                          });

}  // namespace

}  // namespace numasim
