// EventQueue: events pop in (time, insertion order): the total order that makes runs
// reproducible. Also the clock helpers.
// event_queue.h uses size_t without including <cstddef> (reported); include it first.
#include <cstddef>

#include "sim/event_queue.h"

#include <gtest/gtest.h>

#include "sim/clock.h"

namespace numasim {
namespace {

TEST(EventQueue, OrdersByTimeThenInsertion) {
    EventQueue q;
    q.push(5, 1);
    q.push(3, 2);
    q.push(5, 3);
    q.push(3, 4);
    q.push(4, 5);
    EXPECT_EQ(q.size(), 5u);
    EXPECT_EQ(q.top().when, 3);
    const uint32_t expect_kind[] = {2, 4, 5, 1, 3};
    const Nanos expect_when[] = {3, 3, 4, 5, 5};
    for (int i = 0; i < 5; ++i) {
        const Event e = q.pop();
        EXPECT_EQ(e.kind, expect_kind[i]) << i;
        EXPECT_EQ(e.when, expect_when[i]) << i;
    }
    EXPECT_TRUE(q.empty());
}

TEST(EventQueue, ManyEventsAtOneTimeKeepInsertionOrder) {
    EventQueue q;
    for (int i = 0; i < 1000; ++i)
        q.push(100, 0, i, -i);
    for (int i = 0; i < 1000; ++i) {
        const Event e = q.pop();
        ASSERT_EQ(e.a, i);
        ASSERT_EQ(e.b, -i);
    }
}

TEST(EventQueue, SequenceNumbersKeepIncreasingAcrossPops) {
    EventQueue q;
    q.push(10, 1);
    const Event first = q.pop();
    q.push(10, 2);  // same time, later insertion: later sequence number
    q.push(9, 3);
    EXPECT_EQ(q.pop().kind, 3u);
    const Event e = q.pop();
    EXPECT_EQ(e.kind, 2u);
    EXPECT_GT(e.seq, first.seq);
}

TEST(Clock, TickAndJiffies) {
    // HZ = 250: one tick is 4 ms.
    EXPECT_EQ(TICK_NSEC, 4 * NSEC_PER_MSEC);
    EXPECT_EQ(ns_to_jiffies(3 * TICK_NSEC - 1), 2);
    EXPECT_EQ(ns_to_jiffies(3 * TICK_NSEC), 3);
    EXPECT_EQ(msecs_to_ns(250), 250 * NSEC_PER_MSEC);
    EXPECT_DOUBLE_EQ(ns_to_s(1500 * NSEC_PER_MSEC), 1.5);
}

}  // namespace
}  // namespace numasim
