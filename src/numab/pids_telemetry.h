// Telemetry for the pids_active hash size (switch (d), the question Ingo Molnar asked in the
// seed posting 002): in each pids_active window of a VMA, how many distinct pids set a bit, and
// how many of them share their bit with another pid of the same window.
// The pids of the current window are kept in VmaNumabState::pids_window.
#pragma once

namespace numasim {

struct System;
struct Vma;

namespace numab {

// A hint fault by `pid` set its bit in the VMA's current window.
void pids_window_record(Vma& vma, int pid);
// The window of `vma` ends (pids_active[1] ages into [0]): add one sample to sys.counters.
void pids_window_sample(System& sys, Vma& vma);

}  // namespace numab
}  // namespace numasim
