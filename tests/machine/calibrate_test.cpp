// The pure parts of `numasim calibrate`: the chase order, the run statistics, the machine-file
// writer (every preset written and read back) and how measurements become figures; and, on
// this host, the buffer and the chase laid out in it.
#include "machine/calibrate.h"

#include <gtest/gtest.h>

#include <set>

#include "machine/hwloc_import.h"
#include "machine/machine_file.h"
#include "machine/machine_file_writer.h"
#include "machine/memory_probe.h"
#include "machine/presets.h"

namespace numasim {
namespace {

// The length of the cycle through slot 0.
size_t cycle_length(const std::vector<uint32_t>& next) {
    size_t len = 0;
    uint32_t at = 0;
    do {
        at = next[at];
        ++len;
    } while (at != 0 && len <= next.size());
    return len;
}

TEST(SattoloCycle, IsOneCycleThroughEverySlot) {
    for (uint32_t n : {1u, 2u, 3u, 10u, 4096u}) {
        const std::vector<uint32_t> next = sattolo_cycle(n, 41);
        ASSERT_EQ(next.size(), n);
        EXPECT_EQ(std::set<uint32_t>(next.begin(), next.end()).size(), n) << "not a permutation";
        EXPECT_EQ(cycle_length(next), n) << "n = " << n;
        for (uint32_t i = 0; i < n && n > 1; ++i)
            EXPECT_NE(next[i], i) << "a fixed point is a cycle of its own";
    }
    // The only 2-cycle.
    EXPECT_EQ(sattolo_cycle(2, 7), (std::vector<uint32_t>{1, 0}));
}

TEST(SattoloCycle, TheSeedAloneDecidesTheOrder) {
    EXPECT_EQ(sattolo_cycle(1000, 41), sattolo_cycle(1000, 41));
    EXPECT_NE(sattolo_cycle(1000, 41), sattolo_cycle(1000, 42));
}

TEST(RunStats, MedianAndSpread) {
    const RunStats odd = run_stats({3, 1, 2});
    EXPECT_EQ(odd.runs, 3);
    EXPECT_DOUBLE_EQ(odd.median, 2);
    EXPECT_DOUBLE_EQ(odd.min, 1);
    EXPECT_DOUBLE_EQ(odd.max, 3);
    // An even count: the mean of the middle two; an outlier moves the max, not the median.
    const RunStats even = run_stats({4, 1, 3, 2, 2.5, 100});
    EXPECT_DOUBLE_EQ(even.median, 2.75);
    EXPECT_DOUBLE_EQ(even.max, 100);
    EXPECT_DOUBLE_EQ(run_stats({7}).median, 7);
    EXPECT_THROW(run_stats({}), std::logic_error);
}

void expect_same_machine(const Topology& a, const Topology& b) {
    ASSERT_EQ(a.nr_nodes(), b.nr_nodes());
    ASSERT_EQ(a.nr_cpus(), b.nr_cpus());
    EXPECT_EQ(a.name, b.name);
    EXPECT_EQ(a.description, b.description);
    EXPECT_EQ(a.source, b.source);
    EXPECT_EQ(a.distance, b.distance);
    EXPECT_EQ(a.hmat, b.hmat);
    for (int n = 0; n < a.nr_nodes(); ++n) {
        EXPECT_EQ(a.nodes[n].cpus, b.nodes[n].cpus) << "node " << n;
        EXPECT_EQ(a.nodes[n].mem_bytes, b.nodes[n].mem_bytes) << "node " << n;
        EXPECT_EQ(a.nodes[n].device.kind, b.nodes[n].device.kind) << "node " << n;
        EXPECT_EQ(a.nodes[n].device.latency_ns, b.nodes[n].device.latency_ns) << "node " << n;
        EXPECT_EQ(a.nodes[n].device.bandwidth_gbs, b.nodes[n].device.bandwidth_gbs);
        EXPECT_EQ(a.nodes[n].device.dax_kmem, b.nodes[n].device.dax_kmem) << "node " << n;
    }
    for (int c = 0; c < a.nr_cpus(); ++c) {
        EXPECT_EQ(a.cpus[c].package, b.cpus[c].package) << "cpu " << c;
        EXPECT_EQ(a.smt_siblings(c), b.smt_siblings(c)) << "cpu " << c;
        EXPECT_EQ(a.llc_cpus(c), b.llc_cpus(c)) << "cpu " << c;
    }
    EXPECT_EQ(a.hw.latency_ns, b.hw.latency_ns);
    EXPECT_EQ(a.hw.dram_bandwidth_gbs, b.hw.dram_bandwidth_gbs);
    EXPECT_EQ(a.hw.link_bandwidth_gbs, b.hw.link_bandwidth_gbs);
    EXPECT_EQ(a.hw.llc_bytes, b.hw.llc_bytes);
    EXPECT_EQ(a.hw.llc_latency_ns, b.hw.llc_latency_ns);
    EXPECT_EQ(a.hw.line_fill_buffers, b.hw.line_fill_buffers);
    EXPECT_EQ(a.hw.smt_core_speedup, b.hw.smt_core_speedup);
    EXPECT_EQ(a.hw.cpu_ghz, b.hw.cpu_ghz);
    EXPECT_EQ(a.hw.pages, b.hw.pages);
}

// Every preset (regular, [[node]], memory-only nodes, SMT8 numbered either way, 64 KiB pages on
// either MMU) written out and read back is the same machine.
TEST(MachineFileWriter, EveryPresetRoundTrips) {
    for (const std::string& name : preset_names()) {
        SCOPED_TRACE(name);
        const Topology t = load_preset(name);
        MachineFileComments comments;
        comments.header = {"a header line", ""};
        comments.keys["dram_bandwidth_gbs"] = "a comment";
        const std::string text = machine_file_text(t, comments);
        expect_same_machine(t, load_machine_text(text, name + ".toml"));
        EXPECT_EQ(text.rfind("# a header line\n#\n", 0), 0u);
        EXPECT_NE(text.find("# a comment\ndram_bandwidth_gbs = "), std::string::npos);
    }
}

TEST(MachineFileWriter, TheHostRoundTrips) {
    const Topology t = import_hwloc_host();
    expect_same_machine(t, load_machine_text(machine_file_text(t, {}), "host.toml"));
}

PairMeasurement pair(int from, int to, double latency, double read) {
    PairMeasurement p;
    p.from = from;
    p.to = to;
    p.latency_ns = run_stats({latency});
    p.read_gbs = run_stats({read});
    p.write_gbs = run_stats({read / 2});
    return p;
}

Topology machine(const std::string& distance, int nodes) {
    std::string text = "[machine]\nname = \"m\"\ndistance = " + distance + "\n";
    for (int n = 0; n < nodes; ++n)
        text += "[[node]]\nmemory = \"1GiB\"\ncpus = [" + std::to_string(n) + "]\n";
    text += R"([hardware]
latency_ns = { 10 = 90.0 }
dram_bandwidth_gbs = 60.0
link_bandwidth_gbs = 20.8
llc_mb = 16
llc_latency_ns = 20
line_fill_buffers = 10
smt_core_speedup = 1.25
cpu_ghz = 2.5
)";
    return load_machine_text(text, "m.toml");
}

// A one-node host measures its local latency and bandwidth; the link keeps the preset's figure
// and says so, as do the figures nobody measures.
TEST(ApplyMeasurements, OneNodeKeepsThePresetsLink) {
    Topology host = machine("[[10]]", 1);
    const Topology preset = load_preset("haswell-2s");
    const auto notes =
        apply_measurements(host, {preset.hw, "preset haswell-2s"}, {pair(0, 0, 84.04, 19.96)});
    EXPECT_EQ(host.hw.latency_ns, (std::map<int, double>{{10, 84.0}}));
    EXPECT_DOUBLE_EQ(host.hw.dram_bandwidth_gbs, 20.0);
    EXPECT_DOUBLE_EQ(host.hw.link_bandwidth_gbs, preset.hw.link_bandwidth_gbs);
    EXPECT_DOUBLE_EQ(host.hw.cpu_ghz, preset.hw.cpu_ghz);
    EXPECT_DOUBLE_EQ(host.hw.llc_latency_ns, preset.hw.llc_latency_ns);
    EXPECT_EQ(host.hw.llc_bytes, 16u << 20);  // the host's, not the preset's 30 MB
    EXPECT_EQ(notes.at("latency_ns.10").rfind("measured", 0), 0u);
    EXPECT_EQ(notes.at("dram_bandwidth_gbs").rfind("measured", 0), 0u);
    EXPECT_NE(notes.at("link_bandwidth_gbs").find("kept from preset haswell-2s"),
              std::string::npos);
    EXPECT_NE(notes.at("cpu_ghz").find("kept from preset haswell-2s"), std::string::npos);
    // The written file says it too, and reads back.
    MachineFileComments c;
    c.keys = notes;
    const std::string text = machine_file_text(host, c);
    EXPECT_NE(text.find("# not measured: kept from preset haswell-2s (no two nodes with CPUs to "
                        "measure a link between)\nlink_bandwidth_gbs = 38.4\n"),
              std::string::npos)
        << text;
    EXPECT_DOUBLE_EQ(load_machine_text(text, "h.toml").hw.latency(10), 84.0);
}

// Three nodes in a line: 0 and 2 are not linked (node 1 is closer to both), so their slow pair
// stays out of the link figure; each distance gets the mean of its pairs.
TEST(ApplyMeasurements, FiguresAreMeansOverThePairs) {
    Topology host = machine("[[10, 20, 30], [20, 10, 20], [30, 20, 10]]", 3);
    const auto notes =
        apply_measurements(host, {host.hw, "generic"},
                           {pair(0, 0, 80, 20), pair(1, 1, 90, 30), pair(2, 2, 100, 40),
                            pair(0, 1, 130, 10), pair(1, 0, 140, 12), pair(1, 2, 150, 14),
                            pair(2, 1, 160, 16), pair(0, 2, 200, 4), pair(2, 0, 210, 6)});
    EXPECT_EQ(host.hw.latency_ns, (std::map<int, double>{{10, 90}, {20, 145}, {30, 205}}));
    EXPECT_DOUBLE_EQ(host.hw.dram_bandwidth_gbs, 30);  // (20 + 30 + 40) / 3
    EXPECT_DOUBLE_EQ(host.hw.link_bandwidth_gbs, 13);  // (10 + 12 + 14 + 16) / 4
    EXPECT_NE(notes.at("latency_ns.20").find("the mean of 4 node pairs"), std::string::npos);
    EXPECT_NE(notes.at("link_bandwidth_gbs").find("the mean of 4 node pairs"), std::string::npos);
}

// A distance no pair of nodes with CPUs has keeps the baseline's figure, or its local latency
// scaled by d/10 when the baseline has none.
TEST(ApplyMeasurements, UnmeasuredDistancesKeepTheBaseline) {
    Topology host = machine("[[10, 21], [21, 10]]", 2);
    MemoryHardware base = host.hw;
    base.latency_ns = {{10, 100}, {21, 150}};
    apply_measurements(host, {base, "b"}, {pair(0, 0, 80, 20)});
    EXPECT_EQ(host.hw.latency_ns, (std::map<int, double>{{10, 80}, {21, 150}}));
    Topology again = machine("[[10, 21], [21, 10]]", 2);
    base.latency_ns = {{10, 100}};
    const auto notes = apply_measurements(again, {base, "b"}, {pair(0, 0, 80, 20)});
    EXPECT_DOUBLE_EQ(again.hw.latency_ns.at(21), 210);  // 100 * 21 / 10
    EXPECT_NE(notes.at("latency_ns.21").find("x d/10"), std::string::npos);
}

// A pair whose buffer may lie elsewhere (mbind refused and no way to check) goes into no figure:
// a remote latency measured on local memory would be wrong.
TEST(ApplyMeasurements, MisplacedPairsAreLeftOut) {
    Topology host = machine("[[10, 21], [21, 10]]", 2);
    MemoryHardware base = host.hw;
    base.latency_ns = {{10, 100}, {21, 150}};
    PairMeasurement remote = pair(0, 1, 80, 20);
    remote.placed = false;
    PairMeasurement local = pair(1, 1, 90, 30);
    const auto notes = apply_measurements(host, {base, "b"}, {pair(0, 0, 80, 20), remote, local});
    EXPECT_EQ(host.hw.latency_ns, (std::map<int, double>{{10, 85}, {21, 150}}));
    EXPECT_DOUBLE_EQ(host.hw.link_bandwidth_gbs, base.link_bandwidth_gbs);
    EXPECT_NE(notes.at("latency_ns.21").find("kept from b"), std::string::npos);
}

// A PMEM node's device figures come from its host socket's pair; a plain DRAM node has none.
TEST(ApplyMeasurements, DeviceNodesFromTheirNearestNode) {
    Topology host = load_preset("cascadelake-2s-pmem");
    apply_measurements(host, {host.hw, "p"},
                       {pair(0, 0, 80, 90), pair(0, 2, 300.04, 35.06), pair(1, 2, 400, 20)});
    EXPECT_DOUBLE_EQ(host.nodes[2].device.latency_ns, 300.0);
    EXPECT_DOUBLE_EQ(host.nodes[2].device.bandwidth_gbs, 35.1);
    Topology dram = load_machine_text(R"([machine]
name = "d"
distance = [[10, 20], [20, 10]]
[[node]]
memory = "1GiB"
cpus = [0]
[[node]]
memory = "1GiB"
[hardware]
latency_ns = { 10 = 90.0 }
dram_bandwidth_gbs = 60.0
link_bandwidth_gbs = 20.8
llc_mb = 16
llc_latency_ns = 20
line_fill_buffers = 10
smt_core_speedup = 1.25
cpu_ghz = 2.5
)",
                                      "d.toml");
    apply_measurements(dram, {dram.hw, "d"}, {pair(0, 0, 80, 20), pair(0, 1, 120, 10)});
    EXPECT_EQ(dram.nodes[1].device.latency_ns, 0);
    // Only pairs of nodes with CPUs make the [hardware] figures: distance 20 is not measured.
    EXPECT_DOUBLE_EQ(dram.hw.latency_ns.at(20), 90.0 * 2);
}

// On this host: a buffer on the first node, the chase laid out in it visits every cache line
// once before it comes back, and the probes return one figure per run.
TEST(MemoryProbe, ChaseAndStreamOnTheHost) {
    const HostMachine h = import_hwloc_host_ids();
    ASSERT_FALSE(h.node_os_index.empty());
    const size_t bytes = 4 << 20;
    NodeBuffer buf(bytes, h.node_os_index[0]);
    const std::vector<uint32_t> next = sattolo_cycle(bytes / 64, 41);
    lay_out_chase(buf, next);
    void* p = buf.data();
    size_t steps = 0;
    do {
        p = *static_cast<void**>(p);
        ++steps;
    } while (p != buf.data() && steps <= next.size());
    EXPECT_EQ(steps, next.size());
    const int cpu = h.cpu_os_index[h.topology.nodes[0].cpus.front()];
    const std::vector<double> ns = chase_ns_per_load(buf, cpu, 0.005, 3);
    ASSERT_EQ(ns.size(), 3u);
    for (double v : ns)
        EXPECT_GT(v, 0);
    const std::vector<double> gbs = stream_gbs(buf, {cpu}, StreamKind::kRead, 0.005, 2);
    ASSERT_EQ(gbs.size(), 2u);
    EXPECT_GT(gbs[0], 0);
    // Eight threads' shares of 512 KiB, smaller than a streaming piece.
    const std::vector<double> w =
        stream_gbs(buf, std::vector<int>(8, cpu), StreamKind::kWrite, 0.005, 1);
    ASSERT_EQ(w.size(), 1u);
    EXPECT_GT(w[0], 0);
    EXPECT_EQ(pin_error(cpu), "");
    EXPECT_NE(pin_error(-1), "");
    // Binding may be refused (a seccomp filter without CAP_SYS_NICE), and so may move_pages;
    // when neither is, every page is on the node.
    const double share = buf.share_on_node();
    if (!buf.bind_error().empty()) {
        EXPECT_NE(buf.bind_error().find("mbind"), std::string::npos) << buf.bind_error();
    } else if (share >= 0) {
        EXPECT_DOUBLE_EQ(share, 1.0);
    }
}

}  // namespace
}  // namespace numasim
