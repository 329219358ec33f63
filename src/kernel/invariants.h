// The invariant checker. The model keeps running totals so that it never walks pages on a hot
// path: per-region present and PROT_NONE pages by node, per-VMA block counters, rss, free pages
// per node, frame mapcounts, the tasks' and NUMA groups' fault sums and the runqueue counts. A
// total that drifts from the state it summarises silently changes what the model does (a region
// whose PROT_NONE count stays 0 never takes a hinting fault). The checker recomputes every
// total from the page, task and runqueue state and reports the first mismatch with where it is.
// The engine checks its own state on top and decides when to check (engine/invariants.h);
// docs/model.md ("Invariant checking") lists what is covered and when a run checks.
#pragma once

#include <optional>
#include <stdexcept>
#include <string>

namespace numasim {

struct System;

// A cached total disagrees with the state it summarises: a simulator bug, never bad input.
class InvariantViolation : public std::logic_error {
  public:
    using std::logic_error::logic_error;
};

// The first mismatch, with its location and the cached and recomputed values; nullopt when every
// total agrees. Costs one pass over the mapped pages and the tasks.
std::optional<std::string> find_invariant_violation(const System& sys);

// Whether runs check when nobody asked: true in builds configured with
// NUMASIM_CHECK_INVARIANTS=ON (the default for Debug and sanitizer builds).
bool check_invariants_by_default();

}  // namespace numasim
