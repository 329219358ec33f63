#include "policy/registry.h"

#include <algorithm>

namespace numasim {

namespace {
std::vector<PolicyInfo>& registry() {
    static std::vector<PolicyInfo> r;
    return r;
}
}  // namespace

PolicyRegistrar::PolicyRegistrar(std::string name, std::string description, PolicyFactory factory) {
    auto& r = registry();
    r.push_back({std::move(name), std::move(description), std::move(factory)});
    std::sort(r.begin(), r.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
}

const std::vector<PolicyInfo>& policy_registry() {
    return registry();
}

const PolicyInfo* find_policy(const std::string& name) {
    for (const auto& p : registry())
        if (p.name == name) return &p;
    return nullptr;
}

std::vector<std::string> policy_names() {
    std::vector<std::string> names;
    for (const auto& p : registry())
        names.push_back(p.name);
    return names;
}

}  // namespace numasim
