// numasim compare SCENARIO [--variant NAME:k=v,...]... [--iterations N] [--uncertainty N] [--json]
#include <fmt/format.h>

#include <cstdio>
#include <filesystem>

#include "cli/commands.h"
#include "cli/latency_options.h"
#include "cli/observe_options.h"
#include "cli/output_file.h"
#include "cli/output_set.h"
#include "cli/policy_plugin_option.h"
#include "cli/run_notes.h"
#include "cli/scenario_options.h"
#include "cli/sweep_dir.h"
#include "cli/value_hints.h"
#include "config/input_error.h"
#include "config/limits.h"
#include "experiment/compare.h"
#include "experiment/sweep.h"
#include "experiment/uncertainty.h"
#include "report/compare_report.h"
#include "report/json_splice.h"
#include "report/progress.h"
#include "report/samples_json.h"
#include "report/uncertainty_report.h"

namespace numasim {

namespace {

class CompareCommand : public Command {
  public:
    void add_to(CLI::App& app) override {
        sub_ = app.add_subcommand("compare",
                                  "run a scenario under several variants and print mmtests-style "
                                  "compare, Duration, Ops, perf-stat and vmstat tables");
        hint_file(sub_->add_option("scenario", path_, "scenario TOML file"), "toml");
        hint_directory(sub_->add_option(
            "--from", from_,
            "print the compare tables of a sweep from its output directories (or its shards'), "
            "as `numasim gather` builds them"));
        sub_->add_option("-V,--variant", variants_,
                         "NAME:KEY=VALUE[,KEY=VALUE] with the overrides of --param (e.g. "
                         "old:profile=v4.18,smallimp=0); default: the scenario's [[variant]] "
                         "tables")
            ->allow_extra_args(false);
        sub_->add_flag("--json", json_, "print one JSON object");
        one_of(sub_->add_option("--rule", rule_,
                                "significance rule: ci (mmtests now), ttest (2018-2024), none"),
               {"ci", "ttest", "none"});
        sub_->add_flag("--stats-2019", stats_2019_, "print the 2019-2024 mmtests stat rows");
        sub_->add_flag("--means-only", means_only_, "print only the Amean/Hmean rows");
        sub_->add_flag("--print-significance", print_significance_,
                       "add compare-mmtests.pl's Significant rows (flag and cidiff, or the "
                       "t-test p-value in percent)");
        one_of(sub_->add_option("--naming", naming_,
                                "best-mean row names: dash (BAmean-95, LKML postings) or dot "
                                "(BAmean.95, mmtests since 2026)"),
               {"dash", "dot"});
        sub_->add_option("--uncertainty", uncertainty_,
                         fmt::format("run the comparison under N draws of the model's cost figures "
                                     "from their published ranges (1..{}; draw 0: the published "
                                     "figures) and print each effect's range",
                                     kMaxUncertaintyDraws))
            ->check(CLI::Range(1, kMaxUncertaintyDraws));
        observe_.add_to(*sub_, /*with_trace=*/false);
        latency_.add_to(*sub_);
        opts_.add_to(*sub_);
        add_policy_plugin_option(*sub_, plugins_);
    }

    int execute() override {
        load_policy_plugins(plugins_);
        if (!from_.empty()) return print_from();
        if (path_.empty())
            throw InputError("compare", "", "a scenario file is required (or --from DIR)");
        // The columns: every variant (-V, else the scenario's [[variant]] tables) under every
        // combination of the options' value lists (experiment/sweep.h).
        SweepDefinition d;
        d.scenarios = {path_};
        opts_.add_to_sweep(d);
        std::vector<Variant> vs;
        for (const auto& s : variants_)
            vs.push_back(parse_variant(s));
        for (size_t i = 0; i < vs.size(); ++i)
            for (size_t j = 0; j < i; ++j)
                if (vs[i].name == vs[j].name)
                    throw InputError(path_, "variant",
                                     fmt::format("two variants are named '{}'", vs[i].name));
        if (vs.empty()) vs = load_scenario_file(path_, d.common).variants;
        add_variant_axis(d, std::move(vs), false);
        const auto axes = sweep_axes(d);
        std::vector<VariantRuns> runs;
        for (const SweepCase& c : expand_sweep(d)) {
            std::string name;
            for (size_t i = 0; i < axes.size(); ++i) {
                const bool bare = axes[i].kind != SweepAxis::Kind::Override;
                name += (i ? "," : "") + (bare ? "" : axes[i].name + "=") + c.labels[i];
            }
            runs.push_back({name, load_scenario_file(c.scenario, c.overrides), {}});
        }
        if (runs.size() < 2)
            throw InputError(path_, "variant",
                             "compare needs at least two variants ([[variant]] tables, "
                             "--variant, or a list of values such as --set smallimp=0,30)");
        size_t total = 0;
        for (const auto& v : runs)
            total += static_cast<size_t>(v.scenario.iterations);
        // Without --uncertainty, draw 0 alone: the published figures.
        auto draws = make_draws(runs, std::max(1, uncertainty_));
        total *= draws.size();
        const LatencyReportOptions lo = latency_.report_options();
        OutputSet files(runs.front().scenario.input_files);
        ObserveOptions obs = observe_.options(files);
        obs.latency = latency_.on;
        ProgressReporter progress(total);
        run_draws(
            draws, opts_.workers(), [&] { progress.advance(); }, &obs);
        progress.finish();
        const auto spreads =
            uncertainty_ > 0 ? compare_effect_spreads(draws) : std::vector<UncertainEffect>{};
        runs = std::move(draws.front());
        files.commit_all();
        CompareReportOptions o;
        o.rule = rule_ == "ttest"  ? SignificanceRule::TTest
                 : rule_ == "none" ? SignificanceRule::None
                                   : SignificanceRule::CiInterval;
        o.stats_2019 = stats_2019_;
        o.means_only = means_only_;
        o.print_significance = print_significance_;
        o.dot_naming = naming_ == "dot";
        if (latency_.on) o.latency = lo;
        std::string out = json_ ? "" : compare_text(runs, o);
        if (uncertainty_ > 0 && !json_) out += "\n" + uncertainty_text(spreads, uncertainty_);
        if (json_ || !observe_.out_dir.empty()) {
            nlohmann::json j = compare_json(runs, o);
            if (uncertainty_ > 0) j["uncertainty"] = uncertainty_json(spreads, uncertainty_);
            j["provenance"] = nlohmann::json::object();
            // Each iteration's samples: a placeholder in `j`, copied from its tables as the
            // document is written.
            std::vector<JsonSplice> samples;
            for (const VariantRuns& v : runs) {
                j["provenance"][v.name] =
                    provenance_json(make_provenance(v.scenario, invoked_command_line()));
                if (obs.sample_interval <= 0) continue;
                for (int i = 0; i < v.scenario.iterations; ++i) {
                    j["samples"][v.name].push_back(nullptr);
                    const std::string dir =
                        sample_run_dir(obs.sample_dir, {v.name, i, v.scenario.iterations});
                    samples.push_back(
                        {nlohmann::json::json_pointer() / "samples" / v.name /
                             static_cast<size_t>(i),
                         [dir](std::FILE* f, int indent) { write_samples_json(f, dir, indent); }});
                }
            }
            if (!observe_.out_dir.empty()) {
                OutputFile f("--out-dir", observe_.out_dir + "/result.json",
                             runs.front().scenario.input_files);
                write_json(f.get(), j, samples);
                f.commit();
            }
            // Written again from the tables rather than kept: the samples stay on disk.
            if (json_) write_json(stdout, j, samples);
        }
        files.keep();
        std::fwrite(out.data(), 1, out.size(), stdout);
        for (const VariantRuns& v : runs)
            print_run_notes(fmt::format("{}: variant {}", path_, v.name), v.scenario, v.runs);
        return 0;
    }

  private:
    int print_from() const {
        // The tables come from the cases as the sweep ran and printed them: any other option
        // would be taken and then not honoured.
        for (const CLI::Option* o : sub_->get_options())
            if (o->count() > 0 && o->get_name() != "--from")
                throw InputError(o->get_name(), "",
                                 "compare --from prints the tables a sweep's cases hold as the "
                                 "sweep wrote them; this option applies when compare runs a "
                                 "scenario");
        CaseFiles all;
        for (const auto& d : from_) {
            if (!std::filesystem::is_directory(d)) throw InputError(d, "", "no such directory");
            read_case_files(d, all, nullptr);
        }
        std::string missing;
        if (!complete(all, &missing)) throw InputError(from_.front(), "", missing);
        const std::string out = sweep_outputs(all).tables;
        std::fwrite(out.data(), 1, out.size(), stdout);
        return 0;
    }

    std::vector<std::string> from_;
    std::string path_, rule_ = "ci", naming_ = "dash";
    std::vector<std::string> variants_;
    int uncertainty_ = 0;  // draws; 0: the published figures only
    bool json_ = false, stats_2019_ = false, means_only_ = false, print_significance_ = false;
    ObserveCliOptions observe_;
    LatencyCliOptions latency_;
    ScenarioOptions opts_;
    std::vector<std::string> plugins_;  // --policy-plugin
};

}  // namespace

std::unique_ptr<Command> make_compare_command() {
    return std::make_unique<CompareCommand>();
}

}  // namespace numasim
