// Running the external tools the oracle needs (qemu, apt-get, dpkg-deb): fork and exec with the
// output read line by line as it comes, a wall-clock limit, and no shell in between.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace numasim {

struct CommandResult {
    int exit_code = -1;      // the command's exit status; -1 if it died by a signal
    int signal = 0;          // the signal it died by, if it did
    bool timed_out = false;  // killed because it ran past the limit
    std::string output;      // standard output and error, interleaved as written
    double wall_s = 0;
};

struct CommandOptions {
    double timeout_s = 0;  // 0: no limit; otherwise SIGKILL after this many seconds
    std::string cwd;       // "" : the current directory
    // Called for every complete line of output (without the newline) as it arrives.
    std::function<void(std::string_view)> on_line;
};

// Runs argv[0] (searched in PATH) with standard input from /dev/null. Throws std::runtime_error
// if the program cannot be started.
CommandResult run_command(const std::vector<std::string>& argv, const CommandOptions& o = {});

// True if `name` is an executable file in PATH (or a path to one).
bool have_program(const std::string& name);

}  // namespace numasim
