// The numasim command line: run, compare, validate, oracle, perf-bench-numa, machines, workloads,
// profiles, ... Every subcommand writes its output only once it has succeeded, so a bad input
// leaves nothing half-written behind.
#pragma once

#include <CLI/CLI.hpp>
#include <memory>
#include <vector>

#include "cli/commands.h"

namespace numasim {

// Exit codes (README, "Exit codes"): 0 success; 1 an internal error (a bug) or, with `validate
// --strict`, a headline effect missed; 2 bad input of any kind (an option, a file, a key, a
// value, a limit), reported as "numasim: error: WHERE: PROBLEM" before any output is written.
inline constexpr int kExitInternal = 1;
inline constexpr int kExitBadInput = 2;

// The whole command line as numasim parses it: the app with every command and option. --help,
// the man pages and the shell completions are all read from this one definition.
struct CommandLine {
    CLI::App app;
    std::vector<std::unique_ptr<Command>> commands;

    CommandLine();
    ~CommandLine();
    CommandLine(const CommandLine&) = delete;
    CommandLine& operator=(const CommandLine&) = delete;
};

// "numasim 0.1.0 (git 1a2b3c4d5e6f)" and the compiler, as --version prints them.
std::string version_text();

int cli_main(int argc, char** argv);

}  // namespace numasim
