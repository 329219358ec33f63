#include "numab/pids_telemetry.h"

#include <algorithm>
#include <unordered_map>
#include <vector>

#include "engine/system.h"
#include "numab/numab.h"

namespace numasim::numab {

namespace {

// One table per thread: a System runs on a single thread, so no locking is needed.
thread_local std::unordered_map<const Vma*, std::vector<int>> g_windows;

unsigned pid_hash_bits(const System& sys) {
    return sys.knobs.pids_active_bits == 128 ? 7 : 6;
}

}  // namespace

void pids_window_record(const Vma& vma, int pid) {
    std::vector<int>& pids = g_windows[&vma];
    if (std::find(pids.begin(), pids.end(), pid) == pids.end()) pids.push_back(pid);
}

void pids_window_sample(System& sys, const Vma& vma) {
    auto it = g_windows.find(&vma);
    if (it == g_windows.end() || it->second.empty()) return;
    const unsigned bits = pid_hash_bits(sys);
    std::vector<int> per_bit(1u << bits, 0);
    for (int pid : it->second)
        ++per_bit[hash_32(static_cast<uint32_t>(pid), bits)];
    uint64_t colliding = 0;
    for (int n : per_bit)
        if (n > 1) colliding += static_cast<uint64_t>(n);
    ++sys.counters.pids_active_samples;
    sys.counters.pids_active_pids += it->second.size();
    sys.counters.pids_active_colliding_pids += colliding;
    it->second.clear();
}

void pids_window_forget(const Vma& vma) {
    g_windows.erase(&vma);
}

}  // namespace numasim::numab
