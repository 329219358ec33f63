#include "program/autonumabench_spec.h"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

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
    // Each process mallocs its buffer once it runs: checked here, not when the run maps it.
    check_fits_machine(r, "size", s.size.bytes, topo, s.size.processes);
    // NUMA01 zeroes every process's buffer under MPOL_BIND to one node: with no swap in the
    // model (and the OOM killer in a real kernel), more than that node holds cannot run.
    const uint64_t bound = s.size.bytes * static_cast<uint64_t>(s.size.processes);
    const int node = s.first_touch_node;
    if (s.size.bind_first_touch && bound > topo.nodes[node].mem_bytes)
        r.fail("size", fmt::format("{} processes x {:.1f} GiB are bound to node {}, which has "
                                   "{:.1f} GiB of memory",
                                   s.size.processes, s.size.bytes / 1073741824.0, node,
                                   topo.nodes[node].mem_bytes / 1073741824.0));
    return s;
}

}  // namespace numasim
