// init_numa_balancing() at thread creation and fork: sched_fork() runs before copy_mm() counts
// the new task or copies the mm, so a single-threaded creator restarts its mm's scan (at its
// first thread and at every fork), a multi-threaded one does not, and a forked child's mm is a
// copy of its parent's taken after that.
#include <gtest/gtest.h>

#include "engine/process.h"
#include "engine/program.h"
#include "kernel/system.h"
#include "machine/presets.h"
#include "mm/mm.h"
#include "numab/numab.h"
#include "numab/profile.h"
#include "sim/clock.h"

namespace numasim::test {
namespace {

class Idle : public TaskProgram {
  public:
    bool next_phase(Task&, Phase&) override { return false; }
};

struct ThreadCreation : ::testing::Test {
    System sys{load_preset("tiny-2n"), load_profile("v6.12"), 7};
    Idle idle;
    Mm* mm = nullptr;
    Task* main = nullptr;
    void SetUp() override {
        mm = &mm_create(sys);
        main = &create_process(sys, *mm, nullptr, "main", &idle, 0, 0);
        // The main thread has run alone for 30 s and completed five scan passes (as numa01tl's
        // main thread does under MPOL_BIND in the oracle's guest).
        sys.now = msecs_to_ns(30'000);
        mm->numa_scan_seq = 5;
        mm->numa_next_scan = msecs_to_ns(30'500);
    }
};

TEST_F(ThreadCreation, FirstThreadRestartsTheMmScan) {
    ASSERT_EQ(mm->mm_users, 1);
    Task& t = create_thread(sys, *main, "worker", &idle, 1);
    EXPECT_EQ(mm->numa_scan_seq, 0);
    EXPECT_EQ(t.numa_scan_seq, 0);
    // scan_delay_ms is 1000 (v6.12 default): the next scan is 1 s after the thread's creation.
    EXPECT_EQ(mm->numa_next_scan, msecs_to_ns(31'000));
    EXPECT_EQ(mm->mm_users, 2);
}

TEST_F(ThreadCreation, LaterThreadsLeaveTheScanAlone) {
    create_thread(sys, *main, "worker", &idle, 1);
    mm->numa_scan_seq = 3;
    mm->numa_next_scan = msecs_to_ns(30'200);
    Task& t = create_thread(sys, *main, "worker", &idle, 2);
    EXPECT_EQ(mm->numa_scan_seq, 3);
    EXPECT_EQ(t.numa_scan_seq, 3);
    EXPECT_EQ(mm->numa_next_scan, msecs_to_ns(30'200));
}

TEST_F(ThreadCreation, NewProcessStartsRestarted) {
    Mm& other = mm_create(sys);
    other.numa_scan_seq = 4;  // whatever the new mm held: a new process starts at pass 0
    create_process(sys, other, nullptr, "other", &idle, 0, 1);
    EXPECT_EQ(other.numa_scan_seq, 0);
    EXPECT_EQ(other.numa_next_scan, msecs_to_ns(31'000));
}

TEST_F(ThreadCreation, StaggerCountsTheThreadsBeforeTheNewOne) {
    // delay = min(task_scan_max(parent), a ms figure used as ns, and period * mm_users * 1e6
    // truncated to u32). A period of 4295 ms makes the second wrap: 4295e6 - 2^32 = 32704 with
    // 1 user (the kernel's count), 2 * 4295e6 - 2 * 2^32 = 65408 with 2 (the new thread counted
    // too); task_scan_max lies between, so only the kernel's count picks the second operand.
    main->numa_scan_period = 4295;
    const uint32_t smax = task_scan_max(sys, *main);
    ASSERT_GT(smax, 32704u);
    ASSERT_LT(smax, 65408u);
    Task& t = create_thread(sys, *main, "worker", &idle, 1);
    EXPECT_EQ(t.node_stamp, 32704 + 2 * TICK_NSEC);
}

// fork() of the main thread at pass 5: p->mm is still the parent's in sched_fork(), with 1 user.
TEST_F(ThreadCreation, SingleThreadedForkRestartsTheParentsScan) {
    mm->numa_scan_offset = 0x7000;
    Mm& child = dup_mm(sys, *mm);
    Task& c = create_process(sys, child, main, "child", &idle, 0, 1);
    EXPECT_EQ(mm->numa_scan_seq, 0);
    EXPECT_EQ(mm->numa_next_scan, msecs_to_ns(31'000));  // 30 s + scan_delay 1000 ms
    EXPECT_EQ(mm->numa_scan_offset, 0x7000u);            // the restart leaves the offset
    // dup_mm() copies the restarted mm; mm_init() resets none of the three.
    EXPECT_EQ(child.numa_scan_seq, 0);
    EXPECT_EQ(child.numa_next_scan, msecs_to_ns(31'000));
    EXPECT_EQ(child.numa_scan_offset, 0x7000u);
    EXPECT_EQ(c.numa_scan_seq, 0);
    EXPECT_EQ(mm->mm_users, 1);
    EXPECT_EQ(child.mm_users, 1);
}

// fork() from a process with two threads: nothing restarts, the child resumes the parent's pass.
TEST_F(ThreadCreation, MultiThreadedForkCopiesTheParentsScan) {
    create_thread(sys, *main, "worker", &idle, 1);
    mm->numa_scan_seq = 3;
    mm->numa_next_scan = msecs_to_ns(30'200);
    mm->numa_scan_offset = 0x9000;
    Mm& child = dup_mm(sys, *mm);
    Task& c = create_process(sys, child, main, "child", &idle, 0, 2);
    EXPECT_EQ(mm->numa_scan_seq, 3);
    EXPECT_EQ(mm->numa_next_scan, msecs_to_ns(30'200));
    EXPECT_EQ(child.numa_scan_seq, 3);
    EXPECT_EQ(child.numa_next_scan, msecs_to_ns(30'200));
    EXPECT_EQ(child.numa_scan_offset, 0x9000u);
    EXPECT_EQ(c.numa_scan_seq, 3);
    EXPECT_EQ(c.node_stamp, 0u);  // no stagger for a new address space
    EXPECT_EQ(c.numa_preferred_nid, NUMA_NO_NODE);
}

}  // namespace
}  // namespace numasim::test
