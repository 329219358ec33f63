#include "policy/plugin.h"

#include <dlfcn.h>
#include <fmt/format.h>
// The installed plugin ABI (include/), below every layer of src/: it includes nothing.
#include <numasim/policy_plugin.h>

#include <filesystem>
#include <memory>
#include <set>
#include <vector>

#include "config/toml_reader.h"
#include "cost/access.h"
#include "kernel/system.h"
#include "machine/topology.h"
#include "mm/mm.h"
#include "mm/vma.h"
#include "numab/numab.h"
#include "policy/plugin_call.h"
#include "policy/registry.h"

namespace numasim {

namespace {

namespace abi = numasim_plugin;

using EntryPoint = uint32_t (*)(const abi::Descriptor**);

// The machine as a plugin sees it.
class MachineView final : public abi::Machine {
  public:
    explicit MachineView(const Topology& m) : m_(m) {}
    int nr_nodes() const override { return m_.nr_nodes(); }
    int nr_cpus() const override { return m_.nr_cpus(); }
    int cpu_node(int cpu) const override {
        return cpu >= 0 && cpu < m_.nr_cpus() ? m_.cpus[static_cast<size_t>(cpu)].node
                                              : abi::kNoNode;
    }
    bool node_has_memory(int node) const override {
        return node >= 0 && node < m_.nr_nodes() && m_.nodes[static_cast<size_t>(node)].mem_bytes;
    }
    int node_distance(int from, int to) const override {
        const int n = m_.nr_nodes();
        return from >= 0 && from < n && to >= 0 && to < n
                   ? m_.distance[static_cast<size_t>(from)][static_cast<size_t>(to)]
                   : 0;
    }

  private:
    const Topology& m_;
};

// A run as a hook sees it: the machine, the clock, the policy's random stream.
class RunView final : public abi::Run {
  public:
    explicit RunView(System& sys) : m_(sys.topo), sys_(sys) {}
    int nr_nodes() const override { return m_.nr_nodes(); }
    int nr_cpus() const override { return m_.nr_cpus(); }
    int cpu_node(int cpu) const override { return m_.cpu_node(cpu); }
    bool node_has_memory(int node) const override { return m_.node_has_memory(node); }
    int node_distance(int from, int to) const override { return m_.node_distance(from, to); }
    uint64_t now_ns() const override { return static_cast<uint64_t>(sys_.now); }
    uint64_t random_u64() override { return sys_.rng_policy.next_u64(); }
    double random_uniform() override { return sys_.rng_policy.uniform(); }

  private:
    const MachineView m_;
    System& sys_;
};

class ParamsView final : public abi::Params {
  public:
    explicit ParamsView(const TomlTable* t) {
        if (!t) return;
        for (const std::string& k : t->keys()) {
            keys_.push_back(k);
            values_.push_back(t->get_text(k));
        }
    }
    size_t size() const override { return keys_.size(); }
    const char* key(size_t i) const override { return i < size() ? keys_[i].c_str() : nullptr; }
    const char* value(size_t i) const override { return i < size() ? values_[i].c_str() : nullptr; }

  private:
    std::vector<std::string> keys_, values_;
};

// kHookExec's view of the process's first task; every setting is checked against the machine.
class ExecView final : public abi::ExecView {
  public:
    ExecView(System& sys, Task& t, int process, const PluginCall& call)
        : sys_(sys), t_(t), process_(process), call_(call) {}
    int process() const override { return process_; }
    int pid() const override { return t_.pid; }
    const char* comm() const override { return t_.comm.c_str(); }
    void set_cpus_allowed(const int* cpus, size_t nr) override {
        if (!cpus || nr == 0) call_.fail("set_cpus_allowed: no CPU given");
        std::vector<int> v(cpus, cpus + nr);
        for (int c : v)
            if (c < 0 || c >= sys_.nr_cpus())
                call_.fail(
                    fmt::format("set_cpus_allowed: CPU {} is out of range (the machine "
                                "has CPUs 0-{})",
                                c, sys_.nr_cpus() - 1));
        t_.allow_only(v);
    }
    void set_mempolicy(abi::MemPolicy mode, uint64_t nodes) override {
        MemPolicy pol;
        switch (mode) {
            case abi::MemPolicy::kDefault:
                pol.mode = MpolMode::Default;
                break;
            case abi::MemPolicy::kBind:
                pol.mode = MpolMode::Bind;
                break;
            case abi::MemPolicy::kInterleave:
                pol.mode = MpolMode::Interleave;
                break;
            case abi::MemPolicy::kPreferred:
                pol.mode = MpolMode::Preferred;
                break;
            case abi::MemPolicy::kLocal:
                pol.mode = MpolMode::Local;
                break;
            default:
                call_.fail(
                    fmt::format("set_mempolicy: unknown mode {}", static_cast<uint32_t>(mode)));
        }
        const bool takes_nodes = pol.mode != MpolMode::Default && pol.mode != MpolMode::Local;
        if (takes_nodes != (nodes != 0))
            call_.fail(fmt::format("set_mempolicy: {} takes {} node mask", to_string(pol.mode),
                                   takes_nodes ? "a non-empty" : "an empty"));
        for (int nid = 0; nid < 64; ++nid)
            if ((nodes >> nid) & 1)
                if (nid >= sys_.nr_nodes() || !sys_.topo.nodes[static_cast<size_t>(nid)].mem_bytes)
                    call_.fail(
                        fmt::format("set_mempolicy: node {} is out of range or has no "
                                    "memory",
                                    nid));
        pol.nodes = nodes;
        t_.mempolicy = pol;
        t_.has_mempolicy = pol.mode != MpolMode::Default;
    }

  private:
    System& sys_;
    Task& t_;
    int process_;
    const PluginCall& call_;
};

// kHookNumaScan's view of one step of user work: its streams as ranges of the task's address
// space, and access(), the IBS posting's do_numa_access on the page at an address.
class ScanStepView final : public abi::ScanStep {
  public:
    ScanStepView(System& sys, Task& p, const UserStep& step) : sys_(sys), p_(p), step_(step) {}
    int pid() const override { return p_.pid; }
    int cpu() const override { return step_.cpu; }
    double bytes() const override { return step_.bytes; }
    double llc_misses() const override { return step_.llc_misses; }
    size_t nr_ranges() const override { return step_.streams.size(); }
    abi::AccessRange range(size_t i) const override {
        abi::AccessRange r{};
        if (i >= step_.streams.size() || !step_.streams[i].region) return r;
        const AccessStream& s = step_.streams[i];
        const Region& g = *s.region;
        const Vma& v = *g.vma;
        r.start = v.page_addr(g.first);
        r.pages = g.count;
        r.page_bytes = v.pages.size();
        r.share = s.share;
        r.pattern = s.pattern == Pattern::Sweep    ? abi::Pattern::kSweep
                    : s.pattern == Pattern::HotSet ? abi::Pattern::kHotSet
                                                   : abi::Pattern::kRandom;
        r.hot_fraction = s.hot_fraction;
        r.hot_share = s.hot_share;
        r.chunk_start_pages =
            s.chunk_bytes ? std::min(chunk_cells(s, g.count, r.page_bytes), g.count) : g.count;
        r.sweep_page = g.count && i < step_.sweep_pos.size() ? step_.sweep_pos[i] % g.count : 0;
        return r;
    }
    double access(uint64_t address) override {
        if (!p_.mm) return 0;
        for (const auto& v : p_.mm->vmas)
            if (address >= v->start && address < v->end)
                return do_numa_access(sys_, p_, *v, v->page_index(address));
        return 0;  // find_vma() found nothing: the posting returns
    }

  private:
    System& sys_;
    Task& p_;
    const UserStep& step_;
};

// The kernel's placement-policy interface over a plugin's policy.
class PluginPolicy final : public PlacementPolicy {
  public:
    PluginPolicy(std::unique_ptr<abi::Policy> p, uint32_t hooks, const std::string& origin,
                 const std::string& name)
        : PlacementPolicy(hooks),
          p_(std::move(p)),
          origin_(origin),
          exec_call_(name + ".exec"),
          fault_call_(name + ".numa_fault"),
          scan_call_(name + ".numa_scan") {}

    void exec(System& sys, Task& leader, int process) const override {
        const PluginCall call(origin_, exec_call_);
        ExecView view(sys, leader, process, call);
        RunView run(sys);
        call.run([&] { p_->exec(view, run); });
    }

    int numa_fault(System& sys, Task& p, const NumaFaultInfo& f) const override {
        abi::NumaFault fault{};
        fault.address = f.address;
        fault.page_node = f.page_nid;
        fault.cpu = f.cpu;
        fault.cpu_node = sys.cpu_to_node(f.cpu);
        fault.pid = p.pid;
        fault.preferred_node = p.numa_preferred_nid;
        fault.scan_seq = static_cast<uint32_t>(p.numa_scan_seq);
        const bool unset = cpupid_pid_unset(f.last_cpupid);
        const int last_cpu = cpupid_to_cpu(f.last_cpupid);
        const bool valid = !unset && last_cpu < sys.nr_cpus();
        fault.last_cpu = valid ? last_cpu : -1;
        fault.last_node = valid ? sys.cpu_to_node(last_cpu) : abi::kNoNode;
        fault.last_same_pid = !unset && cpupid_match_pid(p.pid, f.last_cpupid);
        fault.allowed_nodes = f.allowed_nodes;
        fault.shared_mapping = f.shared;
        fault.write = f.writable;
        const PluginCall call(origin_, fault_call_);
        RunView run(sys);
        const int nid = call.run([&] { return p_->numa_fault(fault, run); });
        if (nid == abi::kNoNode) return NUMA_NO_NODE;
        if (nid < 0 || nid >= 64 || !((f.allowed_nodes >> nid) & 1))
            call.fail(
                fmt::format("returned node {}: not a node this page may go to (nodes "
                            "with memory its memory policy allows: {}), nor kNoNode",
                            nid, node_list(f.allowed_nodes)));
        return nid;
    }

    double numa_scan(System& sys, Task& p, const UserStep& step) const override {
        const PluginCall call(origin_, scan_call_);
        ScanStepView view(sys, p, step);
        RunView run(sys);
        const double ns = call.run([&] { return p_->numa_scan(view, run); });
        // A day is far beyond any step's kernel time; NaN fails the test too.
        if (!(ns >= 0 && ns <= 86400e9))
            call.fail(fmt::format("returned {} ns: not a kernel time (0 or more)", ns));
        return ns;
    }

  private:
    static std::string node_list(uint64_t mask) {
        std::vector<int> v;
        for (int n = 0; n < 64; ++n)
            if ((mask >> n) & 1) v.push_back(n);
        return fmt::format("{}", fmt::join(v, ","));
    }

    std::unique_ptr<abi::Policy> p_;
    std::string origin_, exec_call_, fault_call_, scan_call_;
};

bool valid_name(const char* s) {
    if (!s || !*s) return false;
    for (; *s; ++s)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || *s == '-' || *s == '_'))
            return false;
    return true;
}

std::set<std::string>& loaded_paths() {
    static std::set<std::string> s;
    return s;
}

}  // namespace

void load_policy_plugin(const std::string& path) {
    const std::string origin = fmt::format("{} {}", kPolicyPluginOption, path);
    std::error_code ec;
    if (!std::filesystem::is_regular_file(path, ec))
        throw InputError(origin, "",
                         std::filesystem::exists(path, ec) ? "not a regular file" : "no such file");
    const std::string canonical = std::filesystem::canonical(path, ec).string();
    if (!loaded_paths().insert(canonical).second) return;
    install_plugin_crash_handler();
    // The library's constructors run inside dlopen: they are the plugin's too.
    void* handle = nullptr;
    {
        const std::string dlopen_call = "dlopen";
        const PluginCall call(origin, dlopen_call);
        handle = ::dlopen(canonical.c_str(), RTLD_NOW | RTLD_LOCAL);
        if (!handle) call.fail(fmt::format("not a loadable shared object: {}", ::dlerror()));
    }
    // Never closed: its policy's code runs until the process ends.
    const auto entry =
        reinterpret_cast<EntryPoint>(::dlsym(handle, NUMASIM_POLICY_PLUGIN_ENTRY_NAME));
    if (!entry)
        throw InputError(origin, NUMASIM_POLICY_PLUGIN_ENTRY_NAME,
                         "no such entry point: a plugin defines it with "
                         "NUMASIM_POLICY_PLUGIN(descriptor) (numasim/policy_plugin.h)");
    const std::string entry_call = NUMASIM_POLICY_PLUGIN_ENTRY_NAME;
    const PluginCall call(origin, entry_call);
    const abi::Descriptor* d = nullptr;
    const uint32_t version = call.run([&] { return entry(&d); });
    if (version != abi::kAbiVersion)
        call.fail(
            fmt::format("built for plugin ABI version {}, this numasim loads version {}: "
                        "rebuild the plugin against its numasim/policy_plugin.h",
                        version, abi::kAbiVersion));
    if (!d) call.fail("returned no descriptor");
    if (!valid_name(d->name))
        call.fail("the descriptor's name must be a non-empty [a-z0-9_-] word");
    if (find_policy(d->name)) call.fail(fmt::format("policy '{}' is already registered", d->name));
    constexpr uint32_t kKnownHooks = abi::kHookExec | abi::kHookNumaFault | abi::kHookNumaScan;
    if (d->hooks & ~kKnownHooks)
        call.fail(fmt::format("the descriptor declares unknown hook bits {:#x}",
                              d->hooks & ~kKnownHooks));
    if (!d->create) call.fail("the descriptor has no create function");
    // The ABI's hook bits are the kernel's (checked here so they cannot drift apart).
    static_assert(static_cast<uint32_t>(abi::kHookExec) == PlacementPolicy::kExec);
    static_assert(static_cast<uint32_t>(abi::kHookNumaFault) == PlacementPolicy::kNumaFault);
    static_assert(static_cast<uint32_t>(abi::kHookNumaScan) == PlacementPolicy::kNumaScan);
    const std::string name = d->name;
    const std::string description =
        fmt::format("{} (plugin {})", d->description ? d->description : "", path);
    const PolicyRegistrar reg(
        name, description, [d, origin, name](const TomlTable* t, const Topology& m) {
            const std::string create = name + ".create";
            const PluginCall c(origin, create);
            const ParamsView params(t);
            const MachineView machine(m);
            std::unique_ptr<abi::Policy> p(c.run([&] { return d->create(params, machine); }));
            if (!p) c.fail("returned no policy");
            return std::make_unique<PluginPolicy>(std::move(p), d->hooks, origin, name);
        });
}

}  // namespace numasim
