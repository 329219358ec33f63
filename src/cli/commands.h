// Subcommands of the numasim command line. Each is one class in its own file (cmd_*.cpp) that
// declares its options on the CLI11 app and executes when selected.
#pragma once

#include <CLI/CLI.hpp>
#include <memory>
#include <vector>

namespace numasim {

class Command {
  public:
    virtual ~Command() = default;
    virtual void add_to(CLI::App& app) = 0;
    virtual int execute() = 0;
    bool selected() const { return sub_ && sub_->parsed(); }

  protected:
    CLI::App* sub_ = nullptr;
};

std::unique_ptr<Command> make_run_command();
std::unique_ptr<Command> make_compare_command();
std::unique_ptr<Command> make_sweep_command();
std::unique_ptr<Command> make_gather_command();
std::unique_ptr<Command> make_validate_command();
std::unique_ptr<Command> make_oracle_command();
std::unique_ptr<Command> make_import_command();
std::unique_ptr<Command> make_perf_bench_numa_command();
std::unique_ptr<Command> make_machines_command();
std::unique_ptr<Command> make_calibrate_command();
std::unique_ptr<Command> make_workloads_command();
std::unique_ptr<Command> make_policies_command();
std::unique_ptr<Command> make_profiles_command();
std::unique_ptr<Command> make_report_command();
std::unique_ptr<Command> make_completion_command();
std::unique_ptr<Command> make_man_command();
std::vector<std::unique_ptr<Command>> make_commands();

}  // namespace numasim
