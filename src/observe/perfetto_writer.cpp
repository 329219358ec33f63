#include "observe/perfetto_writer.h"

#include <fmt/format.h>

#include <iterator>

#include "kernel/system.h"
#include "kernel/trace_print.h"

namespace numasim {

void json_escape(std::string& out, std::string_view s) {
    for (const char c : s) {
        if (c == '"' || c == '\\') {
            out += '\\';
            out += c;
        } else if (static_cast<unsigned char>(c) < 0x20) {
            fmt::format_to(std::back_inserter(out), "\\u{:04x}", static_cast<int>(c));
        } else {
            out += c;
        }
    }
}

namespace {

// Trace Event Format timestamps are microseconds; nanoseconds keep three decimals.
void append_us(std::string& out, Nanos ns) {
    fmt::format_to(std::back_inserter(out), "{}.{:03d}", ns / NSEC_PER_USEC, ns % NSEC_PER_USEC);
}

void append_task(std::string& out, const Task* p, int cpu) {
    out += '"';
    std::string comm;
    append_comm(comm, p, cpu);
    json_escape(out, comm);
    fmt::format_to(std::back_inserter(out), "-{}\"", trace_task_pid(p));
}

}  // namespace

PerfettoWriter::PerfettoWriter(std::FILE* out, const System& sys, Nanos counter_interval,
                               const std::vector<std::pair<std::string, std::string>>& metadata)
    : out_(out), interval_(counter_interval) {
    cpus_.resize(static_cast<size_t>(sys.nr_cpus()));
    for (int c = 0; c < sys.nr_cpus(); ++c)
        cpu_node_.push_back(sys.cpu_to_node(c));
    buf_ = "{\"displayTimeUnit\":\"ns\",\"otherData\":{";
    for (size_t i = 0; i < metadata.size(); ++i) {
        if (i) buf_ += ',';
        buf_ += '"';
        json_escape(buf_, metadata[i].first);
        buf_ += "\":\"";
        json_escape(buf_, metadata[i].second);
        buf_ += '"';
    }
    buf_ += "},\"traceEvents\":[\n";
    std::fwrite(buf_.data(), 1, buf_.size(), out_);
    metadata_event("process_name", kCpuPid, 0, "name", "CPUs", true);
    metadata_event("process_sort_index", kCpuPid, 0, "sort_index", "0", false);
    metadata_event("process_name", kVmstatPid, 0, "name", "/proc/vmstat", true);
    metadata_event("process_sort_index", kVmstatPid, 0, "sort_index", "1", false);
    metadata_event("process_name", kMemoryPid, 0, "name", "node memory", true);
    metadata_event("process_sort_index", kMemoryPid, 0, "sort_index", "2", false);
    for (int c = 0; c < sys.nr_cpus(); ++c) {
        metadata_event("thread_name", kCpuPid, 1 + c, "name",
                       fmt::format("CPU {} (node {})", c, sys.cpu_to_node(c)), true);
        metadata_event("thread_sort_index", kCpuPid, 1 + c, "sort_index", std::to_string(c), false);
    }
}

void PerfettoWriter::open_event() {
    buf_.clear();
    if (!first_) buf_ += ",\n";
    first_ = false;
}

void PerfettoWriter::close_event() {
    std::fwrite(buf_.data(), 1, buf_.size(), out_);
}

void PerfettoWriter::metadata_event(const char* name, int pid, int tid, const std::string& key,
                                    const std::string& value, bool quote) {
    open_event();
    fmt::format_to(std::back_inserter(buf_),
                   "{{\"name\":\"{}\",\"ph\":\"M\",\"pid\":{},\"tid\":{},\"args\":{{\"{}\":", name,
                   pid, tid, key);
    if (quote) {
        buf_ += '"';
        json_escape(buf_, value);
        buf_ += '"';
    } else {
        buf_ += value;
    }
    buf_ += "}}";
    close_event();
}

void PerfettoWriter::slice(int cpu, Nanos end) {
    Running& r = cpus_[static_cast<size_t>(cpu)];
    if (!r.task) return;
    open_event();
    buf_ += "{\"name\":";
    append_task(buf_, r.task, cpu);
    buf_ += ",\"cat\":\"sched\",\"ph\":\"X\",\"ts\":";
    append_us(buf_, r.since);
    buf_ += ",\"dur\":";
    append_us(buf_, end - r.since);
    fmt::format_to(std::back_inserter(buf_),
                   ",\"pid\":{},\"tid\":{},\"args\":{{\"pid\":{},\"tgid\":{},\"comm\":\"", kCpuPid,
                   1 + cpu, r.task->pid, r.task->tgid);
    json_escape(buf_, trace_comm(*r.task));
    fmt::format_to(std::back_inserter(buf_), "\",\"node\":{}}}}}",
                   cpu_node_[static_cast<size_t>(cpu)]);
    close_event();
}

void PerfettoWriter::instant(const TraceEvent& e) {
    open_event();
    fmt::format_to(std::back_inserter(buf_),
                   "{{\"name\":\"{}\",\"cat\":\"{}\",\"ph\":\"i\",\"s\":\"t\",\"ts\":",
                   kTraceEventNames[static_cast<size_t>(e.id)],
                   kTraceEventSystems[static_cast<size_t>(e.id)]);
    append_us(buf_, e.ts);
    fmt::format_to(std::back_inserter(buf_), ",\"pid\":{},\"tid\":{},\"args\":{{\"fields\":\"",
                   kCpuPid, 1 + e.cpu);
    std::string fields;
    trace_print_fields(fields, e);
    json_escape(buf_, fields);
    buf_ += "\"}}";
    close_event();
}

void PerfettoWriter::event(const TraceEvent& e) {
    switch (e.id) {
        case TraceEventId::sched_switch:
            slice(e.cpu, e.ts);
            cpus_[static_cast<size_t>(e.cpu)] = {e.b, e.ts};
            break;
        case TraceEventId::sched_move_numa:
        case TraceEventId::sched_swap_numa:
        case TraceEventId::sched_stick_numa:
        case TraceEventId::sched_skip_vma_numa:
        case TraceEventId::mm_migrate_pages:
        case TraceEventId::mm_migrate_pages_start:
        case TraceEventId::mm_vmscan_kswapd_sleep:
        case TraceEventId::mm_vmscan_kswapd_wake:
        case TraceEventId::mm_vmscan_wakeup_kswapd:
        case TraceEventId::mm_vmscan_direct_reclaim_begin:
        case TraceEventId::mm_vmscan_direct_reclaim_end:
        case TraceEventId::mm_vmscan_lru_shrink_inactive:
        case TraceEventId::mm_vmscan_lru_shrink_active:
            instant(e);
            break;
        default:
            break;  // wakeups, forks, exits and task migrations are ftrace's business
    }
}

void PerfettoWriter::sample(const System& sys) {
    auto counter = [&](int pid, std::string_view name, uint64_t value) {
        open_event();
        fmt::format_to(std::back_inserter(buf_), "{{\"name\":\"{}\",\"ph\":\"C\",\"ts\":", name);
        append_us(buf_, sys.now);
        fmt::format_to(std::back_inserter(buf_), ",\"pid\":{},\"args\":{{\"value\":{}}}}}", pid,
                       value);
        close_event();
    };
    for (size_t i = 0; i < kVmNames.size(); ++i)
        if (kVmNames[i].starts_with("numa_")) counter(kVmstatPid, kVmNames[i], sys.counters.vm[i]);
    for (int n = 0; n < sys.nr_nodes(); ++n)
        counter(kMemoryPid, fmt::format("node{} MemFree kB", n),
                sys.mem.nodes[static_cast<size_t>(n)].free_pages * sys.pages().kib());
}

void PerfettoWriter::finish(Nanos end) {
    for (size_t c = 0; c < cpus_.size(); ++c)
        slice(static_cast<int>(c), end);
    std::fputs("\n]}\n", out_);
}

}  // namespace numasim
