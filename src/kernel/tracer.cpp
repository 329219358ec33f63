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

}  // namespace numasim
