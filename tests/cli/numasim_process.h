// Runs the numasim binary for the end-to-end tests, and gives each test process its own scratch
// directory, so that two ctest runs (of different build trees, say) never share a file.
#pragma once

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace numasim::test {

struct Output {
    int status;
    std::string out;
};

// Runs the shell command `CMD` from the source directory, with $NUMASIM naming the binary;
// stderr is folded into the output.
inline Output shell(const std::string& cmd) {
    const std::string line = std::string("cd ") + NUMASIM_SOURCE_DIR +
                             " && NUMASIM=" + NUMASIM_BINARY + " && " + cmd + " 2>&1";
    FILE* p = popen(line.c_str(), "r");
    std::string out;
    std::array<char, 4096> buf;
    size_t n;
    while ((n = fread(buf.data(), 1, buf.size(), p)) > 0)
        out.append(buf.data(), n);
    const int st = pclose(p);
    return {WIFEXITED(st) ? WEXITSTATUS(st) : -1, out};
}

// `numasim ARGS` from the source directory, after the `ENV` assignments (`K=V ...`) if any.
inline Output run_numasim(const std::string& args, const std::string& env = "") {
    return shell((env.empty() ? "" : "env " + env + " ") + "$NUMASIM " + args);
}

inline std::string read_text(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

// This process's scratch directory (made on first use, removed when the process exits): ctest
// runs every test in its own process, so no two tests, and no two test runs, share it.
inline const std::filesystem::path& scratch_dir() {
    struct Dir {
        std::filesystem::path path =
            std::filesystem::temp_directory_path() / ("numasim-test-" + std::to_string(::getpid()));
        Dir() {
            std::filesystem::remove_all(path);
            std::filesystem::create_directories(path);
        }
        ~Dir() {
            std::error_code ec;
            std::filesystem::remove_all(path, ec);
        }
    };
    static const Dir dir;
    return dir.path;
}

// A fresh path NAME in the scratch directory (whatever an earlier test left there removed).
inline std::string scratch_path(const std::string& name) {
    const std::filesystem::path p = scratch_dir() / name;
    std::filesystem::remove_all(p);
    return p.string();
}

// Writes TEXT to the scratch file NAME and returns its path.
inline std::string write_temp(const std::string& name, const std::string& text) {
    const std::string path = scratch_path(name);
    std::ofstream(path) << text;
    return path;
}

// Starts `numasim ARGS` (words split at spaces; from the current directory) in the background,
// output discarded, with SIGINT and SIGTERM at their default actions (a shell's `&` would start
// it with SIGINT ignored); its process id, or -1.
inline pid_t spawn_numasim(const std::string& args) {
    std::vector<std::string> words = {NUMASIM_BINARY};
    for (size_t at = 0; at < args.size();) {
        const size_t end = std::min(args.find(' ', at), args.size());
        if (end > at) words.push_back(args.substr(at, end - at));
        at = end + 1;
    }
    std::vector<char*> argv;
    for (auto& w : words)
        argv.push_back(w.data());
    argv.push_back(nullptr);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&fa, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
    posix_spawnattr_t attr;
    posix_spawnattr_init(&attr);
    sigset_t defaults;
    sigemptyset(&defaults);
    sigaddset(&defaults, SIGINT);
    sigaddset(&defaults, SIGTERM);
    posix_spawnattr_setsigdefault(&attr, &defaults);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGDEF);
    pid_t pid = -1;
    const int err = posix_spawn(&pid, NUMASIM_BINARY, &fa, &attr, argv.data(), environ);
    posix_spawnattr_destroy(&attr);
    posix_spawn_file_actions_destroy(&fa);
    return err == 0 ? pid : -1;
}

}  // namespace numasim::test
