// Per-task traffic by region (Task::traffic), for `--perf-mem-record`: which thread's accesses
// went where is what a perf mem sample says and a region's totals (Region::accesses) do not.
#pragma once

#include <span>

namespace numasim {

struct AccessStream;
struct Task;

// Adds the loads and stores that `bytes` of progress through `streams` made to p's traffic.
void note_task_traffic(Task& p, std::span<const AccessStream> streams, double bytes);

}  // namespace numasim
