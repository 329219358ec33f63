// A trace sink for the mm tests: every event as the trace prints it, with the task it ran in
// ("comm-pid") and its time, so that a test can check what a kernel thread or a syscall traced
// and in whose context.
#pragma once

#include <string>
#include <vector>

#include "kernel/trace_print.h"

namespace numasim::mmtest {

struct TraceLines : TraceSink {
    std::vector<std::string> lines, contexts;
    std::vector<Nanos> stamps;
    void event(const TraceEvent& e) override {
        std::string s(kTraceEventNames[static_cast<size_t>(e.id)]);
        s += ": ";
        trace_print_fields(s, e);
        lines.push_back(s);
        contexts.push_back(trace_task_comm(e.current, e.cpu) + "-" +
                           std::to_string(trace_task_pid(e.current)));
        stamps.push_back(e.ts);
    }
};

}  // namespace numasim::mmtest
