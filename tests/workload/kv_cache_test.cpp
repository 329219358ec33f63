// kv-cache: the Zipfian key popularity by hand, memcached's slab chunk, a shift of the hot set,
// the throughput of busy workers, and its input errors.
#include <gtest/gtest.h>

#include <cmath>

#include "engine/process.h"
#include "helpers.h"
#include "mm/vma.h"
#include "workload/kv_keys.h"

namespace numasim {
namespace {

TEST(KvKeys, GeneralizedHarmonic) {
    EXPECT_NEAR(generalized_harmonic(3, 1), 1 + 1.0 / 2 + 1.0 / 3, 1e-15);
    EXPECT_NEAR(generalized_harmonic(2, 2), 1.25, 1e-15);
    // Beyond the exact terms: the tail's Euler-Maclaurin sum against the plain sum.
    for (double s : {0.5, 0.99, 1.0, 1.2}) {
        double exact = 0;
        for (int k = 1; k <= 100000; ++k)
            exact += std::pow(k, -s);
        EXPECT_NEAR(generalized_harmonic(100000, s), exact, 1e-9 * exact) << s;
    }
}

TEST(KvKeys, ZipfShareOfKeysAndShift) {
    // 4 keys, s = 1: H = 25/12; the most popular key takes 12/25.
    EXPECT_NEAR(zipf_key_cdf(4, 1, 0, 1), 0.48, 1e-12);
    EXPECT_NEAR(zipf_key_cdf(4, 1, 0, 0.5), 0.24, 1e-12);  // half of key 0's item
    // Shifted by 2: key 0 is the third most popular (1/3), key 1 the fourth (1/4).
    EXPECT_NEAR(zipf_key_cdf(4, 1, 2, 1), (1.0 / 3) / (25.0 / 12), 1e-12);
    EXPECT_NEAR(zipf_key_cdf(4, 1, 2, 2), (7.0 / 12) / (25.0 / 12), 1e-12);
    // ... and keys 2 and 3 the first two: keys [0, 3) hold all but the second's 1/2.
    EXPECT_NEAR(zipf_key_cdf(4, 1, 2, 3), 1 - (0.5) / (25.0 / 12), 1e-12);
    EXPECT_DOUBLE_EQ(zipf_key_cdf(4, 1, 2, 4), 1.0);
}

std::string kv(const std::string& extra) {
    return "[[workload]]\ntype='kv-cache'\nkeys=100000\ndata_size=4000\n" + extra;
}

TEST(KvCache, RemoteItemsCostTheirLinesAndTheHotSetMoves) {
    // 100000 keys of 4000 B: items of 48 + 8 + 6 + 1 + 4000 + 2 = 4065 B in memcached's 4544 B
    // slab class (96, 120, ..., 3632, 4544): 433 MiB, 110938 pages, bound to node 0. Two
    // workers on node 0 serve a request in 4 us; on node 1 each request's 71 lines cost 140
    // instead of 90 ns, 10 at a time (the fill buffers): 4 + 71 x 50 / 10 ns = 4.355 us, so
    // throughput drops to 4 / 4.355 = 0.9185 of the local one.
    NumaBalancingKnobs off;
    off.numa_balancing = 0;
    const std::string base =
        "threads=2\npolicy='bind'\nnodes=[0]\nshift_interval='1s'\nshift_keys=50000\n";
    const auto local = test::run_workload("tiny-2n", kv(base + "affinity='node:0'\n"), 3.5, 1, off);
    const auto remote =
        test::run_workload("tiny-2n", kv(base + "affinity='node:1'\n"), 3.5, 1, off);
    const WorkloadResult l = local.w->result(*local.sys), m = remote.w->result(*remote.sys);
    EXPECT_EQ(test::figure<uint64_t>(l, "item_chunk_bytes"), 4544u);
    EXPECT_NEAR(test::figure<double>(m, "ops_per_s") / test::figure<double>(l, "ops_per_s"),
                4 / 4.355, 0.01);
    // GETs take 4.355 us on node 1 (the items all on node 0).
    EXPECT_NEAR(test::figure<double>(m, "get_p50_us"), 4.355, 0.001);
    const double served = test::figure<double>(m, "seconds");
    EXPECT_GT(served, 1.0);
    EXPECT_EQ(test::figure<int64_t>(m, "shifts"), static_cast<int64_t>(served)) << served;
    // After the shift by 50000 keys the most popular key, key 50000, is at byte 50000 x 4544 =
    // page 55468.75: its page starts a range of its own (the Zipf head), first [55468, +1).
    bool head = false;
    for (const auto& reg : remote.sys->tasks.front()->mm->regions)
        if (reg->name.rfind("slabs[55468+", 0) == 0 && reg->count <= 2) head = true;
    EXPECT_TRUE(head);
    ASSERT_FALSE(m.operations.empty());
    EXPECT_EQ(m.operations.back().name, "latency");
}

std::string key_of(const InputError& e) {
    return e.where().substr(0, e.where().find(" (line"));
}

TEST(KvCache, InputErrors) {
    const auto err = [](const std::string& t) { return key_of(test::parse_error(t)); };
    const std::string base = "[[workload]]\ntype='kv-cache'\n";
    EXPECT_EQ(err(base + "keys=0\n"), "workload[0].keys");
    EXPECT_EQ(err(base + "keys=-5\n"), "workload[0].keys");
    EXPECT_EQ(err(base + "keys=1000\ndata_size=0\n"), "workload[0].data_size");
    EXPECT_EQ(err(base + "keys=1000\ndata_size=-1\n"), "workload[0].data_size");
    EXPECT_EQ(err(base + "keys=10\ndata_size='600KiB'\n"), "workload[0].data_size");
    for (const char* s : {"-0.5", "0", "5"})
        EXPECT_EQ(err(base + "keys=1000\nkey_zipf_exp=" + s + "\n"), "workload[0].key_zipf_exp")
            << s;
    for (const char* s : {"'1:x'", "'0:0'", "'-1:10'", "'10'"})
        EXPECT_EQ(err(base + "keys=1000\nratio=" + s + "\n"), "workload[0].ratio") << s;
    EXPECT_EQ(err(base + "keys=1000\nthreads=0\n"), "workload[0].threads");
    EXPECT_EQ(err(base + "keys=1000\nshift_keys=1001\n"), "workload[0].shift_keys");
    EXPECT_EQ(err(base + "keys=1000\nshift_interval='-1s'\n"), "workload[0].shift_interval");
    EXPECT_EQ(err(base + "keys=1000\nstart_after='-1s'\n"), "workload[0].start_after");
    // A dataset beyond tiny-2n's 4 GiB: the message every workload's buffer gets.
    const InputError big = test::parse_error(base + "keys=2000000\ndata_size=4000\n");
    EXPECT_EQ(key_of(big), "workload[0].keys");
    EXPECT_NE(big.problem().find("GiB but the machine has 4.0 GiB of memory"), std::string::npos)
        << big.problem();
}

}  // namespace
}  // namespace numasim
