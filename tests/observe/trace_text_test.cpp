// The ftrace text layout and --trace-events, checked against the kernel's formats.
#include <gtest/gtest.h>

#include <bit>
#include <string>

#include "config/input_error.h"
#include "observe/ftrace_writer.h"
#include "observe/trace_selection.h"
#include "sched/task.h"

namespace numasim {
namespace {

TEST(FtraceText, HeaderAsTheTraceFileStarts) {
    const std::string h = ftrace_header(12, 4);
    EXPECT_EQ(h.substr(0, h.find('\n', h.find("#P:"))),
              "# tracer: nop\n#\n# entries-in-buffer/entries-written: 12/12   #P:4");
    EXPECT_NE(h.find("#           TASK-PID     CPU#  |||||  TIMESTAMP  FUNCTION\n"),
              std::string::npos);
}

TEST(FtraceText, LineLayoutOfTraceOutputC) {
    Task p;
    p.pid = 1001;
    p.tgid = 1000;
    p.comm = "a-very-long-thread-name";  // TASK_COMM_LEN: 15 characters show
    TraceEvent e;
    e.id = TraceEventId::sched_move_numa;
    e.ts = 12 * NSEC_PER_SEC + 345678 * NSEC_PER_USEC + 499;  // rounded down, as ns2usecs does
    e.cpu = 2;
    e.current = &p;
    e.a = &p;
    e.a_ngid = 1000;
    e.cpu1 = 2;
    e.nid1 = 1;
    e.cpu2 = 0;
    e.nid2 = 0;
    std::string line;
    ftrace_line(line, e, {});
    // "%16s-%-7d [%03d] " + irq flags + " %5lu.%06lu: " + event + ": " + TP_printk
    EXPECT_EQ(line,
              " a-very-long-thr-1001    [002] .....    12.345678: sched_move_numa: pid=1001 "
              "tgid=1000 ngid=1000 src_cpu=2 src_nid=1 dst_cpu=0 dst_nid=0\n");
    // ... and up from half a microsecond, into the next second here.
    e.ts = 12 * NSEC_PER_SEC + 999999 * NSEC_PER_USEC + 500;
    line.clear();
    ftrace_line(line, e, {});
    EXPECT_NE(line.find("    13.000000: sched_move_numa:"), std::string::npos) << line;
}

TEST(FtraceText, SwitchFromIdleNamesTheSwapperTask) {
    Task next;
    next.pid = 7;
    next.comm = "numa01";
    TraceEvent e;
    e.id = TraceEventId::sched_switch;
    e.cpu = 3;
    e.b = &next;
    std::string line;
    ftrace_line(line, e, {});
    EXPECT_EQ(line,
              "          <idle>-0       [003] d..2.     0.000000: sched_switch: "
              "prev_comm=swapper/3 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=numa01 "
              "next_pid=7 next_prio=120\n");
}

TEST(TraceEvents, NamesSystemsAndAll) {
    EXPECT_EQ(parse_trace_events("all", "--trace-events"), kAllTraceEvents);
    EXPECT_EQ(parse_trace_events("sched_switch, migrate:*", "--trace-events"),
              trace_bit(TraceEventId::sched_switch) | trace_bit(TraceEventId::mm_migrate_pages));
    const TraceEventMask sched = parse_trace_events("sched:*", "--trace-events");
    EXPECT_FALSE(sched & trace_bit(TraceEventId::mm_migrate_pages));
    EXPECT_TRUE(sched & trace_bit(TraceEventId::sched_swap_numa));
    EXPECT_EQ(trace_events_text(trace_bit(TraceEventId::sched_move_numa)),
              "sched:sched_move_numa\n");
    // Reclaim's seven events are the vmscan system; mm_migrate_pages_start is had by name only.
    EXPECT_EQ(parse_trace_events("vmscan:*", "--trace-events"), kVmscanTraceEvents);
    EXPECT_EQ(std::popcount(kVmscanTraceEvents), 7);
    const TraceEventMask start = trace_bit(TraceEventId::mm_migrate_pages_start);
    EXPECT_FALSE(parse_trace_events("all", "--trace-events") & start);
    EXPECT_EQ(parse_trace_events("mm_migrate_pages_start", "--trace-events"), start);
    EXPECT_EQ(trace_events_text(start), "migrate:mm_migrate_pages_start\n");
}

TEST(TraceEvents, UnknownNameIsAnError) {
    EXPECT_THROW(parse_trace_events("sched_move_numa,sched_nope", "--trace-events"), InputError);
    EXPECT_THROW(parse_trace_events("sched_switch,,", "--trace-events"), InputError);
    EXPECT_THROW(parse_trace_events("migrate:sched_switch", "--trace-events"), InputError);
}

}  // namespace
}  // namespace numasim
