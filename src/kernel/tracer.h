// Writes scheduler and NUMA events in ftrace's text format (the trace_pipe layout), so existing
// scripts that parse `trace-cmd report` or /sys/kernel/tracing/trace can read a simulated run:
//   <comm>-<pid> [<cpu>] ..... <sec>.<usec>: sched_move_numa: pid=.. tgid=.. ngid=.. ...
#pragma once

#include <cstdio>
#include <string>

#include "sim/clock.h"

namespace numasim {

struct Task;

class Tracer {
  public:
    explicit Tracer(std::FILE* out) : out_(out) {}
    bool enabled() const { return out_ != nullptr; }

    // `task` is the task on whose behalf the event fires (current in the kernel).
    void event(Nanos now, const Task& task, int cpu, const char* name, const std::string& fields);
    // Lines of text as ftrace comments ("# ..."), which trace parsers skip.
    void comment(const std::string& text);

  private:
    std::FILE* out_;
};

}  // namespace numasim
