// The tracepoints numasim fires, as data: one TraceEvent per firing, under the kernel's event
// names (include/trace/events/sched.h, migrate.h). Writers (src/observe) turn them into ftrace
// text (kernel/trace_print.h holds each event's TP_printk) or a Chrome/Perfetto timeline.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

#include "sim/clock.h"

namespace numasim {

struct Task;

// clang-format off
#define NUMASIM_TRACE_EVENTS(X) \
    X(sched, sched_switch) \
    X(sched, sched_wakeup) \
    X(sched, sched_migrate_task) \
    X(sched, sched_process_fork) \
    X(sched, sched_process_exit) \
    X(migrate, mm_migrate_pages) \
    X(sched, sched_move_numa) \
    X(sched, sched_swap_numa) \
    X(sched, sched_stick_numa) \
    X(sched, sched_skip_vma_numa)
// clang-format on

enum class TraceEventId : uint8_t {
#define X(sys, name) name,
    NUMASIM_TRACE_EVENTS(X)
#undef X
        NR
};

inline constexpr size_t kNrTraceEvents = static_cast<size_t>(TraceEventId::NR);

inline constexpr std::array<std::string_view, kNrTraceEvents> kTraceEventNames = {
#define X(sys, name) #name,
    NUMASIM_TRACE_EVENTS(X)
#undef X
};

// The event's system: its directory under /sys/kernel/tracing/events/.
inline constexpr std::array<std::string_view, kNrTraceEvents> kTraceEventSystems = {
#define X(sys, name) #sys,
    NUMASIM_TRACE_EVENTS(X)
#undef X
};

// A set of events, as written to set_event: bit i is TraceEventId i.
using TraceEventMask = uint32_t;
inline constexpr TraceEventMask trace_bit(TraceEventId id) {
    return TraceEventMask{1} << static_cast<unsigned>(id);
}
inline constexpr TraceEventMask kAllTraceEvents = (TraceEventMask{1} << kNrTraceEvents) - 1;

// Why the previous task left the CPU in sched_switch: prev_state as TP_printk prints it.
enum class SwitchOutState : uint8_t {
    Preempted,  // "R+": still runnable (tick preemption, wakeup preemption, active migration)
    Sleeping,   // "S"
    Dead,       // "X": an exiting thread, reaped at once (EXIT_DEAD)
    Zombie,     // "Z": an exiting thread-group leader, waiting for its parent (EXIT_ZOMBIE)
};

// One firing. Which fields mean what depends on `id` (kernel/trace_print.cpp prints each the way
// its TP_printk does); a null task is the CPU's idle task (pid 0, comm swapper/N).
struct TraceEvent {
    TraceEventId id{};
    Nanos ts = 0;
    int cpu = 0;                    // the CPU the event fired on
    const Task* current = nullptr;  // the task running there (common_pid), null when idle
    const Task* a = nullptr;        // prev, the woken/moved/forking/exiting task, src
    const Task* b = nullptr;        // next, the child, dst (null: no destination task)
    int a_ngid = 0, b_ngid = 0;     // numa group ids (the NUMA events print them)
    int cpu1 = 0, cpu2 = 0;         // orig/dest, src/dst, target CPU
    int nid1 = 0, nid2 = 0;         // src/dst node
    SwitchOutState prev_state = SwitchOutState::Preempted;
    // mm_migrate_pages: succeeded, failed, thp_succeeded, thp_failed, thp_split, split.
    // sched_skip_vma_numa: numa_scan_offset, vm_start, vm_end, reason index.
    std::array<uint64_t, 6> n{};
};

}  // namespace numasim
