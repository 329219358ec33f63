// /proc/vmstat as the kernel prints it: vmstat_show() writes one "name value" line per counter,
// in the order of mm/vmstat.c's vmstat_text. A dump of a simulated run can be compared with a
// real one with diff, after keeping only the real dump's lines for the counters numasim has.
#pragma once

#include <string>
#include <string_view>

#include "kernel/counters.h"

namespace numasim {

// Whether the /proc/vmstat of kernel `release` ("v6.6", a profile name) lists `name`: the THP
// migration counters arrived in v5.9 (1a5bae25e3cf, "mm/vmstat: add events for THP migration
// without split"), the node stats pgpromote_success in v5.18 and pgpromote_candidate in v6.0
// (printed whatever numa_balancing's mode, as node stats always are); everything else numasim
// counts is older than the oldest profile (v4.18).
// A release that does not read as vMAJOR.MINOR counts as a current kernel.
bool proc_vmstat_lists(std::string_view name, std::string_view release);

// The counters numasim keeps that kernel `release` lists, "name value\n": kProcVmstatOrder with
// the promotion node stats (summed over the nodes) after the NUMA event counters.
std::string proc_vmstat_text(const Counters& c, std::string_view release);

}  // namespace numasim
