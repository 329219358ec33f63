// pmbench: its patterns' page distributions against hand-worked values, the cut of a set into
// ranges, a run on a small machine, and its input errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "engine/process.h"
#include "helpers.h"
#include "mm/vma.h"
#include "workload/pmbench_pattern.h"

namespace numasim {
namespace {

TEST(PmbenchPattern, UniformAndLinearAreOneRange) {
    for (PmbenchPattern p : {PmbenchPattern::Uniform, PmbenchPattern::Linear}) {
        const auto r = pmbench_ranges(p, 1000, 1);
        ASSERT_EQ(r.size(), 1u);
        EXPECT_EQ(r[0].first, 0u);
        EXPECT_EQ(r[0].count, 1000u);
        EXPECT_DOUBLE_EQ(r[0].mass, 1.0);
    }
    EXPECT_DOUBLE_EQ(pmbench_page_cdf(PmbenchPattern::Uniform, 1000, 1, 250), 0.25);
}

TEST(PmbenchPattern, ParetoIsTheBoundedParetoCdfAtPagePlusOne) {
    // n = 100, alpha = 1: P(page < p) = (1 - 1/(p + 1)) / (1 - 1/100).
    EXPECT_NEAR(pmbench_page_cdf(PmbenchPattern::Pareto, 100, 1, 1), 0.5 / 0.99, 1e-12);
    EXPECT_NEAR(pmbench_page_cdf(PmbenchPattern::Zipf, 100, 1, 9), 0.9 / 0.99, 1e-12);
    EXPECT_DOUBLE_EQ(pmbench_page_cdf(PmbenchPattern::Pareto, 100, 1, 99), 1.0);
    // Page 0 alone takes half the accesses: it is a range of its own.
    const auto r = pmbench_ranges(PmbenchPattern::Pareto, 1000, 1);
    EXPECT_EQ(r[0].first, 0u);
    EXPECT_EQ(r[0].count, 1u);
    EXPECT_NEAR(r[0].mass, 0.5 / 0.999, 1e-12);
}

TEST(PmbenchPattern, NormalTruncatesAndSendsOutOfSetDrawsToTheMiddlePage) {
    // n = 1000, stdev 100: mean page 500; [400, 600) holds Phi(1) - Phi(-1) = 0.682689, plus
    // the draws beyond 5 stdev (about 5.7e-7), which land on page 500.
    const auto cdf = [](uint64_t n, double sd, uint64_t p) {
        return pmbench_page_cdf(PmbenchPattern::Normal, n, sd, p);
    };
    EXPECT_NEAR(cdf(1000, 100, 600) - cdf(1000, 100, 400), 0.682689, 2e-6);
    EXPECT_NEAR(cdf(1000, 100, 500), 0.5, 1e-6);
    // stdev 1000 over 1000 pages: only Phi(0.5) - Phi(-0.501) = 0.3833 of the draws fall in the
    // set; the other 0.6167 are page 500's.
    EXPECT_NEAR(cdf(1000, 1000, 501) - cdf(1000, 1000, 500), 0.6167 + 0.0004, 2e-4);
    // The shape is an int in pmbench: 100.9 is 100.
    EXPECT_DOUBLE_EQ(cdf(1000, 100.9, 450), cdf(1000, 100, 450));
}

TEST(PmbenchPattern, IrwinHall) {
    EXPECT_NEAR(irwin_hall12_cdf(1), 1.0 / 479001600.0, 1e-20);  // x^12 / 12! below 1
    EXPECT_NEAR(irwin_hall12_cdf(6), 0.5, 1e-12);
    EXPECT_NEAR(irwin_hall12_cdf(5) + irwin_hall12_cdf(7), 1.0, 1e-12);
    EXPECT_DOUBLE_EQ(irwin_hall12_cdf(12), 1.0);
    // n = 1201: n_user 1200, k = 100, N = 1200, shift 0; half the draws below page 600, and
    // one stdev (k = 100 pages) each side holds about 68.5 % (Irwin-Hall of order 12, var 1).
    const auto cdf = [](uint64_t p) {
        return pmbench_page_cdf(PmbenchPattern::NormalIh, 1201, 0, p);
    };
    EXPECT_NEAR(cdf(600), 0.5, 1e-9);
    EXPECT_NEAR(cdf(700) - cdf(500), 0.6827, 0.005);
}

TEST(PmbenchPattern, RangesCoverTheSetAndBoundMassAndWidth) {
    constexpr uint64_t n = 1 << 20;
    const auto r = pmbench_ranges(PmbenchPattern::Normal, n, 1000);
    uint64_t next = 0;
    double sum = 0;
    for (const PmbenchRange& g : r) {
        EXPECT_GE(g.first, next);  // in order; a range no access reaches is left out
        next = g.first + g.count;
        sum += g.mass;
        EXPECT_LE(g.count, n / kRateRangeCuts);
        // At most 1/32 of the accesses, but for its last page (at most 1 / (1000 sqrt(2 pi))).
        EXPECT_LE(g.mass, 1.0 / kRateRangeCuts + 4e-4);
        // Its pages' rates within a factor 2: the first and the last page's.
        const double first = pmbench_page_cdf(PmbenchPattern::Normal, n, 1000, g.first + 1) -
                             pmbench_page_cdf(PmbenchPattern::Normal, n, 1000, g.first);
        const double last =
            pmbench_page_cdf(PmbenchPattern::Normal, n, 1000, g.first + g.count) -
            pmbench_page_cdf(PmbenchPattern::Normal, n, 1000, g.first + g.count - 1);
        EXPECT_LE(std::max(first, last), 2 * std::min(first, last)) << g.first;
    }
    EXPECT_LE(next, n);
    EXPECT_NEAR(sum, 1.0, 1e-9);
    // Beyond ~7 stdev (mass below 1e-12) nothing is left: the ranges span about 14000 pages.
    EXPECT_GT(r.front().first, n / 2 - 8000);
    EXPECT_LT(next, n / 2 + 8000);
    EXPECT_LT(r.size(), 300u);
    // The middle 1/32 quantiles are about 1000 * 2.5 / 32 ~ 80 pages wide: fine ranges there.
    bool fine = false;
    for (const PmbenchRange& g : r)
        if (g.first <= n / 2 && g.first + g.count > n / 2) fine = g.count < 200;
    EXPECT_TRUE(fine);
}

TEST(PmbenchPattern, ReadShareAndWarmup) {
    EXPECT_DOUBLE_EQ(pmbench_read_fraction(95), 972.0 / 1024);  // not 0.95
    EXPECT_DOUBLE_EQ(pmbench_read_fraction(50), 0.5);
    EXPECT_DOUBLE_EQ(pmbench_read_fraction(100), 1.0);
    EXPECT_DOUBLE_EQ(pmbench_read_fraction(0), 0.0);
    EXPECT_EQ(pmbench_warmup_accesses(PmbenchPattern::Uniform, 10), 40u);
    EXPECT_EQ(pmbench_warmup_accesses(PmbenchPattern::Zipf, 10), 80u);
    EXPECT_EQ(pmbench_warmup_accesses(PmbenchPattern::NormalIh, 10), 9u);
    EXPECT_EQ(pmbench_warmup_accesses(PmbenchPattern::Normal, 10), 10u);
}

TEST(Pmbench, UniformRunMeasuresOneSerialAccessAtATime) {
    NumaBalancingKnobs off;
    off.numa_balancing = 0;
    const auto r = test::run_workload("tiny-2n",
                                      "[[workload]]\ntype='pmbench'\nduration=1\nmapsize='1GiB'\n"
                                      "setsize='1GiB'\nratio=100\n",
                                      3.0, 1, off);
    const WorkloadResult m = r.w->result(*r.sys);
    // Per access on tiny-2n (2.5 GHz, 90 ns local, 16 MiB LLC at 20 ns): two RDTSCP (64
    // cycles), the histogram (10) and the draw (39) are 45.2 ns; the access misses the LLC
    // but for the LLC's share of the set (at most 16 MiB of 1 GiB): 88.9 to 90 ns, one at a
    // time; the one job first-touched every page, so all are local. Net of the draw (15.6
    // ns): 118.5 to 119.6 ns (NUMA balancing off: no hinting faults).
    const double net = test::figure<double>(m, "net_latency_us");
    EXPECT_GT(net, 0.1185);
    EXPECT_LT(net, 0.1197);
    // 1 s at ~134 ns per access: ~7.4 million accesses.
    EXPECT_NEAR(test::figure<double>(m, "accesses"), 1 / 0.134e-6, 0.1 / 0.134e-6);
    ASSERT_EQ(m.operations.size(), 2u);
    EXPECT_EQ(m.operations[0].name, "lat-net-us");
    EXPECT_NE(m.summary.find("Thread 1/1:\nNet average page latency (Arith. mean): 0.1"),
              std::string::npos)
        << m.summary;
    EXPECT_NE(m.summary.find("Page latency during warmup"), std::string::npos);
}

TEST(Pmbench, NarrowNormalTouchesOnlyItsMiddle) {
    // stdev 256 pages over 1 GiB (262144 pages): the warm-up's 262144 draws per job and a
    // second of accesses reach pages within ~6 stdev of page 131072, a few thousand pages.
    const auto r = test::run_workload(
        "tiny-2n",
        "[[workload]]\ntype='pmbench'\nduration=1\nmapsize='1GiB'\nsetsize='1GiB'\n"
        "pattern='normal'\nshape=256\n",
        3.0);
    Region* map = find_region(*r.sys->tasks.front()->mm, "map");
    ASSERT_NE(map, nullptr);
    EXPECT_GT(map->present, 1500u);
    EXPECT_LT(map->present, 262144u / 16);
}

TEST(Pmbench, InitializeFillsTheWholeMapUnderThePolicyAndColdSkipsTheWarmup) {
    // -i writes all 256 MiB (65536 pages) before the jobs start, bound to node 1 by the policy
    // (numactl --membind=1); -c leaves out the warm-up and its lines.
    const auto r = test::run_workload(
        "tiny-2n",
        "[[workload]]\ntype='pmbench'\nduration=1\nmapsize='256MiB'\nsetsize='64MiB'\n"
        "initialize=true\ncold=true\npolicy='bind'\nnodes=[1]\njobs=2\n",
        3.0);
    Region* map = find_region(*r.sys->tasks.front()->mm, "map");
    ASSERT_NE(map, nullptr);
    EXPECT_EQ(map->present, 65536u);
    EXPECT_EQ(map->pages_on(1), 65536u);
    const WorkloadResult m = r.w->result(*r.sys);
    EXPECT_EQ(m.summary.find("warmup"), std::string::npos) << m.summary;
    EXPECT_NE(m.summary.find("Thread 2/2:"), std::string::npos);
    EXPECT_GT(test::figure<double>(m, "accesses"), 0.0);
}

std::string key_of(const InputError& e) {
    return e.where().substr(0, e.where().find(" (line"));
}

TEST(Pmbench, InputErrors) {
    const auto err = [](const std::string& extra) {
        return test::parse_error("[[workload]]\ntype='pmbench'\n" + extra);
    };
    EXPECT_EQ(key_of(err("mapsize='0'\n")), "workload[0].mapsize");
    EXPECT_EQ(key_of(err("mapsize=-1\n")), "workload[0].mapsize");
    EXPECT_EQ(key_of(err("setsize='0'\n")), "workload[0].setsize");
    EXPECT_EQ(key_of(err("setsize='1536KiB'\n")), "workload[0].setsize");  // not whole MiB
    EXPECT_EQ(key_of(err("mapsize='64MiB'\nsetsize='128MiB'\n")), "workload[0].setsize");
    // tiny-2n has 4 GiB: the same message as every workload's buffer that does not fit.
    const InputError big = err("mapsize='8GiB'\n");
    EXPECT_EQ(key_of(big), "workload[0].mapsize");
    EXPECT_NE(big.problem().find("8.0 GiB but the machine has 4.0 GiB of memory"),
              std::string::npos)
        << big.problem();
    EXPECT_EQ(key_of(err("ratio=101\n")), "workload[0].ratio");
    EXPECT_EQ(key_of(err("ratio=-1\n")), "workload[0].ratio");
    EXPECT_EQ(key_of(err("jobs=0\n")), "workload[0].jobs");
    EXPECT_EQ(key_of(err("duration=0\n")), "workload[0].duration");
    EXPECT_EQ(key_of(err("pattern='gauss'\n")), "workload[0].pattern");
    EXPECT_EQ(key_of(err("pattern='pareto'\nshape=0\n")), "workload[0].shape");
    EXPECT_EQ(key_of(err("pattern='zipf'\nshape=-1\n")), "workload[0].shape");
    EXPECT_EQ(key_of(err("pattern='normal'\nshape=0.5\n")), "workload[0].shape");
    EXPECT_EQ(key_of(err("pattern='linear'\nshape=0\n")), "workload[0].shape");
    EXPECT_EQ(key_of(err("shape=2\n")), "workload[0].shape");  // uniform takes none
    EXPECT_EQ(key_of(err("delay=-5\n")), "workload[0].delay");
    EXPECT_EQ(key_of(err("start_after='-1s'\n")), "workload[0].start_after");
}

}  // namespace
}  // namespace numasim
