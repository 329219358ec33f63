#include "kernel/tracepoints.h"

#include "kernel/system.h"

namespace numasim {

namespace {

TraceEvent on_cpu(const System& sys, TraceEventId id, int cpu) {
    TraceEvent e;
    e.id = id;
    e.cpu = cpu;
    e.ts = sys.rqs[static_cast<size_t>(cpu)].clock;
    e.current = sys.rqs[static_cast<size_t>(cpu)].curr;
    return e;
}

}  // namespace

void trace_sched_left_cpu(System& sys, int cpu, const Task& p, SwitchOutState s) {
    if (sys.tracer.on(TraceEventId::sched_switch)) sys.tracer.left_cpu(cpu, p, s);
}

void trace_sched_settle(System& sys, int cpu) {
    if (!sys.tracer.on(TraceEventId::sched_switch)) return;
    const Rq& rq = sys.rqs[static_cast<size_t>(cpu)];
    sys.tracer.settle(rq.clock, cpu, rq.curr);
}

void trace_sched_wakeup(System& sys, const Task& p, int target_cpu, int waker_cpu) {
    if (!sys.tracer.on(TraceEventId::sched_wakeup)) return;
    TraceEvent e = on_cpu(sys, TraceEventId::sched_wakeup, waker_cpu);
    e.a = &p;
    e.cpu1 = target_cpu;
    sys.tracer.emit(e);
}

void trace_sched_migrate_task(System& sys, const Task& p, int dest_cpu) {
    if (!sys.tracer.on(TraceEventId::sched_migrate_task)) return;
    TraceEvent e = on_cpu(sys, TraceEventId::sched_migrate_task, p.cpu);
    e.a = &p;
    e.cpu1 = p.cpu;
    e.cpu2 = dest_cpu;
    sys.tracer.emit(e);
}

void trace_sched_process_fork(System& sys, const Task& parent, const Task& child) {
    if (!sys.tracer.on(TraceEventId::sched_process_fork)) return;
    TraceEvent e = on_cpu(sys, TraceEventId::sched_process_fork, parent.cpu);
    e.current = &parent;
    e.a = &parent;
    e.b = &child;
    sys.tracer.emit(e);
}

void trace_sched_process_exit(System& sys, const Task& p) {
    if (!sys.tracer.on(TraceEventId::sched_process_exit)) return;
    TraceEvent e = on_cpu(sys, TraceEventId::sched_process_exit, p.cpu);
    e.current = &p;
    e.a = &p;
    sys.tracer.emit(e);
}

void trace_mm_migrate_pages(System& sys, const Task& p, uint64_t succeeded, uint64_t failed,
                            uint64_t thp_succeeded, uint64_t thp_failed) {
    if (!sys.tracer.on(TraceEventId::mm_migrate_pages)) return;
    TraceEvent e = on_cpu(sys, TraceEventId::mm_migrate_pages, p.cpu);
    e.current = &p;
    e.a = &p;
    e.n = {succeeded, failed, thp_succeeded, thp_failed, 0, 0};
    sys.tracer.emit(e);
}

void trace_mm_migrate_pages_syscall(System& sys, int cpu, const Task* caller, uint64_t succeeded,
                                    uint64_t failed, uint64_t thp_succeeded, uint64_t thp_failed) {
    if (!sys.tracer.on(TraceEventId::mm_migrate_pages)) return;
    TraceEvent e = on_cpu(sys, TraceEventId::mm_migrate_pages, cpu);
    if (caller) e.current = caller;
    e.a = e.current;
    e.mode = MigrateMode::Sync;
    e.reason = MigrateReason::Syscall;
    e.n = {succeeded, failed, thp_succeeded, thp_failed, 0, 0};
    sys.tracer.emit(e);
}

void trace_mm_migrate_pages_start(System& sys, int cpu, const Task* current, Nanos ts,
                                  MigrateMode mode, MigrateReason reason) {
    if (!sys.has_migrate_pages_start || !sys.tracer.on(TraceEventId::mm_migrate_pages_start))
        return;
    TraceEvent e;
    e.id = TraceEventId::mm_migrate_pages_start;
    e.cpu = cpu;
    e.ts = ts;
    e.current = current;
    e.mode = mode;
    e.reason = reason;
    sys.tracer.emit(e);
}

TraceEvent trace_event_on_cpu(const System& sys, TraceEventId id, int cpu) {
    return on_cpu(sys, id, cpu);
}

}  // namespace numasim
