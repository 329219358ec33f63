// `--policy-plugin PATH.so` (repeatable), for the commands that run or list policies: each
// plugin's policy is registered before the scenario is read, so `policy = "NAME"` and
// `-V x:policy=NAME` select it as they select a built-in one (policy/plugin.h).
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

namespace numasim {

void add_policy_plugin_option(CLI::App& app, std::vector<std::string>& paths);
void load_policy_plugins(const std::vector<std::string>& paths);

}  // namespace numasim
