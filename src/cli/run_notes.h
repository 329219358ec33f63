#pragma once

#include <string>
#include <vector>

#include "experiment/run.h"
#include "experiment/scenario.h"

namespace numasim {

// The notes `run` and `compare` print on stderr about runs whose figures a user must not read
// as the kernel's without knowing what happened; `what` names the scenario or the variant.
// Nothing is printed for a run that needs no note. The notes:
// * out of memory: some allocation found no free page on any node its memory policy allows,
//   even after reclaim (Counters::oom_alloc_failures). The kernel would call out_of_memory()
//   there and kill a task; the model kills nothing and retries the access on a later tick, so
//   the run is one the kernel would not have finished as simulated.
// * numa_balancing=2 on a machine with one memory tier: the kernel accepts it, and its
//   change_prot_numa() then skips every folio (all are on top-tier nodes), so the scans mark no
//   page and nothing is balanced (docs/tiering.md, "Step 2: promotion").
void print_run_notes(const std::string& what, const Scenario& sc,
                     const std::vector<RunResult>& results);

}  // namespace numasim
