// Kernel profiles, the knob table and the [numa_balancing] table reader.
#include <gtest/gtest.h>

#include "config/input_error.h"
#include "config/toml_reader.h"
#include "numab/profile.h"

namespace numasim {
namespace {

// Every profile loads and states every knob itself, so that it describes its release fully.
TEST(Profiles, EveryProfileSetsEveryKnob) {
    const auto names = profile_names();
    ASSERT_FALSE(names.empty());
    for (const auto& name : names) {
        SCOPED_TRACE(name);
        KnobOrigins origins;
        load_profile(name, &origins);
        for (size_t i = 0; i < origins.size(); ++i)
            EXPECT_EQ(origins[i], "profile " + name) << knob_table()[i].name;
    }
}

TEST(Profiles, ReleaseDifferences) {
    const auto v418 = load_profile("v4.18");
    EXPECT_EQ(v418.smallimp, 0);
    EXPECT_FALSE(v418.idle_early_stop);
    EXPECT_EQ(v418.vma_scan, VmaScanSelection::All);
    EXPECT_FALSE(v418.numa_classify);
    EXPECT_EQ(v418.numa_imbalance, NumaImbalance::None);
    EXPECT_EQ(v418.cow_shared_test, CowSharedTest::Mapcount);
    const auto v419 = load_profile("v4.19");
    EXPECT_EQ(v419.smallimp, 30);
    EXPECT_TRUE(v419.idle_early_stop);
    EXPECT_FALSE(v419.numa_classify);
    const auto v61 = load_profile("v6.1");
    EXPECT_EQ(v61.vma_scan, VmaScanSelection::All);
    EXPECT_TRUE(v61.numa_classify);
    EXPECT_EQ(v61.numa_imbalance, NumaImbalance::ImbNumaNr);
    EXPECT_EQ(v61.cow_shared_test, CowSharedTest::Refcount);
    const auto v66 = load_profile("v6.6");
    EXPECT_EQ(v66.vma_scan, VmaScanSelection::PidsActive);
    EXPECT_TRUE(v66.thp_mapcount_check);
    EXPECT_FALSE(v66.per_vma_start_scan_seq);
    EXPECT_FALSE(v66.starvation_guard);
    EXPECT_FALSE(v66.pid_reset_before_check);
    const auto v612 = load_profile("v6.12");
    EXPECT_EQ(v612.vma_scan, VmaScanSelection::PidsActiveForced);
    EXPECT_TRUE(v612.per_vma_start_scan_seq);
    EXPECT_TRUE(v612.starvation_guard);
    EXPECT_EQ(v612.cow_shared_test, CowSharedTest::LikelyMappedShared);
    EXPECT_TRUE(v612.thp_sets_tnf_shared);
    EXPECT_FALSE(v612.thp_mapcount_check);
    // The scheduler each release ran: CFS and the pre-v5.5 balancer for v4.x, CFS with the
    // rework for v6.1, EEVDF from v6.6, its v6.12 completion.
    EXPECT_EQ(v418.sched_class, SchedClass::Cfs);
    EXPECT_FALSE(v418.lb_rework);
    EXPECT_FALSE(v419.lb_rework);
    EXPECT_EQ(v61.sched_class, SchedClass::Cfs);
    EXPECT_TRUE(v61.lb_rework);
    EXPECT_EQ(v66.sched_class, SchedClass::Eevdf);
    EXPECT_EQ(v612.sched_class, SchedClass::EevdfComplete);
    // The wake-up path: the idle-prev test of wake_affine_idle (v5.10) and recent_used_cpu set to
    // prev at every wake-up (v5.15).
    for (const auto& k : {v418, v419})
        EXPECT_FALSE(k.wake_affine_prev_idle || k.recent_used_cpu_prev);
    for (const auto& k : {v61, v66, v612})
        EXPECT_TRUE(k.wake_affine_prev_idle && k.recent_used_cpu_prev);
    for (const auto& k : {v418, v419, v61, v66, v612})
        EXPECT_TRUE(k.numa_preferred_nid && k.numa_task_migrate && k.numa_groups &&
                    k.numa_scan_adapt);
    // Per-VMA locks (v6.4) and batched migration flushes (v6.3).
    for (const auto& old : {v418, v419, v61}) {
        EXPECT_FALSE(old.per_vma_lock);
        EXPECT_FALSE(old.migrate_tlb_batch);
    }
    for (const auto& recent : {v66, v612}) {
        EXPECT_TRUE(recent.per_vma_lock);
        EXPECT_TRUE(recent.migrate_tlb_batch);
    }
}

TEST(Profiles, UnknownNameListsValidOnes) {
    try {
        load_profile("v5.0");
        FAIL();
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("v6.12"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("v5.0"), std::string::npos);
    }
}

TEST(ApplyKnobs, ReadsTableAndRejectsUnknownKeyWithLine) {
    const auto t = TomlTable::parse_text(
        "[numa_balancing]\nsmallimp = 0\nvma_scan = \"four_pass\"\npids_active_bits = 128\n",
        "scenario.toml");
    NumaBalancingKnobs k;
    apply_knobs(k, *t.table("numa_balancing"));
    EXPECT_EQ(k.smallimp, 0);
    EXPECT_EQ(k.vma_scan, VmaScanSelection::FourPass);
    EXPECT_EQ(k.pids_active_bits, 128);

    const auto bad =
        TomlTable::parse_text("[numa_balancing]\nsmallimp = 0\nsmalimp = 3\n", "s.toml");
    try {
        apply_knobs(k, *bad.table("numa_balancing"));
        FAIL();
    } catch (const InputError& e) {
        const std::string m = e.what();
        EXPECT_NE(m.find("s.toml"), std::string::npos) << m;
        EXPECT_NE(m.find("smalimp"), std::string::npos) << m;
    }
}

// Applies "key = value" lines as a [numa_balancing] table.
void apply_text(NumaBalancingKnobs& k, const std::string& lines) {
    const auto t = TomlTable::parse_text("[numa_balancing]\n" + lines + "\n", "s.toml");
    apply_knobs(k, *t.table("numa_balancing"));
}

std::string error_of(const std::string& lines) {
    NumaBalancingKnobs k;
    try {
        apply_text(k, lines);
    } catch (const InputError& e) {
        return e.what();
    }
    return "";
}

TEST(ApplyKnobs, ValidValuesComeFromTheTable) {
    EXPECT_NE(error_of("pids_active_bits = 100").find("must be 64 or 128, got 100"),
              std::string::npos);
    EXPECT_NE(error_of("numa_balancing = 7").find("between 0 and 3, got 7"), std::string::npos);
    EXPECT_NE(error_of("vma_scan = \"sometimes\"")
                  .find("valid: all, pids_active, pids_active_forced, four_pass"),
              std::string::npos);
    EXPECT_NE(error_of("idle_early_stop = 1").find("expected true or false"), std::string::npos);
    EXPECT_NE(error_of("scan_period_max_ms = 10").find("below scan_period_min_ms"),
              std::string::npos);
    EXPECT_NE(error_of("smallimp = \"abc\"").find("smallimp"), std::string::npos);
}

TEST(ApplyKnobs, SetsTheSchedulerHistoryKnobs) {
    NumaBalancingKnobs k;
    apply_text(k,
               "sched_class = \"cfs\"\nnuma_imbalance = \"imbalance_pct\"\nlb_rework = false\n"
               "numa_groups = false");
    EXPECT_EQ(k.sched_class, SchedClass::Cfs);
    EXPECT_EQ(k.numa_imbalance, NumaImbalance::ImbalancePct);
    EXPECT_FALSE(k.lb_rework);
    EXPECT_FALSE(k.numa_groups);
    EXPECT_NE(error_of("sched_class = \"bfs\"").find("eevdf_complete"), std::string::npos);
}

TEST(ApplyKnobs, SetsEveryKindAndRecordsWhere) {
    NumaBalancingKnobs k;
    KnobOrigins origins = default_knob_origins();
    const auto t = TomlTable::parse_text(
        "[numa_balancing]\nsmallimp = 0\nidle_early_stop = false\ncow_shared_test = "
        "\"mapcount\"\npids_active_bits = 128\n",
        "s.toml");
    apply_knobs(k, *t.table("numa_balancing"), &origins);
    EXPECT_EQ(k.smallimp, 0);
    EXPECT_FALSE(k.idle_early_stop);
    EXPECT_EQ(k.cow_shared_test, CowSharedTest::Mapcount);
    EXPECT_EQ(k.pids_active_bits, 128);
    const KnobInfo* smallimp = find_knob("smallimp");
    ASSERT_NE(smallimp, nullptr);
    EXPECT_EQ(origins[smallimp - knob_table().data()], "s.toml: numa_balancing.smallimp (line 2)");
    EXPECT_EQ(origins[find_knob("vma_scan") - knob_table().data()], "default");
}

// The struct's initializers and the table agree, and every default is a valid value.
TEST(KnobTable, DefaultsAreValid) {
    const NumaBalancingKnobs k;
    for (const KnobInfo& info : knob_table()) {
        SCOPED_TRACE(std::string(info.name));
        EXPECT_TRUE(knob_value_valid(info, info.get(k)));
        EXPECT_FALSE(info.description.empty());
        EXPECT_FALSE(info.kernel.empty());
        NumaBalancingKnobs copy = k;
        info.set(copy, info.get(k));
        EXPECT_EQ(info.get(copy), info.get(k));
    }
}

}  // namespace
}  // namespace numasim
