// The job cluster of one process (no MPI launcher): every job's result reaches `done` once, a
// stop request lets no new job start, and a failure comes back as the lowest failed job's.
#include "experiment/job_cluster.h"

#include <gtest/gtest.h>

#include <atomic>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace numasim {
namespace {

TEST(JobCluster, AloneItIsRankZeroOfOne) {
    JobCluster c;
    EXPECT_TRUE(c.root());
    EXPECT_EQ(c.size(), 1);
}

TEST(JobCluster, EveryResultOnce) {
    JobCluster c;
    const std::vector<size_t> ids = {3, 5, 8, 13};
    std::map<size_t, std::string> got;
    c.run(
        ids, 3, [](size_t id) { return std::to_string(id * 2); },
        [&](size_t id, std::string r) { EXPECT_TRUE(got.emplace(id, r).second) << id; }, nullptr);
    EXPECT_EQ(got, (std::map<size_t, std::string>{{3, "6"}, {5, "10"}, {8, "16"}, {13, "26"}}));
}

TEST(JobCluster, StopLetsNoNewJobStart) {
    JobCluster c;
    std::atomic<bool> stop{false};
    std::vector<size_t> ids(20);
    for (size_t i = 0; i < ids.size(); ++i)
        ids[i] = i;
    size_t delivered = 0;
    c.run(
        ids, 1,
        [&](size_t id) {
            if (id == 4) stop = true;
            return std::string("r");
        },
        [&](size_t, std::string) { ++delivered; }, &stop);
    EXPECT_EQ(delivered, 5u) << "the running job finishes and is delivered";
}

TEST(JobCluster, TheLowestFailureIsThrownAfterTheRest) {
    JobCluster c;
    size_t delivered = 0;
    try {
        c.run(
            {0, 1, 2, 3}, 1,
            [](size_t id) -> std::string {
                if (id == 1 || id == 3) throw std::runtime_error("job " + std::to_string(id));
                return "ok";
            },
            [&](size_t, std::string) { ++delivered; }, nullptr);
        ADD_FAILURE();
    } catch (const std::exception& e) {
        EXPECT_STREQ(e.what(), "job 1");
    }
    EXPECT_EQ(delivered, 1u) << "job 0 delivered; none starts once one failed";
}

}  // namespace
}  // namespace numasim
