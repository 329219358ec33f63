// The built-in machines (presets/*.toml, compiled in) and the one function that turns a
// scenario's `machine = "..."` into a Topology.
#pragma once

#include <string>
#include <vector>

#include "machine/topology.h"

namespace numasim {

std::vector<std::string> preset_names();  // sorted

// Throws InputError listing the valid names if `name` is not a preset.
Topology load_preset(const std::string& name);

// `spec` is one of:
//   a preset name                 "haswell-2s"
//   a machine file                "machines/my.toml" (anything ending in .toml or containing '/')
//   an lstopo XML export          "hwloc:path/to/file.xml"
//   the machine we are running on "hwloc:host"
// Relative paths are taken relative to the directory of `origin_file` (the scenario that names
// the machine) when it is not empty and `relative` is true (false: a command-line option, whose
// paths are relative to the working directory). Errors name `origin_file` and `key`.
Topology resolve_machine(const std::string& spec, const std::string& origin_file,
                         const std::string& key = "machine", bool relative = true);

// The file `spec` reads (a machine file or an lstopo XML export, resolved as resolve_machine
// does), or "" for a preset and hwloc:host.
std::string machine_spec_file(const std::string& spec, const std::string& origin_file,
                              bool relative = true);

// The `numasim machines` listing: a header and one aligned line per preset with name, nodes,
// sockets, CPUs (cores x threads), memory and description.
std::string list_presets_text();

}  // namespace numasim
