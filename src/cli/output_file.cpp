#include "cli/output_file.h"

#include <fmt/format.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <climits>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <mutex>

#include "config/input_error.h"

namespace numasim {

namespace {

// Temporary files to remove when a signal ends the process. Fixed storage, so that the handler
// calls only async-signal-safe functions (unlink, signal, raise). A command writes one or two
// files; a path longer than PATH_MAX cannot have been created.
constexpr int kMaxTemps = 8;
char g_temp_path[kMaxTemps][PATH_MAX];
volatile std::sig_atomic_t g_temp_used[kMaxTemps];
constexpr int kCleanupSignals[] = {SIGINT, SIGTERM, SIGHUP};

// A temporary file is named ".TARGET" + kTempInfix + six random characters.
constexpr std::string_view kTempInfix = ".numasim-";

// Set while a StopOnFirstSigint is alive; the flag its first SIGINT raises.
volatile std::sig_atomic_t g_sigint_graceful;
std::atomic<bool> g_sigint_stop{false};
static_assert(std::atomic<bool>::is_always_lock_free, "set from a signal handler");

std::atomic<SignalNote> g_note{nullptr};
static_assert(std::atomic<SignalNote>::is_always_lock_free, "read from a signal handler");

void remove_temps() {
    for (int i = 0; i < kMaxTemps; ++i)
        if (g_temp_used[i]) ::unlink(g_temp_path[i]);
}

extern "C" void remove_temps_and_reraise(int sig) {
    if (sig == SIGINT && g_sigint_graceful && !g_sigint_stop.exchange(true)) {
        constexpr char kMsg[] =
            "\nnumasim: stopping once the running work finishes (Ctrl-C again to abort)\n";
        (void)!::write(STDERR_FILENO, kMsg, sizeof kMsg - 1);
        return;
    }
    if (const SignalNote note = g_note.load()) note(STDERR_FILENO);
    remove_temps();
    std::signal(sig, SIG_DFL);
    std::raise(sig);
}

void install_cleanup_handlers() {
    static std::once_flag once;
    std::call_once(once, [] {
        struct sigaction sa {};
        sa.sa_handler = remove_temps_and_reraise;
        sigemptyset(&sa.sa_mask);
        for (int s : kCleanupSignals)
            sigaction(s, &sa, nullptr);
    });
}

// Blocks the cleanup signals while a temporary file is created and registered, so that no
// signal can arrive between the two.
class SignalsBlocked {
  public:
    SignalsBlocked() {
        sigset_t set;
        sigemptyset(&set);
        for (int s : kCleanupSignals)
            sigaddset(&set, s);
        pthread_sigmask(SIG_BLOCK, &set, &old_);
    }
    ~SignalsBlocked() { pthread_sigmask(SIG_SETMASK, &old_, nullptr); }

  private:
    sigset_t old_;
};

int register_temp(const std::string& path) {
    for (int i = 0; i < kMaxTemps; ++i) {
        if (g_temp_used[i] || path.size() >= PATH_MAX) continue;
        std::memcpy(g_temp_path[i], path.c_str(), path.size() + 1);
        std::atomic_signal_fence(std::memory_order_seq_cst);
        g_temp_used[i] = 1;
        return i;
    }
    return -1;
}

void unregister_temp(int slot) {
    if (slot >= 0) g_temp_used[slot] = 0;
}

bool same_file(const struct stat& a, const std::string& path) {
    struct stat b;
    return ::stat(path.c_str(), &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

}  // namespace

OutputFile::OutputFile(std::string option, std::string path, const std::vector<std::string>& inputs)
    : option_(std::move(option)), path_(std::move(path)) {
    auto fail = [&](const std::string& problem) { throw InputError(option_, path_, problem); };
    if (path_.empty()) fail("empty file name (use - for standard output)");
    if (path_ == "-") {
        f_ = stdout;
        return;
    }
    struct stat st;
    const bool exists = ::stat(path_.c_str(), &st) == 0;  // follows symbolic links
    if (exists) {
        for (const auto& in : inputs)
            if (same_file(st, in))
                fail(fmt::format("is an input of this command ({}); refusing to overwrite it", in));
        if (S_ISDIR(st.st_mode)) fail("is a directory");
        // /dev/stdout, /proc/self/fd/1 or the file our output is redirected to: share the
        // stream (opening the file anew would truncate it under the report).
        for (auto [fd, stream] : {std::pair{STDOUT_FILENO, stdout}, {STDERR_FILENO, stderr}}) {
            struct stat own;
            if (::fstat(fd, &own) == 0 && own.st_dev == st.st_dev && own.st_ino == st.st_ino) {
                f_ = stream;
                return;
            }
        }
        if (!S_ISREG(st.st_mode) || path_.rfind("/dev/", 0) == 0 || path_.rfind("/proc/", 0) == 0) {
            // A FIFO, a terminal, /dev/null: a rename would replace the node itself, so write
            // in place.
            f_ = std::fopen(path_.c_str(), "w");
            if (!f_) fail(fmt::format("cannot open: {}", std::strerror(errno)));
            owned_ = true;
            return;
        }
        char* real = ::realpath(path_.c_str(), nullptr);
        if (!real) fail(fmt::format("cannot resolve: {}", std::strerror(errno)));
        target_ = real;
        std::free(real);
    } else {
        struct stat lst;
        if (::lstat(path_.c_str(), &lst) == 0)
            fail("is a symbolic link to a file that does not exist; refusing to replace the link");
        target_ = path_;
    }
    const std::filesystem::path target(target_);
    const std::filesystem::path dir = target.has_parent_path() ? target.parent_path() : ".";
    std::string tmpl =
        (dir / fmt::format(".{}{}XXXXXX", target.filename().string(), kTempInfix)).string();
    {
        SignalsBlocked blocked;
        install_cleanup_handlers();
        const int fd = ::mkstemp(tmpl.data());
        if (fd < 0)
            fail(fmt::format("cannot create a file in {}: {}", dir.string(), std::strerror(errno)));
        tmp_ = tmpl;
        slot_ = register_temp(tmp_);
        // The mode a new file would get, or the existing file's.
        const mode_t mask = ::umask(0);
        ::umask(mask);
        ::fchmod(fd, exists ? (st.st_mode & 07777) : (0666 & ~mask));
        f_ = ::fdopen(fd, "w");
        if (!f_) {
            const int err = errno;
            ::close(fd);
            ::unlink(tmp_.c_str());  // the destructor does not run for a throwing constructor
            unregister_temp(slot_);
            fail(fmt::format("cannot open: {}", std::strerror(err)));
        }
        owned_ = true;
    }
}

OutputFile::~OutputFile() {
    if (f_ && owned_) std::fclose(f_);
    if (!tmp_.empty()) ::unlink(tmp_.c_str());
    unregister_temp(slot_);
}

void OutputFile::finish() {
    if (!f_) return;
    // After a failed write (ferror) the stream's buffer is dropped, so the flush succeeds and
    // errno still holds the write's cause (ENOSPC); EIO if nothing set it.
    bool ok = std::fflush(f_) == 0 && !std::ferror(f_);
    int err = errno != 0 ? errno : EIO;
    if (owned_ && std::fclose(f_) != 0 && ok) {
        ok = false;
        err = errno;
    }
    f_ = nullptr;
    finished_ = true;
    if (!ok) fail_write(err);
}

void OutputFile::publish() {
    if (!finished_) finish();
    if (tmp_.empty()) return;
    if (std::rename(tmp_.c_str(), target_.c_str()) != 0) fail_write(errno);
    renamed_to_ = target_;
    tmp_.clear();
    unregister_temp(slot_);
    slot_ = -1;
}

void OutputFile::fail_write(int err) {
    if (!tmp_.empty()) {
        ::unlink(tmp_.c_str());
        tmp_.clear();
        unregister_temp(slot_);
        slot_ = -1;
    }
    throw InputError(option_, path_, fmt::format("cannot write: {}", std::strerror(err)));
}

bool is_output_temp_name(std::string_view filename) {
    return filename.size() > 1 && filename[0] == '.' &&
           filename.find(kTempInfix) != std::string_view::npos;
}

StopOnFirstSigint::StopOnFirstSigint() {
    g_sigint_stop = false;
    install_cleanup_handlers();
    g_sigint_graceful = 1;
}

StopOnFirstSigint::~StopOnFirstSigint() {
    g_sigint_graceful = 0;
}

const std::atomic<bool>& StopOnFirstSigint::requested() const {
    return g_sigint_stop;
}

void remove_output_temps_on_fatal_signal() {
    remove_temps();
}

void set_signal_note(SignalNote note) {
    install_cleanup_handlers();
    g_note = note;
}

void write_output_file(const std::string& option, const std::string& path, std::string_view text,
                       const std::vector<std::string>& inputs) {
    OutputFile f(option, path, inputs);
    std::fwrite(text.data(), 1, text.size(), f.get());
    f.commit();
}

}  // namespace numasim
