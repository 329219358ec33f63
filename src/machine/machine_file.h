// Machine description files (the format of presets/*.toml; see docs/machines.md). A machine is
// either regular ([machine] sockets x nodes_per_socket x cores_per_node x threads_per_core) or
// explicit ([[node]] tables listing each node's CPUs), plus [hardware] figures and [source].
#pragma once

#include <string>
#include <string_view>

#include "config/toml_reader.h"
#include "machine/topology.h"

namespace numasim {

// Parses and validates a machine from a whole document. Unknown keys, wrong types and
// inconsistent topologies throw InputError naming the file, the key and (where known) the line.
Topology load_machine(const TomlTable& t);

Topology load_machine_file(const std::string& path);
// `name` is used as the file name in error messages.
Topology load_machine_text(std::string_view text, const std::string& name);

}  // namespace numasim
