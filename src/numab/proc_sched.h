// The NUMA part of /proc/<pid>/sched, as sched_show_numa() in kernel/sched/debug.c prints it.
#pragma once

#include <string>

namespace numasim {

struct System;
struct Task;

std::string sched_show_numa(const System& sys, const Task& p);

}  // namespace numasim
