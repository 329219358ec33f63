// A run with 64 KiB base pages (ppc64) against the same run with 4 KiB pages: the same bytes are
// 16x fewer pages, so first touch allocates and the NUMA balancer migrates 16x fewer pages.
//
// The built-in default scenario first-touches 4 x 256 MiB (262144 pages of 4 KiB, 16384 of
// 64 KiB) and the kernel moves the two node-1 threads' 512 MiB (131072 pages of 4 KiB in the
// qemu oracle; 8192 pages of 64 KiB).
#include <gtest/gtest.h>

#include <string>

#include "experiment/overrides.h"
#include "experiment/run.h"
#include "experiment/scenario.h"

namespace numasim {
namespace {

RunResult run_default(const std::vector<std::string>& settings) {
    ScenarioOverrides ov = {parse_override("check_invariants=true", "test")};
    for (const std::string& s : settings)
        ov.push_back(parse_override(s, s));
    const Scenario sc = load_builtin_scenario("default", ov);
    return run_once(sc, sc.seed);
}

TEST(PageSize, SixtyFourKPagesAllocateAndMigrateSixteenTimesFewerPages) {
    const RunResult r4 = run_default({});
    const RunResult r64 = run_default({"hardware.page_size=64K"});
    const double alloc4 = static_cast<double>(r4.counters[Vm::pgalloc]);
    const double alloc64 = static_cast<double>(r64.counters[Vm::pgalloc]);
    // The 1 GiB buffer dominates; the program's own few pages (stack, libc data) round up to
    // one 64 KiB page each, so the ratio is a little under 16.
    EXPECT_GE(alloc4, 262144);
    EXPECT_GE(alloc64, 16384);
    EXPECT_NEAR(alloc4 / alloc64, 16.0, 0.5);
    const double migrated64 = static_cast<double>(r64.counters[Vm::numa_pages_migrated]);
    EXPECT_GE(migrated64, 8192 / 2.0);
    EXPECT_LE(migrated64, 8192 * 2.0);
}

// The POWER9 preset runs 64 KiB pages; switched to 4 KiB it first-touches 16x more pages.
TEST(PageSize, Power9PresetAgainstFourKPages) {
    const RunResult native = run_default({"machine=power9-2s", "duration=5s"});
    const RunResult small =
        run_default({"machine=power9-2s", "duration=5s", "hardware.page_size=4K"});
    const double a64 = static_cast<double>(native.counters[Vm::pgalloc]);
    const double a4 = static_cast<double>(small.counters[Vm::pgalloc]);
    EXPECT_GE(a64, 16384);
    EXPECT_NEAR(a4 / a64, 16.0, 0.5);
}

}  // namespace
}  // namespace numasim
