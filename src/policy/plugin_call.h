// Every call numasim makes into a plugin runs inside a PluginCall: an exception the plugin throws
// becomes an InputError naming the plugin and the call, and a fatal signal raised while the call
// runs (SIGSEGV, SIGBUS, SIGFPE, SIGILL) is reported as the plugin's by a handler that reads the
// calling thread's current call, and ends the process with the input-error status before any
// output is written.
#pragma once

#include <string>
#include <utility>

#include "config/input_error.h"

namespace numasim {

class PluginCall {
  public:
    // `origin` is "--policy-plugin PATH", `call` what is called ("second-fault.numa_fault");
    // both must outlive the call (they are not copied: a hook runs once per fault).
    PluginCall(const std::string& origin, const std::string& call);
    ~PluginCall();
    PluginCall(const PluginCall&) = delete;
    PluginCall& operator=(const PluginCall&) = delete;

    const std::string& origin() const { return origin_; }
    const std::string& call() const { return call_; }
    [[noreturn]] void fail(const std::string& problem) const;

    // Runs f() as this call: exceptions become InputError; InputError passes through.
    template <class F>
    decltype(auto) run(F&& f) const {
        try {
            return std::forward<F>(f)();
        } catch (const InputError&) {
            throw;
        } catch (const std::exception& e) {
            fail(std::string("threw: ") + e.what());
        } catch (...) {
            fail("threw an exception that is not a std::exception");
        }
    }

  private:
    const std::string& origin_;
    const std::string& call_;
    const PluginCall* outer_;
};

// Installs the fatal-signal handler (once); load_policy_plugin does before its first call.
void install_plugin_crash_handler();
// What the handler calls before it ends the process (an upper layer's clean-up, such as removing
// unpublished output files); async-signal-safe only. nullptr: nothing.
void set_plugin_crash_cleanup(void (*cleanup)());

}  // namespace numasim
