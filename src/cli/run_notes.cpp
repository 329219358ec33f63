#include "cli/run_notes.h"

#include <cstdio>

#include <fmt/format.h>

namespace numasim {

namespace {

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

void note_tiering_without_tiers(const std::string& what, const Scenario& sc,
                                const std::vector<RunResult>& results) {
    if (!sc.knobs.tiering_mode() || sc.knobs.normal_mode()) return;
    // The runs' own finding (System::has_slow_tier), the same for every run of one machine.
    if (results.empty() || results.front().counters.promotion_possible) return;
    fmt::print(stderr,
               "numasim: note: {}: numa_balancing=2 (memory tiering only) on a machine whose "
               "memory is all in one tier ({}): the kernel accepts it, and change_prot_numa() "
               "skips every folio on a top-tier node, so the scans mark no page and nothing is "
               "balanced (docs/tiering.md, \"Step 2: promotion\")\n",
               what, sc.machine.name);
}

}  // namespace

void print_run_notes(const std::string& what, const Scenario& sc,
                     const std::vector<RunResult>& results) {
    note_out_of_memory(what, results);
    note_tiering_without_tiers(what, sc, results);
}

}  // namespace numasim
