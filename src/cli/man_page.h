// numasim's man pages, in roff (man(7) macros), written from the command line's definition:
// numasim(1) and one page per command, numasim-run(1), numasim-compare(1), ..., as git and perf
// have them. Subcommands of a command (machines show) are sections of its page.
#pragma once

#include <string>
#include <vector>

#include "cli/command_tree.h"

namespace numasim {

struct ManPage {
    std::string name;  // "numasim-run"; the file is NAME.1
    std::string text;
};

// Every page: the root's first, then the commands' in --help's order. A command without
// examples (src/cli/man_examples.cpp) is an internal error, so that the build fails rather
// than install a page without them.
std::vector<ManPage> man_pages(const CommandDoc& root);

}  // namespace numasim
