#include "cli/out_of_memory_note.h"

#include <cstdio>

#include <fmt/format.h>

namespace numasim {

void note_out_of_memory(const std::string& what, const std::vector<RunResult>& results) {
    uint64_t failures = 0;
    size_t runs = 0;
    for (const RunResult& r : results) {
        failures += r.counters.oom_alloc_failures;
        runs += r.counters.oom_alloc_failures > 0;
    }
    if (failures == 0) return;
    fmt::print(stderr,
               "numasim: note: {}: out of memory in {} of {} run(s): {} allocation(s) found no "
               "free page on any node their memory policy allows; the kernel would call "
               "out_of_memory() and kill a task, the model retried each access later, so the "
               "figures are of a run the kernel would not have completed (docs/scenario.md, "
               "\"Errors and limits\")\n",
               what, runs, results.size(), failures);
}

}  // namespace numasim
