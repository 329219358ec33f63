#include "machine/hwloc_facts.h"

#include <gtest/gtest.h>

#include <cstring>

#include "config/input_error.h"

namespace numasim {
namespace {

// Two nodes; PU 1 in no node; a 2x2 SLIT.
HwlocFacts sample() {
    HwlocFacts f;
    f.nr_nodes = 2;
    f.nr_pus = 3;
    f.node_mem_bytes = {1ull << 30, 0};
    f.node_os_index = {0, 8};  // sparse, as on POWER9
    f.pus = {{0, 0, 0, 0, 0}, {4, -1, 1, 0, 1}, {9, 1, 2, 3, 1}};
    f.llc_bytes = 8 << 20;
    f.distance = {10, 21, 21, 10};
    f.cpu = {HwlocCpuArch::kX86, HwlocCpuVendor::kAmd, 0x19, 1, 0};
    return f;
}

void expect_same(const HwlocFacts& a, const HwlocFacts& b) {
    EXPECT_EQ(a.nr_nodes, b.nr_nodes);
    EXPECT_EQ(a.nr_pus, b.nr_pus);
    EXPECT_EQ(a.node_mem_bytes, b.node_mem_bytes);
    EXPECT_EQ(a.node_os_index, b.node_os_index);
    ASSERT_EQ(a.pus.size(), b.pus.size());
    for (size_t i = 0; i < a.pus.size(); ++i) {
        EXPECT_EQ(a.pus[i].os_index, b.pus[i].os_index);
        EXPECT_EQ(a.pus[i].node, b.pus[i].node);
        EXPECT_EQ(a.pus[i].core, b.pus[i].core);
        EXPECT_EQ(a.pus[i].package, b.pus[i].package);
        EXPECT_EQ(a.pus[i].llc, b.pus[i].llc);
    }
    EXPECT_EQ(a.llc_bytes, b.llc_bytes);
    EXPECT_EQ(a.distance, b.distance);
    EXPECT_EQ(a.cpu.arch, b.cpu.arch);
    EXPECT_EQ(a.cpu.vendor, b.cpu.vendor);
    EXPECT_EQ(a.cpu.family, b.cpu.family);
    EXPECT_EQ(a.cpu.model, b.cpu.model);
    EXPECT_EQ(a.cpu.power_generation, b.cpu.power_generation);
}

TEST(HwlocFacts, RoundTripsNodeMemory) {
    HwlocFacts f = sample();
    f.node_memory = {{}, {305, 37193, HwlocMemoryKind::kPmem, true, true}};
    const HwlocFacts back = decode_hwloc_facts(encode_hwloc_facts(f), "f.xml");
    ASSERT_EQ(back.node_memory.size(), 2u);
    EXPECT_EQ(back.node_memory[0].kind, HwlocMemoryKind::kDram);
    EXPECT_FALSE(back.node_memory[0].device);
    EXPECT_EQ(back.node_memory[1].latency_ns, 305u);
    EXPECT_EQ(back.node_memory[1].bandwidth_mibs, 37193u);
    EXPECT_EQ(back.node_memory[1].kind, HwlocMemoryKind::kPmem);
    EXPECT_TRUE(back.node_memory[1].dax_kmem);
    EXPECT_TRUE(back.node_memory[1].device);
}

TEST(HwlocFacts, RoundTrip) {
    expect_same(decode_hwloc_facts(encode_hwloc_facts(sample()), "f.xml"), sample());
    HwlocFacts nodist = sample();
    nodist.distance.clear();
    expect_same(decode_hwloc_facts(encode_hwloc_facts(nodist), "f.xml"), nodist);
}

// A machine beyond the limits crosses as its counts alone, which the import reports.
TEST(HwlocFacts, OverLimitSendsCountsOnly) {
    HwlocFacts f;
    f.nr_nodes = 2;
    f.nr_pus = 100000;
    const std::string bytes = encode_hwloc_facts(f);
    EXPECT_EQ(bytes.size(), 2 * sizeof(uint64_t));
    const HwlocFacts back = decode_hwloc_facts(bytes, "f.xml");
    EXPECT_EQ(back.nr_pus, 100000u);
    EXPECT_TRUE(back.pus.empty());
}

void expect_refused(const std::string& bytes) {
    try {
        decode_hwloc_facts(bytes, "f.xml");
        FAIL();
    } catch (const InputError& e) {
        EXPECT_EQ(e.file(), "f.xml");
        EXPECT_NE(e.problem().find("malformed data"), std::string::npos) << e.what();
    }
}

TEST(HwlocFacts, TruncatedOrPaddedIsRefused) {
    const std::string bytes = encode_hwloc_facts(sample());
    expect_refused("");
    expect_refused(bytes.substr(0, bytes.size() - 1));
    expect_refused(bytes.substr(0, bytes.size() - 8));
    expect_refused(bytes + std::string(8, '\0'));
}

void set_word(std::string& bytes, size_t index, uint64_t value) {
    std::memcpy(bytes.data() + index * sizeof value, &value, sizeof value);
}

// Words the import uses as indices are checked: a node beyond the list, a memory kind beyond the
// enum, a SLIT of the wrong size, a count that would read past the end, a CPU word beyond its
// enum.
TEST(HwlocFacts, BadIndicesAreRefused) {
    const std::string good = encode_hwloc_facts(sample());
    std::string bytes = good;
    set_word(bytes, 2 + 2 * 7 + 1, 2);  // PU 0's node: there are nodes 0 and 1
    expect_refused(bytes);
    bytes = good;
    set_word(bytes, 2 + 3, 4);  // node 0's memory kind: 0..3
    expect_refused(bytes);
    bytes = good;
    set_word(bytes, 2 + 2 * 7 + 3 * 5 + 1, 3);  // 3 distance entries for 2 nodes
    expect_refused(bytes);
    bytes = good;
    set_word(bytes, 1, 8000);  // 8000 PUs: within the limits, far more than the data holds
    expect_refused(bytes);
    // The CPU's words follow the 4 distance entries: an architecture, then a vendor, beyond
    // their enums.
    const size_t cpu_at = 2 + 2 * 7 + 3 * 5 + 2 + 4;
    bytes = good;
    set_word(bytes, cpu_at, 3);
    expect_refused(bytes);
    bytes = good;
    set_word(bytes, cpu_at + 1, 3);
    expect_refused(bytes);
}

}  // namespace
}  // namespace numasim
