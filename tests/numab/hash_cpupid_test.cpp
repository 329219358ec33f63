// hash_32 and the cpupid helpers with values worked out by hand.
#include <gtest/gtest.h>

#include "mm/cpupid.h"
#include "numab/numab.h"

namespace numasim {
namespace {

// (pid * 0x61C88647) mod 2^32, then the top bits:
//   pid 1:    1640531527            >> 26 = 24, >> 25 = 48
//   pid 1000: 1640531527000 mod 2^32 = 4148987224 >> 26 = 61, >> 25 = 123
//   pid 1001: 1494551455            >> 26 = 22, >> 25 = 44
//   pid 1064: 1768822552            >> 26 = 26, >> 25 = 52
TEST(Hash32, KnownPidsGiveKnownBits) {
    EXPECT_EQ(hash_32(1, 6), 24u);
    EXPECT_EQ(hash_32(1, 7), 48u);
    EXPECT_EQ(hash_32(1000, 6), 61u);
    EXPECT_EQ(hash_32(1000, 7), 123u);
    EXPECT_EQ(hash_32(1001, 6), 22u);
    EXPECT_EQ(hash_32(1001, 7), 44u);
    EXPECT_EQ(hash_32(1064, 6), 26u);
    EXPECT_EQ(hash_32(1064, 7), 52u);
}

TEST(Hash32, SequentialPidsSpreadOverTheBitmap) {
    // Multiplicative hashing mixes the low bits: 64 consecutive pids hit many distinct bits.
    bool seen[64] = {};
    int distinct = 0;
    for (uint32_t pid = 1000; pid < 1064; ++pid) {
        const uint32_t b = hash_32(pid, 6);
        ASSERT_LT(b, 64u);
        if (!seen[b]) ++distinct;
        seen[b] = true;
    }
    EXPECT_GT(distinct, 32);
}

TEST(Cpupid, EncodesCpuAndLowPidBits) {
    // (3 << 8) | (1000 & 0xff = 232) = 1000
    const cpupid_t c = cpu_pid_to_cpupid(3, 1000);
    EXPECT_EQ(c, 1000u);
    EXPECT_EQ(cpupid_to_cpu(c), 3);
    EXPECT_EQ(cpupid_to_pid(c), 232);
    EXPECT_TRUE(cpupid_match_pid(1000, c));
    EXPECT_TRUE(cpupid_match_pid(1256, c));  // 1256 & 0xff == 232: the 1/256 collision
    EXPECT_FALSE(cpupid_match_pid(1001, c));
    EXPECT_FALSE(cpupid_pid_unset(c));
    EXPECT_TRUE(cpupid_pid_unset(CPUPID_UNSET));
    EXPECT_FALSE(cpupid_valid(CPUPID_UNSET, 4));
    EXPECT_TRUE(cpupid_valid(c, 4));
}

}  // namespace
}  // namespace numasim
