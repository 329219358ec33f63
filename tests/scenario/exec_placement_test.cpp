// sched_exec(): a task that execs while sharing a CPU moves to the idlest CPU.
#include <gtest/gtest.h>

#include "sim_fixture.h"

namespace numasim {
namespace {

TEST(ExecPlacement, ExecMovesAQueuedTaskToAnIdleCpu) {
    System sys(load_preset("tiny-2n"), load_profile("v6.12"), 3);
    Mm& mm = mm_create(sys);
    Vma& v = do_mmap(sys, mm, 8 << 20, VM_READ | VM_WRITE, "buf");
    Region* r = &add_region(sys, v, 0, v.nr_pages(), "buf");
    // Two tasks pinned to CPU 0; the second unpins itself and execs in its second phase.
    Phase pinned = testing::sweep_phase(r, 1.0);
    pinned.set_affinity = std::vector<int>{0};
    Phase after = testing::sweep_phase(r, 1e6);
    after.cpu_time = 200 * NSEC_PER_MSEC;
    after.clear_affinity = true;
    after.exec = true;
    testing::PhaseList a({pinned, after}), b({pinned, after});
    Task& ta = create_process(sys, mm, nullptr, "a", &a, 0, 0);
    Task& tb = create_thread(sys, ta, "b", &b, 1);
    Engine eng(sys);
    // Step until b has started its exec phase: at that moment it must already have left CPU 0
    // (without the exec it stays there until a load balance pulls it, a tick or more later).
    for (Nanos t = NSEC_PER_USEC * 100; t < 50 * NSEC_PER_MSEC; t += NSEC_PER_USEC * 100) {
        eng.run(t);
        if (eng.phase(tb) && eng.phase(tb)->exec) break;
    }
    ASSERT_TRUE(eng.phase(tb) && eng.phase(tb)->exec);
    EXPECT_NE(tb.cpu, 0);
    EXPECT_GE(tb.nr_migrations, 1u);
}

}  // namespace
}  // namespace numasim
