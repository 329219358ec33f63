// Placement policies (numab/placement_policy.h) register a factory under a name at
// static-initialisation time, as workloads do:
//
//   static const PolicyRegistrar reg("numactl", "static bindings: numactl's options per process",
//       [](const TomlTable* t, const Topology& m) { return std::make_unique<Numactl>(t, m); });
//
// A scenario selects one by name (`policy = "numactl"` in [scenario], or `-V bound:policy=numactl`)
// and gives its parameters in a [policy.NAME] table; the factory reads them (null: the scenario
// has no such table), checks them against the machine and throws InputError naming the key.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "numab/placement_policy.h"

namespace numasim {

class TomlTable;
struct Topology;

// The policy of a scenario that names none: the kernel's own loop.
inline constexpr const char* kMainlinePolicy = "mainline";

using PolicyFactory = std::function<std::unique_ptr<PlacementPolicy>(const TomlTable* params,
                                                                     const Topology& machine)>;

struct PolicyInfo {
    std::string name;
    std::string description;
    PolicyFactory factory;
};

class PolicyRegistrar {
  public:
    PolicyRegistrar(std::string name, std::string description, PolicyFactory factory);
};

const std::vector<PolicyInfo>& policy_registry();  // sorted by name
const PolicyInfo* find_policy(const std::string& name);
std::vector<std::string> policy_names();  // sorted

}  // namespace numasim
