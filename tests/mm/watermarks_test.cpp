// The boot-time watermarks (mm/watermarks.h), worked by hand.
#include "mm/watermarks.h"

#include <gtest/gtest.h>

#include "kernel/system.h"
#include "machine/presets.h"

namespace numasim {
namespace {

TEST(Watermarks, MinFreeKbytesIsTheSquareRootOfSixteenTimesLowmem) {
    // 16 GiB = 16777216 KiB; x16 = 2^28; sqrt = 2^14.
    EXPECT_EQ(calculate_min_free_kbytes(16777216), 16384u);
    // 1 TiB = 2^30 KiB; x16 = 2^34; sqrt = 2^17.
    EXPECT_EQ(calculate_min_free_kbytes(uint64_t{1} << 30), 131072u);
    // Not a square: 1000 KiB x16 = 16000, int_sqrt rounds down to 126, under the floor of 128.
    EXPECT_EQ(calculate_min_free_kbytes(1000), 128u);
    // 5 GiB = 5242880 KiB; x16 = 83886080; sqrt = 9158.8 -> 9158.
    EXPECT_EQ(calculate_min_free_kbytes(5242880), 9158u);
    // 4 TiB reaches the 256 MiB ceiling exactly; 16 TiB is held at it.
    EXPECT_EQ(calculate_min_free_kbytes(uint64_t{1} << 32), 262144u);
    EXPECT_EQ(calculate_min_free_kbytes(uint64_t{1} << 34), 262144u);
}

TEST(Watermarks, ScaleFactorSetsTheGapsOnALargeZone) {
    // Two 2 GiB nodes: lowmem 4194304 KiB, min_free_kbytes sqrt(67108864) = 8192. A node's
    // share is 4096 KiB = 1024 pages of 4 KiB. The gap is max(1024 / 4, 524288 * 10 / 10000)
    // = max(256, 524) = 524 pages.
    const ZoneWatermarks w = setup_zone_wmarks(8192, 2097152, 4194304, 524288, 4096);
    EXPECT_EQ(w.min, 1024u);
    EXPECT_EQ(w.low, 1548u);
    EXPECT_EQ(w.high, 2072u);
    EXPECT_EQ(w.promo, 2596u);
}

TEST(Watermarks, AQuarterOfMinSetsTheGapsOnASmallZone) {
    // One 256 MiB node: 262144 KiB, min_free_kbytes sqrt(4194304) = 2048 KiB = 512 pages. The
    // gap is max(512 / 4, 65536 * 10 / 10000) = max(128, 65) = 128.
    const ZoneWatermarks w = setup_zone_wmarks(2048, 262144, 262144, 65536, 4096);
    EXPECT_EQ(w.min, 512u);
    EXPECT_EQ(w.low, 640u);
    EXPECT_EQ(w.high, 768u);
    EXPECT_EQ(w.promo, 896u);
}

TEST(Watermarks, NodesOfAMachineTakeTheirShare) {
    // tiny-2n: the two 2 GiB nodes of the first test above.
    const System sys(load_preset("tiny-2n"), {}, 1);
    for (const NodeMemory& m : sys.mem.nodes) {
        EXPECT_EQ(m.present_pages, 524288u);
        EXPECT_EQ(m.wmark_min, 1024u);
        EXPECT_EQ(m.wmark_high, 2072u);
        EXPECT_EQ(m.wmark_promo, 2596u);
    }
}

}  // namespace
}  // namespace numasim
