// /proc/<pid>/sched NUMA lines in debug.c's layout.
#include "numab/proc_sched.h"
#include "numab_fixture.h"

namespace numasim::test {
namespace {

TEST(ProcSched, Layout) {
    NumabWorld w;
    Mm& mm = w.new_mm();
    mm.numa_scan_seq = 7;
    Task& p = w.new_task(mm, 1000, 2);
    p.numa_preferred_nid = 1;
    p.numa_pages_migrated = 12;
    w.set_mem_faults(p, 0, 3, 4);
    w.set_mem_faults(p, 1, 5, 6);
    const std::string s = sched_show_numa(w.sys, p);
    const std::string expect =
        "mm->numa_scan_seq                            :                    7\n"
        "numa_pages_migrated                          :                   12\n"
        "numa_preferred_nid                           :                    1\n"
        "total_numa_faults                            :                   18\n"
        "current_node=1, numa_group_id=0\n"
        "numa_faults node=0 task_private=4 task_shared=3 group_private=0 group_shared=0\n"
        "numa_faults node=1 task_private=6 task_shared=5 group_private=0 group_shared=0\n";
    EXPECT_EQ(s, expect);
}

}  // namespace
}  // namespace numasim::test
