#include "kernel/agent_calls.h"

#include <cmath>

#include "kernel/system.h"
#include "mm/migrate_syscall.h"
#include "sched/fair.h"
#include "sched/load_balance.h"

namespace numasim {

int sched_setaffinity_threads(System& sys, int pid, const std::vector<int>& cpus) {
    int set = 0;
    for (const auto& tp : sys.tasks) {
        Task& t = *tp;
        if (t.tgid != pid || t.exiting()) continue;
        t.allow_only(cpus);
        ++set;
        sys.agent_kernel_ns += SCHED_SETAFFINITY_NS;
        if (t.state != TaskState::Sleeping && !t.allowed(t.cpu))
            move_task(sys, t, find_idlest_cpu(sys, t, t.cpu, SdFlag::kAnyDomain));
    }
    return set;
}

int64_t sys_migrate_pages(System& sys, int pid, uint64_t old_nodes, uint64_t new_nodes, int cpu,
                          const Task* caller) {
    for (const auto& tp : sys.tasks) {
        const Task& t = *tp;
        if (t.tgid != pid || t.exiting() || !t.mm) continue;
        double kernel_ns = 0;
        const uint64_t failed =
            do_migrate_pages(sys, *t.mm, old_nodes, new_nodes, cpu, kernel_ns, caller);
        sys.agent_kernel_ns += kernel_ns;
        return static_cast<int64_t>(failed);
    }
    return -1;
}

int agent_wake_cpu(System& sys) {
    const int prev = sys.agent_cpu;
    if (idle_cpu(sys, prev)) return prev;
    for (int cpu : sys.topo.llc_cpus(prev))
        if (idle_cpu(sys, cpu)) return cpu;
    return prev;
}

void charge_agent_pass(System& sys) {
    const double spent = sys.agent_read_ns + sys.agent_kernel_ns;
    const auto ns = static_cast<Nanos>(std::llround(spent - sys.agent_charged_ns));
    if (ns <= 0) return;
    sys.rqs[static_cast<size_t>(sys.agent_cpu)].kthread_debt += ns;
    sys.agent_charged_ns += static_cast<double>(ns);
}

}  // namespace numasim
