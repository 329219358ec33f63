// Placement policies loaded from shared objects (`--policy-plugin PATH.so`): the ABI is the
// installed header numasim/policy_plugin.h (docs/placement-policies.md, "Plugins"). Loading a
// plugin checks its ABI version and descriptor and registers its policy under its name, as a
// built-in policy registers itself; every call into it afterwards is guarded (plugin_call.h), so
// an exception it throws, an answer out of range or a crash inside it is an error naming the
// plugin and the call.
#pragma once

#include <string>

namespace numasim {

// The option every loading error names.
inline constexpr const char* kPolicyPluginOption = "--policy-plugin";

// Loads the plugin at `path` and registers its policy; throws InputError ("--policy-plugin
// PATH: CALL: PROBLEM"). Loading the same path twice registers it once.
void load_policy_plugin(const std::string& path);

}  // namespace numasim
