// The NUMA task-migration figures a run reports (the sched_*_numa summary of compare) add up:
// every sched_move_numa migrates one task and every sched_swap_numa two, so the tasks' own
// counts sum to moves + 2 * swaps; a swap within one node or one numa group is one of the swaps.
#include <gtest/gtest.h>

#include "experiment/overrides.h"
#include "experiment/run.h"
#include "experiment/scenario.h"

namespace numasim {
namespace {

TEST(NumaTaskMigrations, PerTaskCountsAddUpToTheTracepoints) {
    // specjbb with 4 JVMs of 8 warehouses on 2 nodes: tasks move and swap between nodes.
    const ScenarioOverrides ov = {parse_override("scenario.duration=12s", "test"),
                                  parse_override("scenario.iterations=1", "test")};
    const Scenario sc = load_scenario_file("experiments/smallimp-haswell.toml", ov);
    const RunResult r = run_once(sc, sc.seed);
    const Counters& c = r.counters;
    ASSERT_GT(c.sched_swap_numa, 0u) << "the scenario no longer swaps tasks: pick another";
    uint64_t per_task = 0;
    for (const ProcTask& t : r.tasks)
        per_task += t.numa_task_migrations;
    EXPECT_EQ(per_task, c.sched_move_numa + 2 * c.sched_swap_numa);
    EXPECT_LE(c.sched_swap_numa_local, c.sched_swap_numa);
    EXPECT_LE(c.sched_swap_numa_group, c.sched_swap_numa);
}

}  // namespace
}  // namespace numasim
