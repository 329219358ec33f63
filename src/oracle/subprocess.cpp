#include "oracle/subprocess.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

namespace numasim {

namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// Hands every complete line of `buf` to `on_line` and keeps the unfinished tail.
void emit_lines(std::string& buf, const std::function<void(std::string_view)>& on_line) {
    size_t start = 0;
    for (size_t nl = buf.find('\n'); nl != std::string::npos; nl = buf.find('\n', start)) {
        if (on_line) on_line(std::string_view(buf).substr(start, nl - start));
        start = nl + 1;
    }
    buf.erase(0, start);
}

}  // namespace

CommandResult run_command(const std::vector<std::string>& argv, const CommandOptions& o) {
    if (argv.empty()) throw std::runtime_error("run_command: empty command");
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0)
        throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
    std::vector<char*> args;
    for (const auto& a : argv)
        args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    // The child reports a failed exec through this pipe (closed on a successful exec).
    int errfds[2];
    if (pipe2(errfds, O_CLOEXEC) != 0)
        throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
    const auto t0 = std::chrono::steady_clock::now();
    const pid_t parent = getpid();
    const pid_t pid = fork();
    if (pid < 0) throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
    if (pid == 0) {
        // A qemu must not outlive numasim: killed by a signal (even SIGKILL), numasim could not
        // stop it, and it would go on booting until its own end. The kernel kills the child when
        // the thread that forked it exits, which is the one that waits for it below. If numasim
        // died before the request was made, nothing would send the signal: leave now.
        if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != parent) _exit(127);
        const int devnull = open("/dev/null", O_RDONLY);
        dup2(devnull, 0);
        dup2(fds[1], 1);
        dup2(fds[1], 2);
        if (!o.cwd.empty() && chdir(o.cwd.c_str()) != 0) {
            const int e = errno;
            (void)!write(errfds[1], &e, sizeof e);
            _exit(127);
        }
        execvp(args[0], args.data());
        const int e = errno;
        (void)!write(errfds[1], &e, sizeof e);
        _exit(127);
    }
    close(fds[1]);
    close(errfds[1]);
    int exec_errno = 0;
    if (read(errfds[0], &exec_errno, sizeof exec_errno) != sizeof exec_errno) exec_errno = 0;
    close(errfds[0]);

    CommandResult r;
    std::string pending;
    char buf[65536];
    bool open_pipe = exec_errno == 0;
    while (open_pipe) {
        int wait_ms = -1;
        if (o.timeout_s > 0) {
            const double left = o.timeout_s - seconds_since(t0);
            if (left <= 0) {
                kill(pid, SIGKILL);
                r.timed_out = true;
                break;
            }
            wait_ms = static_cast<int>(left * 1000) + 1;
        }
        pollfd p{fds[0], POLLIN, 0};
        const int n = poll(&p, 1, wait_ms);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) continue;
        const ssize_t got = read(fds[0], buf, sizeof buf);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) break;
        r.output.append(buf, static_cast<size_t>(got));
        pending.append(buf, static_cast<size_t>(got));
        emit_lines(pending, o.on_line);
    }
    close(fds[0]);
    if (!pending.empty() && o.on_line) o.on_line(pending);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    r.wall_s = seconds_since(t0);
    if (exec_errno != 0)
        throw std::runtime_error("cannot run " + argv[0] + ": " + std::strerror(exec_errno));
    r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    r.signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
    return r;
}

bool have_program(const std::string& name) {
    auto executable = [](const std::string& p) {
        struct stat st;
        return stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode) && access(p.c_str(), X_OK) == 0;
    };
    if (name.find('/') != std::string::npos) return executable(name);
    const char* path = std::getenv("PATH");
    std::string dirs = path ? path : "/usr/bin:/bin";
    size_t start = 0;
    while (start <= dirs.size()) {
        const size_t colon = dirs.find(':', start);
        const std::string dir = dirs.substr(start, colon - start);
        if (!dir.empty() && executable(dir + "/" + name)) return true;
        if (colon == std::string::npos) break;
        start = colon + 1;
    }
    return false;
}

}  // namespace numasim
