// Shell completion scripts for bash and zsh, written from the command line's definition: the
// commands, every option, the values of options that take a fixed list (and the presets,
// profiles, knobs and workloads the binary knows), and file or directory names where a command
// expects one.
#pragma once

#include <string>

#include "cli/command_tree.h"

namespace numasim {

// For bash-completion (/usr/share/bash-completion/completions/numasim).
std::string bash_completion(const CommandDoc& root);
// For zsh's compinit (a file _numasim in $fpath, e.g. /usr/share/zsh/vendor-completions).
std::string zsh_completion(const CommandDoc& root);

}  // namespace numasim
