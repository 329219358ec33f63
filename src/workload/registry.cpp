#include "workload/registry.h"

#include <algorithm>

namespace numasim {

namespace {
std::vector<WorkloadInfo>& registry() {
    static std::vector<WorkloadInfo> r;
    return r;
}
}  // namespace

WorkloadRegistrar::WorkloadRegistrar(std::string name, std::string description,
                                     WorkloadFactory factory) {
    auto& r = registry();
    r.push_back({std::move(name), std::move(description), std::move(factory)});
    std::sort(r.begin(), r.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
}

const std::vector<WorkloadInfo>& workload_registry() {
    return registry();
}

const WorkloadInfo* find_workload(const std::string& name) {
    for (const auto& w : registry())
        if (w.name == name) return &w;
    return nullptr;
}

}  // namespace numasim
