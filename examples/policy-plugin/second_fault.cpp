// "second-fault": migrate a page on a hinting fault only when the page's previous fault came
// from the same node as this one, and never early: the kernel's two-stage filter without the
// early-life rule (first touches migrate at once) or the numa_group rules (shared pages follow
// the group's CPU use). A researcher's question: how much of mainline's migration traffic is
// early life, and how much of its benefit?
//
// [policy.second-fault]
// min_distance = 21   # migrate only across at least this SLIT distance (default: any remote)
#include <cstdlib>
#include <stdexcept>
#include <string>

#include "numasim/policy_plugin.h"

namespace {

using namespace numasim_plugin;

class SecondFault : public Policy {
  public:
    SecondFault(const Params& params, const Machine&) {
        for (size_t i = 0; i < params.size(); ++i) {
            const std::string key = params.key(i);
            if (key != "min_distance") throw std::invalid_argument("unknown key '" + key + "'");
            char* end = nullptr;
            min_distance_ = static_cast<int>(std::strtol(params.value(i), &end, 10));
            if (*end || min_distance_ < 10)
                throw std::invalid_argument("min_distance must be an integer >= 10");
        }
    }

    int numa_fault(const NumaFault& f, Run& run) const override {
        if (f.last_node != f.cpu_node) return kNoNode;  // first fault here, or from elsewhere
        if (run.node_distance(f.page_node, f.cpu_node) < min_distance_) return kNoNode;
        return f.cpu_node;
    }

  private:
    int min_distance_ = 11;  // any remote node (the local distance is 10)
};

const Descriptor kSecondFault{
    "second-fault", "migrate a page only on the second hinting fault in a row from the same node",
    kHookNumaFault,
    [](const Params& p, const Machine& m) -> Policy* { return new SecondFault(p, m); }};

}  // namespace

NUMASIM_POLICY_PLUGIN(kSecondFault)
