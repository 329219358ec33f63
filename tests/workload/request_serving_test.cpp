// The request-serving model: its pure parts with hand-worked numbers, the whole workload against
// queueing theory on a small machine, and its input errors.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "config/limits.h"
#include "helpers.h"
#include "workload/request_queue.h"

namespace numasim {
namespace {

TEST(RequestQueue, PercentileIsTheValueOfNearestRank) {
    std::vector<Nanos> v;
    for (Nanos i = 1; i <= 1000; ++i)
        v.push_back(i * 10);
    EXPECT_EQ(percentile_of_sorted(v, 50), 5000);    // rank 500
    EXPECT_EQ(percentile_of_sorted(v, 99), 9900);    // rank 990
    EXPECT_EQ(percentile_of_sorted(v, 99.9), 9990);  // rank 999, not 1000
    EXPECT_EQ(percentile_of_sorted(v, 100), 10000);
    EXPECT_EQ(percentile_of_sorted(v, 0), 10);  // rank 1 at least
    const std::vector<Nanos> three = {7, 8, 9};
    EXPECT_EQ(percentile_of_sorted(three, 50), 8);  // ceil(1.5) = 2
    EXPECT_EQ(percentile_of_sorted(three, 34), 8);  // ceil(1.02) = 2
    EXPECT_EQ(percentile_of_sorted(three, 33), 7);  // ceil(0.99) = 1
}

TEST(RequestQueue, BatchTimeSplitsByBytes) {
    std::vector<Nanos> out;
    const std::vector<double> cum = {100, 300, 400};  // 100, 200 and 100 bytes
    batch_completions(1000, 1400, cum, out);
    EXPECT_EQ(out, (std::vector<Nanos>{1100, 1300, 1400}));
    batch_completions(50, 60, std::vector<double>{8}, out);
    EXPECT_EQ(out, (std::vector<Nanos>{60}));
}

TEST(RequestQueue, SaturationRateCountsWorkersWithACpu) {
    EXPECT_DOUBLE_EQ(saturation_rate(8, 4, 100 * NSEC_PER_USEC), 40000.0);  // 4 CPUs bound it
    EXPECT_DOUBLE_EQ(saturation_rate(2, 48, NSEC_PER_MSEC), 2000.0);        // 2 workers do
}

TEST(RequestQueue, ServiceTimesHaveTheirMean) {
    Rng rng(1, "test.service");
    const Nanos mean = 100 * NSEC_PER_USEC;
    EXPECT_EQ((ServiceTime{ServiceDist::Fixed, mean, 0}.draw(rng)), mean);
    constexpr int n = 200000;
    for (const ServiceTime st : {ServiceTime{ServiceDist::Exponential, mean, 0},
                                 ServiceTime{ServiceDist::Lognormal, mean, 1.0}}) {
        std::vector<Nanos> v;
        double sum = 0;
        for (int i = 0; i < n; ++i) {
            v.push_back(st.draw(rng));
            sum += static_cast<double>(v.back());
        }
        // The standard error of the mean is 0.22 % (exponential) and 0.29 % (lognormal, sigma
        // 1: sd = mean * sqrt(e - 1)); 1 % is over three of them.
        EXPECT_NEAR(sum / n, static_cast<double>(mean), 0.01 * static_cast<double>(mean));
        std::sort(v.begin(), v.end());
        // Median: mean * ln 2 (exponential), mean * exp(-sigma^2 / 2) (lognormal).
        const double median = st.dist == ServiceDist::Exponential ? std::log(2.0) : std::exp(-0.5);
        EXPECT_NEAR(static_cast<double>(percentile_of_sorted(v, 50)),
                    median * static_cast<double>(mean), 0.01 * static_cast<double>(mean));
    }
}

TEST(RequestQueue, ArrivalsArePoisson) {
    ArrivalStream a(Rng(3, "test.arrivals"), 1000.0, 5 * NSEC_PER_SEC);
    EXPECT_GT(a.next(), 5 * NSEC_PER_SEC);
    Nanos prev = a.take();
    constexpr int n = 100000;
    int short_gaps = 0;
    for (int i = 0; i < n; ++i) {
        const Nanos t = a.take();
        ASSERT_GE(t, prev);
        short_gaps += t - prev < NSEC_PER_MSEC;  // P = 1 - 1/e for a mean gap of 1 ms
        prev = t;
    }
    // n gaps of mean 1 ms end within 1 % of n ms (standard error 0.3 %).
    EXPECT_NEAR(static_cast<double>(prev - 5 * NSEC_PER_SEC), n * 1e6, 0.01 * n * 1e6);
    EXPECT_NEAR(short_gaps / static_cast<double>(n), 1 - std::exp(-1.0), 0.01);
}

// A stream too slow to deliver in a run (at most a day) has its arrivals after the run's end,
// and its clock stops at 1e18 ns instead of overflowing (a gap at 1e-9 requests/s is 1e18 s).
TEST(RequestQueue, ATrickleNeverOverflows) {
    ArrivalStream a(Rng(5, "test.trickle"), 1e-9, 0);
    Nanos prev = 0;
    for (int i = 0; i < 3; ++i) {
        EXPECT_GT(a.next(), kMaxDurationSeconds * NSEC_PER_SEC);
        EXPECT_LE(a.next(), Nanos{1000000000} * NSEC_PER_SEC);
        EXPECT_GE(a.next(), prev);
        prev = a.take();
    }
    EXPECT_EQ(a.next(), Nanos{1000000000} * NSEC_PER_SEC);  // 1e18: stopped there
}

// One worker, requests that read one cache line (so their time is their CPU time), NUMA
// balancing off.
std::string one_worker(const std::string& rate, const std::string& dist,
                       const std::string& extra = "") {
    return "[[workload]]\ntype='request-serving'\nworkers=1\nrate=" + rate +
           "\nworking_set='4MiB'\nrequest_bytes=64\nservice_time='100us'\nservice_dist='" + dist +
           "'\npercentiles=[50, 99]\n" + extra;
}

test::Run run_off(const std::string& toml, double seconds) {
    test::Run r;
    NumaBalancingKnobs off;
    off.numa_balancing = NUMA_BALANCING_DISABLED;
    r.sys = std::make_unique<System>(load_preset("tiny-2n"), off, 1);
    const TomlTable doc = TomlTable::parse_text(toml, "test.toml");
    const TomlTable t = doc.tables("workload").at(0);
    r.w = find_workload(t.get_string("type"))->factory(t, r.sys->topo);
    t.finish();
    r.w->setup(*r.sys, 0);
    Engine eng(*r.sys);
    r.end = eng.run(static_cast<Nanos>(seconds * NSEC_PER_SEC));
    return r;
}

// Far below saturation (1 % busy), a request almost never waits: the median latency is the
// service time, 100 us, plus the context switch (CONTEXT_SWITCH_NS, 2 us) that schedule()
// charges the worker its arrival wakes. Its one line is in the LLC, a few ns faster than local
// DRAM, which the 50 ns tolerance covers.
TEST(RequestServing, OneWorkerFixedServiceTimeIsTheLatency) {
    auto r = run_off(one_worker("100", "fixed"), 3);
    const WorkloadResult m = r.w->result(*r.sys);
    EXPECT_GT(test::figure<uint64_t>(m, "requests"), 200u);
    EXPECT_NEAR(test::figure<double>(m, "p50_us"), 102.0, 0.05);
}

// M/M/1 at utilisation 0.5: the mean time in the system is s / (1 - rho) = 200 us, and its
// 99th percentile s / (1 - rho) * ln 100 = 921 us. Over 20 s (100,000 requests, seed 1) the
// model is within 5 %.
TEST(RequestServing, OneWorkerExponentialIsMM1) {
    auto r = run_off(one_worker("5000", "exponential"), 20);
    const WorkloadResult m = r.w->result(*r.sys);
    EXPECT_NEAR(test::figure<double>(m, "mean_us"), 200.0, 10.0);
    EXPECT_NEAR(test::figure<double>(m, "p99_us"), 921.0, 46.0);
    EXPECT_NEAR(test::figure<double>(m, "throughput"), 5000.0, 100.0);
}

// Several workers each run their own queue of rate / workers; with the working set in remote
// memory half the workers serve more slowly, so the mean grows, never shrinks.
TEST(RequestServing, SameSeedSameLatencies) {
    const std::string toml =
        "[[workload]]\ntype='request-serving'\nworkers=4\nrate=20000\nworking_set='64MiB'\n"
        "request_bytes='16KiB'\nservice_time='100us'\nservice_dist='lognormal'\n"
        "service_sigma=1\np99_target='500us'\n";
    auto a = test::run_workload("tiny-2n", toml, 2);
    auto b = test::run_workload("tiny-2n", toml, 2);
    const WorkloadResult ma = a.w->result(*a.sys), mb = b.w->result(*b.sys);
    EXPECT_EQ(test::figure<uint64_t>(ma, "requests"), test::figure<uint64_t>(mb, "requests"));
    EXPECT_EQ(test::figure<double>(ma, "p99_us"), test::figure<double>(mb, "p99_us"));
    EXPECT_EQ(test::figure<double>(ma, "mean_us"), test::figure<double>(mb, "mean_us"));
    EXPECT_EQ(test::figure<bool>(ma, "p99_within_target"),
              test::figure<double>(ma, "p99_us") <= 500.0);
}

// The key an input error names, without its line.
std::string key_of(const InputError& e) {
    return e.where().substr(0, e.where().find(" (line"));
}

TEST(RequestServing, BadInputNamesTheKey) {
    auto e = test::parse_error(one_worker("0", "fixed"));
    EXPECT_EQ(key_of(e), "workload[0].rate");
    // tiny-2n has 4 CPUs: one worker serves at most 10,000 requests/s of 100 us.
    e = test::parse_error(one_worker("10000", "fixed"));
    EXPECT_EQ(key_of(e), "workload[0].rate");
    EXPECT_NE(e.problem().find("saturation rate 10000/s"), std::string::npos) << e.problem();
    e = test::parse_error(
        "[[workload]]\ntype='request-serving'\nworkers=8\nrate=45000\n"
        "working_set='4MiB'\nrequest_bytes=64\nservice_time='100us'\n");
    EXPECT_NE(e.problem().find("min(workers 8, CPUs 4)"), std::string::npos) << e.problem();
    for (const char* bad : {"'0s'", "'-1ms'", "'inf'", "-0.001"}) {
        std::string t = one_worker("100", "fixed");
        t.replace(t.find("'100us'"), 7, bad);
        e = test::parse_error(t);
        EXPECT_EQ(key_of(e), "workload[0].service_time") << bad;
    }
    // 2 MB in 100 us is 20 GB/s; 2 GB in 100 us is beyond any phase's rate (kMaxRateGbs).
    std::string big = one_worker("100", "fixed");
    big.replace(big.find("request_bytes=64"), 16, "request_bytes='2GB'");
    e = test::parse_error(big);
    EXPECT_EQ(key_of(e), "workload[0].request_bytes");
    EXPECT_NE(e.problem().find("20000 GB/s, more than 10000 GB/s"), std::string::npos)
        << e.problem();
    e = test::parse_error(one_worker("100", "fixed", "service_sigma=1\n"));
    EXPECT_EQ(key_of(e), "workload[0].service_sigma");
    e = test::parse_error(one_worker("100", "lognormal"));
    EXPECT_EQ(key_of(e), "workload[0].service_sigma");
    e = test::parse_error(one_worker("100", "gamma"));
    EXPECT_EQ(key_of(e), "workload[0].service_dist");
    std::string t = one_worker("100", "fixed");
    t.replace(t.find("[50, 99]"), 8, "[50, 100.5]");
    e = test::parse_error(t);
    EXPECT_EQ(key_of(e), "workload[0].percentiles");
    t.replace(t.find("[50, 100.5]"), 11, "[-1]");
    e = test::parse_error(t);
    EXPECT_EQ(key_of(e), "workload[0].percentiles");
}

}  // namespace
}  // namespace numasim
