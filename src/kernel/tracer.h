// The tracepoint machinery: which events are enabled (ftrace's set_event) and where they go (a
// TraceSink, in src/observe). Tracepoints (kernel/tracepoints.h, numab/numab.h) check `on()`
// first, so a run without tracing pays one test per tracepoint.
//
// CPUs are simulated lazily (engine/engine.h), so events reach the tracer in simulation order,
// not in time order: while the engine brings CPU 0 up to time t, CPU 1 is still behind. Every
// event carries its CPU's own clock; the tracer holds the events of one engine step and hands
// them to the sink sorted by time when the engine calls flush() at the next step, when no CPU
// can fire anything earlier. The sink therefore sees one stream in time order, as ftrace's
// merged per-CPU buffers read.
#pragma once

#include <string>
#include <vector>

#include "kernel/trace_event.h"

namespace numasim {

class TraceSink {
  public:
    virtual ~TraceSink() = default;
    virtual void event(const TraceEvent& e) = 0;
    virtual void comment(const std::string& line) { (void)line; }
};

class Tracer {
  public:
    // Sends the events in `mask` to `sink` (null: tracing off).
    void attach(TraceSink* sink, TraceEventMask mask, int nr_cpus);
    bool on(TraceEventId id) const { return (mask_ & trace_bit(id)) != 0; }
    void emit(const TraceEvent& e) { batch_.push_back(e); }
    // Hands the held events to the sink in time order (stable: equal times keep their order).
    void flush();

    // Lines of text as ftrace comments ("# ..."), which trace parsers skip; written after the
    // events held so far. Sinks that have no comments ignore them.
    void comment(const std::string& text);
    bool enabled() const { return sink_ != nullptr; }

    // sched_switch bookkeeping. A task that leaves a CPU (sleeps, exits, is moved away) is
    // recorded here; when schedule() has decided what the CPU runs next, settle() emits one
    // sched_switch from what the trace last showed on the CPU to what it runs now.
    void left_cpu(int cpu, const Task& p, SwitchOutState s);
    void settle(Nanos ts, int cpu, const Task* curr);

  private:
    struct CpuView {
        const Task* shown = nullptr;  // what the last sched_switch put on this CPU (null: idle)
        const Task* left = nullptr;   // the task that left since, if any
        SwitchOutState left_state = SwitchOutState::Preempted;
    };
    TraceSink* sink_ = nullptr;
    TraceEventMask mask_ = 0;
    std::vector<TraceEvent> batch_;
    std::vector<CpuView> cpus_;
};

}  // namespace numasim
