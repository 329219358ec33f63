#include "kernel/tracer.h"

#include <algorithm>

namespace numasim {

void Tracer::attach(TraceSink* sink, TraceEventMask mask, int nr_cpus) {
    sink_ = sink;
    mask_ = sink ? mask : 0;
    cpus_.assign(static_cast<size_t>(nr_cpus), CpuView{});
    batch_.clear();
}

void Tracer::flush() {
    if (batch_.empty()) return;
    std::stable_sort(batch_.begin(), batch_.end(),
                     [](const TraceEvent& x, const TraceEvent& y) { return x.ts < y.ts; });
    for (const TraceEvent& e : batch_)
        sink_->event(e);
    batch_.clear();
}

void Tracer::comment(const std::string& text) {
    if (!sink_) return;
    flush();
    size_t pos = 0;
    while (pos < text.size()) {
        const size_t nl = text.find('\n', pos);
        const size_t end = nl == std::string::npos ? text.size() : nl;
        sink_->comment(text.substr(pos, end - pos));
        pos = end + 1;
    }
}

void Tracer::left_cpu(int cpu, const Task& p, SwitchOutState s) {
    CpuView& v = cpus_[static_cast<size_t>(cpu)];
    v.left = &p;
    v.left_state = s;
}

void Tracer::settle(Nanos ts, int cpu, const Task* curr) {
    CpuView& v = cpus_[static_cast<size_t>(cpu)];
    if (curr != v.shown) {
        TraceEvent e;
        e.id = TraceEventId::sched_switch;
        e.ts = ts;
        e.cpu = cpu;
        e.current = v.shown;
        e.a = v.shown;
        e.b = curr;
        e.prev_state = v.shown && v.left == v.shown ? v.left_state : SwitchOutState::Preempted;
        emit(e);
        v.shown = curr;
    }
    v.left = nullptr;
}

}  // namespace numasim
