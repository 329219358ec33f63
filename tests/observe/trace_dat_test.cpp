// The pieces of trace.dat checked byte by byte on hand-worked examples: the ring-buffer page
// encoder (kernel/trace/ring_buffer.c's layout, as libtraceevent's kbuffer reads it) and the
// entries and format files of observe/tracefs_formats.h.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "observe/ring_buffer_page.h"
#include "observe/tracefs_formats.h"
#include "sched/task.h"

namespace numasim {
namespace {

std::string bytes(std::initializer_list<int> b) {
    std::string s;
    for (int x : b)
        s += static_cast<char>(x);
    return s;
}

std::string le64(uint64_t v) {
    std::string s;
    put_le(s, v, 8);
    return s;
}

TEST(RingBufferPages, DeltasTimeExtendAndPageBreakByHand) {
    constexpr uint32_t kPage = 64;  // 16 bytes of header, 48 of events
    std::vector<std::string> pages;
    RingBufferPages rb(kPage, [&](std::string_view p) { pages.emplace_back(p); });
    const uint64_t t0 = 1000;
    rb.add(t0, "ABCD");          // first on the page: delta 0, type_len 1
    rb.add(t0 + 3, "EFGHIJKL");  // delta 3, type_len 2
    const uint64_t far = t0 + 3 + (uint64_t{1} << 27) + 5;
    rb.add(far, "MNOP");  // delta 2^27 + 5: a time extend {30, 5} + 1, then delta 0
    EXPECT_TRUE(pages.empty());
    rb.add(far + 1, "QRSTUVWXYZ01");  // 16 bytes: 36 + 16 > 48, so a new page
    ASSERT_EQ(pages.size(), 1u);
    rb.flush();
    ASSERT_EQ(pages.size(), 2u);
    EXPECT_EQ(rb.pages(), 2u);

    std::string p1 = le64(t0) + le64(36);
    p1 += bytes({0x01, 0, 0, 0}) + "ABCD";
    p1 += bytes({0x62, 0, 0, 0}) + "EFGHIJKL";           // 2 | 3 << 5
    p1 += bytes({0xbe, 0, 0, 0}) + bytes({1, 0, 0, 0});  // 30 | 5 << 5; 2^27 >> 27
    p1 += bytes({0x01, 0, 0, 0}) + "MNOP";
    p1.resize(kPage, '\0');
    EXPECT_EQ(pages[0], p1);

    std::string p2 = le64(far + 1) + le64(16);
    p2 += bytes({0x03, 0, 0, 0}) + "QRSTUVWXYZ01";
    p2.resize(kPage, '\0');
    EXPECT_EQ(pages[1], p2);
}

TEST(RingBufferPages, LargeEntryCarriesItsLength) {
    std::vector<std::string> pages;
    RingBufferPages rb(256, [&](std::string_view p) { pages.emplace_back(p); });
    const std::string entry(116, 'x');  // over 28 words: type_len 0, length word 116 + 4
    rb.add(7, entry);
    rb.flush();
    ASSERT_EQ(pages.size(), 1u);
    EXPECT_EQ(pages[0].substr(0, 16), le64(7) + le64(124));
    EXPECT_EQ(pages[0].substr(16, 8), bytes({0, 0, 0, 0, 120, 0, 0, 0}));
    EXPECT_EQ(pages[0].substr(24, 116), entry);
}

TEST(RingBufferPages, RefusesTimeGoingBackwards) {
    RingBufferPages rb(4096, [](std::string_view) {});
    rb.add(10, "ABCD");
    EXPECT_THROW(rb.add(9, "ABCD"), std::logic_error);
}

TEST(TracefsFormats, MoveNumaFormatFileAsTracefsHasIt) {
    const std::string f = tracefs_format(TraceEventId::sched_move_numa);
    EXPECT_EQ(f,
              "name: sched_move_numa\n"
              "ID: " +
                  std::to_string(tracefs_event_id(TraceEventId::sched_move_numa)) +
                  "\n"
                  "format:\n"
                  "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
                  "\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
                  "\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
                  "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
                  "\n"
                  "\tfield:pid_t pid;\toffset:8;\tsize:4;\tsigned:1;\n"
                  "\tfield:pid_t tgid;\toffset:12;\tsize:4;\tsigned:1;\n"
                  "\tfield:pid_t ngid;\toffset:16;\tsize:4;\tsigned:1;\n"
                  "\tfield:int src_cpu;\toffset:20;\tsize:4;\tsigned:1;\n"
                  "\tfield:int src_nid;\toffset:24;\tsize:4;\tsigned:1;\n"
                  "\tfield:int dst_cpu;\toffset:28;\tsize:4;\tsigned:1;\n"
                  "\tfield:int dst_nid;\toffset:32;\tsize:4;\tsigned:1;\n"
                  "\n"
                  "print fmt: \"pid=%d tgid=%d ngid=%d src_cpu=%d src_nid=%d dst_cpu=%d "
                  "dst_nid=%d\", REC->pid, REC->tgid, REC->ngid, REC->src_cpu, REC->src_nid, "
                  "REC->dst_cpu, REC->dst_nid\n");
}

TEST(TracefsFormats, SwitchLayoutOfTraceEventRawSchedSwitch) {
    const std::string f = tracefs_format(TraceEventId::sched_switch);
    for (const char* line : {"\tfield:char prev_comm[16];\toffset:8;\tsize:16;\tsigned:0;\n",
                             "\tfield:long prev_state;\toffset:32;\tsize:8;\tsigned:1;\n",
                             "\tfield:int next_prio;\toffset:60;\tsize:4;\tsigned:1;\n"})
        EXPECT_NE(f.find(line), std::string::npos) << line;
}

TEST(TracefsFormats, MoveNumaEntryByHand) {
    Task p;
    p.pid = 1001;
    p.tgid = 1000;
    TraceEvent e;
    e.id = TraceEventId::sched_move_numa;
    e.current = &p;
    e.a = &p;
    e.a_ngid = 1000;
    e.cpu1 = 2;
    e.nid1 = 0;
    e.cpu2 = 5;
    e.nid2 = 1;
    std::string out;
    tracefs_entry(out, e);
    const int id = tracefs_event_id(e.id);
    const std::string want = bytes({id & 0xff, id >> 8, 0, 0, 0xe9, 0x03, 0, 0,  // common
                                    0xe9,      0x03,    0, 0, 0xe8, 0x03, 0, 0,  // pid, tgid
                                    0xe8,      0x03,    0, 0, 2,    0,    0, 0,  // ngid, src_cpu
                                    0,         0,       0, 0, 5,    0,    0, 0,  // src_nid, dst_cpu
                                    1,         0,       0, 0});                  // dst_nid
    EXPECT_EQ(out, want);
}

TEST(TracefsFormats, SwitchEntryOfAPreemptedTaskToIdle) {
    Task p;
    p.pid = 7;
    p.comm = "a-name-longer-than-15";
    TraceEvent e;
    e.id = TraceEventId::sched_switch;
    e.cpu = 3;
    e.current = &p;
    e.a = &p;  // e.b null: the idle task
    e.prev_state = SwitchOutState::Preempted;
    std::string out;
    tracefs_entry(out, e);
    ASSERT_EQ(out.size(), 64u);
    EXPECT_EQ(out.substr(2, 2), bytes({0x01, 2}));  // irqs off, preempt depth 2
    EXPECT_EQ(out.substr(8, 16), std::string("a-name-longer-t") + '\0');
    EXPECT_EQ(out.substr(32, 8), le64(0x100));  // TASK_REPORT_MAX: "R+"
    EXPECT_EQ(out.substr(40, 16), std::string("swapper/3") + std::string(7, '\0'));
    EXPECT_EQ(out.substr(56, 4), bytes({0, 0, 0, 0}));
    EXPECT_EQ(out.substr(60, 4), bytes({120, 0, 0, 0}));
}

TEST(TracefsFormats, EntriesFillTheirStructs) {
    // sched_skip_vma_numa ends at 36 but holds unsigned longs: 40 with the tail padding.
    TraceEvent e;
    e.id = TraceEventId::sched_skip_vma_numa;
    std::string out;
    tracefs_entry(out, e);
    EXPECT_EQ(out.size(), 40u);
    EXPECT_NE(tracefs_format(e.id).find("\tfield:enum numa_vmaskip_reason reason;\toffset:32;"
                                        "\tsize:4;\tsigned:0;\n"),
              std::string::npos);
}

}  // namespace
}  // namespace numasim
