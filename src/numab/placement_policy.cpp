#include "numab/placement_policy.h"

namespace numasim {

// A policy without kExec is never asked (PlacementPolicy::has); one that declares it overrides
// this.
void PlacementPolicy::exec(System&, Task&, int) const {}

}  // namespace numasim
