// Entry point of numasim-guest (guest/runner.h): a static program with no dependencies beyond
// the kernel, packed into the oracle's initramfs.
#include <fmt/format.h>

#include <exception>
#include <string>
#include <vector>

#include "guest/runner.h"
#include "guest/sys.h"

int main(int argc, char** argv) {
    try {
        const std::vector<std::string> args(argv + 1, argv + argc);
        return numasim::guest::runner_main(numasim::guest::parse_runner_args(args));
    } catch (const std::exception& e) {
        numasim::guest::say(fmt::format("error numasim-guest: {}", e.what()));
        return 2;
    }
}
