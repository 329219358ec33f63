// Telemetry for the pids_active hash size (switch (d), the question Ingo Molnar asked in the
// seed posting 002): in each pids_active window of a VMA, how many distinct pids set a bit, and
// how many of them share their bit with another pid of the same window.
//
// LOCAL STAND-IN: the set of pids of the current window belongs in VmaNumabState (requested
// from the lead as `std::vector<int> pids_window`). Until then it lives in a thread-local side
// table keyed by the Vma's address; an entry is dropped whenever a VMA gets fresh numab state,
// so a Vma allocated at a recycled address never inherits another VMA's pids.
#pragma once

namespace numasim {

struct System;
struct Vma;

namespace numab {

// A hint fault by `pid` set its bit in the VMA's current window.
void pids_window_record(const Vma& vma, int pid);
// The window of `vma` ends (pids_active[1] ages into [0]): add one sample to sys.counters.
void pids_window_sample(System& sys, const Vma& vma);
// `vma` got new numab state: forget anything recorded under its address.
void pids_window_forget(const Vma& vma);

}  // namespace numab
}  // namespace numasim
