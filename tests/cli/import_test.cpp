// `numasim import damon` and `numasim import perf-mem` end to end: the scenario they write loads
// and runs, twice to the same bytes, like any other; a bad profile is exit 2 with one line naming
// the file, and no output.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>

#include "cli/numasim_process.h"

namespace numasim::test {
namespace {

TEST(ImportCli, ScenarioRunsDeterministically) {
    const std::string toml = scratch_path("replay.toml");
    const Output imp = run_numasim(
        "import damon tests/replay/fixtures/damo-hot-cold.json "
        "--blocks 2 --threads 2 --machine tiny-2n -o " +
        toml);
    ASSERT_EQ(imp.status, 0) << imp.out;
    const Output a = run_numasim("run " + toml + " --json");
    const Output b = run_numasim("run " + toml + " --json");
    ASSERT_EQ(a.status, 0) << a.out;
    EXPECT_EQ(a.out, b.out);
    // Both blocks are mapped and faulted in: 1024 pages each.
    EXPECT_NE(a.out.find("\"region\": \"b0\""), std::string::npos);
    EXPECT_NE(a.out.find("\"region\": \"b1\""), std::string::npos);
    EXPECT_NE(a.out.find("\"finished\": true"), std::string::npos) << a.out.substr(0, 2000);
}

// The round trip the importer exists for: two processes monitored together for 20 s over 64 MiB
// each, one seen accessed in every sampling interval, the other in one interval of every 20th
// window. Replayed with two threads each (a single-threaded process traps no faults on its
// local pages), the hot one's threads take more NUMA hinting faults than the cold one's.
TEST(ImportCli, HotRegionTakesMoreHintingFaults) {
    const std::string trace = scratch_path("two.txt");
    {
        std::ofstream f(trace);
        const uint64_t base = 0x7f0000000000, end = base + (uint64_t{64} << 20);
        for (int i = 0; i < 200; ++i) {
            const std::string ts =
                std::to_string((i + 1) / 10) + "." + std::to_string((i + 1) % 10) + "00000";
            f << "kdamond.0 1 [000] " << ts << ": damon:damon_aggregated: target_id=1 "
              << "nr_regions=1 " << base << "-" << end << ": 20 " << i << "\n";
            f << "kdamond.0 1 [000] " << ts << ": damon:damon_aggregated: target_id=2 "
              << "nr_regions=1 " << base << "-" << end << ": " << (i % 20 == 0 ? 1 : 0) << " " << i
              << "\n";
        }
    }
    const std::string toml = scratch_path("two.toml");
    const Output imp =
        run_numasim("import damon " + trace + " --threads 2 --machine tiny-2n -o " + toml);
    ASSERT_EQ(imp.status, 0) << imp.out;
    const Output run = run_numasim("run " + toml + " --json");
    ASSERT_EQ(run.status, 0) << run.out;
    const auto j = nlohmann::json::parse(run.out);
    std::map<std::string, long> faults;  // per process: its threads' total_numa_faults
    const std::regex total(R"(total_numa_faults\s*:\s*(\d+))");
    for (const auto& t : j.at("tasks")) {
        std::smatch m;
        const std::string ps = t.at("proc_sched").get<std::string>();
        ASSERT_TRUE(std::regex_search(ps, m, total)) << ps;
        faults[t.at("comm").get<std::string>()] += std::stol(m[1]);
    }
    EXPECT_GT(faults["target1"], 0);
    EXPECT_GT(faults["target0"], 2 * faults["target1"]);
}

TEST(ImportCli, BadProfileIsExitTwoWithoutOutput) {
    const std::string bad = scratch_path("bad.json");
    { std::ofstream(bad) << "[{\"target_id\": 0, \"snapshots\": ["; }
    const std::string out = scratch_path("out.toml");
    const Output r = run_numasim("import damon " + bad + " -o " + out);
    EXPECT_EQ(r.status, 2);
    EXPECT_EQ(r.out.rfind("numasim: error: " + bad + ": line 1: invalid JSON", 0), 0u) << r.out;
    EXPECT_FALSE(std::filesystem::exists(out));
}

// perf mem samples of two threads (tids 500 and 501 of pid 500), each loading from its own
// 16 MiB buffer for 2 s, all from local RAM in one profile and all from remote RAM in the other.
// Remote-heavy samples make each block first-touched by thread 0 (tid 500), so the replay places
// tid 501's buffer on thread 0's node, remote to 501 as the profile said; local samples let 501
// place its own buffer on its own node. NUMA balancing is off so the placement stays the first.
TEST(ImportCli, PerfMemRemoteSamplesGiveRemoteFirstPlacement) {
    std::map<std::string, double> on_own_node;  // share of 501's buffer on 501's node
    for (const std::string kind : {"local", "remote"}) {
        const std::string text = scratch_path("pm-" + kind + ".txt");
        {
            std::ofstream f(text);
            const char* data_src = kind == "local" ? "1a69401042" : "3a69402042";
            char buf[256];
            for (int i = 0; i < 1000; ++i)
                for (int tid : {500, 501}) {
                    const uint64_t base = tid == 500 ? 0x7f0000000000 : 0x7f1000000000;
                    std::snprintf(
                        buf, sizeof buf,
                        "%16s %7d/%-7d [%03d] %6d.%06d: %10d %s: %16llx %16s |OP LOAD|"
                        "LVL RAM hit|SNP Miss|TLB L1 or L2 hit|LCK N/A|BLK  N/A\n",
                        "app", 500, tid, tid - 500, 100 + i / 500, (i % 500) * 2000, 20000,
                        "cpu/mem-loads,ldlat=30/P",
                        static_cast<unsigned long long>(
                            base + (static_cast<uint64_t>(i) * 16384 + 64) % (uint64_t{16} << 20)),
                        data_src);
                    f << buf;
                }
        }
        const std::string toml = scratch_path("pm-" + kind + ".toml");
        // Two blocks: b0 is tid 500's buffer, b1 tid 501's.
        const Output imp =
            run_numasim("import perf-mem " + text + " --blocks 2 --machine tiny-2n -o " + toml);
        ASSERT_EQ(imp.status, 0) << imp.out;
        const Output a = run_numasim("run " + toml + " --json --set numa_balancing=0");
        const Output b = run_numasim("run " + toml + " --json --set numa_balancing=0");
        ASSERT_EQ(a.status, 0) << a.out;
        EXPECT_EQ(a.out, b.out);
        const auto j = nlohmann::json::parse(a.out);
        int node501 = -1;  // the second thread: not the thread group's leader
        for (const auto& t : j.at("tasks"))
            if (t.at("pid") != t.at("tgid")) node501 = t.at("node").get<int>();
        ASSERT_GE(node501, 0);
        for (const auto& r : j.at("regions"))
            if (r.at("region") == "b1") {
                const auto pages = r.at("node_pages").get<std::vector<double>>();
                on_own_node[kind] =
                    pages.at(static_cast<size_t>(node501)) / (pages.at(0) + pages.at(1));
            }
    }
    EXPECT_GT(on_own_node["local"], 0.99);
    EXPECT_LT(on_own_node["remote"], 0.01);
}

TEST(ImportCli, BadPerfMemSamplesAreExitTwoWithoutOutput) {
    const std::string bad = scratch_path("bad-perf.txt");
    {
        std::ofstream(bad) << "  12 5.000000: 10 cpu/mem-loads/P: 7f000000zz40 1a69401042 |OP "
                              "LOAD|LVL RAM hit|SNP Miss\n";
    }
    const std::string out = scratch_path("out-perf.toml");
    const Output r = run_numasim("import perf-mem " + bad + " -o " + out);
    EXPECT_EQ(r.status, 2);
    EXPECT_EQ(r.out,
              "numasim: error: " + bad +
                  ": line 1: data address '7f000000zz40': not hexadecimal (perf prints it as "
                  "%16lx)\n");
    EXPECT_FALSE(std::filesystem::exists(out));
}

}  // namespace
}  // namespace numasim::test
