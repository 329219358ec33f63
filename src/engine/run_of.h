// Engine::run_of, inline for the files that look a task's run up at every step of every CPU
// (engine.cpp, touch_streams.cpp); engine.h cannot define it, Task being incomplete there.
#pragma once

#include <cstddef>

#include "engine/engine.h"
#include "sched/task.h"

namespace numasim {

inline TaskRun& Engine::run_of(const Task& p) {
    const size_t i = static_cast<size_t>(p.index);
    return i < runs_.size() && runs_[i] ? *runs_[i] : new_run(p);
}

}  // namespace numasim
