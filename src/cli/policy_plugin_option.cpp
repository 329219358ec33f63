#include "cli/policy_plugin_option.h"

#include "cli/output_file.h"
#include "cli/value_hints.h"
#include "policy/plugin.h"
#include "policy/plugin_call.h"

namespace numasim {

void add_policy_plugin_option(CLI::App& app, std::vector<std::string>& paths) {
    // One value per occurrence, so that `--policy-plugin X.so FILE` leaves FILE to the positional.
    hint_file(app.add_option(kPolicyPluginOption, paths,
                             "load a placement policy from a shared object built against "
                             "numasim/policy_plugin.h (repeatable; docs/placement-policies.md)"),
              "so")
        ->allow_extra_args(false);
}

void load_policy_plugins(const std::vector<std::string>& paths) {
    // A crash inside a plugin ends the process from its signal handler: no output file is left
    // half written under a temporary name.
    if (!paths.empty()) set_plugin_crash_cleanup(remove_output_temps_on_fatal_signal);
    for (const std::string& p : paths)
        load_policy_plugin(p);
}

}  // namespace numasim
