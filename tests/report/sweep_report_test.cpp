// A sweep's CSV and case files, from hand-written case documents.
#include "report/sweep_report.h"

#include <gtest/gtest.h>

#include "config/input_error.h"

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
    return {{"format", 1},
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
