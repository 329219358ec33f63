#include "kernel/numa_maps.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <vector>

#include "kernel/system.h"

namespace numasim {

namespace {

std::string perms(const Vma& v) {
    std::string s = "----";
    if (v.vm_flags & VM_READ) s[0] = 'r';
    if (v.vm_flags & VM_WRITE) s[1] = 'w';
    if (v.vm_flags & VM_EXEC) s[2] = 'x';
    s[3] = (v.vm_flags & VM_SHARED) ? 's' : 'p';
    return s;
}

std::string policy(const Vma& v) {
    if (!v.policy || v.policy->mode == MpolMode::Default) return "default";
    std::vector<int> nodes;
    for (int n = 0; n < 64; ++n)
        if (v.policy->nodes >> n & 1) nodes.push_back(n);
    if (nodes.empty()) return to_string(v.policy->mode);
    return fmt::format("{}:{}", to_string(v.policy->mode), fmt::join(nodes, ","));
}

}  // namespace

std::string numa_maps(const System& sys, const Mm& mm) {
    std::string out;
    for (const auto& vp : mm.vmas) {
        const Vma& v = *vp;
        out += fmt::format("{:012x}-{:012x} {} {}", v.start, v.end, perms(v), policy(v));
        if (v.is_file())
            out += " file=" + v.name;
        else if (v.name == "[heap]")
            out += " heap";
        else if (v.name == "[stack]")
            out += " stack";
        else if (!v.name.empty())
            out += " " + v.name;
        uint64_t anon = 0, mapped = 0, protnone = 0;
        unsigned mapmax = 0;
        std::vector<uint64_t> per_node(sys.nr_nodes(), 0);
        const uint64_t n = v.nr_pages();
        for (uint64_t i = v.present.find_next(0, n); i < n; i = v.present.find_next(i + 1, n)) {
            const PageFrame& f = v.frame(i);
            ++per_node[f.nid];
            const bool file_page = v.object->is_file && v.shares_object_page(i);
            (file_page ? mapped : anon) += 1;
            mapmax = std::max<unsigned>(mapmax, f.mapcount);
            protnone += v.protnone.test(i);
        }
        if (anon) out += fmt::format(" anon={} dirty={}", anon, anon);
        if (mapped) out += fmt::format(" mapped={}", mapped);
        if (mapmax > 1) out += fmt::format(" mapmax={}", mapmax);
        for (int node = 0; node < sys.nr_nodes(); ++node)
            if (per_node[node]) out += fmt::format(" N{}={}", node, per_node[node]);
        if (anon + mapped) out += fmt::format(" kernelpagesize_kB={}", mm.pages.kib());
        if (protnone) out += fmt::format(" protnone={}", protnone);
        out += "\n";
    }
    return out;
}

void trace_numa_maps(System& sys, Nanos now) {
    if (!sys.tracer.enabled()) return;
    for (const auto& mm : sys.mms)
        for (const auto& t : sys.tasks)
            if (t->mm == mm.get() && t->pid == t->tgid) {
                sys.tracer.comment(fmt::format("numa_maps pid={} comm={} at {:.3f} s", t->pid,
                                               t->comm, ns_to_s(now)));
                sys.tracer.comment(numa_maps(sys, *mm));
                break;
            }
}

}  // namespace numasim
