#include "observe/tracefs_formats.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <stdexcept>
#include <string_view>
#include <vector>

#include "kernel/counters.h"
#include "kernel/trace_print.h"
#include "observe/ring_buffer_page.h"
#include "sched/task.h"

namespace numasim {

namespace {

// One field of a format file: "field:TYPE NAME[ARRAY];\toffset:O;\tsize:S;\tsigned:0|1;".
struct Field {
    std::string_view type, name;
    uint32_t size = 0;  // of one element
    bool is_signed = false;
    uint32_t array = 0;  // char NAME[array]; 0: a scalar
    uint32_t bytes() const { return array ? size * array : size; }
    uint32_t align() const { return size; }
};

struct Layout {
    std::vector<Field> fields;  // the common fields first
    std::vector<uint32_t> offsets;
    uint32_t struct_size = 0;  // sizeof(struct trace_event_raw_<name>), trailing padding included
    std::string print_fmt;
};

// include/linux/trace_events.h, struct trace_entry: in every event's format file.
constexpr size_t kNrCommonFields = 4;
const Field kCommonFields[kNrCommonFields] = {
    {"unsigned short", "common_type", 2, false},
    {"unsigned char", "common_flags", 1, false},
    {"unsigned char", "common_preempt_count", 1, false},
    {"int", "common_pid", 4, true},
};

// Field types (x86-64: long and unsigned long are 8 bytes, pid_t and enums 4).
constexpr uint32_t kTaskCommLen = 16;  // TASK_COMM_LEN
Field comm(std::string_view name) {
    return {"char", name, 1, false, kTaskCommLen};
}
Field pid(std::string_view name) {
    return {"pid_t", name, 4, true};
}
Field i32(std::string_view name) {
    return {"int", name, 4, true};
}
Field u32(std::string_view name) {
    return {"unsigned int", name, 4, false};
}
Field gfp(std::string_view name) {
    return {"gfp_t", name, 4, false};
}
Field ulong(std::string_view name) {
    return {"unsigned long", name, 8, false};
}

// The first ID; kernels number the events in the order they register them.
constexpr uint16_t kFirstEventId = 300;

// TRACE_FLAG_IRQS_OFF (include/linux/trace_events.h): common_flags of an event with interrupts
// off.
constexpr uint8_t kTraceFlagIrqsOff = 0x01;

// sched_switch's prev_state (include/linux/sched.h): the TASK_REPORT bits, and TASK_REPORT_MAX
// for a preempted task, which TP_printk prints as "R+".
constexpr uint64_t kTaskInterruptible = 0x1, kExitDead = 0x10, kExitZombie = 0x20,
                   kTaskReportMax = 0x100;

// The TP_printk of sched_switch with the task-state macros expanded, as a v6.1 format file has
// it.
constexpr std::string_view kTaskReport =
    "(0x00000000 | 0x00000001 | 0x00000002 | 0x00000004 | 0x00000008 | 0x00000010 | 0x00000020 | "
    "0x00000040)";

// The gfp_t values of TraceGfp on x86-64 v6.1 (include/linux/gfp_types.h, without
// CONFIG_KASAN_HW_TAGS): GFP_KERNEL = __GFP_RECLAIM | __GFP_IO | __GFP_FS, GFP_HIGHUSER_MOVABLE =
// GFP_KERNEL | __GFP_HARDWALL | __GFP_HIGHMEM | __GFP_MOVABLE.
constexpr uint32_t kGfpKernel = 0xcc0, kGfpHighuserMovable = 0x100cca, kGfpZero = 0x100;

uint32_t gfp_value(TraceGfp g) {
    switch (g) {
        case TraceGfp::None:
            return 0;
        case TraceGfp::HighuserMovableZero:
            return kGfpHighuserMovable | kGfpZero;
        case TraceGfp::Kernel:
            return kGfpKernel;
    }
    return 0;
}

// show_gfp_flags with the names of the values numasim writes (a kernel's table lists every
// flag; the composites come first in both).
std::string gfp_print(std::string_view field) {
    return fmt::format(
        "(REC->{0}) ? __print_flags(REC->{0}, \"|\", {{ 0x{1:x}, \"GFP_HIGHUSER_MOVABLE\" }}, {{ "
        "0x{2:x}, \"GFP_KERNEL\" }}, {{ 0x{3:x}, \"__GFP_ZERO\" }}) : \"none\"",
        field, kGfpHighuserMovable, kGfpKernel, kGfpZero);
}

// RECLAIM_WB_ANON | RECLAIM_WB_ASYNC (include/trace/events/vmscan.h): trace_reclaim_flags of an
// anon list.
// The zone of the kswapd events: the model's one zone per node is ZONE_NORMAL (x86-64:
// ZONE_DMA, ZONE_DMA32, ZONE_NORMAL).
constexpr int kZoneNormal = 2;

constexpr uint32_t kReclaimWbAnonAsync = 0x0001 | 0x0008;
constexpr std::string_view kReclaimFlagsPrint =
    "(REC->reclaim_flags) ? __print_flags(REC->reclaim_flags, \"|\", {0x0001u, "
    "\"RECLAIM_WB_ANON\"}, {0x0002u, \"RECLAIM_WB_FILE\"}, {0x0010u, \"RECLAIM_WB_MIXED\"}, "
    "{0x0004u, \"RECLAIM_WB_SYNC\"}, {0x0008u, \"RECLAIM_WB_ASYNC\"}) : \"RECLAIM_WB_NONE\"";

std::string switch_fmt() {
    const std::string report_max = fmt::format("(({} + 1) << 1)", kTaskReport);
    const std::string states = fmt::format("(REC->prev_state & ({} - 1))", report_max);
    return fmt::format(
        "\"prev_comm=%s prev_pid=%d prev_prio=%d prev_state=%s%s ==> next_comm=%s next_pid=%d "
        "next_prio=%d\", REC->prev_comm, REC->prev_pid, REC->prev_prio, {} ? "
        "__print_flags(REC->prev_state & ({} - 1), \"|\", {{ 0x00000001, \"S\" }}, {{ 0x00000002, "
        "\"D\" }}, {{ 0x00000004, \"T\" }}, {{ 0x00000008, \"t\" }}, {{ 0x00000010, \"X\" }}, {{ "
        "0x00000020, \"Z\" }}, {{ 0x00000040, \"P\" }}, {{ 0x00000080, \"I\" }}) : \"R\", "
        "REC->prev_state & {} ? \"+\" : \"\", REC->next_comm, REC->next_pid, REC->next_prio",
        states, report_max, report_max);
}

// __print_symbolic of the migrate mode and reason, as v6.1 expands them.
constexpr std::string_view kMigrateModeReasonPrint =
    "__print_symbolic(REC->mode, { 0, \"MIGRATE_ASYNC\" }, { 1, \"MIGRATE_SYNC_LIGHT\" }, { 2, "
    "\"MIGRATE_SYNC\" }, { 3, \"MIGRATE_SYNC_NO_COPY\" }), __print_symbolic(REC->reason, { 0, "
    "\"compaction\" }, { 1, \"memory_failure\" }, { 2, \"memory_hotplug\" }, { 3, "
    "\"syscall_or_cpuset\" }, { 4, \"mempolicy_mbind\" }, { 5, \"numa_misplaced\" }, { 6, "
    "\"contig_range\" }, { 7, \"longterm_pin\" }, { 8, \"demotion\" })";

std::string migrate_pages_fmt() {
    return fmt::format(
        "\"nr_succeeded=%lu nr_failed=%lu nr_thp_succeeded=%lu nr_thp_failed=%lu "
        "nr_thp_split=%lu mode=%s reason=%s\", REC->succeeded, REC->failed, "
        "REC->thp_succeeded, REC->thp_failed, REC->thp_split, {}",
        kMigrateModeReasonPrint);
}

std::string skip_vma_fmt() {
    std::string reasons;
    for (size_t i = 0; i < kSkipVmaNames.size(); ++i)
        reasons += fmt::format(", {{ {}, \"{}\" }}", i, kSkipVmaNames[i]);
    return "\"numa_scan_offset=%lX vm_start=%lX vm_end=%lX reason=%s\", REC->numa_scan_offset, "
           "REC->vm_start, REC->vm_end, __print_symbolic(REC->reason" +
           reasons + ")";
}

// "%d" for every field, REC->field in order.
std::string plain_fmt(const std::vector<Field>& fields, std::string_view text) {
    std::string s = fmt::format("\"{}\"", text);
    for (const Field& f : fields)
        s += fmt::format(", REC->{}", f.name);
    return s;
}

std::vector<Field> pair_fields() {
    return {pid("src_pid"), pid("src_tgid"), pid("src_ngid"), i32("src_cpu"), i32("src_nid"),
            pid("dst_pid"), pid("dst_tgid"), pid("dst_ngid"), i32("dst_cpu"), i32("dst_nid")};
}

// The event's fields (after the common ones) and print fmt, from include/trace/events/sched.h,
// migrate.h and vmscan.h of v6.1 (sched_skip_vma_numa: v6.7).
std::pair<std::vector<Field>, std::string> event_fields(TraceEventId id) {
    switch (id) {
        case TraceEventId::sched_switch:
            return {{comm("prev_comm"),
                     pid("prev_pid"),
                     i32("prev_prio"),
                     {"long", "prev_state", 8, true},
                     comm("next_comm"),
                     pid("next_pid"),
                     i32("next_prio")},
                    switch_fmt()};
        case TraceEventId::sched_wakeup: {
            std::vector<Field> f = {comm("comm"), pid("pid"), i32("prio"), i32("target_cpu")};
            return {f, plain_fmt(f, "comm=%s pid=%d prio=%d target_cpu=%03d")};
        }
        case TraceEventId::sched_migrate_task: {
            std::vector<Field> f = {comm("comm"), pid("pid"), i32("prio"), i32("orig_cpu"),
                                    i32("dest_cpu")};
            return {f, plain_fmt(f, "comm=%s pid=%d prio=%d orig_cpu=%d dest_cpu=%d")};
        }
        case TraceEventId::sched_process_fork: {
            std::vector<Field> f = {comm("parent_comm"), pid("parent_pid"), comm("child_comm"),
                                    pid("child_pid")};
            return {f, plain_fmt(f, "comm=%s pid=%d child_comm=%s child_pid=%d")};
        }
        case TraceEventId::sched_process_exit: {
            std::vector<Field> f = {comm("comm"), pid("pid"), i32("prio")};
            return {f, plain_fmt(f, "comm=%s pid=%d prio=%d")};
        }
        case TraceEventId::mm_migrate_pages:
            return {{ulong("succeeded"),
                     ulong("failed"),
                     ulong("thp_succeeded"),
                     ulong("thp_failed"),
                     ulong("thp_split"),
                     {"enum migrate_mode", "mode", 4, false},
                     i32("reason")},
                    migrate_pages_fmt()};
        case TraceEventId::sched_move_numa: {
            std::vector<Field> f = {pid("pid"),     pid("tgid"),    pid("ngid"),   i32("src_cpu"),
                                    i32("src_nid"), i32("dst_cpu"), i32("dst_nid")};
            return {f, plain_fmt(f,
                                 "pid=%d tgid=%d ngid=%d src_cpu=%d src_nid=%d dst_cpu=%d "
                                 "dst_nid=%d")};
        }
        case TraceEventId::sched_swap_numa:
        case TraceEventId::sched_stick_numa: {
            std::vector<Field> f = pair_fields();
            return {f, plain_fmt(f,
                                 "src_pid=%d src_tgid=%d src_ngid=%d src_cpu=%d src_nid=%d "
                                 "dst_pid=%d dst_tgid=%d dst_ngid=%d dst_cpu=%d dst_nid=%d")};
        }
        case TraceEventId::sched_skip_vma_numa:
            return {{ulong("numa_scan_offset"),
                     ulong("vm_start"),
                     ulong("vm_end"),
                     {"enum numa_vmaskip_reason", "reason", 4, false}},
                    skip_vma_fmt()};
        case TraceEventId::mm_migrate_pages_start:
            return {{{"enum migrate_mode", "mode", 4, false}, i32("reason")},
                    fmt::format("\"mode=%s reason=%s\", {}", kMigrateModeReasonPrint)};
        case TraceEventId::mm_vmscan_kswapd_sleep:
            return {{i32("nid")}, "\"nid=%d\", REC->nid"};
        case TraceEventId::mm_vmscan_kswapd_wake:
            return {{i32("nid"), i32("zid"), i32("order")},
                    "\"nid=%d order=%d\", REC->nid, REC->order"};
        case TraceEventId::mm_vmscan_wakeup_kswapd:
            return {{i32("nid"), i32("zid"), i32("order"), gfp("gfp_flags")},
                    "\"nid=%d order=%d gfp_flags=%s\", REC->nid, REC->order, " +
                        gfp_print("gfp_flags")};
        case TraceEventId::mm_vmscan_direct_reclaim_begin:
            return {{i32("order"), gfp("gfp_flags")},
                    "\"order=%d gfp_flags=%s\", REC->order, " + gfp_print("gfp_flags")};
        case TraceEventId::mm_vmscan_direct_reclaim_end:
            return {{ulong("nr_reclaimed")}, "\"nr_reclaimed=%lu\", REC->nr_reclaimed"};
        case TraceEventId::mm_vmscan_lru_shrink_inactive:
            return {{i32("nid"), ulong("nr_scanned"), ulong("nr_reclaimed"), ulong("nr_dirty"),
                     ulong("nr_writeback"), ulong("nr_congested"), ulong("nr_immediate"),
                     u32("nr_activate0"), u32("nr_activate1"), ulong("nr_ref_keep"),
                     ulong("nr_unmap_fail"), i32("priority"), i32("reclaim_flags")},
                    fmt::format("\"nid=%d nr_scanned=%ld nr_reclaimed=%ld nr_dirty=%ld "
                                "nr_writeback=%ld nr_congested=%ld nr_immediate=%ld "
                                "nr_activate_anon=%d nr_activate_file=%d nr_ref_keep=%ld "
                                "nr_unmap_fail=%ld priority=%d flags=%s\", REC->nid, "
                                "REC->nr_scanned, REC->nr_reclaimed, REC->nr_dirty, "
                                "REC->nr_writeback, REC->nr_congested, REC->nr_immediate, "
                                "REC->nr_activate0, REC->nr_activate1, REC->nr_ref_keep, "
                                "REC->nr_unmap_fail, REC->priority, {}",
                                kReclaimFlagsPrint)};
        case TraceEventId::mm_vmscan_lru_shrink_active:
            return {{i32("nid"), ulong("nr_taken"), ulong("nr_active"), ulong("nr_deactivated"),
                     ulong("nr_referenced"), i32("priority"), i32("reclaim_flags")},
                    fmt::format("\"nid=%d nr_taken=%ld nr_active=%ld nr_deactivated=%ld "
                                "nr_referenced=%ld priority=%d flags=%s\", REC->nid, "
                                "REC->nr_taken, REC->nr_active, REC->nr_deactivated, "
                                "REC->nr_referenced, REC->priority, {}",
                                kReclaimFlagsPrint)};
        case TraceEventId::NR:
            break;
    }
    throw std::logic_error("no tracefs format for this event");
}

Layout make_layout(TraceEventId id) {
    Layout l;
    auto [fields, print_fmt] = event_fields(id);
    l.fields.assign(std::begin(kCommonFields), std::end(kCommonFields));
    l.fields.insert(l.fields.end(), fields.begin(), fields.end());
    l.print_fmt = std::move(print_fmt);
    uint32_t at = 0, align = 1;
    for (const Field& f : l.fields) {
        at = (at + f.align() - 1) / f.align() * f.align();
        l.offsets.push_back(at);
        at += f.bytes();
        align = std::max(align, f.align());
    }
    l.struct_size = (at + align - 1) / align * align;
    return l;
}

const Layout& layout(TraceEventId id) {
    static const std::array<Layout, kNrTraceEvents> all = [] {
        std::array<Layout, kNrTraceEvents> a;
        for (size_t i = 0; i < kNrTraceEvents; ++i)
            a[i] = make_layout(static_cast<TraceEventId>(i));
        return a;
    }();
    return all[static_cast<size_t>(id)];
}

// Writes an entry field by field, in the order and at the offsets of the event's layout.
class EntryWriter {
  public:
    EntryWriter(std::string& out, const Layout& l) : out_(out), l_(l), start_(out.size()) {}
    EntryWriter& num(uint64_t v) {
        put_le(out_, v, next().size);
        return *this;
    }
    EntryWriter& str(std::string_view s) {
        const Field& f = next();
        const std::string_view kept = s.substr(0, f.array - 1);  // and its NUL
        out_ += kept;
        out_.append(f.array - kept.size(), '\0');
        return *this;
    }
    EntryWriter& task(const Task* p, int cpu) {
        std::string c;
        append_comm(c, p, cpu);
        return str(c);
    }
    void done() {
        if (k_ != l_.fields.size()) throw std::logic_error("tracefs entry: fields left out");
        out_.resize(start_ + l_.struct_size, '\0');
    }

  private:
    const Field& next() {
        if (k_ >= l_.fields.size()) throw std::logic_error("tracefs entry: too many fields");
        out_.resize(start_ + l_.offsets[k_], '\0');
        return l_.fields[k_++];
    }
    std::string& out_;
    const Layout& l_;
    size_t start_;
    size_t k_ = 0;
};

int pid_of(const Task* p) {
    return p ? p->pid : 0;
}
int tgid_of(const Task* p) {
    return p ? p->tgid : 0;
}

uint64_t prev_state(const TraceEvent& e) {
    if (!e.a) return 0;  // the idle task: "R"
    switch (e.prev_state) {
        case SwitchOutState::Preempted:
            return kTaskReportMax;
        case SwitchOutState::Sleeping:
            return kTaskInterruptible;
        case SwitchOutState::Dead:
            return kExitDead;
        case SwitchOutState::Zombie:
            return kExitZombie;
    }
    return 0;
}

// A 32-bit field holding a signed int.
uint64_t s32(int v) {
    return static_cast<uint32_t>(v);
}

}  // namespace

uint16_t tracefs_event_id(TraceEventId id) {
    return static_cast<uint16_t>(kFirstEventId + static_cast<uint16_t>(id));
}

std::string tracefs_format(TraceEventId id) {
    const Layout& l = layout(id);
    std::string s = fmt::format("name: {}\nID: {}\nformat:\n",
                                kTraceEventNames[static_cast<size_t>(id)], tracefs_event_id(id));
    for (size_t k = 0; k < l.fields.size(); ++k) {
        const Field& f = l.fields[k];
        if (k == kNrCommonFields) s += '\n';
        const std::string array = f.array ? fmt::format("[{}]", f.array) : "";
        fmt::format_to(std::back_inserter(s),
                       "\tfield:{} {}{};\toffset:{};\tsize:{};\tsigned:{};\n", f.type, f.name,
                       array, l.offsets[k], f.bytes(), f.is_signed ? 1 : 0);
    }
    s += "\nprint fmt: " + l.print_fmt + "\n";
    return s;
}

std::string tracefs_header_page(uint32_t page_size) {
    // The commit field holds flags above its count; "overwrite" is its first byte.
    return fmt::format(
        "\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
        "\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n"
        "\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
        "\tfield: char data;\toffset:16;\tsize:{};\tsigned:1;\n",
        page_size - 16);
}

std::string tracefs_header_event() {
    return "# compressed entry header\n"
           "\ttype_len    :    5 bits\n"
           "\ttime_delta  :   27 bits\n"
           "\tarray       :   32 bits\n"
           "\n"
           "\tpadding     : type == 29\n"
           "\ttime_extend : type == 30\n"
           "\ttime_stamp : type == 31\n"
           "\tdata max type_len  == 28\n";
}

void tracefs_entry(std::string& out, const TraceEvent& e) {
    const TraceIrqContext irq = trace_irq_context(e.id);
    EntryWriter w(out, layout(e.id));
    w.num(tracefs_event_id(e.id))
        .num(irq.irqs_off ? kTraceFlagIrqsOff : 0)
        .num(static_cast<uint64_t>(irq.preempt_depth))
        .num(s32(trace_task_pid(e.current)));
    switch (e.id) {
        case TraceEventId::sched_switch:
            w.task(e.a, e.cpu).num(s32(pid_of(e.a))).num(s32(kTracePrioNice0)).num(prev_state(e));
            w.task(e.b, e.cpu).num(s32(pid_of(e.b))).num(s32(kTracePrioNice0));
            break;
        case TraceEventId::sched_wakeup:
            w.task(e.a, e.cpu).num(s32(e.a->pid)).num(s32(kTracePrioNice0)).num(s32(e.cpu1));
            break;
        case TraceEventId::sched_migrate_task:
            w.task(e.a, e.cpu).num(s32(e.a->pid)).num(s32(kTracePrioNice0)).num(s32(e.cpu1));
            w.num(s32(e.cpu2));
            break;
        case TraceEventId::sched_process_fork:
            w.task(e.a, e.cpu).num(s32(e.a->pid)).task(e.b, e.cpu).num(s32(e.b->pid));
            break;
        case TraceEventId::sched_process_exit:
            w.task(e.a, e.cpu).num(s32(e.a->pid)).num(s32(kTracePrioNice0));
            break;
        case TraceEventId::mm_migrate_pages:
            w.num(e.n[0]).num(e.n[1]).num(e.n[2]).num(e.n[3]).num(e.n[4]);
            w.num(static_cast<uint64_t>(e.mode)).num(static_cast<uint64_t>(e.reason));
            break;
        case TraceEventId::mm_migrate_pages_start:
            w.num(static_cast<uint64_t>(e.mode)).num(static_cast<uint64_t>(e.reason));
            break;
        case TraceEventId::mm_vmscan_kswapd_sleep:
            w.num(s32(e.nid1));
            break;
        case TraceEventId::mm_vmscan_kswapd_wake:
            w.num(s32(e.nid1)).num(s32(kZoneNormal)).num(s32(e.order));
            break;
        case TraceEventId::mm_vmscan_wakeup_kswapd:
            w.num(s32(e.nid1)).num(s32(kZoneNormal)).num(s32(e.order)).num(gfp_value(e.gfp));
            break;
        case TraceEventId::mm_vmscan_direct_reclaim_begin:
            w.num(s32(e.order)).num(gfp_value(e.gfp));
            break;
        case TraceEventId::mm_vmscan_direct_reclaim_end:
            w.num(e.n[0]);
            break;
        case TraceEventId::mm_vmscan_lru_shrink_inactive:
            w.num(s32(e.nid1)).num(e.n[0]).num(e.n[1]).num(0).num(0).num(0).num(0);
            w.num(e.n[2]).num(0).num(e.n[3]).num(0).num(s32(e.priority)).num(kReclaimWbAnonAsync);
            break;
        case TraceEventId::mm_vmscan_lru_shrink_active:
            w.num(s32(e.nid1)).num(e.n[0]).num(e.n[1]).num(e.n[2]).num(e.n[3]);
            w.num(s32(e.priority)).num(kReclaimWbAnonAsync);
            break;
        case TraceEventId::sched_move_numa:
            w.num(s32(pid_of(e.a))).num(s32(tgid_of(e.a))).num(s32(e.a_ngid));
            w.num(s32(e.cpu1)).num(s32(e.nid1)).num(s32(e.cpu2)).num(s32(e.nid2));
            break;
        case TraceEventId::sched_swap_numa:
        case TraceEventId::sched_stick_numa:
            w.num(s32(pid_of(e.a))).num(s32(tgid_of(e.a))).num(s32(e.a_ngid));
            w.num(s32(e.cpu1)).num(s32(e.nid1));
            w.num(s32(pid_of(e.b))).num(s32(tgid_of(e.b))).num(s32(e.b_ngid));
            w.num(s32(e.cpu2)).num(s32(e.nid2));
            break;
        case TraceEventId::sched_skip_vma_numa:
            w.num(e.n[0]).num(e.n[1]).num(e.n[2]).num(e.n[3]);
            break;
        case TraceEventId::NR:
            break;
    }
    w.done();
}

}  // namespace numasim
