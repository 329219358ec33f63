#include "program/fits_machine.h"

#include <fmt/format.h>

#include "config/param_reader.h"
#include "machine/topology.h"

namespace numasim {

void check_fits_machine(const ParamReader& r, std::string_view key, uint64_t bytes,
                        const Topology& topo, int copies) {
    constexpr double GiB = 1073741824.0;
    const double total = static_cast<double>(bytes) * copies;
    const double machine = static_cast<double>(topo.total_mem_bytes());
    if (total <= machine) return;
    if (copies == 1)
        r.fail(key, fmt::format("{:.1f} GiB but the machine has {:.1f} GiB of memory", bytes / GiB,
                                machine / GiB));
    r.fail(key, fmt::format("{} x {:.1f} GiB but the machine has {:.1f} GiB of memory", copies,
                            bytes / GiB, machine / GiB));
}

}  // namespace numasim
