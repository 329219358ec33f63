// The lines the oracle's guest prints on its serial console for the host to read. Every line
// starts with "NUMASIM ", then a kind, then space-separated key=value words (values have no
// spaces), except `error`, `warning` and `progress`, whose rest is free text:
//
//   NUMASIM kernel release=6.1.0-57-amd64
//   NUMASIM node id=0 cpus=0-1 mem_kb=1951736 distance=10,21
//   NUMASIM setting numa_balancing=1                      (each knob as read back)
//   NUMASIM tier id=4 nodes=0                             (a tiered guest: each memory tier)
//   NUMASIM hmat node=1 latency_ns=305 bandwidth_mbs=39400  (... and each node's HMAT figures)
//   NUMASIM vmstat when=before numa_pte_updates=0 ...     (all of /proc/vmstat; when=after too)
//   NUMASIM runner start processes=1 tasks=4 duration_s=20
//   NUMASIM progress <text>                               (the runner's own progress)
//   NUMASIM sample t_s=1.00 numa_pte_updates=57683 ...    (--sample: deltas since the start)
//   NUMASIM region process=numa01_tl instance=0 name=buffer when=end N0=65536 N1=0
//   NUMASIM task process=numa01_tl instance=0 thread=1 pid=.. comm=.. cpu=2 node=1 <sched>...
//   NUMASIM runner end rc=0 elapsed_s=20.1
//   NUMASIM probe event=task_numa_work armed=1            (a kprobe event counted per thread)
//   NUMASIM probe event=task_numa_work pid=.. hits=13     (its count for one thread, at the end)
//   NUMASIM calibrate from=0 to=1 placed=1 latency_ns=131.2 latency_ns_runs=5 ...
//                                                 (--calibrate-ms: one node pair,
//                                                 guest/calibrate.h)
//   NUMASIM damon <text>                                  (--damon: one line of the DAMON
//                                                 record, guest/damon.h; `#` comments, then
//                                                 the trace buffer's damon_aggregated lines)
//   NUMASIM error <text>
//   NUMASIM end rc=0
//
// The init script (guest/init.sh) prints kernel, node, setting, tier, hmat, vmstat, probe and
// end; the runner (numasim-guest) prints the rest; the host reads them with oracle/guest_log.h.
#pragma once

#include <array>
#include <string_view>

namespace numasim::guest_line {

// The [[workload]] types numasim-guest has a program for (guest/programs.h).
inline constexpr std::array<std::string_view, 3> kGuestPrograms = {"streams", "autonumabench",
                                                                   "cowsum"};

// The placement policies the guest runs (guest/numactl.h): the kernel's own, and static
// bindings. The first is the scenario's default.
inline constexpr std::array<std::string_view, 2> kGuestPolicies = {"mainline", "numactl"};

inline constexpr std::string_view kPrefix = "NUMASIM ";
// The kernel command-line word that makes the init answer a boot probe and power off.
inline constexpr std::string_view kProbeWord = "numasim.probe";
inline constexpr std::string_view kProbeReply = "probe-ok";

}  // namespace numasim::guest_line
