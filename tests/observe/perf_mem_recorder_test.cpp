// The perf mem recorder's rule (observe/perf_mem_recorder.h), worked by hand, and its samples
// read back by the importer's own parser.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "observe/perf_mem_recorder.h"
#include "replay/perf_mem_sample.h"

namespace numasim {
namespace {

TEST(PerfMemRecorder, DefaultsArePerfRecords) {
    EXPECT_EQ(kPerfDefaultFreqHz, 4000);
    EXPECT_EQ(kPerfEventMaxSampleRate, 100000);
    EXPECT_EQ(kPerfMemLookInterval, 4'000'000);
}

TEST(PerfMemRecorder, SharesFollowTheLargestRemainders) {
    // 10 over 1:1:1 is 3.33 each: 3, 3, 3 and the one left to the first of equal remainders.
    EXPECT_EQ(share_by_weight(10, {1, 1, 1}), (std::vector<uint64_t>{4, 3, 3}));
    // 7 over 0.5:0.3:0.2 is 3.5, 2.1, 1.4: 3, 2, 1 and the one left to the 0.5 remainder.
    EXPECT_EQ(share_by_weight(7, {0.5, 0.3, 0.2}), (std::vector<uint64_t>{4, 2, 1}));
    // A region without bytes takes none, even with a remainder left to give.
    EXPECT_EQ(share_by_weight(3, {0, 2, 1}), (std::vector<uint64_t>{0, 2, 1}));
    EXPECT_EQ(share_by_weight(5, {0, 0}), (std::vector<uint64_t>{0, 0}));
}

TEST(PerfMemRecorder, GoldenPointsSpreadOverTheRegion) {
    EXPECT_DOUBLE_EQ(golden_point(0), 0.0);
    EXPECT_NEAR(golden_point(1), 0.6180339887, 1e-9);
    EXPECT_NEAR(golden_point(2), 0.2360679775, 1e-9);
    // Any 100 consecutive points leave no tenth of [0, 1) empty.
    int tenths[10] = {};
    for (uint64_t k = 1000; k < 1100; ++k)
        ++tenths[static_cast<int>(golden_point(k) * 10)];
    for (int t : tenths)
        EXPECT_GE(t, 8);
}

// Each data source decodes, through the importer, to what the recorder meant.
TEST(PerfMemRecorder, DataSourcesDecodeAsMeant) {
    struct Case {
        PerfMemWhere where;
        MemSource source;
        bool store;
    };
    for (const Case& c : {Case{PerfMemWhere::kLocalRam, MemSource::kLocalRam, false},
                          Case{PerfMemWhere::kRemoteRam, MemSource::kRemoteRam, false},
                          Case{PerfMemWhere::kPmem, MemSource::kOtherMemory, false},
                          Case{PerfMemWhere::kRemotePmem, MemSource::kOtherMemory, false},
                          Case{PerfMemWhere::kStore, MemSource::kUnknown, true}}) {
        MemSource s = MemSource::kCache;
        bool store = false, load = false, hitm = true;
        ASSERT_TRUE(decode_data_src(perf_mem_data_src(c.where), s, store, load, hitm));
        EXPECT_EQ(s, c.source) << perf_mem_decode(c.where);
        EXPECT_EQ(store, c.store);
        EXPECT_EQ(load, !c.store);
        EXPECT_FALSE(hitm);
        // A whole line, as the recorder prints it, parses to the same sample.
        const std::string line = fmt::format(
            "{:>16} {:>7}/{:<7} [{:03}] {:>5}.{:06}: {:>10} {:>24}: {:>16x} {:>16x} {}", "app",
            4242, 4243, 3, 12, 345678, 117,
            c.store ? "cpu/mem-stores/P" : "cpu/mem-loads,ldlat=30/P", uint64_t{0x7f0000001040},
            perf_mem_data_src(c.where), perf_mem_decode(c.where));
        const PerfMemSample p = parse_perf_mem_line(line, "test", "line 1");
        EXPECT_EQ(p.pid, 4242);
        EXPECT_EQ(p.tid, 4243);
        EXPECT_EQ(p.time_ns, 12'345'678'000);
        EXPECT_EQ(p.period, 117u);
        EXPECT_EQ(p.addr, 0x7f0000001040u);
        EXPECT_EQ(p.source, c.source);
        EXPECT_EQ(p.store, c.store);
    }
}

}  // namespace
}  // namespace numasim
