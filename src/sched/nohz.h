// NO_HZ idle load balancing (CONFIG_NO_HZ_COMMON in kernel/sched/fair.c), on with the `nohz`
// knob. An idle CPU stops its tick: it takes no scheduler_tick() and balances nothing itself.
// Instead each busy CPU's tick calls nohz_balancer_kick(), which may kick one idle CPU, the idle
// load balancer (ilb), to run rebalance_domains(CPU_IDLE) on behalf of every idle CPU whose
// balance is due. docs/model.md, "NO_HZ idle", says what differs from the kernel.
#pragma once

#include <vector>

#include "sim/clock.h"

namespace numasim {

struct System;

// The kick flags (NOHZ_*_KICK_BIT of kernel/sched/sched.h). The model keeps no blocked load
// (a sleeping task's PELT sums are on no runqueue), so NOHZ_STATS_KICK would have nothing to
// update and is left out.
inline constexpr unsigned NOHZ_BALANCE_KICK = 1u << 0;  // balance the due idle CPUs
inline constexpr unsigned NOHZ_NEXT_KICK = 1u << 3;     // only recompute nohz.next_balance

// The kernel's `static struct nohz`, with the LLCs' sd_llc_shared->nr_busy_cpus.
struct Nohz {
    std::vector<char> idle_cpus_mask;  // by CPU: its tick is stopped (Rq::nohz_tick_stopped)
    int nr_cpus = 0;                   // CPUs in idle_cpus_mask
    bool needs_update = false;         // a CPU entered the mask since next_balance was computed
    Nanos next_balance = 0;            // the earliest rq next_balance among the idle CPUs
    std::vector<int> nr_busy_cpus;     // by LLC (Topology's llc index): CPUs not nohz_idle
};

// Sizes the state for sys's machine: no CPU idle yet, every CPU of an LLC domain busy, as
// sd_llc_shared is set up when the domains are built.
void nohz_init(System& sys);
// The CPU's tick is stopped: it is idle and in the nohz mask (tick_nohz_tick_stopped_cpu()).
// A CPU that became busy keeps its bit until its first tick, which the engine gives it.
bool tick_nohz_tick_stopped_cpu(const System& sys, int cpu);
// Called when a CPU goes idle (the model's tick_nohz_idle_stop_tick()): it joins
// nohz.idle_cpus_mask and leaves its LLC's nr_busy_cpus. Does nothing with the knob off.
void nohz_balance_enter_idle(System& sys, int cpu);
// The reverse, from the first tick of a CPU that is busy again.
void nohz_balance_exit_idle(System& sys, int cpu);
// From trigger_load_balance() on a ticking CPU: leaves nohz idle if busy, and kicks an idle
// load balancer when this CPU has work to spare or its LLC has other busy CPUs.
void nohz_balancer_kick(System& sys, int cpu);
// The NOHZ_*_KICK flags that nohz_balancer_kick() on busy `cpu` would send now (0: none).
unsigned nohz_kick_flags(const System& sys, int cpu);
// The first CPU of nohz.idle_cpus_mask other than this_cpu that is idle, or -1.
int find_new_ilb(const System& sys, int this_cpu);
// Asks the ilb for `flags`; a CPU already kicked only gathers the new flags.
void kick_ilb(System& sys, int this_cpu, unsigned flags);
// The kicked CPU's IPI and SCHED_SOFTIRQ (nohz_csd_func(), nohz_idle_balance()): runs the
// balance it was asked for if it is still idle. The engine calls it after the tick's CPUs.
void nohz_csd_func(System& sys, int cpu);
// Walks the idle CPUs from the one after this_cpu round to this_cpu: with NOHZ_BALANCE_KICK
// rebalances each whose next balance is due; then sets nohz.next_balance to the earliest.
void _nohz_idle_balance(System& sys, int this_cpu, unsigned flags);

}  // namespace numasim
