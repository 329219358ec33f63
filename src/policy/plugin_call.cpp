#include "policy/plugin_call.h"

#include <unistd.h>

#include <atomic>
#include <csignal>
#include <cstring>
#include <mutex>

namespace numasim {

namespace {

// The innermost plugin call of this thread: a fatal signal is delivered to the thread that
// raised it, so the handler finds the call that faulted here.
thread_local const PluginCall* t_current = nullptr;

// The status of every input error (cli.h's kExitBadInput; this layer sits below the CLI).
constexpr int kInputErrorStatus = 2;

constexpr int kFatalSignals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL};

std::atomic<void (*)()> g_cleanup{nullptr};
static_assert(std::atomic<void (*)()>::is_always_lock_free, "read from a signal handler");

void put(const char* s, size_t n) {
    (void)!::write(STDERR_FILENO, s, n);
}
void put(const char* s) {
    put(s, std::strlen(s));
}

// Only async-signal-safe calls: write(2), strlen, _exit.
extern "C" void plugin_crash_handler(int sig) {
    if (!t_current) {  // not the plugin's: the default action, as if no handler were installed
        std::signal(sig, SIG_DFL);
        std::raise(sig);
        return;
    }
    put("numasim: error: ");
    put(t_current->origin().data(), t_current->origin().size());
    put(": ");
    put(t_current->call().data(), t_current->call().size());
    put(": crashed with ");
    put(sig == SIGSEGV  ? "SIGSEGV (invalid memory access)"
        : sig == SIGBUS ? "SIGBUS (bus error)"
        : sig == SIGFPE ? "SIGFPE (arithmetic error)"
                        : "SIGILL (illegal instruction)");
    put(" inside the plugin\n");
    if (void (*cleanup)() = g_cleanup.load()) cleanup();
    ::_exit(kInputErrorStatus);
}

}  // namespace

PluginCall::PluginCall(const std::string& origin, const std::string& call)
    : origin_(origin), call_(call), outer_(t_current) {
    t_current = this;
}

PluginCall::~PluginCall() {
    t_current = outer_;
}

void PluginCall::fail(const std::string& problem) const {
    throw InputError(origin_, call_, problem);
}

void set_plugin_crash_cleanup(void (*cleanup)()) {
    g_cleanup.store(cleanup);
}

void install_plugin_crash_handler() {
    static std::once_flag once;
    std::call_once(once, [] {
        struct sigaction sa {};
        sa.sa_handler = plugin_crash_handler;
        sigemptyset(&sa.sa_mask);
        for (int s : kFatalSignals)
            sigaction(s, &sa, nullptr);
    });
}

}  // namespace numasim
