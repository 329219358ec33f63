// The request-serving example end to end: `numasim compare` prints its latency rows the same at
// any number of workers, and bad values are refused with exit 2 and one line naming the key.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "numasim_process.h"

namespace numasim::test {
namespace {

TEST(RequestServingCli, CompareRowsSameAtAnyWorkers) {
    const std::string args =
        "compare examples/request-serving.toml --duration 2s --iterations 2 "
        "--param workload.warmup=1s --param workload.working_set=256MiB";
    const Output a = run_numasim(args + " -j 1");
    const Output b = run_numasim(args + " -j 2");
    ASSERT_EQ(a.status, 0) << a.out;
    EXPECT_EQ(a.out, b.out);
    EXPECT_NE(a.out.find("\nAmean     Lat 99.0th-qrtle-request "), std::string::npos) << a.out;
    EXPECT_NE(a.out.find("\nAmean     Lat 99.9th-qrtle-request "), std::string::npos);
    EXPECT_NE(a.out.find("\nHmean     tput-requests "), std::string::npos);
    EXPECT_NE(a.out.find(" on "), std::string::npos);
    EXPECT_NE(a.out.find(" bound"), std::string::npos);
}

// The example's three variants, shortened: bound keeps every page and every worker on node 0
// and takes no hinting fault; off takes none either; on takes them, and its tail is longer than
// off's. All three serve what they are offered.
TEST(RequestServingCli, ExampleVariantsDoWhatTheySay) {
    auto run = [](const std::string& variant) {
        const Output o = run_numasim(
            "run examples/request-serving.toml --json --iterations 1 --duration 4s "
            "--param workload.warmup=1s --param workload.working_set=256MiB -V " +
            variant);
        EXPECT_EQ(o.status, 0) << o.out;
        return nlohmann::json::parse(o.out.substr(o.out.find('{')));
    };
    const auto on = run("on"), off = run("off"), bound = run("bound");
    for (const auto* j : {&on, &off, &bound}) {
        const auto& w = j->at("workloads").at(0);
        EXPECT_GT(w.at("requests").get<uint64_t>(), 100000u);
        EXPECT_NEAR(w.at("throughput").get<double>(), 40000.0, 2000.0);
    }
    EXPECT_EQ(bound.at("vmstat").at("numa_hint_faults").get<uint64_t>(), 0u);
    EXPECT_EQ(off.at("vmstat").at("numa_hint_faults").get<uint64_t>(), 0u);
    EXPECT_GT(on.at("vmstat").at("numa_hint_faults").get<uint64_t>(), 0u);
    for (const auto& r : bound.at("regions"))
        if (r.at("region") == "working_set") {
            EXPECT_EQ(r.at("node_pages").at(1), 0) << r;
        }
    for (const auto& t : bound.at("workloads").at(0).at("tasks"))
        EXPECT_EQ(t.at("last_node"), 0) << t;
    auto p99 = [](const nlohmann::json& j) {
        return j.at("workloads").at(0).at("p99_us").get<double>();
    };
    EXPECT_GT(p99(on), p99(off));
}

TEST(RequestServingCli, BadValuesExitTwo) {
    const std::string run = "run examples/request-serving.toml --param ";
    Output o = run_numasim(run + "workload.rate=0");
    EXPECT_EQ(o.status, 2);
    EXPECT_EQ(o.out,
              "numasim: error: --param workload.rate=0: workload[0].rate: must be positive\n");
    // haswell-2s has 48 CPUs: 8 workers of 100 us serve 80,000 requests/s at most.
    o = run_numasim(run + "workload.rate=80000");
    EXPECT_EQ(o.status, 2);
    EXPECT_EQ(o.out,
              "numasim: error: --param workload.rate=80000: workload[0].rate: 80000 requests/s is "
              "at or beyond the saturation rate 80000/s (min(workers 8, CPUs 48) / service_time "
              "100 us): the workers could never serve it\n");
    o = run_numasim(run + "'workload.service_time=\"0s\"'");
    EXPECT_EQ(o.status, 2);
    EXPECT_NE(o.out.find("workload[0].service_time: must be positive"), std::string::npos) << o.out;
    o = run_numasim(run + "'workload.percentiles=[50, 101]'");
    EXPECT_EQ(o.status, 2);
    EXPECT_NE(o.out.find("workload[0].percentiles: 101 is not a percentile"), std::string::npos)
        << o.out;
}

}  // namespace
}  // namespace numasim::test
