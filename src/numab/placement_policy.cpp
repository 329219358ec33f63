#include "numab/placement_policy.h"

namespace numasim {

// A policy without kExec is never asked (PlacementPolicy::has); one that declares it overrides
// this.
void PlacementPolicy::exec(System&, Task&, int) const {}

// Likewise kNumaFault: a policy not declaring it is never asked, so this answer is never used.
int PlacementPolicy::numa_fault(System&, Task&, const NumaFaultInfo&) const {
    return -1;  // NUMA_NO_NODE
}

}  // namespace numasim
