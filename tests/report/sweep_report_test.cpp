// A sweep's CSV and case files, from hand-written case documents.
#include "report/sweep_report.h"

#include <gtest/gtest.h>

#include "config/input_error.h"
#include "report/monitor_tables.h"

namespace numasim {
namespace {

nlohmann::json run(double tput, double elapsed, double migrated) {
    return {{"elapsed_s", elapsed},
            {"user_s", 1.0},
            {"system_s", 0.5},
            {"vmstat",
             {{"numa_hint_faults", 4},
              {"numa_hint_faults_local", 3},
              {"numa_pages_migrated", migrated}}},
            {"sched", {{"sched_move_numa", 2}}},
            {"workloads",
             {{{"operations", {{{"name", "tput-8"}, {"value", tput}, {"better", "higher"}}}}}}}};
}

nlohmann::json header() {
    return {{"format", 2},
            {"name", "t"},
            {"axes", {{{"name", "machine"}, {"values", {"a,b", "c"}}}}},
            {"common", nlohmann::json::array()},
            {"along", "machine"},
            {"metrics", {"tput-8", "hint_local_pct", "vmstat.numa_pages_migrated", "nosuch"}},
            {"cases", 2}};
}

nlohmann::json one_case(size_t index, const std::string& machine, nlohmann::json runs) {
    return {{"sweep", header()},
            {"case", index},
            {"parameters", {{"machine", machine}}},
            {"runs", std::move(runs)}};
}

TEST(SweepReport, CsvRowsHoldTheMeanOfTheIterations) {
    const std::vector<nlohmann::json> cases = {
        one_case(0, "a,b", {run(100, 2, 10), run(300, 4, 30)}), one_case(1, "c", {run(50, 1, 5)})};
    // A label with a comma is quoted (RFC 4180); a metric no run has is empty.
    EXPECT_EQ(sweep_csv(header(), cases),
              "case,machine,runs,tput-8,hint_local_pct,vmstat.numa_pages_migrated,nosuch\n"
              "0,\"a,b\",2,200,75,20,\n"
              "1,c,1,50,75,5,\n");
}

TEST(SweepReport, TablesHaveAColumnPerValueOfTheAxis) {
    const std::vector<nlohmann::json> cases = {one_case(0, "a,b", {run(100, 2, 10)}),
                                               one_case(1, "c", {run(50, 1, 5)})};
    const std::string t = sweep_tables(header(), cases);
    EXPECT_NE(t.find("numasim sweep: t, 2 cases, along machine"), std::string::npos) << t;
    EXPECT_NE(t.find("tput-8"), std::string::npos) << t;
    // 50 against 100 is -50.00% in the second column.
    EXPECT_NE(t.find("-50.00%"), std::string::npos) << t;
}

TEST(SweepReport, TablesEndWithTheTaskMigrationSummary) {
    // As compare prints it: every run of a column pooled, its tasks' NUMA migrations together.
    auto swapping = [](double tput, int local, std::vector<int> per_task) {
        nlohmann::json r = run(tput, 1, 0);
        r["sched"] = {{"sched_stick_numa", 1},
                      {"sched_move_numa", 2},
                      {"sched_swap_numa", 5},
                      {"sched_swap_numa_local", local},
                      {"sched_swap_numa_remote", 5 - local},
                      {"sched_swap_numa_group", 3}};
        r["numa_task_migrations"] = per_task;
        return r;
    };
    const std::vector<nlohmann::json> cases = {
        one_case(0, "a,b", {swapping(100, 1, {1, 2}), swapping(110, 0, {3})}),
        one_case(1, "c", {swapping(50, 2, {4, 4})})};
    const std::string t = sweep_tables(header(), cases);
    const std::vector<NumaTaskMigrations> m = {{2, 4, 10, 1, 6, {1, 2, 3}},
                                               {1, 2, 5, 2, 3, {4, 4}}};
    const std::string expected =
        render_monitor_table(build_numa_task_migration_table({"a,b", "c"}, m));
    EXPECT_NE(t.find(expected), std::string::npos) << t << "\nwithout\n" << expected;
    EXPECT_NE(t.find("Ops NUMA remote swapped"), std::string::npos) << t;
}

TEST(SweepReport, SlimDocumentsKeepEachTasksMigrations) {
    nlohmann::json doc = one_case(0, "c", {run(50, 1, 5)});
    doc["runs"][0]["tasks"] = {{{"pid", 1}, {"numa_task_migrations", 3}},
                               {{"pid", 2}, {"numa_task_migrations", 0}}};
    doc["runs"][0]["workloads"][0]["tasks"] = {{{"pid", 1}}};
    slim_case_document(doc);
    const auto& r = doc["runs"][0];
    EXPECT_FALSE(r.contains("tasks"));
    EXPECT_FALSE(r["workloads"][0].contains("tasks"));
    EXPECT_EQ(r["numa_task_migrations"], nlohmann::json({3, 0}));
}

TEST(SweepReport, CaseFilesRoundTripAndAreChecked) {
    SweepCase c;
    c.index = 1;
    c.scenario = "x.toml";
    c.labels = {"c"};
    c.overrides = {parse_override("machine=tiny-2n", "o")};
    const std::string text = case_file_text(header(), c, {run(50, 1, 5).dump()});
    const SweepCaseFile f = parse_case_file(text, "f");
    EXPECT_EQ(f.index, 1u);
    EXPECT_EQ(f.header, header());
    EXPECT_EQ(f.doc["parameters"]["machine"], "c");
    EXPECT_EQ(f.doc["run"], "numasim run x.toml --param \"scenario.machine='tiny-2n'\"");
    EXPECT_THROW(parse_case_file("{}", "f"), InputError);
    nlohmann::json beyond = nlohmann::json::parse(text);
    beyond["case"] = 2;
    EXPECT_THROW(parse_case_file(beyond.dump(), "f"), InputError);
    EXPECT_EQ(case_file_name(7, 10), "0007.json");
    EXPECT_EQ(case_file_name(7, 100001), "000007.json");
}

}  // namespace
}  // namespace numasim
