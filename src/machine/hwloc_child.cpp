#include "machine/hwloc_child.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <string_view>

#include "config/input_error.h"
#include "config/limits.h"

namespace numasim {

namespace {

// Exit codes of the child besides 0 (facts written to the pipe).
constexpr int kExitRejected = 3;  // hwloc_topology_load refused the XML
constexpr int kExitFailed = 4;    // something else failed: an exception, a write error

// Signals whose inherited handlers must not run in the child: libFuzzer's and the sanitizers'
// would report the crash of a library we do not test as a crash of numasim (and libFuzzer
// would save the parent's input as a crash artifact). With the default action the child just
// dies, which is what the parent reports.
constexpr int kFatalSignals[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP};

bool write_all(int fd, std::string_view s) {
    while (!s.empty()) {
        const ssize_t n = ::write(fd, s.data(), s.size());
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return false;
        s.remove_prefix(static_cast<size_t>(n));
    }
    return true;
}

// Runs in the forked child and never returns. It leaves through _exit, so no atexit handler,
// static destructor, stdio flush or leak check of the parent's state runs twice; the topology is
// not destroyed for the same reason (the process ends anyway).
[[noreturn]] void child_main(const std::string& xml, int out) {
    for (int sig : kFatalSignals)
        ::signal(sig, SIG_DFL);
    // hwloc prints its complaints about bad XML on stderr; the parent reports the failure.
    const int null = ::open("/dev/null", O_WRONLY | O_CLOEXEC);
    if (null >= 0) ::dup2(null, STDERR_FILENO);
    int code = kExitFailed;
    try {
        hwloc_topology_t t = nullptr;
        if (hwloc_topology_init(&t) == 0) {
            if (hwloc_topology_set_xmlbuffer(t, xml.c_str(), static_cast<int>(xml.size() + 1)) !=
                    0 ||
                hwloc_topology_load(t) != 0)
                code = kExitRejected;
            else if (write_all(out, encode_hwloc_facts(extract_hwloc_facts(t))))
                code = 0;
        }
    } catch (...) {
    }
    ::_exit(code);
}

class Pipe {
  public:
    Pipe() {
        // CLOEXEC: a program another thread starts meanwhile must not hold the write end open.
        if (::pipe2(fd_, O_CLOEXEC) != 0) fd_[0] = fd_[1] = -1;
    }
    ~Pipe() {
        close_read();
        close_write();
    }
    Pipe(const Pipe&) = delete;
    Pipe& operator=(const Pipe&) = delete;
    bool ok() const { return fd_[0] >= 0; }
    int read_end() const { return fd_[0]; }
    int write_end() const { return fd_[1]; }
    void close_read() { close(0); }
    void close_write() { close(1); }

  private:
    void close(int i) {
        if (fd_[i] >= 0) ::close(fd_[i]);
        fd_[i] = -1;
    }
    int fd_[2];
};

// The child's pid until it has been waited for. An exception on the way out kills and reaps the
// child, so that no zombie or stray process is left behind.
class Child {
  public:
    explicit Child(pid_t pid) : pid_(pid) {}
    ~Child() {
        if (pid_ > 0) {
            ::kill(pid_, SIGKILL);
            wait();
        }
    }
    Child(const Child&) = delete;
    Child& operator=(const Child&) = delete;
    void kill() { ::kill(pid_, SIGKILL); }
    // The wait status, or -1 if waitpid fails (only if someone else reaped the child).
    int wait() {
        int status = 0;
        pid_t r;
        while ((r = ::waitpid(pid_, &status, 0)) < 0 && errno == EINTR) {
        }
        pid_ = 0;
        return r < 0 ? -1 : status;
    }

  private:
    pid_t pid_;
};

// Reads until the child closes the pipe; false if the deadline passes first.
bool read_all(int fd, std::chrono::steady_clock::time_point deadline, std::string& out,
              const std::string& path) {
    char buf[1 << 16];
    for (;;) {
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
            deadline - std::chrono::steady_clock::now());
        if (left.count() <= 0) return false;
        pollfd p = {fd, POLLIN, 0};
        const int ready = ::poll(&p, 1, static_cast<int>(left.count()));
        if (ready == 0) return false;
        const ssize_t n = ready < 0 ? -1 : ::read(fd, buf, sizeof buf);
        if (n == 0) return true;
        if (n > 0) {
            out.append(buf, static_cast<size_t>(n));
        } else if (errno != EINTR) {
            throw InputError(path, "",
                             fmt::format("cannot read from libhwloc's loader process: {}",
                                         std::strerror(errno)));
        }
    }
}

std::string signal_name(int sig) {
    const char* abbrev = ::sigabbrev_np(sig);
    const std::string name = abbrev ? std::string("SIG") + abbrev : fmt::format("signal {}", sig);
    return fmt::format("{} ({})", name, ::strsignal(sig));
}

}  // namespace

HwlocFacts load_hwloc_xml_isolated(const std::string& xml, const std::string& path) {
    Pipe pipe;
    if (!pipe.ok())
        throw InputError(
            path, "",
            fmt::format("cannot start libhwloc's loader process: {}", std::strerror(errno)));
    const auto deadline =
        std::chrono::steady_clock::now() + std::chrono::seconds(kMaxHwlocLoadSeconds);
    const pid_t pid = ::fork();
    if (pid < 0)
        throw InputError(
            path, "",
            fmt::format("cannot start libhwloc's loader process: {}", std::strerror(errno)));
    if (pid == 0) {
        pipe.close_read();
        child_main(xml, pipe.write_end());
    }
    Child child(pid);
    pipe.close_write();  // so that the read sees end-of-file when the child is gone
    std::string out;
    const bool finished = read_all(pipe.read_end(), deadline, out, path);
    if (!finished) child.kill();
    const int status = child.wait();
    if (!finished)
        throw InputError(path, "",
                         fmt::format("libhwloc failed to parse it within {} s (the limit for "
                                     "loading an hwloc XML file)",
                                     kMaxHwlocLoadSeconds));
    if (status == -1)
        throw InputError(
            path, "",
            fmt::format("cannot wait for libhwloc's loader process: {}", std::strerror(errno)));
    if (WIFSIGNALED(status))
        throw InputError(path, "",
                         fmt::format("libhwloc failed to parse it: it crashed with {}; the XML "
                                     "is malformed in a way this libhwloc does not check",
                                     signal_name(WTERMSIG(status))));
    if (WEXITSTATUS(status) == kExitRejected)
        throw InputError(path, "",
                         "hwloc rejects this XML: malformed XML or not a topology hwloc "
                         "understands (`hwloc-info --input FILE` shows hwloc's own message)");
    if (WEXITSTATUS(status) != 0)
        throw InputError(path, "",
                         fmt::format("libhwloc failed to parse it: its loader process exited "
                                     "with status {}",
                                     WEXITSTATUS(status)));
    return decode_hwloc_facts(out, path);
}

}  // namespace numasim
