// Tracepoints as ftrace writes them to /sys/kernel/tracing/trace: the header (`# tracer: nop`,
// the entries line with #P:N, the column legend of a v6.x kernel) and one line per event in the
// kernel's column layout,
//   "%16s-%-7d [%03d] %5s %5lu.%06lu: %s: %s"  (comm-pid, CPU, flags, secs.usecs, event, fields)
// The header needs the number of entries, known only at the end, so the events stream to a
// scratch file first and finish() writes the header and copies them behind it: memory stays
// bounded whatever the length of the run.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "kernel/trace_print.h"
#include "kernel/tracer.h"

namespace numasim {

class FtraceWriter : public TraceSink {
  public:
    FtraceWriter(std::FILE* body, TracePrintOptions options);
    void event(const TraceEvent& e) override;
    // "# line", among the events (not counted as an entry).
    void comment(const std::string& line) override;
    // Writes the header, `comments` (each as "# " + line) and the events to `out`.
    void finish(std::FILE* out, int nr_cpus, const std::vector<std::string>& comments);
    uint64_t entries() const { return entries_; }

  private:
    std::FILE* body_;
    TracePrintOptions options_;
    std::string line_;
    uint64_t entries_ = 0;
};

// The header lines ftrace prints before the events (kernel/trace/trace.c, print_event_info and
// print_func_help_header_irq of v6.x; the same text as a Debian 6.1 kernel's trace file).
std::string ftrace_header(uint64_t entries, int nr_cpus);
// One event line, with its newline.
void ftrace_line(std::string& out, const TraceEvent& e, const TracePrintOptions& options);

}  // namespace numasim
