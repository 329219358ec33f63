// The command line as plain data, read from the CLI11 app: each command with its description,
// options and subcommands. The man pages and the shell completions are written from this, so
// they list exactly what the parser accepts.
#pragma once

#include <string>
#include <vector>

#include "cli/value_hints.h"

namespace CLI {
class App;
}  // namespace CLI

namespace numasim {

struct OptionDoc {
    std::vector<std::string> names;  // "-j", "--jobs"; a positional's one name ("scenario")
    bool positional = false;
    bool takes_value = false;  // false: a flag
    bool repeatable = false;
    bool required = false;
    std::string value_name;  // what --help shows: "FILE", "DIR", "TEXT", "INT", "{ci|ttest}"
    std::string description;
    ValueHint hint;
};

struct CommandDoc {
    std::vector<std::string> path;  // {} for numasim itself, {"machines", "show"}
    std::string description;
    std::vector<OptionDoc> options;  // in the order --help lists them
    std::vector<CommandDoc> subcommands;

    std::string name() const;       // "numasim machines show"
    std::string page_name() const;  // "numasim-machines-show" ("numasim" for the root)
};

CommandDoc describe_command_line(const CLI::App& app);

}  // namespace numasim
