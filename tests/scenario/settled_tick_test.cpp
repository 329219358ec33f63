// scheduler_tick()'s settled tick in place (System::settled_tick_in_place, sched/fair.cpp)
// changes nothing: the same workload run with the shortcut and with every tick taken the full
// way leaves every task and runqueue in the same scheduler state after every tick (vruntime,
// EEVDF request, PELT averages and marks, scan deadlines, min_vruntime, balance deadlines,
// resched and NO_HZ flags), with the same counters and pages at the end. The workloads settle
// (one CPU-bound thread per CPU) and are disturbed (migrations, wakeups onto settled CPUs), under
// EEVDF and CFS kernels, with deferred ticks on and off.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <string>
#include <vector>

#include "engine/engine.h"
#include "engine/sampler.h"
#include "kernel/system.h"
#include "machine/presets.h"
#include "numab/profile.h"
#include "same_outcome.h"
#include "same_workloads.h"

namespace numasim {
namespace {

using sametest::kLateArrivals;
using sametest::kNuma01;
using sametest::kPerfBenchSweep;
using sametest::kThreadlocal;

struct Case {
    const char* name;
    const char* machine;
    const char* profile;
    Nanos duration;
    const char* toml;  // [[workload]] tables
    // The engine's deferred ticks as well, sampled every 250 ms rather than at every tick (a
    // sample plays every held-back tick first, so a sample per tick leaves nothing deferred).
    bool deferred;
};

int64_t bits(double d) {
    return std::bit_cast<int64_t>(d);
}

// At every tick (or sample), the scheduler state of every task and runqueue.
class SchedSampler : public Sampler {
  public:
    explicit SchedSampler(Nanos every) : every_(every) {}
    Nanos interval() const override { return every_; }
    void sample(const System& sys) override {
        seen.push_back(sys.now);
        for (const auto& p : sys.tasks) {
            const SchedAvg& a = p->avg;
            seen.insert(seen.end(), {p->cpu,
                                     static_cast<int64_t>(p->state),
                                     p->sum_exec_runtime,
                                     p->utime,
                                     p->exec_start,
                                     bits(p->vruntime),
                                     bits(p->deadline),
                                     p->slice,
                                     bits(p->vlag),
                                     bits(a.load_avg),
                                     bits(a.runnable_avg),
                                     bits(a.util_avg),
                                     bits(a.load_sum),
                                     a.last_update_time,
                                     a.settled_delta,
                                     a.settled_runnable,
                                     a.settled_running,
                                     static_cast<int64_t>(a.settled_weight),
                                     p->node_stamp,
                                     static_cast<int64_t>(p->numa_scan_period),
                                     p->numa_work_pending,
                                     static_cast<int64_t>(p->nvcsw),
                                     static_cast<int64_t>(p->nivcsw)});
        }
        for (const Rq& rq : sys.rqs) {
            seen.insert(seen.end(),
                        {rq.curr ? rq.curr->pid : -1, static_cast<int64_t>(rq.nr_running),
                         bits(rq.min_vruntime), rq.clock, rq.next_balance, rq.need_resched,
                         rq.nohz_tick_stopped, static_cast<int64_t>(rq.nohz_flags),
                         static_cast<int64_t>(rq.nr_switches)});
        }
        const std::vector<uint64_t> c = sametest::counters(sys);
        for (uint64_t v : c)
            seen.push_back(static_cast<int64_t>(v));
    }
    std::vector<int64_t> seen;

  private:
    Nanos every_;
};

struct Outcome {
    std::vector<int64_t> samples;
    std::vector<uint64_t> counters;
    std::vector<uint64_t> pages;
    uint64_t in_place = 0;
};

Outcome run(const Case& c, bool in_place) {
    System sys(load_preset(c.machine), load_profile(c.profile), 9);
    sys.settled_tick_in_place = in_place;
    const auto workloads = sametest::setup_workloads(sys, c.toml);
    Engine eng(sys);
    eng.set_deferred_ticks(c.deferred);
    SchedSampler sampler(c.deferred ? msecs_to_ns(250) : TICK_NSEC);
    eng.add_sampler(sampler);
    eng.run(c.duration);
    return {std::move(sampler.seen), sametest::counters(sys), sametest::pages(sys),
            sys.settled_ticks_in_place};
}

class SettledTickTest : public testing::TestWithParam<Case> {};

TEST_P(SettledTickTest, SameSchedulerStateAtEveryTickAsTheFullTick) {
    const Outcome with = run(GetParam(), true);
    const Outcome without = run(GetParam(), false);
    EXPECT_EQ(without.in_place, 0u);
    // The shortcut is taken (93 to 16,938 times in these runs), so the comparison tests it.
    EXPECT_GT(with.in_place, 50u);
    ASSERT_EQ(with.samples.size(), without.samples.size());
    // The first difference, if any, by its position (a tick's record is a fixed size per run).
    const auto mismatch =
        std::mismatch(with.samples.begin(), with.samples.end(), without.samples.begin());
    EXPECT_TRUE(mismatch.first == with.samples.end())
        << "first difference at sample word " << (mismatch.first - with.samples.begin());
    EXPECT_EQ(with.counters, without.counters);
    EXPECT_EQ(with.pages, without.pages);
}

INSTANTIATE_TEST_SUITE_P(
    Workloads, SettledTickTest,
    testing::Values(
        Case{"ThreadlocalV66", "haswell-2s", "v6.6", msecs_to_ns(3000), kThreadlocal, false},
        Case{"ThreadlocalV66Deferred", "haswell-2s", "v6.6", msecs_to_ns(3000), kThreadlocal, true},
        Case{"ThreadlocalV419Cfs", "haswell-2s", "v4.19", msecs_to_ns(3000), kThreadlocal, false},
        Case{"Numa01V612", "haswell-2s", "v6.12", msecs_to_ns(2000), kNuma01, false},
        Case{"PerfBenchSweepV612", "haswell-2s", "v6.12", msecs_to_ns(2000), kPerfBenchSweep,
             false},
        Case{"LateArrivalsV612", "tiny-2n", "v6.12", msecs_to_ns(6000), kLateArrivals, false},
        Case{"LateArrivalsV612Deferred", "tiny-2n", "v6.12", msecs_to_ns(6000), kLateArrivals,
             true},
        Case{"LateArrivalsV419Cfs", "tiny-2n", "v4.19", msecs_to_ns(6000), kLateArrivals, false}),
    [](const testing::TestParamInfo<Case>& i) { return std::string(i.param.name); });

}  // namespace
}  // namespace numasim
