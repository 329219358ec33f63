#include "numab/placement_policy.h"

namespace numasim {

// A policy without a hook is never asked for it (PlacementPolicy::has); one that declares it
// overrides these.
void PlacementPolicy::exec(System&, Task&, int) const {}

int PlacementPolicy::numa_fault(System&, Task&, const NumaFaultInfo&) const {
    return -1;  // NUMA_NO_NODE
}

Nanos PlacementPolicy::agent(System&) const {
    return NSEC_PER_SEC;
}

}  // namespace numasim
