#include "kernel/trace_print.h"

#include <fmt/format.h>

#include <array>
#include <iterator>

#include "kernel/counters.h"
#include "sched/task.h"

namespace numasim {

std::string_view trace_comm(const Task& p) {
    return std::string_view(p.comm).substr(0, 15);
}

std::string trace_task_comm(const Task* p, int cpu) {
    std::string s;
    append_comm(s, p, cpu);
    return s;
}

void append_comm(std::string& out, const Task* p, int cpu) {
    if (p)
        out += trace_comm(*p);
    else
        fmt::format_to(std::back_inserter(out), "swapper/{}", cpu);
}

int trace_task_pid(const Task* p) {
    return p ? p->pid : 0;
}

TraceIrqContext trace_irq_context(TraceEventId id) {
    switch (id) {
        case TraceEventId::sched_switch:
        case TraceEventId::sched_wakeup:
        case TraceEventId::sched_migrate_task:
            return {.irqs_off = true, .preempt_depth = 2};
        default:
            return {};
    }
}

namespace {

// prev_state: "R" for the idle task, "R+" for a preempted task (TASK_REPORT_MAX set), else the
// letter of the state it left in.
std::string_view prev_state_text(const TraceEvent& e) {
    if (!e.a) return "R";
    switch (e.prev_state) {
        case SwitchOutState::Preempted:
            return "R+";
        case SwitchOutState::Sleeping:
            return "S";
        case SwitchOutState::Dead:
            return "X";
        case SwitchOutState::Zombie:
            return "Z";
    }
    return "R";
}

int pid_of(const Task* p) {
    return p ? p->pid : 0;
}

// __print_symbolic of MIGRATE_MODE and MIGRATE_REASON (include/trace/events/migrate.h).
std::string_view migrate_mode_text(MigrateMode m) {
    constexpr std::array<std::string_view, 3> names = {"MIGRATE_ASYNC", "MIGRATE_SYNC_LIGHT",
                                                       "MIGRATE_SYNC"};
    return names[static_cast<size_t>(m)];
}
std::string_view migrate_reason_text(MigrateReason r) {
    constexpr std::array<std::string_view, 9> names = {
        "compaction",        "memory_failure",  "memory_hotplug",
        "syscall_or_cpuset", "mempolicy_mbind", "numa_misplaced",
        "contig_range",      "longterm_pin",    "demotion"};
    return names[static_cast<size_t>(r)];
}

// show_gfp_flags (include/trace/events/mmflags.h): the composite names first, "none" for 0.
std::string_view gfp_text(TraceGfp g) {
    switch (g) {
        case TraceGfp::None:
            return "none";
        case TraceGfp::HighuserMovableZero:
            return "GFP_HIGHUSER_MOVABLE|__GFP_ZERO";
        case TraceGfp::Kernel:
            return "GFP_KERNEL";
    }
    return "none";
}

// show_reclaim_flags(trace_reclaim_flags(file)) of an anon list: reclaim is always async.
constexpr std::string_view kReclaimFlagsAnon = "RECLAIM_WB_ANON|RECLAIM_WB_ASYNC";
int tgid_of(const Task* p) {
    return p ? p->tgid : 0;
}

}  // namespace

void trace_print_fields(std::string& out, const TraceEvent& e, const TracePrintOptions& o) {
    auto it = std::back_inserter(out);
    switch (e.id) {
        case TraceEventId::sched_switch:
            out += "prev_comm=";
            append_comm(out, e.a, e.cpu);
            fmt::format_to(it,
                           " prev_pid={} prev_prio={} prev_state={} ==> next_comm=", pid_of(e.a),
                           kTracePrioNice0, prev_state_text(e));
            append_comm(out, e.b, e.cpu);
            fmt::format_to(it, " next_pid={} next_prio={}", pid_of(e.b), kTracePrioNice0);
            break;
        case TraceEventId::sched_wakeup:
            fmt::format_to(it, "comm={} pid={} prio={} target_cpu={:03d}", trace_comm(*e.a),
                           e.a->pid, kTracePrioNice0, e.cpu1);
            break;
        case TraceEventId::sched_migrate_task:
            fmt::format_to(it, "comm={} pid={} prio={} orig_cpu={} dest_cpu={}", trace_comm(*e.a),
                           e.a->pid, kTracePrioNice0, e.cpu1, e.cpu2);
            break;
        case TraceEventId::sched_process_fork:
            fmt::format_to(it, "comm={} pid={} child_comm={} child_pid={}", trace_comm(*e.a),
                           e.a->pid, trace_comm(*e.b), e.b->pid);
            break;
        case TraceEventId::sched_process_exit:
            fmt::format_to(it, "comm={} pid={} prio={}", trace_comm(*e.a), e.a->pid,
                           kTracePrioNice0);
            break;
        case TraceEventId::mm_migrate_pages:
            fmt::format_to(it,
                           "nr_succeeded={} nr_failed={} nr_thp_succeeded={} nr_thp_failed={} "
                           "nr_thp_split={}",
                           e.n[0], e.n[1], e.n[2], e.n[3], e.n[4]);
            if (o.mm_migrate_nr_split) fmt::format_to(it, " nr_split={}", e.n[5]);
            fmt::format_to(it, " mode={} reason={}", migrate_mode_text(e.mode),
                           migrate_reason_text(e.reason));
            break;
        case TraceEventId::mm_migrate_pages_start:
            fmt::format_to(it, "mode={} reason={}", migrate_mode_text(e.mode),
                           migrate_reason_text(e.reason));
            break;
        case TraceEventId::mm_vmscan_kswapd_sleep:
            fmt::format_to(it, "nid={}", e.nid1);
            break;
        case TraceEventId::mm_vmscan_kswapd_wake:
            fmt::format_to(it, "nid={} order={}", e.nid1, e.order);
            break;
        case TraceEventId::mm_vmscan_wakeup_kswapd:
            fmt::format_to(it, "nid={} order={} gfp_flags={}", e.nid1, e.order, gfp_text(e.gfp));
            break;
        case TraceEventId::mm_vmscan_direct_reclaim_begin:
            fmt::format_to(it, "order={} gfp_flags={}", e.order, gfp_text(e.gfp));
            break;
        case TraceEventId::mm_vmscan_direct_reclaim_end:
            fmt::format_to(it, "nr_reclaimed={}", e.n[0]);
            break;
        case TraceEventId::mm_vmscan_lru_shrink_inactive:
            // Anon pages without swap: nothing dirty, under writeback or congested, no unmap
            // failure (a page that cannot be demoted is activated); no file pages.
            fmt::format_to(it,
                           "nid={} nr_scanned={} nr_reclaimed={} nr_dirty=0 nr_writeback=0 "
                           "nr_congested=0 nr_immediate=0 nr_activate_anon={} nr_activate_file=0 "
                           "nr_ref_keep={} nr_unmap_fail=0 priority={} flags={}",
                           e.nid1, e.n[0], e.n[1], e.n[2], e.n[3], e.priority, kReclaimFlagsAnon);
            break;
        case TraceEventId::mm_vmscan_lru_shrink_active:
            fmt::format_to(it,
                           "nid={} nr_taken={} nr_active={} nr_deactivated={} nr_referenced={} "
                           "priority={} flags={}",
                           e.nid1, e.n[0], e.n[1], e.n[2], e.n[3], e.priority, kReclaimFlagsAnon);
            break;
        case TraceEventId::sched_move_numa:
            fmt::format_to(it, "pid={} tgid={} ngid={} src_cpu={} src_nid={} dst_cpu={} dst_nid={}",
                           pid_of(e.a), tgid_of(e.a), e.a_ngid, e.cpu1, e.nid1, e.cpu2, e.nid2);
            break;
        case TraceEventId::sched_swap_numa:
        case TraceEventId::sched_stick_numa:
            fmt::format_to(it,
                           "src_pid={} src_tgid={} src_ngid={} src_cpu={} src_nid={} dst_pid={} "
                           "dst_tgid={} dst_ngid={} dst_cpu={} dst_nid={}",
                           pid_of(e.a), tgid_of(e.a), e.a_ngid, e.cpu1, e.nid1, pid_of(e.b),
                           tgid_of(e.b), e.b_ngid, e.cpu2, e.nid2);
            break;
        case TraceEventId::sched_skip_vma_numa:
            // TP_printk prints the three addresses with %lX.
            fmt::format_to(it, "numa_scan_offset={:X} vm_start={:X} vm_end={:X} reason={}", e.n[0],
                           e.n[1], e.n[2], kSkipVmaNames[static_cast<size_t>(e.n[3])]);
            break;
        case TraceEventId::NR:
            break;
    }
}

}  // namespace numasim
