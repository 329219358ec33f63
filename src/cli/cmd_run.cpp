// numasim run [SCENARIO.toml] [--json] [--trace FILE] ...
#include <fmt/format.h>

#include <cstdio>
#include <optional>

#include "cli/commands.h"
#include "cli/output_file.h"
#include "cli/scenario_options.h"
#include "experiment/run.h"
#include "experiment/scenario.h"
#include "report/progress.h"
#include "report/run_report.h"

namespace numasim {

namespace {

class RunCommand : public Command {
  public:
    void add_to(CLI::App& app) override {
        sub_ = app.add_subcommand("run", "run a scenario (the built-in default without a file)");
        sub_->add_option("scenario", path_, "scenario TOML file");
        sub_->add_flag("--json", json_, "print one JSON object instead of text");
        trace_opt_ = sub_->add_option(
            "--trace", trace_,
            "write sched/NUMA events in ftrace text format to FILE (- for standard "
            "output, before the report)");
        opts_.add_to(*sub_);
    }

    int execute() override {
        const ScenarioOverrides ov = opts_.overrides();
        const Scenario sc =
            path_.empty() ? load_builtin_scenario("default", ov) : load_scenario_file(path_, ov);
        std::optional<OutputFile> trace;
        if (trace_opt_->count() > 0) trace.emplace("--trace", trace_, sc.input_files);
        ProgressReporter progress(static_cast<size_t>(sc.iterations));  // silent unless a tty
        const auto results = run_iterations(sc, opts_.workers(), trace ? trace->get() : nullptr,
                                            [&] { progress.advance(); });
        progress.finish();
        const std::string out =
            json_ ? results_json(sc, results).dump(2) + "\n" : results_text(sc, results);
        if (trace) trace->commit();
        std::fwrite(out.data(), 1, out.size(), stdout);
        return 0;
    }

  private:
    std::string path_, trace_;
    bool json_ = false;
    CLI::Option* trace_opt_ = nullptr;
    ScenarioOptions opts_;
};

}  // namespace

std::unique_ptr<Command> make_run_command() {
    return std::make_unique<RunCommand>();
}

}  // namespace numasim
