// `numasim import damon` on small profiles in the formats as damo and the kernel write them
// (tests/replay/fixtures: damo-hot-cold.json follows damo's _damo_records.py write_json(), and
// damo-hot-cold.json_compressed is it through zlib.compress(), as write_json_compressed() does;
// DamonRecord.to_kvpairs(raw=True); damon-hot-cold.perf.txt follows its write_perf_script(),
// the damon_aggregated line `perf script` prints; sysfs-tried-regions/ the kernel's
// tried_regions/<N>/{start,end,nr_accesses,age}), and on hostile ones.
#include "replay/damon_import.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <string>

#include "config/input_error.h"

namespace numasim {
namespace {

const std::string kFixtures = std::string(NUMASIM_SOURCE_DIR) + "/tests/replay/fixtures/";

DamonImportOptions two_blocks() {
    DamonImportOptions o;
    o.blocks = 2;
    return o;
}

// The scenario from `[scenario]` on: what does not depend on the file's name and format.
std::string body(const std::string& s) {
    return s.substr(s.find("[scenario]"));
}

std::string temp_file(const std::string& name, const std::string& text) {
    const auto p = std::filesystem::temp_directory_path() /
                   ("numasim-replay-" + std::to_string(::getpid()) + "-" + name);
    std::ofstream(p, std::ios::binary) << text;
    return p.string();
}

// The error's text for importing `text` as a file; "" if it imports.
std::string error_of(const std::string& text, const DamonImportOptions& o = {}) {
    const std::string path = temp_file("bad", text);
    try {
        import_damon(path, o);
    } catch (const InputError& e) {
        std::filesystem::remove(path);
        EXPECT_EQ(e.file(), path);
        return std::string(e.where()) + ": " + e.problem();
    }
    std::filesystem::remove(path);
    return "";
}

// Hand-worked: the hot 4 MiB region (1024 pages) is seen accessed in all 20 sampling intervals
// of each 100 ms window: 1024 lines of 64 B every 5 ms = 13,107,200 B/s, 1,310,720 B a window,
// 13,107,200 B in a 1 s phase of 10 windows. The cold one is seen in 1 of 20 intervals in every
// third window (0, 3, 6, 9 in the first phase): 65,536 B x 4 = 262,144 B. The phase's work is
// 13,369,344 B at 0.0133693 GB/s, 98.04% of it on the hot block.
TEST(DamonImport, JsonRecordHandWorked) {
    const std::string s = import_damon(kFixtures + "damo-hot-cold.json", two_blocks());
    EXPECT_NE(s.find("from damo-hot-cold.json (damo JSON record, sha256 "), std::string::npos);
    EXPECT_NE(s.find("30 windows of 1 target(s) over 3 s"), std::string::npos);
    EXPECT_NE(s.find("{ rate_gbs = 0.0133693, work = 13369344, streams = [ { region = \"b0\", "
                     "pattern = \"random\", share = 0.9804 }, { region = \"b1\", pattern = "
                     "\"random\", share = 0.01961 } ] },"),
              std::string::npos)
        << s;
    // Phases 1 and 2 each hold three cold windows (12..15..18 and 21..24..27): equal, folded.
    EXPECT_NE(s.find("share = 0.01478 } ], repeat = 2 }"), std::string::npos) << s;
    EXPECT_NE(s.find("duration = \"6s\""), std::string::npos);
}

// damo record's default output: the same JSON through Python's zlib.compress()
// (write_json_compressed()); the hash in the comment is of the compressed file.
TEST(DamonImport, CompressedJsonSameAsJson) {
    DamonImportOptions o = two_blocks();
    const std::string json = import_damon(kFixtures + "damo-hot-cold.json", o);
    const std::string z = import_damon(kFixtures + "damo-hot-cold.json_compressed", o);
    EXPECT_EQ(body(z), body(json));
    EXPECT_NE(z.find("damo-hot-cold.json_compressed (damo JSON record, sha256 "),
              std::string::npos);
    EXPECT_NE(z.substr(0, z.find('\n')), json.substr(0, json.find('\n')));
}

TEST(DamonImport, TraceTextSameAsJson) {
    DamonImportOptions o = two_blocks();
    const std::string json = import_damon(kFixtures + "damo-hot-cold.json", o);
    const std::string trace = import_damon(kFixtures + "damon-hot-cold.perf.txt", o);
    EXPECT_NE(trace.find("damon_aggregated trace text"), std::string::npos);
    EXPECT_EQ(body(trace), body(json));
}

// One 100 ms window: 1,310,720 B on the hot block and 65,536 B on the cold one.
TEST(DamonImport, SysfsSnapshot) {
    const std::string s = import_damon(kFixtures + "sysfs-tried-regions", two_blocks());
    EXPECT_NE(s.find("rate_gbs = 0.0137626, work = 1376256,"), std::string::npos) << s;
}

TEST(DamonImport, ThreadsShareTheTraffic) {
    DamonImportOptions o = two_blocks();
    o.threads = 4;
    const std::string s = import_damon(kFixtures + "damo-hot-cold.json", o);
    EXPECT_NE(s.find("threads = 4\n"), std::string::npos);
    EXPECT_NE(s.find("rate_gbs = 0.00334234, work = 3342336,"), std::string::npos) << s;
}

TEST(DamonImport, SchedSnapshotGivesCommAndThreads) {
    DamonImportOptions o = two_blocks();
    o.sched_file = temp_file("sched", "masim (4242, #threads: 3)\n-------\nse.exec_start : 1\n");
    const std::string s = import_damon(kFixtures + "damo-hot-cold.json", o);
    std::filesystem::remove(o.sched_file);
    EXPECT_NE(s.find("name = \"masim\"\nthreads = 3\n"), std::string::npos) << s;
}

// A /proc/PID/maps layout cuts the blocks at the mappings' edges, names them, and leaves out
// the gap between them; an accessed region outside every mapping is refused.
TEST(DamonImport, MapsLayout) {
    DamonImportOptions o = two_blocks();
    o.maps_file = temp_file("maps",
                            "7f0000000000-7f0000300000 rw-p 00000000 00:00 0 [heap]\n"
                            "7f0000500000-7f0000800000 rw-p 00000000 08:01 42 /data/table\n");
    const std::string s = import_damon(kFixtures + "damo-hot-cold.json", o);
    EXPECT_NE(s.find("# 0x7f0000000000-0x7f0000300000 [heap]\nname = \"b0\"\nsize = 3145728\n"),
              std::string::npos)
        << s;
    EXPECT_NE(s.find("# 0x7f0000500000-0x7f0000800000 /data/table\nname = \"b1\"\nsize = "
                     "3145728\n"),
              std::string::npos)
        << s;
    // numa_maps: the heap reaches the next mapping's start.
    o.maps_file = temp_file("numa_maps",
                            "7f0000000000 default heap anon=2 dirty=2 N0=2 kernelpagesize_kB=4\n"
                            "7f0000500000 default file=/data/table N1=768 kernelpagesize_kB=4\n");
    const std::string n = import_damon(kFixtures + "damo-hot-cold.json", o);
    EXPECT_NE(n.find("# 0x7f0000000000-0x7f0000500000 [heap]"), std::string::npos) << n;
    EXPECT_NE(n.find("# 0x7f0000500000-0x7f0000800000 /data/table"), std::string::npos) << n;
    // The hot region lies below every mapping of this layout.
    o.maps_file = temp_file("far", "7f0000400000-7f0000800000 rw-p 00000000 00:00 0\n");
    try {
        import_damon(kFixtures + "damo-hot-cold.json", o);
        ADD_FAILURE() << "imported";
    } catch (const InputError& e) {
        EXPECT_EQ(e.where(), "record 0, snapshot 0");
        EXPECT_NE(e.problem().find("region 0 (0x7f0000000000-0x7f0000400000) was seen accessed "
                                   "but lies outside every mapping"),
                  std::string::npos)
            << e.problem();
    }
    o.maps_file = temp_file("bad", "7f0000400000-7f0000300000 rw-p 00000000 00:00 0\n");
    EXPECT_THROW(import_damon(kFixtures + "damo-hot-cold.json", o), InputError);
}

TEST(DamonImport, IdleWindowsAreSleeps) {
    std::string t;
    for (int i = 1; i <= 20; ++i)
        t += "kdamond.0 1 [000] " + std::to_string(i / 10) + "." + std::to_string(i % 10) +
             "00000: damon:damon_aggregated: target_id=7 nr_regions=1 4096-8192: " +
             (i <= 10 ? "20" : "0") + " 1\n";
    const std::string path = temp_file("idle", t);
    const std::string s = import_damon(path, {});
    std::filesystem::remove(path);
    // The first second moves 64 B x 20 samples per window x 10 windows; the second only sleeps.
    EXPECT_NE(s.find("work = 12800,"), std::string::npos) << s;
    EXPECT_NE(s.find("{ sleep = \"1000000us\" },"), std::string::npos) << s;
}

TEST(DamonImport, HostileInputs) {
    const std::string json = [] {
        std::ifstream in(kFixtures + "damo-hot-cold.json");
        return std::string(std::istreambuf_iterator<char>(in), {});
    }();
    // Cut in the middle.
    EXPECT_NE(error_of(json.substr(0, json.size() / 2)).find("truncated"), std::string::npos);
    // Not damo's list of records (another tool's JSON, or a future format).
    EXPECT_NE(error_of("{\"version\": 3, \"records\": []}").find("must be a list of records"),
              std::string::npos);
    EXPECT_NE(error_of("[]").find("no records"), std::string::npos);
    EXPECT_NE(error_of("[{\"target_id\": 0, \"snapshots\": []}]").find("no monitoring windows"),
              std::string::npos);
    EXPECT_NE(error_of("\x78\x9c\xff\xff\xff\xff").find("zlib: invalid block type"),
              std::string::npos);
    const std::string z = [] {
        std::ifstream in(kFixtures + "damo-hot-cold.json_compressed", std::ios::binary);
        return std::string(std::istreambuf_iterator<char>(in), {});
    }();
    EXPECT_NE(error_of(z.substr(0, z.size() / 2)).find("compressed stream ends early"),
              std::string::npos);
    EXPECT_NE(error_of("[{\"target_id\": 0, \"snapshots\": [{\"start_time\": \"5\", "
                       "\"end_time\": \"9\", \"regions\": [{\"start\": \"4096\", \"end\": "
                       "\"4096\", \"nr_accesses\": {\"samples\": 1}}]}]}]")
                  .find("snapshot 0: region 0: end 0x1000 is not above start 0x1000"),
              std::string::npos);
    EXPECT_NE(error_of("[{\"target_id\": 0, \"snapshots\": [{\"start_time\": \"5 ms\"}]}]")
                  .find("start_time: not a non-negative integer"),
              std::string::npos);

    const std::string line = "k 1 [0] 1.1: damon:damon_aggregated: target_id=0 nr_regions=1 ";
    EXPECT_EQ(error_of(line + "4096-8192: 3 1\n"), "");
    // Time going backwards.
    EXPECT_NE(error_of(line + "4096-8192: 3 1\nk 1 [0] 1.0: damon:damon_aggregated: target_id=0 "
                              "nr_regions=1 4096-8192: 3 1\n")
                  .find("time goes backwards"),
              std::string::npos);
    // More sampled accesses than sampling intervals.
    EXPECT_NE(error_of(line + "4096-8192: 21 1\n").find("nr_accesses 21 is more than the 20"),
              std::string::npos);
    // A window cut off, and a last line without its end.
    EXPECT_NE(error_of("k 1 [0] 1.1: damon:damon_aggregated: target_id=0 nr_regions=2 "
                       "4096-8192: 3 1\n")
                  .find("line 1: the file ends inside a window of target 0: 1 of its 2"),
              std::string::npos);
    EXPECT_NE(error_of(line + "4096-8192: 3").find("line 1: the last line has no end of line"),
              std::string::npos);
    // Billions of regions are refused from the count, before any is read.
    EXPECT_NE(error_of("k 1 [0] 1.1: damon:damon_aggregated: target_id=0 nr_regions=4000000000 "
                       "4096-8192: 3 1\n")
                  .find("nr_regions=4000000000: must be 1 to 1048576"),
              std::string::npos);
    EXPECT_NE(error_of(line + "4096-8192 3 1\n").find("line 1: expected START-END:"),
              std::string::npos);
    EXPECT_NE(error_of("no events here\n").find("no damon:damon_aggregated events"),
              std::string::npos);
    EXPECT_NE(error_of(std::string(5000, 'x') + "\n").find("line 1: a line longer than 4096"),
              std::string::npos);
}

// The kernel stamps each damon_aggregated event of a window with its own time (ftrace's trace
// file, as `numasim oracle --damon-record` keeps it) and writes a target's regions in address
// order: lines of the same count in ascending order are one window however far apart their times
// (a kdamond preempted mid-window, 20 ms here); a region that starts below the previous one's end
// starts another, so a window cut short is still found.
TEST(DamonImport, TraceWindowLinesWithTheirOwnTimes) {
    const std::string ev = ": damon_aggregated: target_id=0 nr_regions=2 ";
    const std::string window = "  kdamond.0-90 [001] ..... 1.100000" + ev +
                               "4096-8192: 3 1\n  kdamond.0-90 [001] ..... 1.100004" + ev +
                               "8192-12288: 0 4\n";
    EXPECT_EQ(error_of(window), "");
    EXPECT_EQ(
        error_of("  kdamond.0-90 [001] ..... 1.100000" + ev +
                 "4096-8192: 3 1\n  kdamond.0-90 [000] ..... 1.120000" + ev + "8192-12288: 0 4\n"),
        "");
    EXPECT_NE(
        error_of("  kdamond.0-90 [001] ..... 1.100000" + ev +
                 "4096-8192: 3 1\n  kdamond.0-90 [001] ..... 1.105000" + ev + "4096-8192: 3 1\n")
            .find("line 2: a window of target 0 ends after 1 of its 2 regions"),
        std::string::npos);
}

// The trace text does not carry the intervals: the ones given bound nr_accesses and set the
// first window's start.
TEST(DamonImport, TraceIntervalsAsGiven) {
    const std::string line =
        "k 1 [0] 1.0: damon:damon_aggregated: target_id=0 nr_regions=1 "
        "4096-8192: 40 1\n";
    EXPECT_NE(error_of(line).find("nr_accesses 40 is more than the 20"), std::string::npos);
    DamonImportOptions o;
    o.aggr_us = 200000;
    o.format = DamonFormat::kTrace;
    const std::string path = temp_file("iv", line);
    const std::string s = import_damon(path, o);
    std::filesystem::remove(path);
    // One 200 ms window: 64 B every 5 ms of it.
    EXPECT_NE(s.find("over 0.2 s"), std::string::npos) << s;
    EXPECT_NE(s.find("rate_gbs = 1.28e-05, work = 2560,"), std::string::npos) << s;
    EXPECT_NE(s.find("sample 5000 us, aggregation 200000 us (nr_accesses up to 40)"),
              std::string::npos);
}

TEST(DamonImport, SysfsHostile) {
    const auto dir = std::filesystem::temp_directory_path() /
                     ("numasim-replay-sysfs-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir / "0");
    std::filesystem::create_directories(dir / "2");
    auto put = [&](const std::string& f, const std::string& v) { std::ofstream(dir / f) << v; };
    for (const char* r : {"0", "2"}) {
        put(std::string(r) + "/start", "4096\n");
        put(std::string(r) + "/end", "8192\n");
        put(std::string(r) + "/nr_accesses", "1\n");
        put(std::string(r) + "/age", "1\n");
    }
    auto error = [&] {
        try {
            import_damon(dir.string(), {});
        } catch (const InputError& e) {
            return e.where() + ": " + e.problem();
        }
        return std::string();
    };
    EXPECT_NE(error().find("/1: missing: region directories are numbered 0 .."), std::string::npos);
    std::filesystem::rename(dir / "2", dir / "1");
    put("1/start", "0x1000\n");
    EXPECT_NE(error().find("/1/start: '0x1000': not a number"), std::string::npos) << error();
    put("1/start", "8192\n");
    put("1/end", "16384\n");
    EXPECT_EQ(error(), "");
    std::filesystem::remove_all(dir);
}

// Too fine a grid for the profile is refused with what to change.
TEST(DamonImport, GridBound) {
    DamonImportOptions o = two_blocks();
    o.phase_ns = 1;
    const std::string e = [&] {
        try {
            import_damon(kFixtures + "damo-hot-cold.json", o);
        } catch (const InputError& x) {
            return std::string(x.problem());
        }
        return std::string();
    }();
    EXPECT_NE(e.find("use a longer --phase or fewer --blocks"), std::string::npos) << e;
}

}  // namespace
}  // namespace numasim
