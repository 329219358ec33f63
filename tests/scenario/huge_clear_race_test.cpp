// Racing huge-page clears on the engine's clock (mm/huge_clear.h, docs/model.md "Racing
// huge-page clears"): two threads of one process write the same MADV_HUGEPAGE buffer once. A
// thread loses the race on each huge page whose clear by the other was in flight when it got
// there, and each loss is counted and paid as one more fault. (The window itself is tested by
// hand in tests/mm/huge_clear_test.cpp.)
#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "engine/engine.h"
#include "engine/process.h"
#include "kernel/system.h"
#include "machine/presets.h"
#include "numab/profile.h"
#include "workload/phase_list.h"

namespace numasim {
namespace {

// The fault's kernel time on tiny-2n: 1700 cycles at 2.5 GHz = 680 ns, plus 2 MiB cleared at
// one core's streaming rate (10 lines * 64 B / 90 ns) in 294,912 ns (tests/mm/huge_clear_test).
constexpr Nanos kFault = 680 + 294912;

struct Race {
    uint64_t losers = 0;
    uint64_t pgalloc = 0, pgfree = 0, thp_fault_alloc = 0, pgfault = 0;
    Nanos stime_a = 0, stime_b = 0;
};

// Thread A and thread B each write all of a 4-huge-page buffer once at 1 GB/s (2 MiB in
// 2,097,152 ns of user time). Each first pins itself to its CPU (A to CPU 0, B to CPU 1, both on
// node 0) and sleeps, B `delay` longer than A. No balancing.
Race run_race(Nanos delay) {
    NumaBalancingKnobs knobs;
    knobs.numa_balancing = 0;
    System sys(load_preset("tiny-2n"), knobs, 1);
    Mm& mm = mm_create(sys);
    Vma& vma = do_mmap(sys, mm, 4 * kPages4K.pmd_size(), VM_READ | VM_WRITE | VM_HUGEPAGE, "buf");
    Region& r = add_region(sys, vma, 0, vma.nr_pages(), "buf");
    auto program = [&](int cpu, Nanos sleep) {
        Phase pin;
        pin.cpu_time = 1;
        pin.sleep_after = sleep;
        pin.set_affinity = std::vector<int>{cpu};
        pin.exact_end = true;  // the sleep starts at once, not at the next tick
        Phase sweep;
        sweep.streams.push_back(AccessStream{&r, Pattern::Sweep, 1.0, 1.0});
        sweep.rate_gbs = 1.0;
        sweep.work_bytes = static_cast<double>(r.bytes());
        return std::make_unique<PhaseList>(std::vector<Phase>{pin, sweep});
    };
    std::vector<std::unique_ptr<PhaseList>> programs;
    programs.push_back(program(0, 1000000));
    programs.push_back(program(1, 1000000 + delay));
    Task& a = create_process(sys, mm, nullptr, "a", programs[0].get(), 0, 0);
    Task& b = create_thread(sys, a, "b", programs[1].get(), 1);
    Engine eng(sys);
    eng.set_check_invariants(true);
    eng.run(NSEC_PER_SEC);
    Race o;
    o.losers = eng.huge_clear_losers();
    o.pgalloc = sys.counters[Vm::pgalloc];
    o.pgfree = sys.counters[Vm::pgfree];
    o.thp_fault_alloc = sys.counters[Vm::thp_fault_alloc];
    o.pgfault = sys.counters[Vm::pgfault];
    o.stime_a = a.stime;
    o.stime_b = b.stime;
    return o;
}

TEST(HugeClearRace, AThreadThatMeetsAClearInFlightLosesAndPaysForIt) {
    // B wakes 0.7 ms after A, both write at the same rate, and B meets at least one of A's
    // clears in flight (the engine's order of the two CPUs within an event decides which
    // ones). Whatever the share, each loser is one more fault, one more huge page allocated and
    // freed, and one more fault's kernel time; no loser maps anything.
    const Race o = run_race(700000);
    EXPECT_GT(o.losers, 0u);
    EXPECT_EQ(o.thp_fault_alloc, 4u);
    EXPECT_EQ(o.pgfault, 4u + o.losers);
    EXPECT_EQ(o.pgalloc, 512u * (4u + o.losers));
    EXPECT_EQ(o.pgfree, 512u * o.losers);
    const auto faults = static_cast<Nanos>(4 + o.losers);
    EXPECT_GE(o.stime_a + o.stime_b, faults * kFault);
    EXPECT_LT(o.stime_a + o.stime_b, (faults + 1) * kFault);
}

TEST(HugeClearRace, AThreadThatComesAfterTheLastClearLosesNone) {
    // A writes the 8 MiB in about 7.5 ms of user time and 1.2 ms of faults; B starts 20 ms
    // later and finds every huge page mapped: no race, and B takes no fault.
    const Race late = run_race(20000000);
    EXPECT_EQ(late.losers, 0u);
    EXPECT_EQ(late.pgfault, 4u);
    EXPECT_EQ(late.pgalloc, 4u * 512);
    EXPECT_EQ(late.pgfree, 0u);
    EXPECT_GE(late.stime_a, 4 * kFault);
    EXPECT_LT(late.stime_b, kFault);
}

}  // namespace
}  // namespace numasim
