// "mainline": the kernel's own NUMA balancing, the reference every other policy is measured
// against. It takes no decision over (no hook), so each run is the kernel's loop as it was before
// the policy API; the knobs and profiles (docs/policies.md) still switch its parts.
#include "config/toml_reader.h"
#include "policy/registry.h"

namespace numasim {

namespace {

class Mainline : public PlacementPolicy {
  public:
    explicit Mainline(const TomlTable* params) : PlacementPolicy(0) {
        if (params) params->finish();  // takes no parameters: any key is unknown
    }
};

const PolicyRegistrar reg(kMainlinePolicy,
                          "the kernel's automatic NUMA balancing as the profile and knobs set it",
                          [](const TomlTable* t, const Topology&) {
                              return std::make_unique<Mainline>(t);
                          });

}  // namespace

}  // namespace numasim
