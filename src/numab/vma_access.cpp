// Per-VMA accessor tracking (v6.4+): vma_set_access_pid_bit() on hint faults and
// vma_is_accessed() in task_numa_work(), with the release differences selected by the knobs.
#include <bit>

#include "mm/mm.h"
#include "numab/internal.h"
#include "numab/pids_telemetry.h"

namespace numasim {

using namespace numab;

namespace {

// hash_32(pid, ilog2(BITS_PER_LONG)): 6 bits for the kernel's 64-bit word; the 128-bit variant
// of switch (d) uses 7 bits over two words.
unsigned pid_bit(const System& sys, int pid) {
    return hash_32(static_cast<uint32_t>(pid), sys.knobs.pids_active_bits == 128 ? 7 : 6);
}

bool test_pid_bit(const uint64_t (&slot)[2], unsigned bit) {
    return (slot[bit >> 6] >> (bit & 63)) & 1;
}

}  // namespace

void vma_set_access_pid_bit(System& sys, Vma& vma, Task& current) {
    if (!vma.numab_state) return;
    // Before v6.4 nothing tracked accessors; the bitmap is neither read nor counted then.
    if (sys.knobs.vma_scan == VmaScanSelection::All) return;
    uint64_t(&slot)[2] = vma.numab_state->pids_active[1];
    const unsigned bit = pid_bit(sys, current.pid);
    if (!test_pid_bit(slot, bit)) slot[bit >> 6] |= uint64_t{1} << (bit & 63);
    pids_window_record(vma, current.pid);
}

bool vma_is_accessed(System& sys, Mm& mm, Vma& vma, Task& current) {
    const NumaBalancingKnobs& k = sys.knobs;
    if (k.vma_scan == VmaScanSelection::All || !vma.numab_state) return true;
    const VmaNumabState& ns = *vma.numab_state;

    // 1. The first NUMA_UNCONDITIONAL_PASSES passes scan every VMA: mm-wide in v6.6-6.7,
    // counted from the VMA's own first pass since v6.8.
    const int passes =
        k.per_vma_start_scan_seq ? mm.numa_scan_seq - ns.start_scan_seq : mm.numa_scan_seq;
    if (passes < NUMA_UNCONDITIONAL_PASSES) return true;

    // 2. The current task faulted in this VMA recently (either pids_active slot).
    const unsigned bit = pid_bit(sys, current.pid);
    if (test_pid_bit(ns.pids_active[0], bit) || test_pid_bit(ns.pids_active[1], bit)) return true;

    // 3. v6.7+: finish a VMA whose scan another thread already started.
    if (k.vma_scan != VmaScanSelection::PidsActive && mm.numa_scan_offset > vma.start) {
        trace_sched_skip_vma_numa(sys, current, mm, vma, SkipVmaReason::IgnorePidInactive);
        return true;
    }

    // 4. v6.12 (f22cde4371f3): with few threads nobody else will scan this VMA for us.
    if (k.starvation_guard && mm.numa_scan_seq > ns.prev_scan_seq + mm.mm_users) return true;
    return false;
}

}  // namespace numasim
