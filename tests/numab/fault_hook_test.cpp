// PlacementPolicy::kNumaFault: a policy that declares it decides the hinting faults the kernel
// would pass to should_numa_migrate_memory, worked by hand on tiny-2n (CPUs 0-1 node 0, 2-3
// node 1); a policy that does not declare it is never asked.
#include "numab/placement_policy.h"
#include "numab_fixture.h"

namespace numasim::test {
namespace {

// Migrates a page to the faulting CPU's node on the second fault in a row from that node (the
// kernel's two-stage filter without its early-life and group rules), and records what it saw.
class SecondFault : public PlacementPolicy {
  public:
    explicit SecondFault(uint32_t hooks = kNumaFault) : PlacementPolicy(hooks) {}
    int numa_fault(System& sys, Task&, const NumaFaultInfo& f) const override {
        seen.push_back(f);
        const int this_nid = sys.cpu_to_node(f.cpu);
        const bool was_set = !cpupid_pid_unset(f.last_cpupid);
        return was_set && sys.cpu_to_node(cpupid_to_cpu(f.last_cpupid)) == this_nid ? this_nid
                                                                                    : NUMA_NO_NODE;
    }
    mutable std::vector<NumaFaultInfo> seen;
};

TEST(NumaFaultHook, SecondFaultFromTheSameNodeMigrates) {
    NumabWorld w;
    Mm& mm = w.new_mm();
    Vma& vma = w.new_vma(mm, 16, 0);
    Task& p = w.new_task(mm, 1000, 2, true);  // CPU 2, node 1: page 3 on node 0 is misplaced
    SecondFault policy;
    w.sys.placement_policy = &policy;

    // First fault: the page was never faulted, so the policy leaves it; it is tagged (2, 1000).
    vma.protnone.set(3);
    do_numa_page(w.sys, p, vma, 3, false);
    ASSERT_EQ(policy.seen.size(), 1u);
    EXPECT_EQ(policy.seen[0].last_cpupid, CPUPID_UNSET);
    EXPECT_EQ(policy.seen[0].page_nid, 0);
    EXPECT_EQ(policy.seen[0].cpu, 2);
    EXPECT_EQ(policy.seen[0].address, kVmaStart + 3 * 4096);
    EXPECT_EQ(policy.seen[0].allowed_nodes, 0b11u);  // MPOL_DEFAULT: both nodes have memory
    EXPECT_FALSE(policy.seen[0].shared);
    EXPECT_TRUE(policy.seen[0].writable);
    EXPECT_EQ(vma.frame(3).nid, 0);
    EXPECT_EQ(vma.frame(3).last_cpupid(), cpu_pid_to_cpupid(2, 1000));
    EXPECT_EQ(w.sys.counters[Vm::numa_pages_migrated], 0u);

    // Second fault from node 1 (CPU 3 now): the previous tag's CPU 2 is on node 1, so migrate.
    p.cpu = 3;
    vma.protnone.set(3);
    do_numa_page(w.sys, p, vma, 3, false);
    ASSERT_EQ(policy.seen.size(), 2u);
    EXPECT_EQ(policy.seen[1].last_cpupid, cpu_pid_to_cpupid(2, 1000));
    EXPECT_EQ(vma.frame(3).nid, 1);
    EXPECT_EQ(w.sys.counters[Vm::numa_pages_migrated], 1u);

    // A local fault (page 3 is on node 1 now) never reaches the decision: no call.
    vma.protnone.set(3);
    do_numa_page(w.sys, p, vma, 3, false);
    EXPECT_EQ(policy.seen.size(), 2u);
    w.sys.placement_policy = nullptr;
}

// Where mainline's early-life rule would migrate a first touch at once, the policy's answer
// holds instead; a policy without the hook bit leaves the decision to the kernel.
TEST(NumaFaultHook, ReplacesTheKernelsDecisionOnlyWhenDeclared) {
    for (const bool declared : {true, false}) {
        NumabWorld w;
        Mm& mm = w.new_mm();
        Vma& vma = w.new_vma(mm, 16, 0);
        Task& p = w.new_task(mm, 1000, 2, true);
        p.numa_scan_seq = 0;  // early life: the kernel migrates an untagged page at once
        SecondFault policy(declared ? uint32_t{PlacementPolicy::kNumaFault} : 0u);
        w.sys.placement_policy = &policy;
        vma.protnone.set(7);
        do_numa_page(w.sys, p, vma, 7, false);
        EXPECT_EQ(policy.seen.size(), declared ? 1u : 0u);
        EXPECT_EQ(vma.frame(7).nid, declared ? 0 : 1);
        w.sys.placement_policy = nullptr;
    }
}

}  // namespace
}  // namespace numasim::test
