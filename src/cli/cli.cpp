#include "cli/cli.h"

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <new>
#include <thread>

#include "cli/commands.h"
#include "cli/observe_options.h"
#include "cli/value_hints.h"
#include "config/input_error.h"
#include "config/version.h"
#include "engine/engine.h"

namespace numasim {

CommandLine::CommandLine()
    : app("numasim: Linux automatic NUMA balancing on a simulated NUMA machine"),
      commands(make_commands()) {
    app.require_subcommand(1);
    app.set_version_flag("--version", version_text(), "print the version, git commit and compiler");
    // Usage errors in the same words as every other input error (subcommands copy this).
    app.failure_message([](const CLI::App*, const CLI::Error& e) {
        return fmt::format("numasim: error: {}\nRun with --help for more information.\n", e.what());
    });
    for (auto& c : commands)
        c->add_to(app);
}

CommandLine::~CommandLine() {
    clear_value_hints();
}

std::string version_text() {
    return fmt::format("numasim {} (git {})\ncompiler: {}", numasim_version(),
                       numasim_git_revision(), numasim_compiler());
}

int cli_main(int argc, char** argv) {
    record_command_line(argc, argv);
    CommandLine cl;
    CLI::App& app = cl.app;
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        // --help and --version exit 0; every usage error is a bad input.
        return app.exit(e) == 0 ? 0 : kExitBadInput;
    }
    int rc = 0;
    try {
        for (auto& c : cl.commands)
            if (c->selected()) rc = c->execute();
    } catch (const InputError& e) {
        fmt::print(stderr, "numasim: error: {}\n", e.what());
        return kExitBadInput;
    } catch (const SimulationStalled& e) {
        fmt::print(stderr, "numasim: error: {} (an input the checks let through: please report)\n",
                   e.what());
        return kExitBadInput;
    } catch (const std::bad_alloc&) {
        fmt::print(stderr, "numasim: error: out of memory (docs/scenario.md, \"Limits\")\n");
        return kExitBadInput;
    } catch (const std::exception& e) {
        fmt::print(stderr, "numasim: internal error: {}\n", e.what());
        return kExitInternal;
    }
    // A report that did not reach its reader is a failure (a full disk, a closed pipe).
    if (std::fflush(stdout) != 0 || std::ferror(stdout)) {
        fmt::print(stderr, "numasim: error: standard output: cannot write: {}\n",
                   std::strerror(errno));
        return kExitBadInput;
    }
    return rc;
}

}  // namespace numasim
