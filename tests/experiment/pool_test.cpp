// The worker pool: every job runs once, results do not depend on the worker count, and the
// first error comes back after every thread stopped.
#include "experiment/pool.h"

#include <gtest/gtest.h>

#include <atomic>
#include <stdexcept>
#include <vector>

#include "experiment/run.h"
#include "experiment/scenario.h"

namespace numasim {
namespace {

TEST(Pool, EveryJobOnceWhateverTheWorkers) {
    for (int workers : {1, 2, 7}) {
        std::vector<int> hits(50, 0);
        std::atomic<int> done{0};
        run_jobs(
            hits.size(), workers, [&](size_t i) { ++hits[i]; }, [&] { ++done; });
        EXPECT_EQ(hits, std::vector<int>(50, 1)) << workers;
        EXPECT_EQ(done, 50);
    }
    run_jobs(0, 4, [](size_t) { FAIL(); });
}

TEST(Pool, OneWorkerRunsInOrder) {
    std::vector<size_t> order;
    run_jobs(5, 1, [&](size_t i) { order.push_back(i); });
    EXPECT_EQ(order, (std::vector<size_t>{0, 1, 2, 3, 4}));
}

TEST(Pool, RethrowsTheError) {
    std::atomic<int> ran{0};
    EXPECT_THROW(run_jobs(10, 3,
                          [&](size_t i) {
                              ++ran;
                              if (i == 4) throw std::runtime_error("job 4");
                          }),
                 std::runtime_error);
    EXPECT_EQ(ran, 10);  // the other jobs still ran
}

TEST(Pool, IterationsAreTheSameOnAnyNumberOfWorkers) {
    const Scenario sc = load_builtin_scenario(
        "default", {parse_override("iterations=3", "t"), parse_override("duration=2s", "t")});
    const auto one = run_iterations(sc, 1, nullptr);
    const auto three = run_iterations(sc, 3, nullptr);
    ASSERT_EQ(one.size(), 3u);
    for (size_t i = 0; i < one.size(); ++i) {
        EXPECT_EQ(one[i].seed, three[i].seed);
        EXPECT_EQ(one[i].seed, iteration_seed(sc, static_cast<int>(i)));
        EXPECT_EQ(one[i].counters.vm, three[i].counters.vm);
        EXPECT_EQ(one[i].elapsed, three[i].elapsed);
    }
    EXPECT_NE(one[1].seed, one[0].seed);
}

}  // namespace
}  // namespace numasim
