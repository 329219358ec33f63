#include "numab/pids_telemetry.h"

#include <algorithm>
#include <vector>

#include "kernel/system.h"
#include "numab/numab.h"

namespace numasim::numab {

namespace {

unsigned pid_hash_bits(const System& sys) {
    return sys.knobs.pids_active_bits == 128 ? 7 : 6;
}

}  // namespace

void pids_window_record(Vma& vma, int pid) {
    if (!vma.numab_state) return;
    std::vector<int>& pids = vma.numab_state->pids_window;
    if (std::find(pids.begin(), pids.end(), pid) == pids.end()) pids.push_back(pid);
}

void pids_window_sample(System& sys, Vma& vma) {
    if (!vma.numab_state || vma.numab_state->pids_window.empty()) return;
    std::vector<int>& window = vma.numab_state->pids_window;
    const unsigned bits = pid_hash_bits(sys);
    std::vector<int> per_bit(1u << bits, 0);
    for (int pid : window)
        ++per_bit[hash_32(static_cast<uint32_t>(pid), bits)];
    uint64_t colliding = 0;
    for (int n : per_bit)
        if (n > 1) colliding += static_cast<uint64_t>(n);
    ++sys.counters.pids_active_samples;
    sys.counters.pids_active_pids += window.size();
    sys.counters.pids_active_colliding_pids += colliding;
    window.clear();
}

}  // namespace numasim::numab
