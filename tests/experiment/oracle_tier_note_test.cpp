// The oracle's note on memory-only nodes the model onlines through dax/kmem: the qemu guest
// gives them boot memory, which the kernel puts in the DRAM tier (docs/oracle.md).
#include <gtest/gtest.h>

#include "experiment/oracle.h"
#include "machine/presets.h"

namespace numasim {
namespace {

TEST(OracleTierNote, OneNotePerDaxKmemNode) {
    // cascadelake-2s-pmem: nodes 0-1 DRAM with CPUs, nodes 2-3 Optane onlined by kmem.
    const auto notes = dax_kmem_notes(load_preset("cascadelake-2s-pmem"));
    ASSERT_EQ(notes.size(), 2u);
    EXPECT_EQ(notes[0].rfind("node 2 is pmem onlined by dax/kmem in the model", 0), 0u) << notes[0];
    EXPECT_NE(notes[1].find("node 3 is pmem"), std::string::npos) << notes[1];
    EXPECT_NE(notes[1].find("boot memory in the DRAM tier"), std::string::npos) << notes[1];
}

// With the HMAT a v6.10+ kernel reads, cascadelake-2s-pmem's Optane nodes fall below the DRAM
// tier: adistance 576 * (2 * 305) / (2 * 85) * (2 * 100000) / (2 * 39400) = 5243 (integer steps),
// memory_tier40, against DRAM's memory_tier4.
TEST(OracleTierNote, HmatLowerTierNodes) {
    EXPECT_EQ(hmat_lower_tier_nodes(load_preset("cascadelake-2s-pmem")), (std::vector<int>{2, 3}));
    EXPECT_TRUE(hmat_lower_tier_nodes(load_preset("tiny-2n")).empty());
}

TEST(OracleTierNote, NoneForDramOnlyMachines) {
    EXPECT_TRUE(dax_kmem_notes(load_preset("tiny-2n")).empty());
}

}  // namespace
}  // namespace numasim
