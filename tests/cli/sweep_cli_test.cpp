// End-to-end tests of `numasim sweep`, `gather`, `compare --from` and `run --iteration`: a sweep
// cut into shards and gathered, or resumed after losing cases, writes the bytes of one whole run,
// and every case can be reproduced on its own.
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "numasim_process.h"

namespace {

using numasim::test::Output;
using numasim::test::run_numasim;
using numasim::test::shell;

namespace fs = std::filesystem;

// Four cases of two iterations each, in well under a second of CPU.
const std::string kSweep =
    "sweep examples/knobs.toml --duration 3s --iterations 2 --set smallimp=0,30 --seeds 1..2";

// A run's JSON without its provenance, which names the command line that made it.
nlohmann::json without_provenance(const std::string& text) {
    nlohmann::json j = nlohmann::json::parse(text);
    j.erase("provenance");
    return j;
}

fs::path fresh_dir(const std::string& name) {
    return numasim::test::scratch_path(name);
}

std::string read(const fs::path& p) {
    return numasim::test::read_text(p.string());
}

// Every file under `a` has the same bytes under `b`, and `b` has no others.
void expect_same_tree(const fs::path& a, const fs::path& b) {
    size_t files = 0;
    for (const auto& e : fs::recursive_directory_iterator(a)) {
        if (!e.is_regular_file()) continue;
        ++files;
        const fs::path rel = fs::relative(e.path(), a);
        ASSERT_TRUE(fs::exists(b / rel)) << rel;
        EXPECT_EQ(read(e.path()), read(b / rel)) << rel;
    }
    size_t others = 0;
    for (const auto& e : fs::recursive_directory_iterator(b))
        others += e.is_regular_file();
    EXPECT_EQ(files, others);
}

// The whole sweep in one process, once for all the tests.
class Sweep : public ::testing::Test {
  protected:
    static void SetUpTestSuite() {
        // ctest runs each test in a process of its own, maybe side by side.
        whole_ = fresh_dir("numasim_sweep_whole." + std::to_string(getpid()));
        const Output o = run_numasim(kSweep + " -j 2 -o " + whole_.string());
        ASSERT_EQ(o.status, 0) << o.out;
        tables_ = o.out;
    }
    static void TearDownTestSuite() { fs::remove_all(whole_); }
    static fs::path whole_;
    static std::string tables_;
};
fs::path Sweep::whole_;
std::string Sweep::tables_;

TEST_F(Sweep, WritesOneFilePerCaseACsvAndTables) {
    for (const char* f : {"cases/0000.json", "cases/0003.json", "sweep.csv", "compare.txt"})
        EXPECT_TRUE(fs::exists(whole_ / f)) << f;
    EXPECT_FALSE(fs::exists(whole_ / "cases/0004.json"));
    EXPECT_EQ(read(whole_ / "compare.txt"), tables_);
    // The tables run along smallimp (the seeds pool as samples): one column per value.
    EXPECT_NE(tables_.find("along smallimp"), std::string::npos) << tables_;
    EXPECT_NE(tables_.find("Amean     elsp-NUMA01_THREADLOCAL"), std::string::npos) << tables_;
    EXPECT_NE(tables_.find("Ops NUMA hint faults"), std::string::npos) << tables_;
    // The CSV: a header, then one row per case in product order (seed outer, smallimp inner).
    std::istringstream csv(read(whole_ / "sweep.csv"));
    std::string line;
    std::getline(csv, line);
    EXPECT_EQ(line.rfind("case,seed,smallimp,runs,", 0), 0u) << line;
    for (const char* row : {"0,1,0,2,", "1,1,30,2,", "2,2,0,2,", "3,2,30,2,"}) {
        ASSERT_TRUE(std::getline(csv, line));
        EXPECT_EQ(line.rfind(row, 0), 0u) << line;
    }
    EXPECT_FALSE(std::getline(csv, line));
}

TEST_F(Sweep, ShardsGatherToTheSameBytes) {
    std::string dirs;
    for (int i = 1; i <= 3; ++i) {
        const fs::path d = fresh_dir("numasim_sweep_shard" + std::to_string(i));
        const Output o =
            run_numasim(kSweep + " -j 1 --shard " + std::to_string(i) + "/3 -o " + d.string());
        ASSERT_EQ(o.status, 0) << o.out;
        EXPECT_FALSE(fs::exists(d / "sweep.csv")) << "a shard alone is not the sweep";
        dirs.append(" ").append(d.string());
    }
    const fs::path gathered = fresh_dir("numasim_sweep_gathered");
    const Output g = run_numasim("gather" + dirs + " -o " + gathered.string());
    ASSERT_EQ(g.status, 0) << g.out;
    EXPECT_EQ(g.out, tables_);
    expect_same_tree(whole_, gathered);
    const Output from = run_numasim("compare --from" + dirs);
    ASSERT_EQ(from.status, 0) << from.out;
    EXPECT_EQ(from.out, tables_);
    // Two shards of three are not the whole sweep.
    const fs::path partial = fresh_dir("numasim_sweep_partial");
    const Output p =
        run_numasim("gather" + dirs.substr(0, dirs.rfind(' ')) + " -o " + partial.string());
    EXPECT_EQ(p.status, 2) << p.out;
    EXPECT_NE(p.out.find("missing"), std::string::npos) << p.out;
}

TEST_F(Sweep, ResumeRunsOnlyTheMissingCases) {
    const fs::path d = fresh_dir("numasim_sweep_resumed");
    fs::copy(whole_, d, fs::copy_options::recursive);
    fs::remove(d / "cases/0002.json");
    fs::remove(d / "sweep.csv");
    // A finished case is kept, not run again: its file keeps the time it was written.
    const auto old = fs::file_time_type::clock::now() - std::chrono::hours(24);
    fs::last_write_time(d / "cases/0001.json", old);
    const Output refused = run_numasim(kSweep + " -o " + d.string());
    EXPECT_EQ(refused.status, 2) << refused.out;
    EXPECT_NE(refused.out.find("--resume"), std::string::npos) << refused.out;
    const Output o = run_numasim(kSweep + " --resume -j 1 -o " + d.string());
    ASSERT_EQ(o.status, 0) << o.out;
    EXPECT_EQ(o.out, tables_);
    expect_same_tree(whole_, d);
    EXPECT_EQ(fs::last_write_time(d / "cases/0001.json"), old);
    // Another sweep's options do not mix with these cases.
    const Output other = run_numasim(kSweep + " --resume --set scan_size_mb=64 -o " + d.string());
    EXPECT_EQ(other.status, 2) << other.out;
    EXPECT_NE(other.out.find("another sweep"), std::string::npos) << other.out;
}

TEST_F(Sweep, CtrlCKeepsFinishedCasesForResume) {
    const fs::path d = fresh_dir("numasim_sweep_interrupted");
    const std::string dir = d.string();
    // SIGINT once the first case is written (a shell in the background ignores SIGINT
    // unless told otherwise: trap - INT restores it for the sweep).
    const Output o = shell("(trap - INT; exec $NUMASIM " + kSweep + " -j 1 -o " + dir +
                           ") 2>&1 >/dev/null & pid=$!; while [ ! -e " + dir +
                           "/cases/0000.json ] && kill -0 $pid 2>/dev/null; do sleep 0.02; done; "
                           "kill -INT $pid; wait $pid; echo \"rc=$?\"");
    ASSERT_TRUE(o.out.find("rc=130") != std::string::npos ||
                o.out.find("rc=0") != std::string::npos)
        << o.out;
    if (o.out.find("rc=130") != std::string::npos) {
        EXPECT_NE(o.out.find("--resume continues"), std::string::npos) << o.out;
        EXPECT_FALSE(fs::exists(d / "sweep.csv"));
        EXPECT_FALSE(fs::exists(d / "cases/0003.json"));
    }
    const Output r = run_numasim(kSweep + " --resume -j 2 -o " + dir);
    ASSERT_EQ(r.status, 0) << r.out;
    EXPECT_EQ(r.out, tables_);
    expect_same_tree(whole_, d);
}

TEST_F(Sweep, RunIterationReproducesACaseRun) {
    const auto c = nlohmann::json::parse(read(whole_ / "cases/0002.json"));
    EXPECT_EQ(c["parameters"]["seed"], "2");
    EXPECT_EQ(c["parameters"]["smallimp"], "0");
    // The case's own command line, with --iteration 1 --json.
    std::string cmd = c["run"].get<std::string>();
    ASSERT_EQ(cmd.rfind("numasim ", 0), 0u) << cmd;
    const Output o = shell("$NUMASIM " + cmd.substr(8) + " --json --iteration 1");
    ASSERT_EQ(o.status, 0) << o.out;
    EXPECT_EQ(without_provenance(o.out), c["runs"][1]);
    EXPECT_NE(without_provenance(o.out), c["runs"][0]) << "iterations differ in seed";
    const Output bad = shell("$NUMASIM " + cmd.substr(8) + " --iteration 2");
    EXPECT_EQ(bad.status, 2) << bad.out;
}

TEST(SweepCli, CompareTakesValueLists) {
    const Output o = run_numasim(
        "compare examples/knobs.toml --duration 3s --iterations 2 --set scan_size_mb=64,256");
    ASSERT_EQ(o.status, 0) << o.out;
    EXPECT_NE(o.out.find("scan_size_mb=64"), std::string::npos) << o.out;
    EXPECT_NE(o.out.find("scan_size_mb=256"), std::string::npos) << o.out;
}

// The rows of the NUMA task-migration summary in a text of tables, in order.
std::vector<std::string> task_migration_rows(const std::string& text) {
    std::vector<std::string> rows;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);)
        for (const char* label :
             {"NUMA migrated stuck", "NUMA migrated idle", "NUMA migrated swapped",
              "NUMA local swapped", "NUMA remote swapped", "NUMA group swapped",
              "NUMA avg task migs.", "NUMA stddev task mig", "NUMA max task migs."})
            if (line.rfind(std::string("Ops ") + label, 0) == 0) rows.push_back(line);
    return rows;
}

TEST(SweepCli, CompareFromPrintsTheTaskMigrationSummaryOfCompare) {
    // Two columns of smallimp-haswell, whose specjbb tasks move and swap between the nodes
    // (MmtestsOutput.RunJsonHoldsTheSwapSplitOfTheTaskMigrationSummary checks that they do).
    const std::string columns =
        "experiments/smallimp-haswell.toml -V a:smallimp=0 -V b:smallimp=30 --duration 12s "
        "--iterations 1 -j 2";
    const fs::path d = fresh_dir("numasim_sweep_migrations." + std::to_string(getpid()));
    ASSERT_EQ(run_numasim("sweep " + columns + " -o " + d.string()).status, 0);
    const Output from = run_numasim("compare --from " + d.string());
    const Output direct = run_numasim("compare " + columns);
    ASSERT_EQ(from.status, 0) << from.out;
    ASSERT_EQ(direct.status, 0) << direct.out;
    const auto rows = task_migration_rows(from.out);
    EXPECT_EQ(rows.size(), 9u) << from.out;
    EXPECT_EQ(rows, task_migration_rows(direct.out)) << from.out << direct.out;
    fs::remove_all(d);
}

TEST(SweepCli, RunIterationOfACompareColumn) {
    // Column "multi-current" of smallimp-haswell's compare, iteration 0, at a small scale.
    const std::string scale =
        "--iterations 2 --param 'workload.ramp_up=\"1s\"' --param 'workload.duration=\"2s\"' "
        "--param workload.warehouses=2";
    const Output all =
        run_numasim("run experiments/smallimp-haswell.toml -V multi-current --json " + scale);
    ASSERT_EQ(all.status, 0) << all.out;
    const Output one =
        run_numasim("run experiments/smallimp-haswell.toml -V multi-current --json " + scale +
                    " --iteration 1");
    ASSERT_EQ(one.status, 0) << one.out;
    EXPECT_EQ(nlohmann::json::parse(all.out)["runs"][1], without_provenance(one.out));
    EXPECT_EQ(run_numasim("run experiments/smallimp-haswell.toml -V nosuch").status, 2);
}

TEST(SweepCli, BadSweepsAreErrors) {
    const fs::path d = fresh_dir("numasim_sweep_bad");
    struct Case {
        std::string args, says;
    };
    for (const Case& c : std::vector<Case>{
             {" --shard 4/3", "--shard"},
             {" --shard 0/3", "--shard"},
             {" --along profile", "along"},
             {" --metric vmstat.no_such_counter", "no_such_counter"},
             {" --set smallimp=5..1", "smallimp"},
         }) {
        const Output o = run_numasim(kSweep + c.args + " -o " + d.string());
        EXPECT_EQ(o.status, 2) << c.args << ": " << o.out;
        EXPECT_NE(o.out.find(c.says), std::string::npos) << c.args << ": " << o.out;
    }
    EXPECT_FALSE(fs::exists(d / "cases")) << "nothing written for a bad sweep";
    // A list of values on `run` points at sweep and compare.
    const Output r = run_numasim("run examples/knobs.toml --set smallimp=0,30");
    EXPECT_EQ(r.status, 2) << r.out;
    EXPECT_NE(r.out.find("sweep"), std::string::npos) << r.out;
}

}  // namespace
