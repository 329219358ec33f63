// EEVDF, the fair class of v6.6 and later (147f3efaa241 "sched/fair: Implement an EEVDF-like
// scheduling policy" and its series; kernel/sched/fair.c): the per-runqueue average vruntime,
// eligibility, the earliest-eligible-virtual-deadline pick, lag-based placement, and the
// request (slice) bookkeeping. The functions work on one runqueue and its entities (curr and the
// queued tasks, delayed ones included) and know nothing of the rest of the system; fair.cpp
// calls them at the kernel's call sites.
//
// Virtual time is kept in doubles (the kernel's u64 with a min_vruntime base): with nice-0
// weights every quantity below is an integer number of ns and exact.
#pragma once

#include "sim/clock.h"

namespace numasim {

struct Rq;
struct Task;

namespace eevdf {

inline constexpr int ENQUEUE_INITIAL = 0x80;  // kernel/sched/sched.h: a task's first enqueue

// calc_delta_fair(): `delta` ns of CPU time in the virtual time of `se` (delta x 1024 / w).
double calc_delta_fair(Nanos delta, const Task& se);

// avg_vruntime(): V, the load-weighted mean vruntime of the entities on rq, curr included;
// min_vruntime when the runqueue is empty.
double avg_vruntime(const Rq& rq);

// entity_eligible(): V >= se's vruntime, tested as the kernel does, without dividing:
// sum_j w_j (v_j - v0) >= (v_se - v0) * sum_j w_j.
bool entity_eligible(const Rq& rq, const Task& se);

// pick_eevdf(): among the eligible entities the one with the earliest virtual deadline, with
// RUN_TO_PARITY (curr keeps the CPU while it is eligible and still in the request it was picked
// for: its vlag holds the stashed deadline). nullptr only for an empty runqueue.
Task* pick_eevdf(const Rq& rq);

// place_entity(): put `se` (not on rq) at V minus its stored lag, the lag inflated by
// (W + w) / W so that it is still vlag once se has joined; a fresh request of base_slice, half
// of it under ENQUEUE_INITIAL; a relative deadline kept across a migration is restored instead
// (PLACE_REL_DEADLINE, v6.12).
void place_entity(const Rq& rq, Task& se, Nanos base_slice, int flags);

// update_deadline(): when se has used up its request (vruntime >= deadline) start the next one
// from the current vruntime. Returns whether it did.
bool update_deadline(Task& se, Nanos base_slice);

// update_entity_lag(): vlag = V - vruntime with se still on rq, clamped to
// +-calc_delta_fair(max(2 x slice, TICK_NSEC)).
void update_entity_lag(const Rq& rq, Task& se);

}  // namespace eevdf
}  // namespace numasim
