// /proc/<pid>/maps and /proc/<pid>/numa_maps of one address space, merged into one line per VMA:
//   <start>-<end> <perms> <policy> [file=<path>|heap|stack] anon=N mapped=N mapmax=N N<node>=N
//   kernelpagesize_kB=4 protnone=N
// The fields are numa_maps' (fs/proc/task_mmu.c show_numa_map), counted over present pages;
// `protnone` (not a kernel field) is how many of them the NUMA scanner left PROT_NONE.
#pragma once

#include <string>

#include "sim/clock.h"

namespace numasim {

struct System;
struct Mm;

std::string numa_maps(const System& sys, const Mm& mm);

// The end of a traced run: every process's numa_maps (that of the mm of each thread-group
// leader), as ftrace comment lines through sys.tracer, stamped with `now`.
void trace_numa_maps(System& sys, Nanos now);

}  // namespace numasim
