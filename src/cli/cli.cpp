#include "cli/cli.h"

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <iostream>
#include <thread>

#include "cli/commands.h"
#include "config/input_error.h"

namespace numasim {

int cli_main(int argc, char** argv) {
    CLI::App app{"numasim: Linux automatic NUMA balancing on a simulated NUMA machine"};
    app.require_subcommand(1);
    app.set_version_flag("--version", "numasim 0.1.0");
    std::vector<std::unique_ptr<Command>> commands = make_commands();
    for (auto& c : commands)
        c->add_to(app);
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        return app.exit(e);
    }
    try {
        for (auto& c : commands)
            if (c->selected()) return c->execute();
    } catch (const InputError& e) {
        fmt::print(stderr, "numasim: error: {}\n", e.what());
        return 2;
    } catch (const std::exception& e) {
        fmt::print(stderr, "numasim: internal error: {}\n", e.what());
        return 1;
    }
    return 0;
}

}  // namespace numasim
