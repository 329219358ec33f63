#include "kernel/tracer.h"

#include <fmt/format.h>

#include "sched/task.h"

namespace numasim {

void Tracer::event(Nanos now, const Task& task, int cpu, const char* name,
                   const std::string& fields) {
    if (!out_) return;
    const std::string who = fmt::format("{}-{}", task.comm.substr(0, 15), task.pid);
    fmt::print(out_, "{:>16} [{:03d}] ..... {:5d}.{:06d}: {}: {}\n", who, cpu, now / NSEC_PER_SEC,
               (now % NSEC_PER_SEC) / NSEC_PER_USEC, name, fields);
}

void Tracer::comment(const std::string& text) {
    if (!out_) return;
    size_t pos = 0;
    while (pos < text.size()) {
        const size_t nl = text.find('\n', pos);
        const size_t end = nl == std::string::npos ? text.size() : nl;
        fmt::print(out_, "# {}\n", std::string_view(text).substr(pos, end - pos));
        pos = end + 1;
    }
}

}  // namespace numasim
