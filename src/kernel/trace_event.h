// The tracepoints numasim fires, as data: one TraceEvent per firing, under the kernel's event
// names (include/trace/events/sched.h, migrate.h, vmscan.h). Writers (src/observe) turn them into
// ftrace text (kernel/trace_print.h holds each event's TP_printk) or a Chrome/Perfetto timeline.
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
    X(sched, sched_skip_vma_numa) \
    X(vmscan, mm_vmscan_kswapd_sleep) \
    X(vmscan, mm_vmscan_kswapd_wake) \
    X(vmscan, mm_vmscan_wakeup_kswapd) \
    X(vmscan, mm_vmscan_direct_reclaim_begin) \
    X(vmscan, mm_vmscan_direct_reclaim_end) \
    X(vmscan, mm_vmscan_lru_shrink_inactive) \
    X(vmscan, mm_vmscan_lru_shrink_active) \
    X(migrate, mm_migrate_pages_start)
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
inline constexpr TraceEventMask kEveryTraceEvent = (TraceEventMask{1} << kNrTraceEvents) - 1;
// Reclaim's events: they fire only with demotion_enabled (mm/vmscan.h), and a run without it
// leaves them out of its selection, so that its trace.dat lists no format it cannot use.
inline constexpr TraceEventMask kVmscanTraceEvents =
    trace_bit(TraceEventId::mm_vmscan_kswapd_sleep) |
    trace_bit(TraceEventId::mm_vmscan_kswapd_wake) |
    trace_bit(TraceEventId::mm_vmscan_wakeup_kswapd) |
    trace_bit(TraceEventId::mm_vmscan_direct_reclaim_begin) |
    trace_bit(TraceEventId::mm_vmscan_direct_reclaim_end) |
    trace_bit(TraceEventId::mm_vmscan_lru_shrink_inactive) |
    trace_bit(TraceEventId::mm_vmscan_lru_shrink_active);
// Events that `all` and the system:* globs leave out, selected by name only:
// mm_migrate_pages_start fires before every mm_migrate_pages, doubling a NUMA run's migration
// lines, and traces of runs from before it existed keep their lines.
inline constexpr TraceEventMask kByNameOnlyTraceEvents =
    trace_bit(TraceEventId::mm_migrate_pages_start);
// What `all` selects (the default).
inline constexpr TraceEventMask kAllTraceEvents = kEveryTraceEvent & ~kByNameOnlyTraceEvents;

// migrate_pages()'s mode and reason (include/linux/migrate_mode.h, enum migrate_reason in
// include/linux/migrate.h), in the kernel's order: the values the trace prints by name.
enum class MigrateMode : uint8_t { Async, SyncLight, Sync };
enum class MigrateReason : uint8_t {
    Compaction,
    MemoryFailure,
    MemoryHotplug,
    Syscall,
    MempolicyMbind,
    NumaMisplaced,
    ContigRange,
    LongtermPin,
    Demotion,
};

// The gfp_flags of the allocations that reclaim for (show_gfp_flags prints the composite
// names first): an anonymous user page (GFP_HIGHUSER_MOVABLE | __GFP_ZERO, the fault's
// vma_alloc_zeroed_movable_folio), a kernel allocation (GFP_KERNEL), and no allocation (0,
// "none": the promotion path's wakeup_kswapd).
enum class TraceGfp : uint8_t { None, HighuserMovableZero, Kernel };

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
    MigrateMode mode = MigrateMode::Async;                // mm_migrate_pages(_start)
    MigrateReason reason = MigrateReason::NumaMisplaced;  // mm_migrate_pages(_start)
    TraceGfp gfp = TraceGfp::None;                        // the vmscan wakeup/direct events
    int order = 0, priority = 0;                          // the vmscan events
    // mm_migrate_pages: succeeded, failed, thp_succeeded, thp_failed, thp_split, split.
    // sched_skip_vma_numa: numa_scan_offset, vm_start, vm_end, reason index.
    // mm_vmscan_direct_reclaim_end: nr_reclaimed. mm_vmscan_lru_shrink_inactive: nr_scanned,
    // nr_reclaimed, nr_activate_anon, nr_ref_keep. mm_vmscan_lru_shrink_active: nr_taken,
    // nr_active, nr_deactivated, nr_referenced. The node of the vmscan events is nid1.
    std::array<uint64_t, 6> n{};
};

}  // namespace numasim
