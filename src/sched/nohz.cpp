#include "sched/nohz.h"

#include <algorithm>

#include "kernel/system.h"
#include "sched/fair.h"
#include "sched/load_balance.h"

namespace numasim {

namespace {

// set_cpu_sd_state_idle() / _busy(): the CPU's LLC domain counts it out of or back into the
// LLC's nr_busy_cpus. A CPU without an LLC domain (alone in its LLC) counts nowhere.
void set_cpu_sd_state(System& sys, int cpu, bool idle) {
    Rq& rq = sys.rqs[cpu];
    if (!sys.sched.sd_llc(cpu) || rq.nohz_idle == idle) return;
    rq.nohz_idle = idle;
    sys.nohz.nr_busy_cpus[static_cast<size_t>(sys.topo.cpus[cpu].llc)] += idle ? -1 : 1;
}

}  // namespace

void nohz_init(System& sys) {
    Nohz& n = sys.nohz;
    n = Nohz{};
    n.idle_cpus_mask.assign(static_cast<size_t>(sys.nr_cpus()), 0);
    n.nr_busy_cpus.assign(static_cast<size_t>(sys.topo.nr_llcs()), 0);
    for (int c = 0; c < sys.nr_cpus(); ++c)
        if (sys.sched.sd_llc(c)) ++n.nr_busy_cpus[static_cast<size_t>(sys.topo.cpus[c].llc)];
}

bool tick_nohz_tick_stopped_cpu(const System& sys, int cpu) {
    return sys.rqs[cpu].nohz_tick_stopped && idle_cpu(sys, cpu);
}

void nohz_balance_enter_idle(System& sys, int cpu) {
    Rq& rq = sys.rqs[cpu];
    // on_null_domain(): a CPU with no domain has nobody to balance with.
    if (!sys.knobs.nohz || rq.nohz_tick_stopped || sys.sched.domains[cpu].empty()) return;
    rq.nohz_tick_stopped = true;
    sys.nohz.idle_cpus_mask[static_cast<size_t>(cpu)] = 1;
    ++sys.nohz.nr_cpus;
    set_cpu_sd_state(sys, cpu, true);
    sys.nohz.needs_update = true;
}

void nohz_balance_exit_idle(System& sys, int cpu) {
    Rq& rq = sys.rqs[cpu];
    if (!rq.nohz_tick_stopped) return;
    rq.nohz_tick_stopped = false;
    sys.nohz.idle_cpus_mask[static_cast<size_t>(cpu)] = 0;
    --sys.nohz.nr_cpus;
    set_cpu_sd_state(sys, cpu, false);
}

void nohz_balancer_kick(System& sys, int cpu) {
    // rq->idle_balance: an idle CPU's tick kicks nobody.
    if (idle_cpu(sys, cpu)) return;
    nohz_balance_exit_idle(sys, cpu);
    if (const unsigned flags = nohz_kick_flags(sys, cpu)) kick_ilb(sys, cpu, flags);
}

unsigned nohz_kick_flags(const System& sys, int cpu) {
    if (sys.nohz.nr_cpus == 0) return 0;
    unsigned flags = 0;
    if (sys.now >= sys.nohz.next_balance) {
        const Rq& rq = sys.rqs[cpu];
        // A task waits here that an idle CPU could run. (check_cpu_capacity() is never true in
        // the model: nothing takes capacity from the fair class. The asym-packing and misfit
        // tests need asymmetric CPUs, which no machine has.)
        if (rq.nr_running >= 2) {
            flags = NOHZ_BALANCE_KICK;
        } else if (sys.sched.sd_llc(cpu) &&
                   sys.nohz.nr_busy_cpus[static_cast<size_t>(sys.topo.cpus[cpu].llc)] > 1) {
            // Other CPUs of the LLC are busy too: an idle CPU elsewhere may spread them.
            flags = NOHZ_BALANCE_KICK;
        }
    }
    if (sys.nohz.needs_update) flags |= NOHZ_NEXT_KICK;
    return flags;
}

int find_new_ilb(const System& sys, int this_cpu) {
    for (int c = 0; c < sys.nr_cpus(); ++c)
        if (c != this_cpu && sys.nohz.idle_cpus_mask[static_cast<size_t>(c)] && idle_cpu(sys, c))
            return c;
    return -1;
}

void kick_ilb(System& sys, int this_cpu, unsigned flags) {
    // No other kick until the next tick: the ilb will set the real next balance.
    if (flags & NOHZ_BALANCE_KICK) sys.nohz.next_balance = sys.now + TICK_NSEC;
    const int ilb = find_new_ilb(sys, this_cpu);
    if (ilb < 0) return;
    // A CPU with a kick pending has its IPI on the way: it only gathers the new flags.
    sys.rqs[ilb].nohz_flags |= flags;
}

void nohz_csd_func(System& sys, int cpu) {
    Rq& rq = sys.rqs[cpu];
    const unsigned flags = rq.nohz_flags;
    rq.nohz_flags = 0;
    // nohz_idle_balance() runs only from an idle CPU's softirq.
    if (flags && idle_cpu(sys, cpu)) _nohz_idle_balance(sys, cpu, flags);
}

void _nohz_idle_balance(System& sys, int this_cpu, unsigned flags) {
    Nohz& n = sys.nohz;
    Nanos next_balance = sys.now + NEXT_BALANCE_HORIZON;
    bool update_next_balance = false;
    if (flags & NOHZ_NEXT_KICK) n.needs_update = false;
    // From the CPU after this_cpu round to this_cpu, so that the others may pull first.
    const int nr = sys.nr_cpus();
    for (int k = 1; k <= nr; ++k) {
        const int c = (this_cpu + k) % nr;
        if (!n.idle_cpus_mask[static_cast<size_t>(c)] || !idle_cpu(sys, c)) continue;
        Rq& rq = sys.rqs[c];
        if ((flags & NOHZ_BALANCE_KICK) && sys.now >= rq.next_balance)
            rebalance_domains(sys, c, CpuIdleType::Idle);
        if (rq.next_balance < next_balance) {
            next_balance = rq.next_balance;
            update_next_balance = true;
        }
    }
    if (update_next_balance) n.next_balance = next_balance;
}

}  // namespace numasim
