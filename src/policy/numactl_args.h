// numactl's command line (numactl 2.0.x, numactl.c and libnuma.c's numa_parse_nodestring), read
// as numactl reads it, into what numactl would set before exec(): the CPU affinity
// (sched_setaffinity) and the task memory policy (set_mempolicy). docs/placement-policies.md
// lists the options taken and the ones refused.
#pragma once

#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "mm/mempolicy.h"

namespace numasim {

struct Topology;

// What one numactl invocation sets for the program it starts.
struct NumactlBinding {
    // --cpunodebind (the CPUs of its nodes) or --physcpubind (its CPUs): the affinity mask,
    // ascending; unset: numactl leaves the affinity alone (every CPU).
    std::optional<std::vector<int>> cpus;
    // --membind, --interleave, --preferred or --localalloc (with --balancing: MPOL_BIND |
    // MPOL_F_NUMA_BALANCING); unset: MPOL_DEFAULT.
    std::optional<MemPolicy> mempolicy;
};

// A numactl command line that numactl would refuse on this machine, or that asks for what the
// simulator does not model. `option()` is the option at fault as given ("--membind=7").
class NumactlError : public std::runtime_error {
  public:
    NumactlError(std::string option, const std::string& problem);
    const std::string& option() const { return option_; }

  private:
    std::string option_;
};

// Parses numactl's options (an optional leading "numactl" word; no program after them: the
// program is the workload's) for `machine`. Node lists are numactl's: "0", "0,2", "0-3", "all",
// "!1" (every node but 1), "+0" (relative to the allowed nodes, here all of them), "same" (the
// previous option's list). Throws NumactlError.
NumactlBinding parse_numactl(std::string_view command_line, const Topology& machine);

}  // namespace numasim
