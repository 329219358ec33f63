// Reads the [hardware] table of a machine description into MemoryHardware. Machine files must
// give every figure; overrides (e.g. on top of an hwloc import) may give any subset.
#pragma once

#include "config/toml_reader.h"
#include "machine/topology.h"

namespace numasim {

enum class HardwareKeys { kAllRequired, kAnySubset };

// Reads `t` (the [hardware] table itself) into `hw` and calls t.finish(). latency_ns entries are
// merged into hw.latency_ns, so an override can change one distance and keep the others.
void read_hardware(const TomlTable& t, MemoryHardware& hw, HardwareKeys keys);

// Applies a [hardware] table on top of a topology (typically imported from hwloc), then
// re-validates it with the table's file as the origin.
void apply_hardware_overrides(Topology& topo, const TomlTable& hardware);

}  // namespace numasim
