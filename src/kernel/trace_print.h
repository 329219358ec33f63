// Each tracepoint's TP_printk: the text after "event_name: " in /sys/kernel/tracing/trace, as
// include/trace/events/sched.h, migrate.h and vmscan.h define it (checked against the format
// files of a Debian 6.1 kernel, docs/reports.md).
#pragma once

#include <string>
#include <string_view>

#include "kernel/trace_event.h"

namespace numasim {

struct TracePrintOptions {
    // mm_migrate_pages prints nr_split from v6.7 (the large-folio split count).
    bool mm_migrate_nr_split = false;
};

// Appends the fields of `e` to `out`.
void trace_print_fields(std::string& out, const TraceEvent& e, const TracePrintOptions& o = {});

// The irq-info of the context an event fires in (ftrace's flags column; common_flags and
// common_preempt_count in the binary entry). The simulator has no interrupt state, so each event
// shows what it shows on a real kernel in the common case: the scheduler events under the
// runqueue lock with interrupts off (preempt depth 2), the others from process context.
struct TraceIrqContext {
    bool irqs_off = false;
    int preempt_depth = 0;
};
TraceIrqContext trace_irq_context(TraceEventId id);

// TASK_COMM_LEN is 16 with the terminating NUL: the trace shows at most 15 characters.
std::string_view trace_comm(const Task& p);
// What the trace calls the task (null: the idle task of `cpu`, "swapper/N" with pid 0).
std::string trace_task_comm(const Task* p, int cpu);
void append_comm(std::string& out, const Task* p, int cpu);
int trace_task_pid(const Task* p);
// The kernel prio of every simulated task: nice 0, normal policy (MAX_RT_PRIO + 20).
inline constexpr int kTracePrioNice0 = 120;

}  // namespace numasim
