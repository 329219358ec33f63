// Kernel profiles, the [numa_balancing] table and --set overrides.
#include <gtest/gtest.h>

#include "config/input_error.h"
#include "config/toml_reader.h"
#include "numab/profile.h"

namespace numasim {
namespace {

TEST(Profiles, AllFiveExist) {
    const auto names = profile_names();
    for (const char* n : {"v4.18", "v4.19", "v6.1", "v6.6", "v6.12"})
        EXPECT_NE(std::find(names.begin(), names.end(), n), names.end()) << n;
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
    for (const auto& k : {v418, v419, v61, v66, v612})
        EXPECT_TRUE(k.numa_preferred_nid && k.numa_task_migrate && k.numa_groups &&
                    k.numa_scan_adapt);
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

TEST(ApplyKnobs, RangeChecks) {
    NumaBalancingKnobs k;
    EXPECT_THROW(apply_knob_override(k, "pids_active_bits=100"), InputError);
    EXPECT_THROW(apply_knob_override(k, "numa_balancing=7"), InputError);
    EXPECT_THROW(apply_knob_override(k, "vma_scan=sometimes"), InputError);
    EXPECT_THROW(apply_knob_override(k, "scan_period_max_ms=10"), InputError);  // below min
}

TEST(KnobOverride, SetsAndNamesKeyOnError) {
    NumaBalancingKnobs k;
    apply_knob_override(k, "smallimp=0");
    EXPECT_EQ(k.smallimp, 0);
    apply_knob_override(k, "vma_scan=all");
    EXPECT_EQ(k.vma_scan, VmaScanSelection::All);
    apply_knob_override(k, " idle_early_stop = false ");
    EXPECT_FALSE(k.idle_early_stop);
    apply_knob_override(k, "cow_shared_test=mapcount");
    EXPECT_EQ(k.cow_shared_test, CowSharedTest::Mapcount);
    apply_knob_override(k, "sched_class=cfs");
    EXPECT_EQ(k.sched_class, SchedClass::Cfs);
    apply_knob_override(k, "numa_imbalance=imbalance_pct");
    EXPECT_EQ(k.numa_imbalance, NumaImbalance::ImbalancePct);
    apply_knob_override(k, "lb_rework=false");
    apply_knob_override(k, "numa_groups=false");
    EXPECT_FALSE(k.lb_rework);
    EXPECT_FALSE(k.numa_groups);
    try {
        apply_knob_override(k, "sched_class=bfs");
        FAIL();
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("eevdf_complete"), std::string::npos) << e.what();
    }
    try {
        apply_knob_override(k, "smalimp=0");
        FAIL();
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("smalimp"), std::string::npos);
    }
    try {
        apply_knob_override(k, "smallimp=abc");
        FAIL();
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("smallimp"), std::string::npos) << e.what();
    }
}

}  // namespace
}  // namespace numasim
