#include "observe/ftrace_writer.h"

#include <fmt/format.h>

#include <array>
#include <iterator>
#include <stdexcept>

namespace numasim {

namespace {

// The irq-info column: irqs-off, need-resched, hardirq/softirq, preempt-depth, migrate-disable.
std::string irq_flags(TraceEventId id) {
    const TraceIrqContext c = trace_irq_context(id);
    std::string s = ".....";
    if (c.irqs_off) s[0] = 'd';
    if (c.preempt_depth > 0) s[3] = static_cast<char>('0' + c.preempt_depth);
    return s;
}

}  // namespace

std::string ftrace_header(uint64_t entries, int nr_cpus) {
    return fmt::format(
        "# tracer: nop\n"
        "#\n"
        "# entries-in-buffer/entries-written: {}/{}   #P:{}\n"
        "#\n"
        "#                                _-----=> irqs-off/BH-disabled\n"
        "#                               / _----=> need-resched\n"
        "#                              | / _---=> hardirq/softirq\n"
        "#                              || / _--=> preempt-depth\n"
        "#                              ||| / _-=> migrate-disable\n"
        "#                              |||| /     delay\n"
        "#           TASK-PID     CPU#  |||||  TIMESTAMP  FUNCTION\n"
        "#              | |         |   |||||     |         |\n",
        entries, entries, nr_cpus);
}

void ftrace_line(std::string& out, const TraceEvent& e, const TracePrintOptions& options) {
    auto it = std::back_inserter(out);
    // The context column names the task the event fired under; the idle task is "<idle>".
    const std::string_view comm = e.current ? trace_comm(*e.current) : "<idle>";
    // ns2usecs (kernel/trace/trace.c) rounds the time to the nearest microsecond.
    constexpr Nanos kUsecPerSec = NSEC_PER_SEC / NSEC_PER_USEC;
    const Nanos usecs = (e.ts + NSEC_PER_USEC / 2) / NSEC_PER_USEC;
    fmt::format_to(it, "{:>16}-{:<7} [{:03d}] {} {:5d}.{:06d}: {}: ", comm,
                   trace_task_pid(e.current), e.cpu, irq_flags(e.id), usecs / kUsecPerSec,
                   usecs % kUsecPerSec, kTraceEventNames[static_cast<size_t>(e.id)]);
    trace_print_fields(out, e, options);
    out += '\n';
}

FtraceWriter::FtraceWriter(std::FILE* body, TracePrintOptions options)
    : body_(body), options_(options) {}

void FtraceWriter::event(const TraceEvent& e) {
    line_.clear();
    ftrace_line(line_, e, options_);
    std::fwrite(line_.data(), 1, line_.size(), body_);
    ++entries_;
}

void FtraceWriter::comment(const std::string& line) {
    line_ = "# " + line + "\n";
    std::fwrite(line_.data(), 1, line_.size(), body_);
}

void FtraceWriter::finish(std::FILE* out, int nr_cpus, const std::vector<std::string>& comments) {
    std::string head = ftrace_header(entries_, nr_cpus);
    for (const std::string& c : comments)
        head += "# " + c + "\n";
    std::fwrite(head.data(), 1, head.size(), out);
    if (std::fflush(body_) != 0 || std::fseek(body_, 0, SEEK_SET) != 0)
        throw std::runtime_error("cannot read back the trace body");
    std::array<char, 1 << 16> buf;
    for (size_t n; (n = std::fread(buf.data(), 1, buf.size(), body_)) > 0;)
        std::fwrite(buf.data(), 1, n, out);
}

}  // namespace numasim
