#include "oracle/qemu_command.h"

#include <fmt/format.h>

#include "machine/hmat.h"

namespace numasim {

namespace {

uint64_t mib(uint64_t bytes) {
    return bytes >> 20;
}

}  // namespace

std::string to_string(Accel a) {
    return a == Accel::Kvm ? "kvm" : "tcg";
}

std::string cpu_list_text(const std::vector<int>& cpus) {
    std::string s;
    for (size_t i = 0; i < cpus.size();) {
        size_t j = i;
        while (j + 1 < cpus.size() && cpus[j + 1] == cpus[j] + 1)
            ++j;
        if (!s.empty()) s += ',';
        s += j == i ? fmt::format("{}", cpus[i]) : fmt::format("{}-{}", cpus[i], cpus[j]);
        i = j + 1;
    }
    return s;
}

std::vector<std::string> qemu_argv(const GuestMachine& g, const QemuBoot& b) {
    const Topology& t = g.topo;
    std::vector<std::string> a = {b.qemu};
    if (b.accel == Accel::Kvm) {
        a.insert(a.end(), {"-accel", "kvm", "-cpu", "host"});
    } else {
        // One host thread per vCPU and a large translation cache (the workload's loops are
        // few, but the kernel's paths are many); qemu64 is the CPU model TCG runs fastest.
        a.insert(a.end(), {"-accel", "tcg,thread=multi,tb-size=512", "-cpu", "qemu64"});
    }
    int cpu_nodes = 0;
    for (const auto& n : t.nodes)
        cpu_nodes += !n.cpus.empty();
    const int cpus = t.nr_cpus();
    const int per_socket = cpu_nodes ? cpus / cpu_nodes : cpus;
    bool uniform = true;
    for (const auto& n : t.nodes)
        uniform &= n.cpus.empty() || static_cast<int>(n.cpus.size()) == per_socket;
    // With an HMAT every memory-only node names the initiator nearest to it.
    a.insert(a.end(), {"-machine", t.hmat ? "q35,hmat=on" : "q35", "-m",
                       fmt::format("{}M", mib(t.total_mem_bytes()))});
    a.push_back("-smp");
    a.push_back(uniform ? fmt::format("{},sockets={},cores={},threads={}", cpus, cpu_nodes,
                                      per_socket / g.threads_per_core, g.threads_per_core)
                        : fmt::format("{}", cpus));
    for (const auto& n : t.nodes) {
        a.insert(a.end(), {"-object", fmt::format("memory-backend-ram,id=m{},size={}M", n.id,
                                                  mib(n.mem_bytes))});
        std::string node = fmt::format("node,nodeid={},memdev=m{}", n.id, n.id);
        if (!n.cpus.empty()) {
            // qemu takes several cpus= ranges, each "a" or "a-b".
            const std::string list = cpu_list_text(n.cpus);
            size_t start = 0;
            while (start <= list.size()) {
                const size_t comma = list.find(',', start);
                node += ",cpus=" + list.substr(start, comma - start);
                if (comma == std::string::npos) break;
                start = comma + 1;
            }
        } else if (t.hmat) {
            node += fmt::format(",initiator={}", t.nearest_cpu_node(n.id));
        }
        a.insert(a.end(), {"-numa", node});
    }
    for (int i = 0; i < t.nr_nodes(); ++i)
        for (int j = 0; j < t.nr_nodes(); ++j)
            if (i != j)
                a.insert(a.end(), {"-numa", fmt::format("dist,src={},dst={},val={}", i, j,
                                                        t.distance[i][j])});
    if (t.hmat)
        for (const auto& n : t.nodes) {
            // Each node's figures from its initiator only: the kernel takes a target's
            // performance from its best initiator, and these are the best.
            const HmatFigures f = hmat_figures(t, n.id);
            const std::string pair = fmt::format("hmat-lb,initiator={},target={},hierarchy=memory",
                                                 t.nearest_cpu_node(n.id), n.id);
            // qemu: latency in ns; bandwidth with the M suffix in MB/s, the HMAT's unit.
            a.insert(a.end(), {"-numa", fmt::format("{},data-type=access-latency,latency={}", pair,
                                                    f.latency_ns)});
            a.insert(a.end(), {"-numa", fmt::format("{},data-type=access-bandwidth,bandwidth={}M",
                                                    pair, f.bandwidth_mbs)});
        }
    a.insert(a.end(), {"-kernel", b.kernel, "-initrd", b.initrd, "-append", b.append});
    a.insert(a.end(), {"-display", "none", "-serial", "stdio", "-monitor", "none", "-no-reboot",
                       "-nic", "none"});
    return a;
}

std::string guest_kernel_cmdline(const std::string& extra) {
    // mitigations=off: the guest runs on emulated or virtual CPUs whose side channels are the
    // host's business, and the mitigations slow every kernel entry under TCG.
    std::string s = "console=ttyS0 loglevel=3 panic=-1 mitigations=off";
    if (!extra.empty()) s += " " + extra;
    return s;
}

}  // namespace numasim
