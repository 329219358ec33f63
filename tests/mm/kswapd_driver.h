// The engine's part for kswapd (Engine::advance_cpu), for the tests of mm/vmscan.h that run no
// engine: on CPUs that run no task but kswapd threads.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>

#include "kernel/system.h"
#include "mm/vmscan.h"

namespace numasim::mmtest {

// Brings `rq` to `to`: a kswapd thread that is its current task pays its kernel time on the
// clock (stime, sum_exec_runtime, kswapd_stime_ns) and, with nothing owed, takes its next step.
inline void advance_kswapd_cpu(System& sys, Rq& rq, Nanos to) {
    while (rq.clock < to) {
        Task* p = rq.curr;
        if (!p) {
            rq.clock = to;
            return;
        }
        ASSERT_TRUE(p->kthread()) << "a CPU runs a task the driver cannot run";
        if (p->kernel_debt > 0) {
            const Nanos k = std::min(p->kernel_debt, to - rq.clock);
            p->kernel_debt -= k;
            p->stime += k;
            p->sum_exec_runtime += k;
            sys.counters.kswapd_stime_ns[static_cast<size_t>(p->kswapd_nid)] +=
                static_cast<uint64_t>(k);
            rq.clock += k;
            continue;
        }
        kswapd_run(sys, *p);
    }
}

// Runs the machine to `until`: the EV_KSWAPD_WAKEUPs queued up to then are delivered in time
// order, every CPU brought to each first.
inline void run_kswapd_until(System& sys, Nanos until) {
    for (;;) {
        const bool ev = !sys.events.empty() && sys.events.top().when <= until;
        const Nanos to = ev ? sys.events.top().when : until;
        for (Rq& rq : sys.rqs)
            advance_kswapd_cpu(sys, rq, to);
        if (!ev) break;
        const Event e = sys.events.pop();
        sys.now = std::max(sys.now, e.when);
        if (e.kind == EV_KSWAPD_WAKEUP) kswapd_wake_event(sys, e.a, e.b);
    }
    sys.now = until;
}

}  // namespace numasim::mmtest
