#include "guest/runner.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <stdexcept>

#include "guest/context.h"

namespace numasim::guest {
namespace {

TEST(RunnerArgs, AllOptions) {
    const auto o =
        parse_runner_args({"/oracle/scenario.toml", "--params", "/oracle/params", "--duration-ms",
                           "20000", "--sample-ms", "1000", "--seed", "61"});
    EXPECT_EQ(o.scenario, "/oracle/scenario.toml");
    EXPECT_EQ(o.params_file, "/oracle/params");
    EXPECT_EQ(o.duration_ms, 20000);
    EXPECT_EQ(o.sample_ms, 1000);
    EXPECT_EQ(o.seed, 61u);
    EXPECT_FALSE(o.damon);
    EXPECT_TRUE(parse_runner_args({"s.toml", "--damon"}).damon);
    EXPECT_THROW(parse_runner_args({}), std::invalid_argument);
    EXPECT_THROW(parse_runner_args({"s.toml", "--duration-ms", "x"}), std::invalid_argument);
    EXPECT_THROW(parse_runner_args({"s.toml", "--bogus"}), std::invalid_argument);
}

TEST(SampleCounters, NumaMigrationAndThpMigrationCounters) {
    const auto c = sample_counters(
        "nr_free_pages 100\nnuma_hit 5\nnuma_pte_updates 7\npgmigrate_success 3\n"
        "thp_migration_success 1\npgfault 99\n");
    ASSERT_EQ(c.size(), 4u);
    EXPECT_EQ(c[0].first, "numa_hit");
    EXPECT_EQ(c[3].second, 1);
}

TEST(CpuList, Ranges) {
    EXPECT_EQ(parse_cpu_list("0-3,8,10-11\n"), (std::vector<int>{0, 1, 2, 3, 8, 10, 11}));
    EXPECT_TRUE(parse_cpu_list("\n").empty());
}

TEST(SysfsTopology, NodesCpusMemoryAndDistances) {
    namespace fs = std::filesystem;
    const fs::path root =
        fs::temp_directory_path() / ("numasim-sysfs-test." + std::to_string(::getpid()));
    fs::remove_all(root);
    auto node = [&](int id, const char* cpus, const char* kb, const char* dist) {
        const fs::path d = root / ("node" + std::to_string(id));
        fs::create_directories(d);
        std::ofstream(d / "cpulist") << cpus << "\n";
        std::ofstream(d / "meminfo") << "Node " << id << " MemTotal:       " << kb << " kB\n"
                                     << "Node " << id << " MemFree:        10 kB\n";
        std::ofstream(d / "distance") << dist << "\n";
    };
    node(0, "0-1", "2048", "10 21");
    node(1, "2-3", "1024", "21 10");
    fs::create_directories(root / "power");
    const Topology t = sysfs_topology(root.string());
    fs::remove_all(root);
    ASSERT_EQ(t.nr_nodes(), 2);
    EXPECT_EQ(t.nr_cpus(), 4);
    EXPECT_EQ(t.node_of(3), 1);
    EXPECT_EQ(t.nodes[1].cpus, (std::vector<int>{2, 3}));
    EXPECT_EQ(t.nodes[0].mem_bytes, 2048u * 1024);
    EXPECT_EQ(t.distance[0][1], 21);
}

}  // namespace
}  // namespace numasim::guest
