// The wake-up path of select_task_rq_fair() with hand-worked runqueues on two-node machines of
// 2 CPUs per node (one LLC each, no SMT): record_wakee/wake_wide from flip counts, the two
// wake_affine() tests, select_idle_sibling()'s recent_used_cpu, and whether a waker on the
// other node pulls the wakee (distance 21 within RECLAIM_DISTANCE, 32 beyond it).
#include "sched/select_task_rq.h"

#include <gtest/gtest.h>

#include <deque>
#include <string>
#include <utility>
#include <vector>

#include "kernel/system.h"
#include "machine/machine_file.h"
#include "machine/presets.h"
#include "sched/fair.h"

namespace numasim {
namespace {

// tiny-2n with another remote distance: CPUs 0,1 on node 0, CPUs 2,3 on node 1.
Topology two_nodes(int remote) {
    const std::string d = std::to_string(remote);
    return load_machine_text(R"([machine]
name = "t"
sockets = 2
nodes_per_socket = 1
cores_per_node = 2
threads_per_core = 1
memory_per_node = "1GiB"
distance = [[10, )" + d + "], [" +
                                 d + R"(, 10]]
[hardware]
latency_ns = { 10 = 90.0, )" + d +
                                 R"( = 140.0 }
dram_bandwidth_gbs = 60.0
link_bandwidth_gbs = 20.8
llc_mb = 16
llc_latency_ns = 20.0
line_fill_buffers = 10
smt_core_speedup = 1.0
cpu_ghz = 2.5
)",
                             "t.toml");
}

NumaBalancingKnobs off() {
    NumaBalancingKnobs k;
    k.numa_balancing = 0;
    return k;
}

// A machine whose runqueues the test fills by hand with tasks of known load_avg.
struct Rqs {
    explicit Rqs(Topology t) : sys(std::move(t), off(), 1) {}
    ~Rqs() {
        for (Rq& rq : sys.rqs) {
            rq.curr = nullptr;
            rq.queued.clear();
        }
    }
    // Adds tasks of these loads to the CPU: the first becomes curr if it has none.
    void fill(int cpu, const std::vector<double>& loads) {
        Rq& rq = sys.rqs[cpu];
        for (double l : loads) {
            Task& t = tasks.emplace_back();
            t.avg.load_avg = l;
            t.cpu = cpu;
            if (!rq.curr)
                rq.curr = &t;
            else
                rq.queued.push_back(&t);
            ++rq.nr_running;
        }
    }
    Task& sleeper(int prev, double load) {
        Task& p = tasks.emplace_back();
        p.cpu = prev;
        p.avg.load_avg = load;
        p.state = TaskState::Sleeping;
        p.allow_all(sys.nr_cpus());
        return p;
    }
    const SchedDomain& numa_level(int cpu) { return *sys.sched.sd_numa(cpu); }
    System sys;
    std::deque<Task> tasks;  // stable addresses
};

TEST(WakeWide, FlipCountsAgainstTheLlcSize) {
    // llc 2: the smaller count must reach 2 and the larger twice the smaller.
    EXPECT_FALSE(wake_wide(1, 1, 2));
    EXPECT_FALSE(wake_wide(40, 1, 2));  // a 1:N waker whose wakee has no other partner
    EXPECT_FALSE(wake_wide(3, 2, 2));   // 3 < 2 * 2
    EXPECT_TRUE(wake_wide(4, 2, 2));
    EXPECT_TRUE(wake_wide(2, 8, 2));  // either side may be the waker of many
    // A 24-CPU LLC (haswell-2s-24c's node): the smaller count must reach 24, the larger 24 x it.
    EXPECT_FALSE(wake_wide(12, 11, 24));
    EXPECT_FALSE(wake_wide(500, 23, 24));
    EXPECT_TRUE(wake_wide(576, 24, 24));
}

TEST(RecordWakee, CountsSwitchesAndHalvesOncePerSecond) {
    Task a, b;
    WakeeFlips w;
    record_wakee(w, a, 10);
    record_wakee(w, a, 20);  // same wakee: no flip
    EXPECT_EQ(w.wakee_flips, 1u);
    record_wakee(w, b, 30);
    record_wakee(w, a, 40);
    EXPECT_EQ(w.wakee_flips, 3u);
    EXPECT_EQ(w.wakee_flip_decay_ts, 0);
    // Exactly 1 s after the last decay (at 0) is not yet after it: no halving.
    record_wakee(w, b, WAKEE_FLIP_DECAY_NS);
    EXPECT_EQ(w.wakee_flips, 4u);
    record_wakee(w, a, 2 * WAKEE_FLIP_DECAY_NS);
    EXPECT_EQ(w.wakee_flips, 3u);  // 4 >> 1 = 2, then a new wakee
    EXPECT_EQ(w.wakee_flip_decay_ts, 2 * WAKEE_FLIP_DECAY_NS);
}

TEST(WakeAffineIdle, InterruptOnAnIdleCpuPullsOnlyWithinTheCache) {
    Rqs m(load_preset("tiny-2n"));
    // CPU 0 idle, prev 1 idle in the same LLC: stay on prev.
    EXPECT_EQ(wake_affine_idle(m.sys, 0, 1, false), 1);
    m.fill(1, {1024});
    EXPECT_EQ(wake_affine_idle(m.sys, 0, 1, false), 0);  // prev busy: the idle waking CPU
    m.fill(2, {1024});
    // prev 2 on the other node, busy: no cache shared, no idle prev.
    EXPECT_EQ(wake_affine_idle(m.sys, 0, 2, false), WAKE_AFFINE_NONE);
}

TEST(WakeAffineIdle, SyncWakerAloneAndIdlePrevByProfile) {
    Rqs m(load_preset("tiny-2n"));
    m.fill(0, {1024});
    // A sync waker alone on its CPU gives it up to the wakee.
    EXPECT_EQ(wake_affine_idle(m.sys, 0, 2, true), 0);
    EXPECT_EQ(wake_affine_idle(m.sys, 0, 2, false), 2);  // v5.10+: prev 2 is idle
    m.sys.knobs.wake_affine_prev_idle = false;
    EXPECT_EQ(wake_affine_idle(m.sys, 0, 2, false), WAKE_AFFINE_NONE);  // v4.x: weigh it
    m.fill(0, {1024});  // a second task on CPU 0: sync no longer applies
    EXPECT_EQ(wake_affine_idle(m.sys, 0, 2, true), WAKE_AFFINE_NONE);
}

TEST(WakeAffineWeight, LoadsWithTheNumaBias) {
    Rqs m(load_preset("tiny-2n"));
    const SchedDomain& numa = m.numa_level(0);
    ASSERT_EQ(numa.imbalance_pct, 117);  // bias 100 + 17 / 2 = 108
    m.fill(0, {1024});
    m.fill(2, {1024, 1024});
    Task& p = m.sleeper(2, 512);
    // this: (1024 + 512) * 100 * 1024 = 157286400; prev: (2048 - 512) * 108 * 1024 = 169869312.
    EXPECT_EQ(wake_affine_weight(m.sys, numa, p, m.sys.rqs[0].curr, 0, 2, false), 0);
    // One task less on prev: (1024 - 512) * 108 * 1024 = 56623104 < this.
    m.sys.rqs[2].queued.clear();
    m.sys.rqs[2].nr_running = 1;
    EXPECT_EQ(wake_affine_weight(m.sys, numa, p, m.sys.rqs[0].curr, 0, 2, false), WAKE_AFFINE_NONE);
    // Sync: the waker's own 1024 leaves CPU 0: this 512 * 100 * 1024 < prev 512 * 108 * 1024.
    EXPECT_EQ(wake_affine_weight(m.sys, numa, p, m.sys.rqs[0].curr, 0, 2, true), 0);
}

TEST(WakeAffineWeight, SyncBreaksATieTowardTheWaker) {
    Rqs m(load_preset("tiny-2n"));
    SchedDomain flat = m.numa_level(0);
    flat.imbalance_pct = 100;  // no bias: the loads alone
    m.fill(0, {0});            // a waker with no load yet
    m.fill(2, {1024});
    Task& p = m.sleeper(2, 512);
    // this (0 + 512) * 100 == prev (1024 - 512) * 100: a tie keeps prev, unless sync.
    EXPECT_EQ(wake_affine_weight(m.sys, flat, p, m.sys.rqs[0].curr, 0, 2, false), WAKE_AFFINE_NONE);
    EXPECT_EQ(wake_affine_weight(m.sys, flat, p, m.sys.rqs[0].curr, 0, 2, true), 0);
}

// The waker runs on CPU 0, every CPU is busy, and the wakee's prev (CPU 2) carries two tasks.
struct CrossNodeWake {
    explicit CrossNodeWake(int remote) : m(two_nodes(remote)) {
        m.fill(0, {1024});
        m.fill(1, {1024});
        m.fill(2, {1024, 1024});
        m.fill(3, {1024});
    }
    int wake() {
        Task& p = m.sleeper(2, 512);
        wakee = &p;
        return select_task_rq_fair(m.sys, p, 2, {.cpu = 0, .task = m.sys.rqs[0].curr});
    }
    Rqs m;
    Task* wakee = nullptr;
};

TEST(SelectTaskRqFair, Distance21PullsTheWakeeToTheWakersNode) {
    CrossNodeWake w(21);
    EXPECT_TRUE(w.m.numa_level(0).wake_affine);
    // wake_affine_weight at the NUMA level prefers CPU 0 (the worked example above); its LLC has
    // no idle CPU, so the wakee queues there.
    EXPECT_EQ(w.wake(), 0);
    EXPECT_EQ(w.wakee->nr_wakeups_affine_attempts, 1u);
    EXPECT_EQ(w.wakee->nr_wakeups_affine, 1u);
    EXPECT_EQ(w.m.sys.rqs[0].curr->wakee.wakee_flips, 1u);
}

TEST(SelectTaskRqFair, Distance32BeyondReclaimDistanceStaysOnPrev) {
    CrossNodeWake w(32);
    EXPECT_FALSE(w.m.numa_level(0).wake_affine);
    EXPECT_TRUE(w.m.sys.sched.domains[0][0].wake_affine);  // MC keeps it
    EXPECT_EQ(w.wake(), 2);
    EXPECT_EQ(w.wakee->nr_wakeups_affine_attempts, 0u);
}

TEST(SelectTaskRqFair, WakeWideSkipsTheAffineTest) {
    CrossNodeWake w(21);
    // Waker and wakee both switch partners often (llc size 2): 8 and 4 flips.
    w.m.sys.rqs[0].curr->wakee.wakee_flips = 7;  // record_wakee adds one
    Task& p = w.m.sleeper(2, 512);
    p.wakee.wakee_flips = 4;
    EXPECT_EQ(select_task_rq_fair(w.m.sys, p, 2, {.cpu = 0, .task = w.m.sys.rqs[0].curr}), 2);
    EXPECT_EQ(p.nr_wakeups_affine_attempts, 0u);
}

TEST(SelectIdleSibling, RecentUsedCpuByProfile) {
    Rqs m(load_preset("tiny-2n"));
    m.fill(0, {1024});
    Task& p = m.sleeper(0, 512);
    // v5.15+: every wake-up records prev; the next one may take the idle recent CPU 1.
    EXPECT_EQ(select_idle_sibling(m.sys, p, 0, 0), 1);  // LLC scan: CPU 1 is idle
    EXPECT_EQ(p.recent_used_cpu, 0);
    p.recent_used_cpu = 1;
    EXPECT_EQ(select_idle_sibling(m.sys, p, 0, 0), 1);
    EXPECT_EQ(p.recent_used_cpu, 0);
    // v4.x: a wake-up that does not take the recent CPU leaves it as it was.
    m.sys.knobs.recent_used_cpu_prev = false;
    m.fill(1, {1024});
    p.recent_used_cpu = 1;
    EXPECT_EQ(select_idle_sibling(m.sys, p, 0, 0), 0);  // all busy: the target
    EXPECT_EQ(p.recent_used_cpu, 1);
}

TEST(SelectTaskRqFair, TimerWakeUpStaysOnTheSleepersCpu) {
    Rqs m(load_preset("tiny-2n"));
    m.fill(2, {1024});
    m.fill(3, {1024});
    Task& p = m.sleeper(2, 512);
    const Waker w = timer_waker(m.sys, p);
    EXPECT_EQ(w.cpu, 2);
    EXPECT_EQ(w.task, m.sys.rqs[2].curr);
    // this_cpu == prev: no wake_affine(); node 0 is idle but not in prev's LLC.
    EXPECT_EQ(select_task_rq_fair(m.sys, p, 2, w), 2);
    EXPECT_EQ(p.nr_wakeups_affine_attempts, 0u);
}

}  // namespace
}  // namespace numasim
