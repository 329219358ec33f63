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

double PlacementPolicy::numa_scan(System&, Task&, const UserStep&) const {
    return 0;
}

bool PlacementPolicy::numa_placement_due(System&, Task&) const {
    return false;
}

void PlacementPolicy::numa_placement_done(System&, Task&, unsigned long, unsigned long) const {}

bool PlacementPolicy::numa_early_life(const System&, const Task&) const {
    return false;
}

unsigned PlacementPolicy::numa_retry_period_ms(const System&, const Task&) const {
    return 0;
}

}  // namespace numasim
