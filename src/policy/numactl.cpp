// "numactl": static bindings, the baseline NUMA tuning is measured against. Each process a
// workload starts runs under a numactl command line, as `numactl --cpunodebind=0 --membind=0
// PROGRAM` would start it: the affinity and the task memory policy are set before exec(), the
// program's own later set_mempolicy() and sched_setaffinity() calls replace them as on Linux, and
// forked children inherit them. The kernel's NUMA balancing still runs beneath (numactl does not
// turn it off), but a task memory policy other than MPOL_DEFAULT, or MPOL_BIND with
// --balancing, makes the VMAs it governs unsuitable for it (vma_policy_mof).
#include <fmt/format.h>

#include "config/input_error.h"
#include "config/toml_reader.h"
#include "kernel/system.h"
#include "machine/topology.h"
#include "policy/numactl_args.h"
#include "policy/registry.h"

namespace numasim {

namespace {

constexpr const char* kProcessesKey = "processes";

class Numactl : public PlacementPolicy {
  public:
    Numactl(const TomlTable* params, const Topology& m) : PlacementPolicy(kExec) {
        if (!params)
            throw InputError("", "policy.numactl",
                             "policy numactl needs the numactl options of each process: "
                             "[policy.numactl] processes = [\"--cpunodebind=0 --membind=0\", ...] "
                             "(docs/placement-policies.md)");
        const std::vector<std::string> lines = params->get_string_array(kProcessesKey);
        if (lines.empty()) params->fail(kProcessesKey, "give at least one numactl command line");
        for (const std::string& line : lines) {
            try {
                bindings_.push_back(parse_numactl(line, m));
            } catch (const NumactlError& e) {
                params->fail(kProcessesKey,
                             fmt::format("\"{}\": {}: {}", line, e.option(), e.what()));
            }
        }
        params->finish();
    }

    // The k-th process started runs under line k, the list repeating from its start.
    void exec(System&, Task& leader, int process) const override {
        const NumactlBinding& b = bindings_[static_cast<size_t>(process) % bindings_.size()];
        if (b.cpus) leader.allow_only(*b.cpus);
        if (b.mempolicy) {
            leader.mempolicy = *b.mempolicy;
            leader.has_mempolicy = b.mempolicy->mode != MpolMode::Default;
        }
    }

  private:
    std::vector<NumactlBinding> bindings_;
};

const PolicyRegistrar reg("numactl",
                          "static bindings: each process started under a numactl command line "
                          "(--cpunodebind, --physcpubind, --membind, --interleave, --preferred, "
                          "--localalloc)",
                          [](const TomlTable* t, const Topology& m) {
                              return std::make_unique<Numactl>(t, m);
                          });

}  // namespace

}  // namespace numasim
