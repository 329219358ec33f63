// Runs the numasim binary for the end-to-end tests.
#pragma once

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

namespace numasim_test {

struct Output {
    int status;
    std::string out;
};

// Runs `CMD` from the source directory, with NUMASIM standing for the binary; stderr is folded
// into the output.
inline Output shell(const std::string& cmd) {
    std::string line = std::string("cd ") + NUMASIM_SOURCE_DIR + " && NUMASIM=" + NUMASIM_BINARY +
                       " && " + cmd + " 2>&1";
    FILE* p = popen(line.c_str(), "r");
    std::string out;
    std::array<char, 4096> buf;
    size_t n;
    while ((n = fread(buf.data(), 1, buf.size(), p)) > 0)
        out.append(buf.data(), n);
    const int st = pclose(p);
    return {WIFEXITED(st) ? WEXITSTATUS(st) : -1, out};
}

// Runs `numasim ARGS` from the source directory; stderr is folded into the output.
inline Output numasim(const std::string& args) {
    return shell("$NUMASIM " + args);
}

inline std::string write_temp(const std::string& name, const std::string& text) {
    const auto path = std::filesystem::temp_directory_path() / name;
    std::ofstream(path) << text;
    return path.string();
}

}  // namespace numasim_test
