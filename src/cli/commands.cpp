#include "cli/commands.h"

namespace numasim {

std::vector<std::unique_ptr<Command>> make_commands() {
    std::vector<std::unique_ptr<Command>> c;
    c.push_back(make_run_command());
    c.push_back(make_compare_command());
    c.push_back(make_sweep_command());
    c.push_back(make_gather_command());
    c.push_back(make_validate_command());
    c.push_back(make_oracle_command());
    c.push_back(make_import_command());
    c.push_back(make_perf_bench_numa_command());
    c.push_back(make_machines_command());
    c.push_back(make_calibrate_command());
    c.push_back(make_workloads_command());
    c.push_back(make_policies_command());
    c.push_back(make_profiles_command());
    c.push_back(make_report_command());
    c.push_back(make_completion_command());
    c.push_back(make_man_command());
    return c;
}

}  // namespace numasim
