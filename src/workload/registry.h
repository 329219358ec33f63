// Workloads register a factory under a name at static-initialisation time:
//
//   static const WorkloadRegistrar reg("cowsum", "Henry Willard's shared .data summing test",
//       [](const TomlTable& t, const Topology& m) { return std::make_unique<Cowsum>(t, m); });
//
// The factory reads its parameters from the scenario's [[workload]] table (calling the getters
// marks keys as used; the scenario loader then rejects unknown keys) and may use the machine to
// size itself, as autonumabench sizes threads from the CPU count.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "workload/workload.h"

namespace numasim {

class TomlTable;
struct Topology;

using WorkloadFactory =
    std::function<std::unique_ptr<Workload>(const TomlTable& params, const Topology& machine)>;

struct WorkloadInfo {
    std::string name;
    std::string description;
    WorkloadFactory factory;
};

class WorkloadRegistrar {
  public:
    WorkloadRegistrar(std::string name, std::string description, WorkloadFactory factory);
};

const std::vector<WorkloadInfo>& workload_registry();  // sorted by name
const WorkloadInfo* find_workload(const std::string& name);

}  // namespace numasim
