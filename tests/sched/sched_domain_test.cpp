// Scheduling domains built from the presets, the NUMA topology type and imb_numa_nr.
#include "sched/sched_domain.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "machine/presets.h"
#include "sched/fair.h"

namespace numasim {
namespace {

std::vector<std::string> level_names(const SchedTopology& st, int cpu) {
    std::vector<std::string> out;
    for (const auto& sd : st.domains[cpu])
        out.push_back(sd.name);
    return out;
}

std::vector<int> range(int lo, int hi) {
    std::vector<int> v;
    for (int i = lo; i < hi; ++i)
        v.push_back(i);
    return v;
}

TEST(SchedDomains, Tiny2nHasMcAndOneNumaLevel) {
    const Topology t = load_preset("tiny-2n");
    const SchedTopology st = build_sched_domains(t);
    EXPECT_EQ(st.numa_topology_type, NumaTopologyType::Direct);
    EXPECT_EQ(st.numa_distances, (std::vector<int>{10, 21}));
    EXPECT_EQ(st.sched_max_numa_distance, 21);
    for (int cpu = 0; cpu < 4; ++cpu) {
        SCOPED_TRACE(cpu);
        // No SMT (one thread per core); PKG equals MC (one LLC per node) and collapses.
        EXPECT_EQ(level_names(st, cpu), (std::vector<std::string>{"MC", "NUMA"}));
        const auto& mc = st.domains[cpu][0];
        const auto& numa = st.domains[cpu][1];
        EXPECT_TRUE(mc.shares_llc);
        EXPECT_FALSE(mc.numa);
        EXPECT_EQ(mc.span, cpu < 2 ? range(0, 2) : range(2, 4));
        EXPECT_EQ(mc.groups.size(), 2u);  // single CPUs
        EXPECT_EQ(mc.min_interval_ms, 2u);
        EXPECT_TRUE(numa.numa);
        EXPECT_FALSE(numa.shares_llc);
        EXPECT_EQ(numa.span, range(0, 4));
        // The local group comes first, as sd->groups points at the group holding the CPU.
        EXPECT_EQ(numa.groups, cpu < 2 ? (std::vector<std::vector<int>>{{0, 1}, {2, 3}})
                                       : (std::vector<std::vector<int>>{{2, 3}, {0, 1}}));
        EXPECT_EQ(numa.imbalance_pct, 117);
        EXPECT_EQ(numa.cache_nice_tries, 2);
        EXPECT_EQ(numa.level, 1);
        EXPECT_EQ(st.sd_numa(cpu), &st.domains[cpu][1]);
        EXPECT_EQ(st.sd_llc(cpu), &st.domains[cpu][0]);
    }
}

TEST(SchedDomains, CascadeLakeLevels) {
    const Topology t = load_preset("cascadelake-2s");
    const SchedTopology st = build_sched_domains(t);
    EXPECT_EQ(st.numa_topology_type, NumaTopologyType::Direct);
    EXPECT_EQ(level_names(st, 0), (std::vector<std::string>{"SMT", "MC", "NUMA"}));
    const auto& d = st.domains[0];
    EXPECT_EQ(d[0].span, (std::vector<int>{0, 40}));  // siblings-last numbering
    EXPECT_EQ(d[0].imbalance_pct, 110);
    EXPECT_EQ(d[1].span.size(), 40u);    // one LLC per socket: 20 cores x 2
    EXPECT_EQ(d[1].groups.size(), 20u);  // the cores
    EXPECT_EQ(d[2].span.size(), 80u);
    EXPECT_EQ(d[2].groups.size(), 2u);
    // LLC levels have no NUMA allowance.
    EXPECT_EQ(d[0].imb_numa_nr, 0);
    EXPECT_EQ(d[1].imb_numa_nr, 0);
}

// The PMEM nodes (no CPUs) add no NUMA level: since v5.18 sched_init_numa counts the distances
// between nodes with CPUs only, so the machine has cascadelake-2s's shape with 72 CPUs.
TEST(SchedDomains, MemoryOnlyNodesAddNoLevel) {
    const Topology t = load_preset("cascadelake-2s-pmem");
    const SchedTopology st = build_sched_domains(t);
    EXPECT_EQ(st.numa_distances, (std::vector<int>{10, 21}));
    EXPECT_EQ(st.sched_max_numa_distance, 21);
    EXPECT_EQ(st.numa_topology_type, NumaTopologyType::Direct);
    EXPECT_EQ(level_names(st, 0), (std::vector<std::string>{"SMT", "MC", "NUMA"}));
    EXPECT_EQ(st.domains[0][2].span.size(), 72u);
    EXPECT_EQ(st.domains[0][2].groups.size(), 2u);
}

TEST(SchedDomains, CascadeLakeImbNumaNr) {
    // Section 7.4: at the first domain that is not LLC but whose child is: imb = nr_llcs, or
    // span/8 when nr_llcs == 1. build_sched_domains() evaluates this before the degenerate
    // domains are removed, so on x86 the first such domain is PKG (the socket, 40 CPUs, which
    // later collapses into MC): nr_llcs = 40 / 40 = 1, imb = 40 >> 3 = 5. The NUMA domain
    // above: imb * max(1, 80 / imb_span), imb_span = the first SD_NUMA domain above PKG = 80:
    // 5 * 1 = 5.
    const SchedTopology st = build_sched_domains(load_preset("cascadelake-2s"));
    const SchedDomain* numa = st.sd_numa(0);
    ASSERT_NE(numa, nullptr);
    EXPECT_EQ(numa->imb_numa_nr, 5);
}

TEST(SchedDomains, X86EightSocketGluelessMesh) {
    const Topology t = load_preset("x86-8s-144c");
    const SchedTopology st = build_sched_domains(t);
    // Distances 10/21/31: more than one remote distance. Nodes 0 and 2 are 31 apart and node 1
    // is 21 from both: a glueless mesh.
    EXPECT_EQ(st.numa_distances, (std::vector<int>{10, 21, 31}));
    EXPECT_EQ(st.sched_max_numa_distance, 31);
    EXPECT_EQ(st.numa_topology_type, NumaTopologyType::GluelessMesh);
    EXPECT_EQ(level_names(st, 0), (std::vector<std::string>{"SMT", "MC", "NUMA", "NUMA"}));
    const auto& d = st.domains[0];
    // Node 0 reaches nodes 1, 4 and 7 at 21: 4 nodes x 36 CPUs; then everything.
    EXPECT_EQ(d[2].span.size(), 144u);
    EXPECT_EQ(d[3].span.size(), 288u);
    EXPECT_EQ(d[2].groups.size(), 4u);  // the four nodes
    std::set<int> nodes;
    for (int c : d[2].span)
        nodes.insert(t.node_of(c));
    EXPECT_EQ(nodes, (std::set<int>{0, 1, 4, 7}));
    // imb_numa_nr: first non-LLC domain is PKG (36 CPUs, one LLC): 36 >> 3 = 4; imb_span is
    // the first NUMA domain (144): NUMA-21 gets 4 * 1, NUMA-31 gets 4 * 288/144 = 8. (Without
    // the PKG level the numbers agree here: nr_llcs = 144/36 = 4.)
    EXPECT_EQ(d[2].imb_numa_nr, 4);
    EXPECT_EQ(d[3].imb_numa_nr, 8);
    EXPECT_EQ(st.sd_numa(0), &d[2]);
}

TEST(SchedDomains, X86EightSocketTopLevelGroupsCoverOnce) {
    // build_overlap_sched_groups(): walk the span from this CPU, skipping CPUs already covered;
    // each new group is the child (NUMA-21) domain of the first uncovered CPU. From CPU 0:
    // node 0 -> {0,1,4,7}; node 2 (first uncovered) -> {1,2,3,6}; node 5 -> {1,4,5,6}. 3 groups.
    const Topology t = load_preset("x86-8s-144c");
    const SchedTopology st = build_sched_domains(t);
    const auto& top = st.domains[0][3];
    EXPECT_EQ(top.groups.size(), 3u);
}

// The machines of issue 39: their SLITs' distances and the NUMA topology type the kernel's
// init_numa_topology_type() finds in them.
TEST(SchedDomains, MachinesOfIssue39) {
    struct Row {
        const char* name;
        std::vector<int> distances;
        NumaTopologyType type;
    };
    const Row rows[] = {
        {"turin-2s-nps1", {10, 32}, NumaTopologyType::Direct},
        // No node is closer than 32 to both ends of a cross-socket pair.
        {"turin-2s-nps4", {10, 11, 12, 32}, NumaTopologyType::Backplane},
        // Nodes 0 and 4 (26) both have node 3 nearer: 21 and 15.
        {"graniterapids-2s-snc3", {10, 15, 17, 21, 23, 26}, NumaTopologyType::GluelessMesh},
        {"sapphirerapids-8s", {10, 21, 31}, NumaTopologyType::GluelessMesh},
        // Another chassis' sockets are 30 from every socket of this one.
        {"superdome-flex-16s", {10, 16, 17, 30}, NumaTopologyType::Backplane},
    };
    for (const auto& r : rows) {
        SCOPED_TRACE(r.name);
        const Topology t = load_preset(r.name);
        const SchedTopology st = build_sched_domains(t);
        EXPECT_EQ(st.numa_distances, r.distances);
        EXPECT_EQ(st.sched_max_numa_distance, r.distances.back());
        EXPECT_EQ(st.numa_topology_type, r.type);
        // The top domain spans the machine.
        EXPECT_EQ(st.domains[0].back().span.size(), static_cast<size_t>(t.nr_cpus()));
    }
}

TEST(SchedDomains, Power8BackplaneAndLevels) {
    const Topology t = load_preset("power8-2s4n");
    const SchedTopology st = build_sched_domains(t);
    // 10/20/40: the farthest pair (0, 2) at 40 has no node closer than 40 to both
    // (node 1: 20 from 0 but 40 from 2; node 3: 40 from 0): a backplane.
    EXPECT_EQ(st.numa_distances, (std::vector<int>{10, 20, 40}));
    EXPECT_EQ(st.numa_topology_type, NumaTopologyType::Backplane);
    // SMT8 core = the LLC (L3 per core): MC collapses into SMT; PKG is the node (5 cores).
    EXPECT_EQ(level_names(st, 0), (std::vector<std::string>{"SMT", "PKG", "NUMA", "NUMA"}));
    const auto& d = st.domains[0];
    EXPECT_EQ(d[0].span.size(), 8u);
    EXPECT_EQ(d[1].span.size(), 40u);
    EXPECT_EQ(d[2].span.size(), 80u);
    EXPECT_EQ(d[3].span.size(), 160u);
    // PKG is the first non-LLC domain: nr_llcs = 40 / 8 = 5, imb = 5. imb_span = first NUMA
    // domain above = 80: NUMA-20 5 * 1 = 5, NUMA-40 5 * 160/80 = 10.
    EXPECT_EQ(d[1].imb_numa_nr, 5);
    EXPECT_EQ(d[2].imb_numa_nr, 5);
    EXPECT_EQ(d[3].imb_numa_nr, 10);
}

TEST(SchedDomains, GroupsPartitionNonOverlappingLevels) {
    for (const char* name : {"tiny-2n", "tiny-4n", "cascadelake-2s", "power8-2s4n"}) {
        SCOPED_TRACE(name);
        const SchedTopology st = build_sched_domains(load_preset(name));
        for (const auto& per_cpu : st.domains)
            for (const auto& sd : per_cpu) {
                if (sd.numa && &sd != &per_cpu.front() && (&sd - 1)->numa) continue;
                std::vector<int> all;
                for (const auto& g : sd.groups)
                    all.insert(all.end(), g.begin(), g.end());
                std::sort(all.begin(), all.end());
                ASSERT_EQ(all, sd.span) << sd.name;
            }
    }
}

TEST(SchedDomains, GroupIdsSayWhichGroupsHoldACpu) {
    // The group sums cache (sched/sg_stats_cache.h) clears, when a CPU changes, the sums of the
    // groups whose ids cpu_groups lists for it: those ids must be exactly the groups holding
    // the CPU. On the 8-socket mesh the top level's groups overlap: CPU 0's three groups all
    // hold node 1's CPUs (X86EightSocketTopLevelGroupsCoverOnce).
    for (const char* name : {"x86-8s-144c", "cascadelake-2s", "power8-2s4n"}) {
        SCOPED_TRACE(name);
        const SchedTopology st = build_sched_domains(load_preset(name));
        int overlapping = 0;
        for (size_t cpu = 0; cpu < st.domains.size(); ++cpu)
            for (const auto& sd : st.domains[cpu]) {
                ASSERT_EQ(sd.group_ids.size(), sd.groups.size());
                for (int x : sd.span) {
                    const std::vector<int>& ids = st.cpu_groups[static_cast<size_t>(x)];
                    int holding = 0;
                    for (size_t g = 0; g < sd.groups.size(); ++g) {
                        const bool holds = std::find(sd.groups[g].begin(), sd.groups[g].end(), x) !=
                                           sd.groups[g].end();
                        const bool by_id =
                            std::find(ids.begin(), ids.end(), sd.group_ids[g]) != ids.end();
                        ASSERT_EQ(holds, by_id)
                            << "cpu " << cpu << " " << sd.name << " group " << g << " cpu " << x;
                        holding += holds;
                    }
                    overlapping += holding > 1;
                }
            }
        if (std::string(name) == "x86-8s-144c") {
            EXPECT_GT(overlapping, 0);
        }
    }
}

TEST(SchedDomains, HoldsCpuSaysWhichGroupsHoldTheDomainsCpu) {
    // tiny-2n: each CPU's own node comes first at the NUMA level, the other second; at MC the
    // CPU's own single-CPU group first.
    const SchedTopology tiny = build_sched_domains(load_preset("tiny-2n"));
    for (size_t cpu = 0; cpu < 4; ++cpu) {
        EXPECT_EQ(tiny.domains[cpu][0].holds_cpu, (std::vector<uint8_t>{1, 0}));
        EXPECT_EQ(tiny.domains[cpu][1].holds_cpu, (std::vector<uint8_t>{1, 0}));
    }
    // Against a search of each group, on machines with overlapping NUMA groups too.
    for (const char* name : {"x86-8s-144c", "power8-2s4n", "superdome-flex-16s"}) {
        SCOPED_TRACE(name);
        const SchedTopology st = build_sched_domains(load_preset(name));
        for (size_t cpu = 0; cpu < st.domains.size(); ++cpu)
            for (const auto& sd : st.domains[cpu]) {
                ASSERT_EQ(sd.holds_cpu.size(), sd.groups.size());
                ASSERT_TRUE(sd.holds_cpu.front());
                for (size_t g = 0; g < sd.groups.size(); ++g)
                    ASSERT_EQ(sd.holds_cpu[g] != 0,
                              std::find(sd.groups[g].begin(), sd.groups[g].end(),
                                        static_cast<int>(cpu)) != sd.groups[g].end());
            }
    }
}

TEST(SchedDomains, GroupPartsPartitionTheirGroup) {
    // tiny-2n numbers its groups as CPU 0's domains list them first: MC {0} 0, {1} 1; NUMA
    // {0, 1} 2, {2, 3} 3; then CPU 2's MC {2} 4, {3} 5. A node is its two CPUs; a CPU has no
    // parts; the machine's span is no group.
    const SchedTopology tiny = build_sched_domains(load_preset("tiny-2n"));
    ASSERT_EQ(tiny.nr_groups, 6);
    EXPECT_EQ(tiny.group_cpus[2], (std::vector<int>{0, 1}));
    EXPECT_EQ(tiny.group_parts[2], (std::vector<int>{0, 1}));
    EXPECT_EQ(tiny.group_parts[3], (std::vector<int>{4, 5}));
    for (size_t id : {0u, 1u, 4u, 5u})
        EXPECT_TRUE(tiny.group_parts[id].empty());
    // Wherever parts are listed, their CPUs put together are the group's, once each.
    for (const char* name : {"x86-8s-144c", "power8-2s4n", "superdome-flex-16s"}) {
        SCOPED_TRACE(name);
        const SchedTopology st = build_sched_domains(load_preset(name));
        int split = 0;
        for (size_t id = 0; id < st.group_parts.size(); ++id) {
            if (st.group_parts[id].empty()) continue;
            ++split;
            std::vector<int> all;
            for (int part : st.group_parts[id]) {
                ASSERT_LT(static_cast<size_t>(part), st.group_cpus.size());
                const auto& cpus = st.group_cpus[static_cast<size_t>(part)];
                all.insert(all.end(), cpus.begin(), cpus.end());
            }
            std::sort(all.begin(), all.end());
            ASSERT_EQ(all, st.group_cpus[id]) << "group " << id;
        }
        EXPECT_GT(split, 0);
    }
}

TEST(SchedDomains, SmtMaskIsEachCpusCore) {
    // cpu_smt_mask() against the topology's own sibling lists; sched_smt_present only where a
    // core has more than one thread (tiny-2n has none, power8 eight per core).
    for (const char* name : {"tiny-2n", "cascadelake-2s", "power8-2s4n", "epyc-7763-2s"}) {
        SCOPED_TRACE(name);
        const Topology t = load_preset(name);
        const SchedTopology st = build_sched_domains(t);
        ASSERT_EQ(st.smt_mask.size(), t.cpus.size());
        bool smt = false;
        for (int cpu = 0; cpu < t.nr_cpus(); ++cpu) {
            EXPECT_EQ(st.cpu_smt_mask(cpu), t.smt_siblings(cpu)) << "cpu " << cpu;
            smt |= t.smt_siblings(cpu).size() > 1;
        }
        EXPECT_EQ(st.smt_present, smt);
        EXPECT_EQ(st.smt_present, std::string(name) != "tiny-2n");
    }
}

TEST(AdjustNumaImbalance, Cases) {
    // dst_running > imb_numa_nr: no allowance, the imbalance stands.
    EXPECT_EQ(adjust_numa_imbalance(1, 3, 2), 1);
    EXPECT_EQ(adjust_numa_imbalance(5, 6, 5), 5);
    // Within the allowance, imbalances up to NUMA_IMBALANCE_MIN (2) are ignored...
    EXPECT_EQ(adjust_numa_imbalance(1, 2, 2), 0);
    EXPECT_EQ(adjust_numa_imbalance(2, 1, 2), 0);
    EXPECT_EQ(adjust_numa_imbalance(2, 5, 5), 0);
    EXPECT_EQ(adjust_numa_imbalance(0, 1, 5), 0);
    // ...larger ones are not.
    EXPECT_EQ(adjust_numa_imbalance(3, 2, 5), 3);
    EXPECT_EQ(adjust_numa_imbalance(3, 6, 5), 3);
}

}  // namespace
}  // namespace numasim
