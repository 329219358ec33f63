#include "numab/placement_policy.h"

namespace numasim {

// A policy without a hook is never asked for it (PlacementPolicy::has); one that declares it
// overrides these.
void PlacementPolicy::exec(System&, Task&, int) const {}

Nanos PlacementPolicy::agent(System&) const {
    return NSEC_PER_SEC;
}

}  // namespace numasim
