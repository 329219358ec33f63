// End-to-end: the mmtests-completeness outputs (compare --print-significance and --naming,
// the Ops rows beyond NUMA, run --proc-vmstat).
#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "numasim_process.h"

namespace {

using numasim::test::Output;
using numasim::test::run_numasim;

TEST(MmtestsOutput, ProcVmstatIsTheRunsCountersInKernelOrder) {
    const std::string run = "run --duration 8s --iterations 1";
    const Output text = run_numasim(run + " --proc-vmstat");
    const Output json = run_numasim(run + " --json");
    ASSERT_EQ(text.status, 0) << text.out;
    ASSERT_EQ(json.status, 0) << json.out;
    const auto vmstat = nlohmann::json::parse(json.out).at("vmstat");
    // Every line is "name value" with the value the JSON holds for the same run (the JSON
    // says "pgalloc" for the kernel's pgalloc_normal), in vmstat_text's order.
    std::istringstream in(text.out);
    std::vector<std::string> names;
    for (std::string line; std::getline(in, line);) {
        const auto sp = line.find(' ');
        ASSERT_NE(sp, std::string::npos) << line;
        const std::string name = line.substr(0, sp);
        const std::string key = name == "pgalloc_normal" ? "pgalloc" : name;
        names.push_back(name);
        // The promotion node stats: the kernel prints them on every machine, the JSON only on
        // one with a slower tier (this one has none, so they are 0).
        if (name.starts_with("pgpromote_") && !vmstat.contains(key)) {
            EXPECT_EQ(line.substr(sp + 1), "0") << name;
            continue;
        }
        ASSERT_TRUE(vmstat.contains(key)) << name;
        EXPECT_EQ(line.substr(sp + 1), std::to_string(vmstat.at(key).get<uint64_t>())) << name;
    }
    const std::vector<std::string> order = {"numa_hit",          "numa_local",
                                            "pgpromote_success", "pgpromote_candidate",
                                            "pgalloc_normal",    "pgfault",
                                            "numa_pte_updates",  "numa_pages_migrated",
                                            "pgmigrate_success", "thp_migration_success",
                                            "thp_fault_alloc"};
    size_t at = 0;
    for (const auto& n : order) {
        const auto it = std::find(names.begin() + static_cast<long>(at), names.end(), n);
        ASSERT_NE(it, names.end()) << n << " missing or out of order";
        at = static_cast<size_t>(it - names.begin());
    }
    // A v4.19 kernel has no THP migration counters (v5.9).
    const Output old = run_numasim(run + " --profile v4.19 --proc-vmstat");
    ASSERT_EQ(old.status, 0) << old.out;
    EXPECT_EQ(old.out.find("thp_migration"), std::string::npos) << old.out;
    EXPECT_EQ(run_numasim(run + " --proc-vmstat --json").status, 2);
    EXPECT_EQ(run_numasim("run --duration 8s --iterations 2 --proc-vmstat").status, 2);
}

TEST(MmtestsOutput, CompareSignificanceRowsDotNamingAndOpsRows) {
    const Output o = run_numasim(
        "compare examples/variants.toml --iterations 2 --duration 5s -V base:profile=v6.12 "
        "-V old:profile=v6.1 --print-significance --naming dot");
    ASSERT_EQ(o.status, 0) << o.out;
    for (const char* s : {"BAmean.95", "\nSignificant elsp-NUMA02", "Ops Minor Faults",
                          "Ops Normal allocs", "Ops THP fault alloc", "Ops Page migrate success",
                          "Ops Page migrate failure", "Ops THP migration success"})
        EXPECT_NE(o.out.find(s), std::string::npos) << s << "\n" << o.out;
    EXPECT_EQ(o.out.find("BAmean-95"), std::string::npos);
    EXPECT_EQ(run_numasim("compare examples/variants.toml --naming colon").status, 2);
}

TEST(MmtestsOutput, RunJsonHoldsTheSwapSplitOfTheTaskMigrationSummary) {
    // A column of smallimp-haswell, whose specjbb tasks move and swap between the nodes, as
    // compare and run see it.
    const std::string scale = " --duration 12s --iterations 1";
    const Output c = run_numasim(
        "compare experiments/smallimp-haswell.toml -V a:smallimp=0 "
        "-V b:smallimp=30 --json -j 2" +
        scale);
    const Output r =
        run_numasim("run experiments/smallimp-haswell.toml -V a:smallimp=0 --json" + scale);
    ASSERT_EQ(c.status, 0) << c.out;
    ASSERT_EQ(r.status, 0) << r.out;
    const auto run = nlohmann::json::parse(r.out);
    const auto& sched = run.at("sched");
    ASSERT_GT(sched.at("sched_swap_numa").get<int>(), 0) << "no swaps: pick another scenario";
    EXPECT_EQ(sched.at("sched_swap_numa_local").get<int>() +
                  sched.at("sched_swap_numa_remote").get<int>(),
              sched.at("sched_swap_numa").get<int>());
    int per_task = 0, most = 0;
    for (const auto& t : run.at("tasks")) {
        per_task += t.at("numa_task_migrations").get<int>();
        most = std::max(most, t.at("numa_task_migrations").get<int>());
    }
    EXPECT_EQ(per_task,
              sched.at("sched_move_numa").get<int>() + 2 * sched.at("sched_swap_numa").get<int>());
    // Column a of compare's summary holds the same figures.
    const std::vector<std::pair<std::string, double>> expected = {
        {"NUMA migrated stuck", sched.at("sched_stick_numa").get<double>()},
        {"NUMA migrated idle", sched.at("sched_move_numa").get<double>()},
        {"NUMA migrated swapped", sched.at("sched_swap_numa").get<double>()},
        {"NUMA local swapped", sched.at("sched_swap_numa_local").get<double>()},
        {"NUMA remote swapped", sched.at("sched_swap_numa_remote").get<double>()},
        {"NUMA group swapped", sched.at("sched_swap_numa_group").get<double>()},
        {"NUMA max task migs.", most}};
    const auto compared = nlohmann::json::parse(c.out);
    const auto& rows = compared.at("numa_task_migrations").at("rows");
    for (const auto& [operation, value] : expected) {
        bool found = false;
        for (const auto& row : rows)
            if (row.at("operation") == operation) {
                EXPECT_EQ(row.at("values").at(0).get<double>(), value) << operation;
                found = true;
            }
        EXPECT_TRUE(found) << operation;
    }
}

}  // namespace
