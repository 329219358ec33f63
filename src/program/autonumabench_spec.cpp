#include "program/autonumabench_spec.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <stdexcept>
#include <string_view>
#include <utility>

#include "config/limits.h"
#include "config/param_reader.h"
#include "config/toml_reader.h"
#include "machine/topology.h"
#include "program/fits_machine.h"

namespace numasim {

namespace {

// numa01.c: "#define SIZE (3UL*1024*1024*1024)" per process; numa02.c: 1 GiB (README: M=3GiB
// and M=1GiB).
constexpr uint64_t NUMA01_BYTES = uint64_t{3} << 30;
constexpr uint64_t NUMA02_BYTES = uint64_t{1} << 30;
// numa01.c: "for (i = 0; i < 50; i++) bzero(p, SIZE)"; THREAD_ALLOC: 1000 passes per slice.
constexpr int NUMA01_LOOPS = 50;
constexpr int NUMA01_THREADLOCAL_LOOPS = 1000;
// numa02.c: TOTALSIZE / SIZE = (4 GiB * 200) / 1 GiB = 800 iterations per thread.
constexpr int NUMA02_LOOPS = 800;

}  // namespace

AutonumaSizing autonuma_sizing(const std::string& test, const Topology& topo) {
    const int cpus = highest_cpu_plus_one(topo);
    AutonumaSizing s;
    if (test == "NUMA01" || test == "NUMA01_THREADLOCAL") {
        // numa01.c forks once: 2 processes of THREADS = cpus/2 threads.
        s.processes = 2;
        s.threads = std::max(1, cpus / 2);
        s.bytes = NUMA01_BYTES;
        s.bind_first_touch = true;
        s.thread_local_slices = test == "NUMA01_THREADLOCAL";
        s.loops = s.thread_local_slices ? NUMA01_THREADLOCAL_LOOPS : NUMA01_LOOPS;
    } else if (test == "NUMA02" || test == "NUMA02_SMT") {
        s.processes = 1;
        s.threads = std::max(1, test == "NUMA02" ? cpus : cpus / 2);
        s.bytes = NUMA02_BYTES;
        s.thread_local_slices = true;
        s.loops = NUMA02_LOOPS;
    } else {
        throw std::invalid_argument(test);
    }
    return s;
}

AutonumaBinding autonuma_binding(AutonumaBind bind, const Topology& topo, int proc) {
    const int half = topo.nr_nodes() / 2;
    // proc 0 is numa01.c's parent (SECOND_HALF), proc 1 its child (FIRST_HALF).
    const bool first_half = proc == 1;
    AutonumaBinding b;
    for (int n = 0; n < topo.nr_nodes(); ++n) {
        if ((n < half) != first_half) continue;
        b.cpus.insert(b.cpus.end(), topo.nodes[n].cpus.begin(), topo.nodes[n].cpus.end());
        b.nodes |= uint64_t{1} << n;
    }
    std::sort(b.cpus.begin(), b.cpus.end());
    if (bind == AutonumaBind::Inverse && first_half) {
        b.nodes = 0;
        for (int n = half; n < topo.nr_nodes(); ++n)
            b.nodes |= uint64_t{1} << n;
    }
    return b;
}

AutonumabenchSpec read_autonumabench_spec(const TomlTable& t, const Topology& topo) {
    AutonumabenchSpec s;
    s.test = t.get_string("test");
    try {
        s.size = autonuma_sizing(s.test, topo);
    } catch (const std::invalid_argument&) {
        t.fail("test", "unknown autonumabench test '" + s.test +
                           "' (NUMA01, NUMA01_THREADLOCAL, NUMA02, NUMA02_SMT)");
    }
    ParamReader r(t);
    // The first touch is a bind policy, whose node mask holds nodes 0..63.
    r.integer("first_touch_node", s.first_touch_node, 0,
              std::min<int64_t>(topo.nr_nodes(), kMaxPolicyNodes) - 1);
    r.integer("loops", s.size.loops, 0);
    r.size("size", s.size.bytes, topo.hw.pages.size() * static_cast<uint64_t>(s.size.threads));
    r.flag("thp", s.thp);
    r.choice("bind", s.bind,
             std::array<std::pair<AutonumaBind, std::string_view>, 3>{
                 {{AutonumaBind::None, "none"},
                  {AutonumaBind::Hard, "hard"},
                  {AutonumaBind::Inverse, "inverse"}}});
    if (s.bind != AutonumaBind::None) {
        // numa02.c's HARD_BIND binds thread by thread; only numa01.c's process binding is here.
        if (!s.size.bind_first_touch)
            r.fail("bind", "only NUMA01 and NUMA01_THREADLOCAL have a bound build here");
        // preproc.awk's halves need two nodes; a node mask holds nodes 0..63.
        if (topo.nr_nodes() < 2 || topo.nr_nodes() > kMaxPolicyNodes)
            r.fail("bind", fmt::format("needs a machine of 2 to {} nodes (this one has {})",
                                       kMaxPolicyNodes, topo.nr_nodes()));
    }
    // Each process mallocs its buffer once it runs: checked here, not when the run maps it.
    check_fits_machine(r, "size", s.size.bytes, topo, s.size.processes);
    // NUMA01 zeroes every process's buffer under MPOL_BIND to one node: with no swap in the
    // model (and the OOM killer in a real kernel), more than that node holds cannot run.
    const uint64_t bound = s.size.bytes * static_cast<uint64_t>(s.size.processes);
    const int node = s.first_touch_node;
    if (s.bind != AutonumaBind::None) {
        // HARD_BIND: each process's buffer on its half; INVERSE_BIND: both on the second half.
        for (int p = 0; p < s.size.processes; ++p) {
            const uint64_t nodes = autonuma_binding(s.bind, topo, p).nodes;
            uint64_t room = 0;
            for (int n = 0; n < topo.nr_nodes(); ++n)
                if ((nodes >> n) & 1) room += topo.nodes[n].mem_bytes;
            uint64_t wanted = 0;
            for (int q = 0; q < s.size.processes; ++q)
                if (autonuma_binding(s.bind, topo, q).nodes == nodes) wanted += s.size.bytes;
            if (wanted > room)
                r.fail("bind", fmt::format("{:.1f} GiB are bound to nodes holding {:.1f} GiB",
                                           wanted / 1073741824.0, room / 1073741824.0));
        }
    } else if (s.size.bind_first_touch && bound > topo.nodes[node].mem_bytes)
        r.fail("size", fmt::format("{} processes x {:.1f} GiB are bound to node {}, which has "
                                   "{:.1f} GiB of memory",
                                   s.size.processes, s.size.bytes / 1073741824.0, node,
                                   topo.nodes[node].mem_bytes / 1073741824.0));
    return s;
}

}  // namespace numasim
