#include "guest/numactl.h"

#include "config/toml_reader.h"
#include "guest/context.h"
#include "guest/protocol.h"
#include "guest/sys.h"
#include "machine/topology.h"
#include "program/streams_spec.h"

namespace numasim::guest {

namespace {
constexpr std::string_view kDefaultPolicy = guest_line::kGuestPolicies[0];
constexpr std::string_view kNumactlPolicy = guest_line::kGuestPolicies[1];
}  // namespace

std::vector<NumactlBinding> read_numactl_bindings(const TomlTable& doc, const Topology& topo) {
    std::vector<NumactlBinding> out;
    const auto head = doc.table("scenario");
    if (!head || head->get_string("policy", std::string(kDefaultPolicy)) != kNumactlPolicy)
        return out;
    const auto tables = doc.table("policy");
    const auto numactl = tables ? tables->table(kNumactlPolicy) : std::nullopt;
    if (!numactl) throw std::runtime_error("policy numactl without a [policy.numactl] table");
    for (const std::string& line : numactl->get_string_array("processes"))
        out.push_back(parse_numactl(line, topo));
    return out;
}

int exec_processes(const TomlTable& t, const Topology& topo) {
    if (t.get_string("type") != "streams") return 1;
    int n = 0;
    for (const ProcessSpec& ps : read_streams_spec(t, topo).processes)
        n += ps.count;
    return n;
}

const NumactlBinding* binding_for(const std::vector<NumactlBinding>& lines, int process) {
    if (lines.empty()) return nullptr;
    return &lines[static_cast<size_t>(process) % lines.size()];
}

void apply_binding(const NumactlBinding& b, int nr_cpus) {
    if (b.cpus) set_affinity(*b.cpus, nr_cpus);
    if (b.mempolicy) set_mempolicy(*b.mempolicy);
}

void bind_as_started(const Context& ctx, int k) {
    if (const NumactlBinding* b = binding_for(ctx.numactl, ctx.first_process + k))
        apply_binding(*b, ctx.topo.nr_cpus());
}

}  // namespace numasim::guest
