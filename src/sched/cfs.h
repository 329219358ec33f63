// CFS, the fair class up to v6.5 (kernel/sched/fair.c before the EEVDF series): the rules that
// differ from EEVDF. The task with the least vruntime runs; a new task starts one slice behind
// (START_DEBIT); a waking sleeper is credited at most half a latency period (GENTLE_FAIR_SLEEPERS);
// the tick preempts once curr had its share of sched_latency (check_preempt_tick); a wakee
// preempts when it is a wakeup granularity behind curr (check_preempt_wakeup).
#pragma once

namespace numasim {

struct System;
struct Rq;
struct Task;

namespace cfs {

// place_entity(initial = true) for a new task, (initial = false) for a wakeup from `prev`.
void place_entity(const System& sys, const Rq& rq, const Rq& prev, Task& se, bool initial);
// migrate_task_rq_fair(): vruntime kept relative to the runqueues' min_vruntime.
void migrate_task_rq_fair(const Rq& src, const Rq& dst, Task& se);
Task* pick_next_entity(const Rq& rq);  // the queued task with the least vruntime
bool check_preempt_tick(const System& sys, const Rq& rq);
bool check_preempt_wakeup(const System& sys, const Rq& rq, const Task& p);

}  // namespace cfs
}  // namespace numasim
