#pragma once

#include <string>
#include <vector>

#include "experiment/run.h"

namespace numasim {

// Says on stderr when runs ran out of memory: some allocation found no free page on any node its
// memory policy allows, even after reclaim (Counters::oom_alloc_failures). The kernel would call
// out_of_memory() there and kill a task; the model kills nothing and retries the access on a
// later tick, so such a run is one the kernel would not have finished as simulated, and a user
// must not read its figures as if it were. `what` names the scenario or variant. Nothing is
// printed when no run ran out of memory.
void note_out_of_memory(const std::string& what, const std::vector<RunResult>& results);

}  // namespace numasim
