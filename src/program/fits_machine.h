// The one check that a program's memory, as a scenario key sizes it, fits the machine: the model
// has no swap, so a larger buffer could only stall. Checked where the key is read, so that the
// same size gets the same message whichever workload names it, before anything runs.
#pragma once

#include <cstdint>
#include <string_view>

namespace numasim {

class ParamReader;
struct Topology;

// Fails at `key` when `copies` buffers of `bytes` each exceed the machine's memory.
void check_fits_machine(const ParamReader& r, std::string_view key, uint64_t bytes,
                        const Topology& topo, int copies = 1);

}  // namespace numasim
