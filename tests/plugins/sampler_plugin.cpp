// A test plugin that takes over the task_numa_work side (kHookNumaScan), as a sampling policy
// would: one sampled access per 10,000 last-level-cache misses of a step (the fraction left
// decided by a draw from the run's stream), on a page drawn from the step's ranges by their
// shares, each sample costing 1 us besides what access() returns.
//   scan = "throw" | "negative"   the hook throws, or returns a negative time
#include <stdexcept>
#include <string>

#include "numasim/policy_plugin.h"

namespace {

using namespace numasim_plugin;

class Sampler : public Policy {
  public:
    explicit Sampler(const Params& p) {
        for (size_t i = 0; i < p.size(); ++i)
            if (std::string(p.key(i)) == "scan") mode_ = p.value(i);
    }

    double numa_scan(ScanStep& step, Run& run) const override {
        if (mode_ == "throw") throw std::runtime_error("scan refused");
        if (mode_ == "negative") return -1;
        const double expected = step.llc_misses() / 10000.0;
        auto n = static_cast<unsigned long>(expected);
        if (run.random_uniform() < expected - static_cast<double>(n)) ++n;
        double total = 0;
        for (size_t i = 0; i < step.nr_ranges(); ++i)
            total += step.range(i).pages ? step.range(i).share : 0;
        double ns = 0;
        for (unsigned long k = 0; k < n && total > 0; ++k) {
            double u = run.random_uniform() * total;
            for (size_t i = 0; i < step.nr_ranges(); ++i) {
                const AccessRange r = step.range(i);
                if (!r.pages) continue;
                if (u >= r.share && i + 1 < step.nr_ranges()) {
                    u -= r.share;
                    continue;
                }
                const auto page =
                    static_cast<uint64_t>(run.random_uniform() * static_cast<double>(r.pages));
                ns += 1000 + step.access(r.start + page * r.page_bytes);
                break;
            }
        }
        return ns;
    }

  private:
    std::string mode_;
};

Policy* create(const Params& p, const Machine&) {
    return new Sampler(p);
}

const Descriptor descriptor{"sampler", "a test plugin that samples accesses instead of scanning",
                            kHookNumaScan, create};

}  // namespace

NUMASIM_POLICY_PLUGIN(descriptor)
