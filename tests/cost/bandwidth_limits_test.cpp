// Bandwidth is a limit: whatever runs, the throughput delivered through a node's DRAM, a link or
// a core's line fill buffers never exceeds what the hardware has.
#include <gtest/gtest.h>

#include <cstdio>
#include <utility>

#include "cost/cost_model.h"
#include "cost_fixture.h"

namespace numasim {
namespace {

using costtest::CostWorld;
using costtest::Runner;

// Memory-bound: the phase asks for far more than one core can stream.
constexpr double kGreedy = 1000.0;
// Relative slack for floating-point sums.
constexpr double kEps = 1e-9;

TEST(BandwidthLimits, StreamsFromOneNodeNeverExceedItsBandwidth) {
    // cascadelake-2s: node 0 sustains 100 GB/s, 2 x 20.8 GB/s UPI links to node 1. N tasks,
    // N = 1..80 (every CPU, both nodes, SMT siblings last), each sweeping its own 256 MiB of
    // node 0 read-only: DRAM traffic = progress.
    CostWorld w("cascadelake-2s");
    const double dram = w.sys.topo.hw.dram_bandwidth_gbs, link = w.sys.topo.hw.link_bandwidth_gbs;
    double last = 0;
    for (int n = 1; n <= w.sys.nr_cpus(); ++n) {
        w.run_on(n - 1, w.region_on(256, 0), kGreedy);
        w.update();
        double total = 0, remote = 0;
        for (const auto& t : w.runners) {
            total += w.progress_gbs(*t);
            if (w.sys.cpu_to_node(t->cpu) == 1) remote += w.progress_gbs(*t);
        }
        ASSERT_LE(total, dram * (1 + kEps)) << n << " tasks";
        ASSERT_LE(remote, link * (1 + kEps)) << n << " tasks";
        ASSERT_NEAR(w.sys.cost.node_load_gbs(0), total, 1e-6 * total);
        if (n == 1 || n == 10 || n == 20 || n == 40 || n == 80)
            std::printf("  %2d tasks: %6.2f GB/s from node 0 (%5.1f %%), %5.2f GB/s over UPI\n", n,
                        total, 100 * total / dram, remote);
        last = total;
    }
    // Saturated, the node delivers most of its bandwidth: the queue stays short of infinite.
    EXPECT_GT(last, 0.9 * dram);
}

TEST(BandwidthLimits, WritesCountTheirWriteBacks) {
    // Stores move each line twice (read for ownership, write-back): 2 bytes of DRAM traffic per
    // byte of progress, so 40 writers on node 0 make at most 50 GB/s of progress.
    CostWorld w("cascadelake-2s");
    for (int cpu = 0; cpu < 40; ++cpu) {
        Runner& p = w.run_on(cpu < 20 ? cpu : cpu + 20, w.region_on(256, 0), kGreedy);
        p.streams[0].write_fraction = 1.0;
    }
    w.update();
    double total = 0;
    for (const auto& t : w.runners)
        total += w.progress_gbs(*t);
    EXPECT_LE(2 * total, 100.0 * (1 + kEps));
    EXPECT_GT(2 * total, 90.0);
    EXPECT_NEAR(w.sys.cost.node_load_gbs(0), 2 * total, 1e-6 * total);
}

TEST(BandwidthLimits, RemoteStoresCostTheHomeADirectoryWrite) {
    // cascadelake-2s with its memory directory: a store from node 1 to a line of node 0 reads it
    // for ownership (64 B over the link 0 -> 1), writes it back later (64 B over 1 -> 0) and makes
    // node 0 write the line once more for the directory (64 B that cross no link): 3 x 64 B of
    // node 0's DRAM a line. A remote load moves its line once either way; a local store twice.
    // One task per node and per kind, each far below any bandwidth.
    for (const bool directory : {false, true}) {
        Topology t = load_preset("cascadelake-2s");
        t.hw.memory_directory = directory;
        CostWorld w(std::move(t));
        Runner& remote_store = w.run_on(20, w.region_on(256, 0), kGreedy);
        remote_store.streams[0].write_fraction = 1.0;
        Runner& remote_load = w.run_on(21, w.region_on(256, 0), kGreedy);
        Runner& local_store = w.run_on(22, w.region_on(256, 1), kGreedy);
        local_store.streams[0].write_fraction = 1.0;
        w.update();
        const double s = w.progress_gbs(remote_store), l = w.progress_gbs(remote_load),
                     o = w.progress_gbs(local_store);
        const double per_store_line = directory ? 3.0 : 2.0;
        EXPECT_NEAR(w.sys.cost.node_load_gbs(0), per_store_line * s + l, 1e-9) << directory;
        EXPECT_NEAR(w.sys.cost.node_load_gbs(1), 2 * o, 1e-9) << directory;
        EXPECT_NEAR(w.sys.cost.link_load_gbs(0, 1), s + l, 1e-9) << directory;
        EXPECT_NEAR(w.sys.cost.link_load_gbs(1, 0), s, 1e-9) << directory;
    }
}

TEST(BandwidthLimits, DirectoryWritesOnlyForAnotherSocketsDram) {
    // cascadelake-2s-pmem keeps its directory in the sockets' DRAM: a store from socket 1 (CPU
    // 18, node 1) to socket 0's DRAM (node 0) costs 3 lines of node 0's traffic; the same store
    // to socket 0's PMEM (node 2, no CPUs) and a store to its own DRAM cost 2, as without one.
    CostWorld w("cascadelake-2s-pmem");
    ASSERT_TRUE(w.sys.topo.hw.memory_directory);
    Runner& to_dram = w.run_on(18, w.region_on(256, 0), kGreedy);
    Runner& to_pmem = w.run_on(19, w.region_on(256, 2), kGreedy);
    Runner& own = w.run_on(20, w.region_on(256, 1), kGreedy);
    for (Runner* r : {&to_dram, &to_pmem, &own})
        r->streams[0].write_fraction = 1.0;
    w.update();
    EXPECT_NEAR(w.sys.cost.node_load_gbs(0), 3 * w.progress_gbs(to_dram), 1e-9);
    EXPECT_NEAR(w.sys.cost.node_load_gbs(2), 2 * w.progress_gbs(to_pmem), 1e-9);
    EXPECT_NEAR(w.sys.cost.node_load_gbs(1), 2 * w.progress_gbs(own), 1e-9);
}

TEST(BandwidthLimits, SmtSiblingsGetAtMostTheCoreBandwidth) {
    // A core streams line_fill_buffers lines per latency: cascadelake 12 * 64 / 85 = 9.04 GB/s.
    // Alone a thread gets it (less the node's small queue); two siblings split it.
    CostWorld w("cascadelake-2s");
    const double core_bw = 12 * 64.0 / 85.0;
    Runner& a = w.run_on(0, w.region_on(256, 0), kGreedy);
    w.update();
    const double alone = w.progress_gbs(a);
    EXPECT_LE(alone, core_bw);
    EXPECT_GT(alone, 0.98 * core_bw);
    Runner& b = w.run_on(40, w.region_on(256, 0), kGreedy);
    w.update();
    const double pair = w.progress_gbs(a) + w.progress_gbs(b);
    std::printf("  one thread %.3f GB/s, two siblings %.3f GB/s, core %.3f GB/s\n", alone, pair,
                core_bw);
    EXPECT_LE(pair, core_bw * (1 + kEps));
    EXPECT_NEAR(w.progress_gbs(a), w.progress_gbs(b), 1e-12);
}

TEST(BandwidthLimits, EightSmtThreadsShareOnePower8Core) {
    // power8-2s4n: SMT8, 16 outstanding misses per core at 95 ns: 10.8 GB/s per core.
    CostWorld w("power8-2s4n");
    const double core_bw = 16 * 64.0 / 95.0;
    for (int t = 0; t < 8; ++t)
        w.run_on(t, w.region_on(256, 0), kGreedy);
    w.update();
    double total = 0;
    for (const auto& t : w.runners)
        total += w.progress_gbs(*t);
    EXPECT_LE(total, core_bw * (1 + kEps));
    EXPECT_GT(total, 0.95 * core_bw);
}

TEST(BandwidthLimits, RemoteStreamsShareTheLink) {
    // tiny-2n: a 20.8 GB/s link; two CPUs of node 1 read node 0 with 50 misses in flight each:
    // 2 x 3200 / 140 = 45.7 GB/s of demand on the link.
    CostWorld w("tiny-2n");
    Runner& a = w.run_on(2, w.region_on(256, 0), kGreedy, Pattern::Sweep, 50);
    Runner& b = w.run_on(3, w.region_on(256, 0), kGreedy, Pattern::Sweep, 50);
    w.update();
    const double total = w.progress_gbs(a) + w.progress_gbs(b);
    EXPECT_LE(total, 20.8 * (1 + kEps));
    EXPECT_GT(total, 0.9 * 20.8);
    EXPECT_NEAR(w.sys.cost.link_load_gbs(0, 1), total, 1e-6);
    EXPECT_LT(w.sys.cost.link_utilisation(0, 1), 1.0);
    EXPECT_LT(w.sys.cost.node_utilisation(0), 0.4);  // the DRAM is not the bottleneck
}

TEST(BandwidthLimits, TwoHopTrafficLoadsBothLinks) {
    // x86-8s-144c: node 2 is two hops from node 0, through node 1 (a 280 ns access). Node 0's
    // CPUs (0..17, siblings 144..161) reading node 2 share the 19.2 GB/s links 2->1 and 1->0.
    CostWorld w("x86-8s-144c");
    EXPECT_DOUBLE_EQ(w.sys.cost.latency_ns(0, 2), 280.0);
    for (int cpu = 0; cpu < 18; ++cpu)
        w.run_on(cpu, w.region_on(256, 2), kGreedy);
    w.update();
    double total = 0;
    for (const auto& t : w.runners)
        total += w.progress_gbs(*t);
    EXPECT_LE(total, 19.2 * (1 + kEps));
    EXPECT_GT(total, 0.9 * 19.2);
    EXPECT_NEAR(w.sys.cost.link_load_gbs(2, 1), total, 1e-6);
    EXPECT_NEAR(w.sys.cost.link_load_gbs(1, 0), total, 1e-6);
    EXPECT_DOUBLE_EQ(w.sys.cost.link_load_gbs(2, 0), 0.0);  // no such link
    // The two-hop path waits on both links' queues.
    EXPECT_GT(w.sys.cost.path_delay_ns(0, 2),
              w.sys.cost.solver().delay(8 + w.sys.cost.interconnect().direct(2, 1)));
}

TEST(BandwidthLimits, EqualRoutesSplitTheTraffic) {
    // Node 3 reaches node 0 through 4 or 7: each carries half, so two links' worth gets through.
    CostWorld w("x86-8s-144c");
    for (int cpu = 0; cpu < 18; ++cpu)
        w.run_on(cpu, w.region_on(256, 3), kGreedy);
    w.update();
    double total = 0;
    for (const auto& t : w.runners)
        total += w.progress_gbs(*t);
    EXPECT_NEAR(w.sys.cost.link_load_gbs(3, 4), total / 2, 1e-6);
    EXPECT_NEAR(w.sys.cost.link_load_gbs(7, 0), total / 2, 1e-6);
    EXPECT_LE(total, 2 * 19.2 * (1 + kEps));
    EXPECT_GT(total, 19.2);  // more than one link could carry
}

}  // namespace
}  // namespace numasim
