// numasim run [SCENARIO.toml] [--json] [--trace FILE] [-V VARIANT] [--iteration K] ...
#include <fmt/format.h>

#include <cstdio>
#include <optional>

#include "cli/commands.h"
#include "cli/output_file.h"
#include "cli/scenario_options.h"
#include "config/input_error.h"
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
        sub_->add_option("-V,--variant", variant_,
                         "a [[variant]] table of the scenario by name, or NAME:KEY=VALUE,... as "
                         "for compare: its overrides apply after the others, as in compare");
        iteration_opt_ = sub_->add_option(
            "--iteration", iteration_,
            "run only iteration K (from 0) of the scenario's iterations, with the seed that "
            "iteration has in run, compare and sweep: reproduces one run of a compare column "
            "or a sweep case");
        opts_.add_to(*sub_);
    }

    int execute() override {
        ScenarioOverrides ov = opts_.overrides();
        auto load = [&](const ScenarioOverrides& o) {
            return path_.empty() ? load_builtin_scenario("default", o)
                                 : load_scenario_file(path_, o);
        };
        if (!variant_.empty()) {
            const ScenarioOverrides extra = variant_.find(':') != std::string::npos
                                                ? parse_variant(variant_).overrides
                                                : named_variant(load(ov).variants);
            ov.insert(ov.end(), extra.begin(), extra.end());
        }
        const Scenario sc = load(ov);
        std::optional<OutputFile> trace;
        if (trace_opt_->count() > 0) trace.emplace("--trace", trace_, sc.input_files);
        std::vector<RunResult> results;
        if (iteration_opt_->count()) {
            if (iteration_ < 0 || iteration_ >= sc.iterations)
                throw InputError(
                    fmt::format("--iteration {}", iteration_), "",
                    fmt::format("the scenario has iterations 0..{}", sc.iterations - 1));
            results.push_back(
                run_once(sc, iteration_seed(sc, iteration_), trace ? trace->get() : nullptr));
        } else {
            ProgressReporter progress(static_cast<size_t>(sc.iterations));  // silent unless a tty
            results = run_iterations(sc, opts_.workers(), trace ? trace->get() : nullptr,
                                     [&] { progress.advance(); });
            progress.finish();
        }
        const std::string out =
            json_ ? results_json(sc, results).dump(2) + "\n" : results_text(sc, results);
        if (trace) trace->commit();
        std::fwrite(out.data(), 1, out.size(), stdout);
        return 0;
    }

  private:
    ScenarioOverrides named_variant(const std::vector<Variant>& vs) const {
        std::vector<std::string> names;
        for (const auto& v : vs) {
            if (v.name == variant_) return v.overrides;
            names.push_back(v.name);
        }
        throw InputError(
            path_, "variant",
            fmt::format("no [[variant]] table named '{}' (there are: {})", variant_,
                        names.empty() ? "none" : fmt::format("{}", fmt::join(names, ", "))));
    }

    CLI::Option* iteration_opt_ = nullptr;
    int iteration_ = 0;
    std::string variant_;
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
