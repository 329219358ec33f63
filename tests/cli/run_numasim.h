// Runs the numasim binary from the source directory for the end-to-end tests.
#pragma once

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

namespace numasim::test {

struct Output {
    int status;
    std::string out;
};

// A shell command run in the source directory, stderr folded into the output.
inline Output run_in_source_dir(const std::string& command) {
    const std::string cmd = std::string("cd ") + NUMASIM_SOURCE_DIR + " && " + command + " 2>&1";
    FILE* p = popen(cmd.c_str(), "r");
    std::string out;
    std::array<char, 4096> buf;
    size_t n;
    while ((n = fread(buf.data(), 1, buf.size(), p)) > 0)
        out.append(buf.data(), n);
    const int st = pclose(p);
    return {WIFEXITED(st) ? WEXITSTATUS(st) : -1, out};
}

// `numasim ARGS`.
inline Output run_numasim(const std::string& args) {
    return run_in_source_dir(std::string(NUMASIM_BINARY) + " " + args);
}

inline std::string read_text(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

}  // namespace numasim::test
