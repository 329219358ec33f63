// A test plugin whose every behaviour the scenario chooses through [policy.probe], so that one
// shared object exercises each path of the loader and the hooks (tests/cli/policy_plugin_test):
//   create = "throw"                      the factory refuses its parameters
//   exec   = "pin-node-1" | "throw" | "bad-cpu" | "segv"
//   fault  = "second-fault" | "random" | "throw" | "bad-node" | "segv" | "fpe"
// "second-fault" migrates a page to the faulting CPU's node when the page's previous hinting
// fault came from that node too; "random" migrates to a node drawn from the run's stream.
#include <csignal>
#include <stdexcept>
#include <string>
#include <vector>

#include "numasim/policy_plugin.h"

namespace {

using namespace numasim_plugin;

std::string param(const Params& p, const std::string& key) {
    for (size_t i = 0; i < p.size(); ++i)
        if (key == p.key(i)) return p.value(i);
    return "";
}

class Probe : public Policy {
  public:
    Probe(const Params& p, const Machine& m) : exec_(param(p, "exec")), fault_(param(p, "fault")) {
        if (param(p, "create") == "throw") throw std::invalid_argument("create = \"throw\" given");
        for (int c = 0; c < m.nr_cpus(); ++c)
            if (m.cpu_node(c) == 1) node1_cpus_.push_back(c);
    }

    void exec(ExecView& t, Run&) const override {
        if (exec_ == "pin-node-1") {
            t.set_cpus_allowed(node1_cpus_.data(), node1_cpus_.size());
            t.set_mempolicy(MemPolicy::kBind, 1u << 1);
        } else if (exec_ == "throw") {
            throw std::runtime_error("exec refused");
        } else if (exec_ == "bad-cpu") {
            const int cpu = 4096;
            t.set_cpus_allowed(&cpu, 1);
        } else if (exec_ == "segv") {
            crash();
        }
    }

    int numa_fault(const NumaFault& f, Run& run) const override {
        if (fault_ == "second-fault") return f.last_node == f.cpu_node ? f.cpu_node : kNoNode;
        if (fault_ == "random") return static_cast<int>(run.random_u64() % 2);
        if (fault_ == "throw") throw std::runtime_error("fault refused");
        if (fault_ == "bad-node") return 99;
        if (fault_ == "segv") crash();
        if (fault_ == "fpe") std::raise(SIGFPE);
        return kNoNode;
    }

  private:
    // A store through a null pointer the compiler cannot see is null (it is volatile). The
    // sanitizer build would stop at the store itself (UBSan's null check, exit 1) before the
    // SIGSEGV this test is about, so the sanitizers leave this one function alone.
    __attribute__((no_sanitize("address", "undefined"))) static void crash() { *g_null = 1; }
    static int* volatile g_null;

    std::string exec_, fault_;
    std::vector<int> node1_cpus_;
};

int* volatile Probe::g_null = nullptr;

const Descriptor kProbe{
    "probe", "a test plugin that does what its parameters say", kHookExec | kHookNumaFault,
    [](const Params& p, const Machine& m) -> Policy* { return new Probe(p, m); }};

}  // namespace

NUMASIM_POLICY_PLUGIN(kProbe)
