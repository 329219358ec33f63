// `numasim import perf-mem` on samples in the text `perf script` prints for `perf mem record` and
// `perf c2c record` sessions (tests/replay/fixtures/perf-mem-default.txt: its default fields;
// perf-c2c-hitm.txt: `-F comm,pid,tid,cpu,time,period,event,addr,data_src --ns`; both written
// from the format strings of perf's builtin-script.c and the data_src bits of
// include/uapi/linux/perf_event.h, as their headers say), and on hostile ones.
#include "replay/perf_mem_import.h"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "config/input_error.h"
#include "replay/perf_mem_sample.h"

namespace numasim {
namespace {

const std::string kFixtures = std::string(NUMASIM_SOURCE_DIR) + "/tests/replay/fixtures/";

// Raw perf_mem_data_src values, built from perf_event.h's fields (op | lvl << 5 | snoop << 19 |
// lock << 24 | dtlb << 26 | lvl_num << 33 | remote << 37):
// LOAD, LVL HIT|LOC_RAM, SNOOP MISS, LOCK NA, TLB HIT|L1|L2, LVLNUM RAM.
constexpr uint64_t kLocalRam = 0x1a69401042;
// LOAD, LVL HIT|REM_RAM1, SNOOP MISS, ..., LVLNUM RAM, REMOTE.
constexpr uint64_t kRemoteRam = 0x3a69402042;
// LOAD, LVL HIT|REM_CCE1, SNOOP HITM, ..., LVLNUM ANY_CACHE, REMOTE.
constexpr uint64_t kRemoteHitm = 0x3669808042;
// LOAD, LVL HIT|L1, SNOOP NONE, ..., LVLNUM L1.
constexpr uint64_t kL1Load = 0x269100142;
// STORE, LVL MISS|L1, SNOOP NA, LOCK NA, TLB NA: what Intel's store sampling reports.
constexpr uint64_t kStoreL1Miss = 0x5080184;

std::string temp_file(const std::string& name, const std::string& text) {
    const auto p = std::filesystem::temp_directory_path() /
                   ("numasim-perfmem-" + std::to_string(::getpid()) + "-" + name);
    std::ofstream(p, std::ios::binary) << text;
    return p.string();
}

// The error's text for importing `text` as a file; "" if it imports.
std::string error_of(const std::string& text, const PerfMemImportOptions& o = {}) {
    const std::string path = temp_file("bad", text);
    try {
        import_perf_mem(path, o);
    } catch (const InputError& e) {
        std::filesystem::remove(path);
        EXPECT_EQ(e.file(), path);
        return std::string(e.where()) + ": " + e.problem();
    }
    std::filesystem::remove(path);
    return "";
}

// One line as perf script's default fields print it.
std::string line(int tid, const std::string& time, const std::string& period,
                 const std::string& addr, const std::string& data_src,
                 const std::string& decode =
                     "|OP LOAD|LVL RAM hit|SNP Miss|TLB L1 or L2 hit|"
                     "LCK N/A|BLK  N/A") {
    return "             app " + std::to_string(tid) + " [002] " + time + ": " + period +
           " cpu/mem-loads,ldlat=30/P: " + addr + " " + data_src + " " + decode +
           "       312     55d0c6a011d9 main+0x49 (/usr/bin/app)\n";
}

TEST(PerfMemSample, DecodesTheDataSourceBits) {
    MemSource s{};
    bool store = false, load = false, hitm = false;
    ASSERT_TRUE(decode_data_src(kLocalRam, s, store, load, hitm));
    EXPECT_EQ(s, MemSource::kLocalRam);
    EXPECT_TRUE(load);
    EXPECT_FALSE(store);
    ASSERT_TRUE(decode_data_src(kRemoteRam, s, store, load, hitm));
    EXPECT_EQ(s, MemSource::kRemoteRam);
    ASSERT_TRUE(decode_data_src(kRemoteHitm, s, store, load, hitm));
    EXPECT_EQ(s, MemSource::kRemoteCache);
    EXPECT_TRUE(hitm);
    ASSERT_TRUE(decode_data_src(kL1Load, s, store, load, hitm));
    EXPECT_EQ(s, MemSource::kCache);
    EXPECT_FALSE(hitm);
    ASSERT_TRUE(decode_data_src(kStoreL1Miss, s, store, load, hitm));
    EXPECT_EQ(s, MemSource::kUnknown);  // a miss says only "farther than L1"
    EXPECT_TRUE(store);
    // Older kernels: the level bits alone, no level number. LOAD | (HIT|REM_RAM2) << 5.
    ASSERT_TRUE(decode_data_src(0x2 | (0x202 << 5), s, store, load, hitm));
    EXPECT_EQ(s, MemSource::kRemoteRam);
    // LOAD | (HIT|L3|LOC_RAM) << 5, "L3 or Local RAM hit": the farther of the two.
    ASSERT_TRUE(decode_data_src(0x2 | (0xc2 << 5), s, store, load, hitm));
    EXPECT_EQ(s, MemSource::kLocalRam);
    // Level number 7 is unassigned; bits above mem_hops are reserved.
    EXPECT_FALSE(decode_data_src((kLocalRam & ~(uint64_t{0xf} << 33)) | (uint64_t{7} << 33), s,
                                 store, load, hitm));
    EXPECT_FALSE(decode_data_src(kLocalRam | (uint64_t{1} << 50), s, store, load, hitm));
}

TEST(PerfMemSample, ReadsTheLayoutsPerfPrints) {
    // Default fields: comm, tid, cpu, time, period, event, addr, data_src, weight, ip, sym, dso.
    const std::string a = line(4243, "1000.600000", "2000", "7f3a00400080", "3a69402042");
    PerfMemSample s = parse_perf_mem_line(a, "f", "line 1");
    EXPECT_EQ(s.pid, -1);
    EXPECT_EQ(s.tid, 4243);
    EXPECT_EQ(s.comm, "app");
    EXPECT_EQ(s.time_ns, 1000600000000);
    EXPECT_EQ(s.period, 2000u);
    EXPECT_EQ(s.addr, 0x7f3a00400080u);
    EXPECT_EQ(s.source, MemSource::kRemoteRam);
    // -F pid,tid,time,addr,data_src --ns: no comm, cpu, period or event.
    s = parse_perf_mem_line(
        "   77/78      50.000200000:     7f0011223348       3669808042 |OP LOAD|LVL Remote "
        "Cache (1 hop) hit|SNP HitM|TLB L1 or L2 hit|LCK N/A|BLK  N/A",
        "f", "line 1");
    EXPECT_EQ(s.pid, 77);
    EXPECT_EQ(s.tid, 78);
    EXPECT_TRUE(s.comm.empty());
    EXPECT_EQ(s.time_ns, 50000200000);
    EXPECT_EQ(s.period, 0u);
    EXPECT_EQ(s.addr, 0x7f0011223348u);
    EXPECT_TRUE(s.hitm);
    // -F tid,time,period,addr,data_src: the period stands before the address.
    s = parse_perf_mem_line(
        "  78 50.000200: 4000 7f0011223348 5080184 |OP STORE|LVL L1 miss|SNP N/A|TLB N/A|LCK N/A",
        "f", "line 1");
    EXPECT_EQ(s.period, 4000u);
    EXPECT_EQ(s.addr, 0x7f0011223348u);
    EXPECT_TRUE(s.store);
    // perf before the "|OP" part (v4.x): the level's words straight after the raw value.
    s = parse_perf_mem_line(
        "app  4242 [002]  1000.000100:       1000 cpu/mem-loads,ldlat=30/P:     7f3a00000040 "
        "            3a69402042 Remote RAM (1 hop) hit|SNP Miss|TLB L1 or L2 hit|LCK No   312",
        "f", "line 1");
    EXPECT_EQ(s.addr, 0x7f3a00000040u);
    EXPECT_EQ(s.data_src, kRemoteRam);
    EXPECT_EQ(s.period, 1000u);
    // A data address perf resolved to a symbol and DSO: they stand before the data source.
    s = parse_perf_mem_line(
        "app 12 1.000000: 10 cpu/mem-loads/P: 7f3a00000040 buf+0x40 (/usr/bin/app) 1a69401042 "
        "|OP LOAD|LVL RAM hit|SNP Miss",
        "f", "line 1");
    EXPECT_EQ(s.addr, 0x7f3a00000040u);
    EXPECT_EQ(s.data_src, kLocalRam);
    // A PMU that gives no op (N/A): the event's name tells a store.
    s = parse_perf_mem_line(
        "  78 50.000200: 4000 cpu/mem-stores/P: 7f0011223348 5080141 |OP N/A|LVL L1 hit|SNP N/A",
        "f", "line 1");
    EXPECT_TRUE(s.store);
}

// Hand-worked (the fixture's samples, phases of 1 s from the first sample at 1000.000100 s):
// tid 4242 in phase 0 loads from local RAM (period 1000) and stores missing L1 (1000), both in
// the first 2 MiB extent (b0): 2000 x 64 B = 128,000 B, half of it stored; in phase 2 one more
// local load, 64,000 B; phase 1 is a sleep. tid 4243 in phase 0 loads from remote RAM in the
// second extent (b1, 2000 x 64 B) and hits L1 once (no traffic); in phase 1 a remote HITM load
// in b1 and a remote RAM load in b0: 128,000 B each. b1's RAM accesses were all remote (4000 vs
// 0): thread 0 first-touches it; b0's were 2000 remote vs 2000 local: not mostly remote.
TEST(PerfMemImport, DefaultFieldsHandWorked) {
    PerfMemImportOptions o;
    o.blocks = 2;
    PerfMemImportStats st;
    const std::string s = import_perf_mem(kFixtures + "perf-mem-default.txt", o, &st);
    EXPECT_EQ(st.samples, 7);
    EXPECT_NE(s.find("from perf-mem-default.txt (perf script text of perf mem/c2c samples, "
                     "sha256 "),
              std::string::npos);
    EXPECT_NE(s.find("# 7 samples of 1 process(es), 2 thread(s) over 2.1001 s; phases of 1 s; "
                     "2 block(s)."),
              std::string::npos)
        << s;
    EXPECT_NE(s.find("# Period: each sample's own period field."), std::string::npos);
    EXPECT_NE(s.find("local RAM 2000, remote RAM 4000, remote cache 2000, PMEM/CXL/I-O/uncached "
                     "0, cache 500, level not given 1000; HITM 2000; stores 1000."),
              std::string::npos)
        << s;
    EXPECT_NE(s.find("duration = \"6s\""), std::string::npos);
    EXPECT_NE(s.find("name = \"app\"\nthreads = 2\n"), std::string::npos);
    EXPECT_NE(s.find("# 0x7f3a00000000-0x7f3a00200000: local RAM 2000, remote RAM or cache 2000, "
                     "HITM 0\nname = \"b0\"\nsize = 2097152\nkind = \"private\"\n\n"),
              std::string::npos)
        << s;
    EXPECT_NE(s.find("HITM 2000\nname = \"b1\"\nsize = 2097152\nkind = \"private\"\nfirst_touch = "
                     "\"thread\""),
              std::string::npos)
        << s;
    EXPECT_NE(s.find("# tid 4242 app: samples from 0 s to 2.1001 s\nphases = [\n"
                     "  { rate_gbs = 0.000128, work = 128000, streams = [ { region = \"b0\", "
                     "pattern = \"random\", share = 1, write_fraction = 0.5 } ] },\n"
                     "  { sleep = \"1000000us\" },\n"
                     "  { rate_gbs = 6.4e-05, work = 64000, streams = [ { region = \"b0\", "
                     "pattern = \"random\", share = 1 } ] },\n]\n"),
              std::string::npos)
        << s;
    // tid 4243's last sample is in phase 1: it exits after it.
    EXPECT_NE(s.find("# tid 4243 worker: samples from 0.5999 s to 1.8999 s\nphases = [\n"
                     "  { rate_gbs = 0.000128, work = 128000, streams = [ { region = \"b1\", "
                     "pattern = \"random\", share = 1 } ] },\n"
                     "  { rate_gbs = 0.000256, work = 256000, streams = [ { region = \"b0\", "
                     "pattern = \"random\", share = 0.5 }, { region = \"b1\", pattern = "
                     "\"random\", share = 0.5 } ] },\n]\n"),
              std::string::npos)
        << s;
}

// Hand-worked c2c: one line written by tid 77 (a store hitting L1: no traffic) and read by tid 78
// with HITM, read by 77 with HITM, stored by 78 missing L1, and a local load by 78 of the next
// line; all periods 4000, within one 128 KiB block of the 2 MiB extent (16 blocks). 77 moves
// 4000 x 64 = 256,000 B, 78 three times that, a third of it stored; remote 8000 over local 4000.
TEST(PerfMemImport, C2cHitmHandWorked) {
    const std::string s = import_perf_mem(kFixtures + "perf-c2c-hitm.txt", {});
    EXPECT_NE(s.find("local RAM 4000, remote RAM 0, remote cache 8000, PMEM/CXL/I-O/uncached 0, "
                     "cache 4000, level not given 4000; HITM 8000; stores 8000."),
              std::string::npos)
        << s;
    EXPECT_NE(s.find("# pid 77: 2 thread(s), 1 range(s)\n[[workload.process]]\nname = "
                     "\"c2c-a\"\nthreads = 2\n"),
              std::string::npos)
        << s;
    EXPECT_NE(s.find("# 0x7f0011220000-0x7f0011240000: local RAM 4000, remote RAM or cache 8000, "
                     "HITM 8000\nname = \"b1\"\nsize = 131072\nkind = \"private\"\nfirst_touch = "
                     "\"thread\""),
              std::string::npos)
        << s;
    EXPECT_NE(s.find("{ rate_gbs = 0.000256, work = 256000, streams = [ { region = \"b1\", "
                     "pattern = \"random\", share = 1 } ] }"),
              std::string::npos);
    EXPECT_NE(s.find("{ rate_gbs = 0.000768, work = 768000, streams = [ { region = \"b1\", "
                     "pattern = \"random\", share = 1, write_fraction = 0.3333 } ] }"),
              std::string::npos);
}

TEST(PerfMemImport, PeriodFromTheOptionWhenNotPrinted) {
    const std::string text =
        "  4242 1000.000100: 7f3a00000040 1a69401042 |OP LOAD|LVL RAM hit|SNP Miss\n"
        "  4242 1000.200100: 7f3a00000080 1a69401042 |OP LOAD|LVL RAM hit|SNP Miss\n";
    EXPECT_EQ(error_of(text),
              "line 1: no period: the samples need perf script's `period` field (-F "
              "...,period), or give --period");
    PerfMemImportOptions o;
    o.period = 50;
    const std::string path = temp_file("noperiod", text);
    const std::string s = import_perf_mem(path, o);
    std::filesystem::remove(path);
    EXPECT_NE(s.find("# Period: --period 50 for every sample (no period field)."),
              std::string::npos);
    // 2 x 50 x 64 B = 6400 B in the one phase.
    EXPECT_NE(s.find("work = 6400"), std::string::npos) << s;
}

TEST(PerfMemImport, LayoutFromMaps) {
    const std::string maps =
        temp_file("maps",
                  "7f3a00000000-7f3a00100000 rw-p 00000000 00:00 0 \n"
                  "7f3a00100000-7f3a00180000 rw-p 00000000 08:01 42 /data/table.bin\n");
    PerfMemImportOptions o;
    o.maps_file = maps;
    o.blocks = 2;
    const std::string ok = line(1, "1.000000", "10", "7f3a00000040", "1a69401042") +
                           line(1, "1.100000", "10", "7f3a00100040", "1a69401042");
    const std::string path = temp_file("maps-ok", ok);
    const std::string s = import_perf_mem(path, o);
    std::filesystem::remove(path);
    // The 2 MiB extent is cut at the mappings' edges: two blocks, named after them.
    EXPECT_NE(s.find("# 0x7f3a00000000-0x7f3a00100000 anon:"), std::string::npos) << s;
    EXPECT_NE(s.find("# 0x7f3a00100000-0x7f3a00180000 /data/table.bin:"), std::string::npos) << s;
    EXPECT_EQ(error_of(ok + line(1, "1.200000", "10", "7f3a00200040", "1a69401042"), o),
              "line 3: data address 0x7f3a00200040 lies outside every mapping of the layout: the "
              "layout is not this process's");
    std::filesystem::remove(maps);
}

TEST(PerfMemImport, BadInputNamesTheLineAndTheProblem) {
    const std::string good = line(1, "1.000000", "10", "7f3a00000040", "1a69401042");
    std::string cut = good;
    cut.pop_back();
    EXPECT_EQ(error_of(good + cut),
              "line 2: the last line has no end of line: the file is truncated");
    EXPECT_EQ(error_of(good + "  4242 [002] 7f3a00000040 1a69401042 |OP LOAD|LVL RAM hit|SNP "
                              "Miss\n"),
              "line 2: no time (SEC.USEC: after the thread): the samples need perf script's "
              "`time` field (perf script -F tid,time,event,addr,data_src,period, or its default "
              "fields)");
    EXPECT_EQ(error_of("app [002] 1.000000: 10 cpu/mem-loads/P: 7f3a00000040 1a69401042 |OP LOAD|"
                       "LVL RAM hit|SNP Miss\n"),
              "line 1: 'app' before the time is not a thread id (TID or PID/TID): the samples "
              "need perf script's `tid` field");
    EXPECT_EQ(error_of("1.000000: 10 cpu/mem-loads/P: 7f3a00000040 1a69401042 |OP LOAD|SNP Miss\n"),
              "line 1: no thread id before the time: the samples need perf script's `tid` field");
    EXPECT_EQ(error_of("  1 1.000000: 10 cpu/mem-loads/P: 1a69401042 |OP LOAD|LVL RAM hit|SNP "
                       "Miss\n"),
              "line 1: no data address before the data source: the samples need perf script's "
              "`addr` field");
    EXPECT_EQ(error_of("  1 1.000000: 10 cpu/mem-loads/P: 7f3a00000040 55d0c6a011d9 main+0x49\n"),
              "line 1: no data source (a decode with |SNP): the samples need perf script's "
              "`data_src` field");
    EXPECT_EQ(error_of(good + line(1, "0.999999", "10", "7f3a00000040", "1a69401042")),
              "line 2: time goes backwards: 0.999999 s, before the previous sample's 1 s (perf "
              "script prints samples in time order)");
    EXPECT_EQ(error_of(line(1, "1.000000", "10", "7f3a0000004g", "1a69401042")),
              "line 1: data address '7f3a0000004g': not hexadecimal (perf prints it as %16lx)");
    EXPECT_EQ(error_of(line(1, "1.000000", "10", "7f3a00000040", "1a69401042",
                            "|OP READ|LVL RAM hit|SNP Miss")),
              "line 1: data source text '|OP READ|': perf prints '|OP LOAD|' for 0x1a69401042");
    EXPECT_EQ(error_of(line(1, "1.000000", "10", "7f3a00000040", "1a69401042",
                            "|XX LOAD|LVL RAM hit|SNP Miss")),
              "line 1: data source text '|XX': not perf's decode (|OP ..|LVL ..|SNP ..)");
    EXPECT_EQ(error_of(line(1, "1.000000", "10", "7f3a00000040", "e69401042")),
              "line 1: data source 0xe69401042: not a value perf_event.h defines (reserved bits "
              "or level number)");
    EXPECT_EQ(error_of(line(1, "1.000000", "0", "7f3a00000040", "1a69401042")),
              "line 1: period 0: a sample stands for at least one event");
    EXPECT_EQ(error_of("# only a header\n\n"), ": no memory samples");
}

// A profile's samples are not kept: what the import holds is the same for 1,000 samples as for
// 200,000 over the same threads, addresses and span.
TEST(PerfMemImport, MemoryDoesNotGrowWithSamples) {
    auto profile = [](int n) {
        std::string text;
        for (int i = 0; i < n; ++i) {
            // Four threads over 64 MiB and 10 s, whatever n.
            const int64_t us = int64_t{10000000} * i / n;
            char buf[256];
            std::snprintf(
                buf, sizeof buf,
                "%16s %7d [%03d] %6lld.%06lld: %10d %s: %16llx %16llx |OP LOAD|LVL RAM "
                "hit|SNP Miss|TLB L1 or L2 hit|LCK N/A|BLK  N/A\n",
                "app", 100 + i % 4, i % 4, static_cast<long long>(us / 1000000),
                static_cast<long long>(us % 1000000), 1000, "cpu/mem-loads,ldlat=30/P",
                static_cast<unsigned long long>(0x7f0000000000 + uint64_t(i % 1000) * 67072),
                static_cast<unsigned long long>(i % 3 ? kLocalRam : kRemoteRam));
            text += buf;
        }
        return text;
    };
    PerfMemImportStats small, large;
    const std::string a = temp_file("small", profile(1000));
    const std::string b = temp_file("large", profile(200000));
    import_perf_mem(a, {}, &small);
    import_perf_mem(b, {}, &large);
    std::filesystem::remove(a);
    std::filesystem::remove(b);
    EXPECT_EQ(small.samples, 1000);
    EXPECT_EQ(large.samples, 200000);
    EXPECT_GT(small.retained, 0);
    EXPECT_EQ(large.retained, small.retained);
}

}  // namespace
}  // namespace numasim

namespace numasim {
namespace {

// A 16-CPU machine of two nodes: CPUs 0-7 on node 0, 8-15 on node 1.
PerfMemImportOptions two_nodes_of_eight() {
    PerfMemImportOptions o;
    o.blocks = 2;
    for (int c = 0; c < 16; ++c)
        o.cpu_nodes.push_back(c < 8 ? 0 : 1);
    return o;
}

// The fixture's tid 4242 is sampled only on CPU 2 (node 0), tid 4243 only on CPU 9 (node 1):
// each is pinned to its node from its first phase; the other phases say nothing of affinity.
TEST(PerfMemImport, CpusFromSamplesPinsEachThreadToItsNode) {
    const std::string s = import_perf_mem(kFixtures + "perf-mem-default.txt", two_nodes_of_eight());
    EXPECT_NE(s.find("# --cpus-from-samples: a thread whose samples all came from CPUs of one"),
              std::string::npos)
        << s;
    EXPECT_NE(s.find("# tid 4242 app: samples from 0 s to 2.1001 s, all on CPUs of node 0\n"
                     "phases = [\n  { affinity = \"node:0\", rate_gbs = 0.000128,"),
              std::string::npos)
        << s;
    EXPECT_NE(s.find("# tid 4243 worker: samples from 0.5999 s to 1.8999 s, all on CPUs of node "
                     "1\nphases = [\n  { affinity = \"node:1\", rate_gbs = 0.000128,"),
              std::string::npos)
        << s;
    // Two pins, one per thread's first phase: nothing in later phases.
    size_t pins = 0;
    for (size_t at = s.find("{ affinity = \"node:"); at != std::string::npos;
         at = s.find("{ affinity = \"node:", at + 1))
        ++pins;
    EXPECT_EQ(pins, 2u) << s;
    // Without the option the same samples pin nothing.
    PerfMemImportOptions off;
    off.blocks = 2;
    EXPECT_EQ(import_perf_mem(kFixtures + "perf-mem-default.txt", off).find("affinity"),
              std::string::npos);
}

// A thread sampled on both nodes runs where the scheduler puts it; a first phase that sleeps
// carries the pin too.
TEST(PerfMemImport, CpusFromSamplesLeavesAThreadOfTwoNodesFree) {
    auto at = [](int tid, int cpu, const std::string& time, const std::string& addr) {
        return fmt::format(
            "             app {:>7} [{:03}] {}: 1000 cpu/mem-loads,ldlat=30/P: {} {:x} "
            "|OP LOAD|LVL RAM hit|SNP Miss|TLB L1 or L2 hit|LCK N/A|BLK  N/A\n",
            tid, cpu, time, addr, kLocalRam);
    };
    const std::string text =
        at(10, 1, "100.000000", "7f0000000040") + at(11, 12, "101.500000", "7f0000001040") +
        at(10, 9, "101.600000", "7f0000002040") + at(11, 15, "101.700000", "7f0000003040");
    const std::string path = temp_file("two-nodes", text);
    const std::string s = import_perf_mem(path, two_nodes_of_eight());
    std::filesystem::remove(path);
    EXPECT_NE(s.find("# tid 10 app: samples from 0 s to 1.6 s\nphases = [\n  { rate_gbs"),
              std::string::npos)
        << s;
    EXPECT_NE(s.find("# tid 11 app: samples from 1.5 s to 1.7 s, all on CPUs of node 1\nphases = "
                     "[\n  { affinity = \"node:1\", sleep = \"1000000us\" },"),
              std::string::npos)
        << s;
}

TEST(PerfMemImport, CpusFromSamplesNeedsTheCpusOfTheMachine) {
    const std::string beyond =
        "             app    4242 [016]  1000.000100:       1000 cpu/mem-loads,ldlat=30/P:     "
        "7f3a00000040       1a69401042 |OP LOAD|LVL RAM hit|SNP Miss|TLB L1 or L2 hit|LCK "
        "N/A|BLK  N/A\n";
    PerfMemImportOptions o = two_nodes_of_eight();
    o.machine = "tiny-16";
    EXPECT_EQ(error_of(beyond, o),
              "line 1: CPU 16 is not a CPU of --machine tiny-16 (0-15): --cpus-from-samples "
              "needs the machine the samples were recorded on");
    const std::string no_cpu =
        "             app    4242  1000.000100:       1000 cpu/mem-loads,ldlat=30/P:     "
        "7f3a00000040       1a69401042 |OP LOAD|LVL RAM hit|SNP Miss|TLB L1 or L2 hit|LCK "
        "N/A|BLK  N/A\n";
    EXPECT_EQ(error_of(no_cpu, o),
              "line 1: no CPU: --cpus-from-samples needs perf script's `cpu` field ([CPU])");
    EXPECT_EQ(error_of(no_cpu), "");
    EXPECT_EQ(error_of(beyond), "");
    EXPECT_EQ(
        error_of("             app    4242 [0x2]  1000.000100:       1000 "
                 "cpu/mem-loads,ldlat=30/P:     7f3a00000040       1a69401042 |OP LOAD|LVL RAM "
                 "hit|SNP Miss|TLB L1 or L2 hit|LCK N/A|BLK  N/A\n"),
        "line 1: CPU '[0x2]': not a CPU number (perf prints [%03d])");
}

}  // namespace
}  // namespace numasim
