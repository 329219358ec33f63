// numasim compare SCENARIO [--variant NAME:k=v,...]... [--iterations N] [--json]
#include <fmt/format.h>

#include <cstdio>

#include "cli/commands.h"
#include "cli/scenario_options.h"
#include "config/input_error.h"
#include "experiment/compare.h"
#include "report/compare_report.h"
#include "report/progress.h"

namespace numasim {

namespace {

class CompareCommand : public Command {
  public:
    void add_to(CLI::App& app) override {
        sub_ = app.add_subcommand("compare",
                                  "run a scenario under several variants and print mmtests-style "
                                  "compare, Duration, Ops, perf-stat and vmstat tables");
        sub_->add_option("scenario", path_, "scenario TOML file")->required();
        sub_->add_option("-V,--variant", variants_,
                         "NAME:KEY=VALUE[,KEY=VALUE] with the overrides of --param (e.g. "
                         "old:profile=v4.18,smallimp=0); default: the scenario's [[variant]] "
                         "tables")
            ->allow_extra_args(false);
        sub_->add_flag("--json", json_, "print one JSON object");
        sub_->add_option("--rule", rule_,
                         "significance rule: ci (mmtests now), ttest (2018-2024), none")
            ->check(CLI::IsMember({"ci", "ttest", "none"}));
        sub_->add_flag("--stats-2019", stats_2019_, "print the 2019-2024 mmtests stat rows");
        sub_->add_flag("--means-only", means_only_, "print only the Amean/Hmean rows");
        opts_.add_to(*sub_);
    }

    int execute() override {
        const ScenarioOverrides common = opts_.overrides();
        std::vector<Variant> vs;
        for (const auto& s : variants_)
            vs.push_back(parse_variant(s));
        if (vs.empty()) vs = load_scenario_file(path_, common).variants;
        if (vs.size() < 2)
            throw InputError(
                path_, "variant",
                "compare needs at least two variants ([[variant]] tables or --variant)");
        auto runs = load_variants(path_, common, vs);
        size_t total = 0;
        for (const auto& v : runs)
            total += static_cast<size_t>(v.scenario.iterations);
        ProgressReporter progress(total);
        run_variants(runs, opts_.workers(), [&] { progress.advance(); });
        progress.finish();
        CompareReportOptions o;
        o.rule = rule_ == "ttest"  ? SignificanceRule::TTest
                 : rule_ == "none" ? SignificanceRule::None
                                   : SignificanceRule::CiInterval;
        o.stats_2019 = stats_2019_;
        o.means_only = means_only_;
        const std::string out =
            json_ ? compare_json(runs, o).dump(2) + "\n" : compare_text(runs, o);
        std::fwrite(out.data(), 1, out.size(), stdout);
        return 0;
    }

  private:
    std::string path_, rule_ = "ci";
    std::vector<std::string> variants_;
    bool json_ = false, stats_2019_ = false, means_only_ = false;
    ScenarioOptions opts_;
};

}  // namespace

std::unique_ptr<Command> make_compare_command() {
    return std::make_unique<CompareCommand>();
}

}  // namespace numasim
