#include "oracle/work_dir.h"

#include <fmt/format.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <fstream>
#include <string>
#include <system_error>

namespace numasim {

namespace fs = std::filesystem;

namespace {

constexpr std::string_view kPrefix = "run-";

// The PID a directory name `run-PID` carries, or 0 for any other name.
int pid_of(const std::string& name) {
    if (name.rfind(kPrefix, 0) != 0) return 0;
    int pid = 0;
    const char* first = name.data() + kPrefix.size();
    const char* last = name.data() + name.size();
    const auto [end, ec] = std::from_chars(first, last, pid);
    return ec == std::errc() && end == last && pid > 0 ? pid : 0;
}

}  // namespace

bool process_alive(int pid) {
    if (::kill(pid, 0) != 0 && errno == ESRCH) return false;
    // /proc/PID/stat: "PID (COMM) STATE ...", COMM may hold spaces and parentheses.
    std::ifstream in(fmt::format("/proc/{}/stat", pid));
    std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const size_t close = stat.rfind(')');
    return close == std::string::npos || close + 2 >= stat.size() || stat[close + 2] != 'Z';
}

fs::path make_oracle_work_dir(const fs::path& cache) {
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(cache, ec)) {
        const int pid = pid_of(e.path().filename().string());
        if (pid != 0 && pid != ::getpid() && !process_alive(pid)) fs::remove_all(e.path(), ec);
    }
    const fs::path work = cache / fmt::format("{}{}", kPrefix, ::getpid());
    fs::create_directories(work);
    return work;
}

}  // namespace numasim
