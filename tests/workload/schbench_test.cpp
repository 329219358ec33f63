#include <gtest/gtest.h>

#include "cost/cost_model.h"
#include "helpers.h"
#include "workload/schbench_stats.h"

namespace numasim {
namespace {

using test::figure;
using test::run_workload;

std::string toml(const std::string& extra) {
    return "[[workload]]\ntype = \"schbench\"\nmessage_threads = 1\n" + extra;
}

// fio's buckets: exact up to 511, then 256 buckets per power of two, each standing for its
// middle. 1000 has msb 9: one error bit, base (1+1)<<8 = 512, offset 500 & 255 = 244.
TEST(SchbenchStats, BucketsAsFio) {
    EXPECT_EQ(schbench_plat_val_to_idx(300), 300u);
    EXPECT_EQ(schbench_plat_val_to_idx(1000), 756u);
    EXPECT_EQ(schbench_plat_idx_to_val(756), 1001u);  // 512 + 244.5 x 2
    // 5000: msb 12, 4 error bits, base 5<<8, offset (5000>>4) & 255 = 56; 4096 + 56.5 x 16.
    EXPECT_EQ(schbench_plat_val_to_idx(5000), 1336u);
    EXPECT_EQ(schbench_plat_idx_to_val(1336), 5000u);
}

// 90 samples of 3, 9 of 100, 1 of 5000: the 20th to the 90th percentile are 3 (the running sum
// reaches 90 in bucket 3), the 99th 100, the 99.9th 5000; samples count since the previous one.
TEST(SchbenchStats, PercentilesAndPrintout) {
    SchbenchStats s;
    for (int i = 0; i < 90; ++i)
        s.add(3);
    for (int i = 0; i < 9; ++i)
        s.add(100);
    s.add(5000);
    const auto ps = s.percentiles();
    ASSERT_EQ(ps.size(), 5u);
    EXPECT_EQ(ps[0].value, 3u);
    EXPECT_EQ(ps[0].samples, 90u);
    EXPECT_EQ(ps[2].value, 3u);
    EXPECT_EQ(ps[2].samples, 0u);
    EXPECT_EQ(ps[3].value, 100u);
    EXPECT_EQ(ps[3].samples, 9u);
    EXPECT_EQ(ps[4].value, 5000u);
    EXPECT_EQ(ps[4].samples, 1u);
    EXPECT_EQ(s.show("Wakeup Latencies", "usec", 30, SCHBENCH_PLIST_FOR_LAT, SCHBENCH_PLIST_99),
              "Wakeup Latencies percentiles (usec) runtime 30 (s) (100 total samples)\n"
              "\t  50.0th: 3          (0 samples)\n"
              "\t  90.0th: 3          (0 samples)\n"
              "\t* 99.0th: 100        (9 samples)\n"
              "\t  99.9th: 5000       (1 samples)\n"
              "\t  min=3, max=5000\n");
}

// One worker on an idle 4-CPU machine: every wakeup finds an idle CPU, so the worker runs as
// soon as it is queued, after the context switch the scheduler model charges to the picked
// task (CONTEXT_SWITCH_NS): its wakeup latency is that, in whole microseconds.
TEST(Schbench, IdleWakeupLatencyIsTheContextSwitch) {
    auto r = run_workload("tiny-2n", toml("threads = 1\nruntime = \"2s\"\n"), 2.1);
    const auto res = r.w->result(*r.sys);
    const auto cs_us = static_cast<int64_t>(r.sys->cost.k().CONTEXT_SWITCH_NS / 1000);
    EXPECT_GT(figure<uint64_t>(res, "requests"), 50u);
    EXPECT_EQ(figure<uint64_t>(res, "wakeup_latency_min"), static_cast<uint64_t>(cs_us));
    EXPECT_EQ(figure<uint64_t>(res, "wakeup_latency_max"), static_cast<uint64_t>(cs_us));
}

// With no math (-n 0) a request is its 1 us burst, the usleep(100) and the wakeup from it on an
// idle CPU (the context switch): 1 + 100 + 2 = 103 us.
TEST(Schbench, RequestWithoutMathIsTheSleepAndItsWakeup) {
    auto r = run_workload("tiny-2n", toml("threads = 1\noperations = 0\nruntime = \"1s\"\n"), 1.1);
    const auto res = r.w->result(*r.sys);
    const auto expect = static_cast<uint64_t>(
        (NSEC_PER_USEC + 100 * NSEC_PER_USEC + r.sys->cost.k().CONTEXT_SWITCH_NS) / 1000);
    EXPECT_EQ(figure<uint64_t>(res, "request_latency_min"), expect);
    EXPECT_EQ(figure<uint64_t>(res, "request_latency_max"), expect);
}

// Eight workers and their message thread on 4 CPUs: a woken worker often finds every CPU busy
// and waits on a runqueue until a running request ends or the tick preempts it. Those waits are
// at most what the other tasks run before it, here far above the idle case's 2 us.
TEST(Schbench, MoreWorkersThanCpusWaitOnRunqueues) {
    auto r = run_workload("tiny-2n", toml("threads = 8\nruntime = \"3s\"\n"), 3.1);
    const auto res = r.w->result(*r.sys);
    const auto cs_us = static_cast<uint64_t>(r.sys->cost.k().CONTEXT_SWITCH_NS / 1000);
    EXPECT_GT(figure<uint64_t>(res, "wakeup_latency_pct90.0"), 10 * cs_us);
    // No wait is longer than the eight other tasks' requests in a row.
    EXPECT_LT(figure<uint64_t>(res, "wakeup_latency_max"),
              8 * figure<uint64_t>(res, "request_latency_max"));
    // Four CPUs serve at most four requests at a time.
    EXPECT_LE(figure<double>(res, "average_rps"),
              4.0 * 1e6 / static_cast<double>(figure<uint64_t>(res, "request_latency_min")));
}

// -R 100 with two workers on an idle machine: each second the message thread posts 100
// requests, 50 to each worker, and wakes both; each worker takes its list and does its 50
// requests back to back (well within the second), then waits again. So 100 requests a second,
// 300 in 3 s, and two wakeups a second, each the 2 us context switch.
TEST(Schbench, RpsModePostsItsRequestsEachSecond) {
    auto r = run_workload("tiny-2n", toml("threads = 2\nrps = 100\nruntime = \"3s\"\n"), 4.5);
    const auto res = r.w->result(*r.sys);
    const auto cs_us = static_cast<uint64_t>(r.sys->cost.k().CONTEXT_SWITCH_NS / 1000);
    EXPECT_EQ(figure<uint64_t>(res, "requests"), 300u);
    EXPECT_EQ(figure<uint64_t>(res, "rps_min"), 100u);
    EXPECT_EQ(figure<uint64_t>(res, "rps_max"), 100u);
    EXPECT_EQ(figure<uint64_t>(res, "wakeup_latency_min"), cs_us);
    EXPECT_EQ(figure<uint64_t>(res, "wakeup_latency_max"), cs_us);
    EXPECT_NE(
        res.summary.find("Wakeup Latencies percentiles (usec) runtime 3 (s) (6 total samples)"),
        std::string::npos);
}

// Beyond what the workers take, run_rps_thread() skips a worker with more than 128 requests
// posted since it last looked: a rate of 10^4 and one of 2 x 10^9 a second post the same
// requests, and the second costs no more (the posting stops once every worker is full).
TEST(Schbench, RpsBeyondTheBatchLimitIsSkipped) {
    auto requests = [](const std::string& rps) {
        auto r = run_workload("tiny-2n", toml("threads = 2\nruntime = \"3s\"\nrps = " + rps + "\n"),
                              4.5);
        return figure<uint64_t>(r.w->result(*r.sys), "requests");
    };
    EXPECT_EQ(requests("10000"), requests("2000000000"));
}

TEST(Schbench, Deterministic) {
    const std::string t = toml("threads = 6\nruntime = \"1s\"\n");
    auto a = run_workload("tiny-2n", t, 1.1, 7);
    auto b = run_workload("tiny-2n", t, 1.1, 7);
    EXPECT_EQ(a.w->result(*a.sys).summary, b.w->result(*b.sys).summary);
}

TEST(Schbench, MmtestsOperationNames) {
    auto r = run_workload("tiny-2n", toml("threads = 2\nruntime = \"2s\"\n"), 2.1);
    const auto res = r.w->result(*r.sys);
    // On an idle machine every wakeup is the 2 us context switch, so every percentile is 2.
    const double cs_us = r.sys->cost.k().CONTEXT_SWITCH_NS / 1000;
    int wakeup_rows = 0, rps_rows = 0;
    for (const Operation& o : res.operations) {
        if (o.name == "Wakeup-50th-2" || o.name == "Wakeup-99.9th-2" || o.name == "Wakeup-max-2") {
            EXPECT_EQ(o.value, cs_us) << o.name;
            EXPECT_TRUE(o.lower_is_better);
            ++wakeup_rows;
        }
        if (o.name == "RPS-20th-2" || o.name == "RPS-50th-2" || o.name == "RPS-90th-2" ||
            o.name == "RPS-max-2") {
            EXPECT_FALSE(o.lower_is_better);
            ++rps_rows;
        }
    }
    EXPECT_EQ(wakeup_rows, 3);
    EXPECT_EQ(rps_rows, 4);
    EXPECT_EQ(res.operations.size(), 5u + 5u + 4u);  // 4 percentiles + max, twice; 3 + max
    EXPECT_NE(res.summary.find("Wakeup Latencies percentiles (usec) runtime 2 (s)"),
              std::string::npos);
}

TEST(Schbench, BadInputNamesTheKey) {
    for (const auto& [extra, key] :
         std::vector<std::pair<std::string, std::string>>{{"threads = 0\n", "threads"},
                                                          {"runtime = -1\n", "runtime"},
                                                          {"sleep_usec = -5\n", "sleep_usec"},
                                                          {"operations = -1\n", "operations"},
                                                          {"rps = -10\n", "rps"}}) {
        try {
            run_workload("tiny-2n", toml(extra), 0);
            ADD_FAILURE() << extra;
        } catch (const InputError& e) {
            EXPECT_NE(std::string(e.what()).find(key), std::string::npos) << e.what();
        }
    }
}

}  // namespace
}  // namespace numasim
