// numasim run [SCENARIO.toml] [--json | --proc-vmstat] [--sample INTERVAL --out-dir DIR]
//             [--trace FILE] [--damon-record FILE] [--perf-mem-record FILE] [-V VARIANT]
//             [--iteration K] ...
#include <fmt/format.h>

#include <cstdio>
#include <optional>
#include <tuple>

#include "cli/commands.h"
#include "cli/latency_options.h"
#include "cli/observe_options.h"
#include "cli/output_file.h"
#include "cli/output_set.h"
#include "cli/policy_plugin_option.h"
#include "cli/run_notes.h"
#include "cli/scenario_options.h"
#include "cli/value_hints.h"
#include "config/input_error.h"
#include "experiment/run.h"
#include "experiment/scenario.h"
#include "report/json_splice.h"
#include "report/latency_report.h"
#include "report/proc_vmstat.h"
#include "report/progress.h"
#include "report/run_report.h"
#include "report/samples_json.h"

namespace numasim {

namespace {

class RunCommand : public Command {
  public:
    void add_to(CLI::App& app) override {
        sub_ = app.add_subcommand("run", "run a scenario (the built-in default without a file)");
        hint_file(sub_->add_option("scenario", path_, "scenario TOML file"), "toml");
        sub_->add_flag("--json", json_, "print one JSON object instead of text");
        sub_->add_flag("--proc-vmstat", proc_vmstat_,
                       "print the run's /proc/vmstat instead of the report: 'name value' lines "
                       "in the kernel's order (of the profile's release), for diff against a "
                       "real dump; one run only");
        observe_.add_to(*sub_, /*with_trace=*/true);
        latency_.add_to(*sub_);
        sub_->add_option("-V,--variant", variant_,
                         "a [[variant]] table of the scenario by name, or NAME:KEY=VALUE,... as "
                         "for compare: its overrides apply after the others, as in compare");
        iteration_opt_ = sub_->add_option(
            "--iteration", iteration_,
            "run only iteration K (from 0) of the scenario's iterations, with the seed that "
            "iteration has in run, compare and sweep: reproduces one run of a compare column "
            "or a sweep case");
        opts_.add_to(*sub_);
        add_policy_plugin_option(*sub_, plugins_);
    }

    int execute() override {
        load_policy_plugins(plugins_);
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
        if (variant_.empty() && !sc.variants.empty()) note_variants_not_run(sc.file, sc.variants);
        const bool one = iteration_opt_->count() > 0;
        if (one && (iteration_ < 0 || iteration_ >= sc.iterations))
            throw InputError(fmt::format("--iteration {}", iteration_), "",
                             fmt::format("the scenario has iterations 0..{}", sc.iterations - 1));
        // A file option given "-" writes to standard output, which holds one run's file.
        for (const auto& [option, path, what] :
             {std::tuple{"--trace", &observe_.trace, "trace"},
              std::tuple{"--damon-record", &observe_.damon_record, "record"},
              std::tuple{"--perf-mem-record", &observe_.perf_mem_record, "samples"}})
            if (*path == "-" && !one && sc.iterations > 1)
                throw InputError(option, "-",
                                 fmt::format("standard output takes the {} of one run; give a "
                                             "file name, --iterations 1 or --iteration K",
                                             what));
        if (proc_vmstat_ && json_)
            throw InputError("--proc-vmstat", "", "prints text: it cannot go with --json");
        if (proc_vmstat_ && latency_.on)
            throw InputError("--latency", "",
                             "prints its histograms after the run's report: it cannot go with "
                             "--proc-vmstat");
        if (proc_vmstat_ && !one && sc.iterations > 1)
            throw InputError("--proc-vmstat", "",
                             "prints the /proc/vmstat of one run; give --iterations 1 or "
                             "--iteration K");
        const LatencyReportOptions lo = latency_.report_options();
        OutputSet files(sc.input_files);
        ObserveOptions obs = observe_.options(files);
        obs.latency = latency_.on;
        std::vector<RunResult> results;
        std::vector<RunLabel> labels;
        if (one) {
            // A run of its own: the trace file is the path given, the samples are iter-K's.
            labels.push_back({"", iteration_, 1});
            results.push_back(run_once(sc, iteration_seed(sc, iteration_), &obs, labels[0]));
        } else {
            for (int i = 0; i < sc.iterations; ++i)
                labels.push_back({"", i, sc.iterations});
            ProgressReporter progress(static_cast<size_t>(sc.iterations));  // silent unless a tty
            results = run_iterations(sc, opts_.workers(), &obs, [&] { progress.advance(); });
            progress.finish();
        }
        files.commit_all();
        const std::string out = json_ ? ""
                                : proc_vmstat_
                                    ? proc_vmstat_text(results.front().counters, sc.profile)
                                    : results_text(sc, results, lo);
        if (json_ || !observe_.out_dir.empty()) {
            nlohmann::json j = results_json(sc, results);
            j["provenance"] = provenance_json(make_provenance(sc, invoked_command_line()));
            std::vector<JsonSplice> splices =
                obs.sample_interval > 0 ? add_samples(j, obs, labels) : std::vector<JsonSplice>{};
            if (latency_.on) add_latency(j, splices, results, lo);
            if (!observe_.out_dir.empty()) {
                OutputFile f("--out-dir", observe_.out_dir + "/result.json", sc.input_files);
                write_json(f.get(), j, splices);
                f.commit();
            }
            // Written again from the tables rather than kept: the samples stay on disk.
            if (json_) write_json(stdout, j, splices);
        }
        files.keep();
        std::fwrite(out.data(), 1, out.size(), stdout);
        print_run_notes(sc.file, sc, results);
        return 0;
    }

  private:
    // The [[variant]] tables are compare's: run runs the scenario as written, and says so
    // rather than leave a user to think the variants ran.
    static void note_variants_not_run(const std::string& file, const std::vector<Variant>& vs) {
        std::vector<std::string> names;
        for (const Variant& v : vs)
            names.push_back(v.name);
        fmt::print(stderr,
                   "numasim: note: {}: the [[variant]] tables ({}) are not run: `run` runs the "
                   "scenario as written; -V NAME runs one of them, `numasim compare` runs them "
                   "all\n",
                   file, fmt::join(names, ", "));
    }

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

    // The samples of each run beside its result: the top level is the first run's, "runs" holds
    // every run's when there are several. Placeholders in `j`, copied from the tables as the
    // document is written.
    static std::vector<JsonSplice> add_samples(nlohmann::json& j, const ObserveOptions& obs,
                                               const std::vector<RunLabel>& labels) {
        std::vector<JsonSplice> splices;
        const nlohmann::json::json_pointer root;
        for (size_t i = 0; i < labels.size(); ++i) {
            auto write = [dir = sample_run_dir(obs.sample_dir, labels[i])](
                             std::FILE* out, int indent) { write_samples_json(out, dir, indent); };
            if (labels.size() > 1) {
                j["runs"][i]["samples"] = nullptr;
                splices.push_back({root / "runs" / i / "samples", write});
            }
            if (i == 0) {
                j["samples"] = nullptr;
                splices.push_back({root / "samples", write});
            }
        }
        return splices;
    }

    // Under each run's object (the first run's is the top level), as the samples are: written
    // straight as text (latency_json_text) in place of placeholders.
    static void add_latency(nlohmann::json& j, std::vector<JsonSplice>& splices,
                            const std::vector<RunResult>& results, const LatencyReportOptions& lo) {
        const nlohmann::json::json_pointer root;
        const auto write = [&lo](const RunResult& r) {
            return [&r, &lo](std::FILE* out, int indent) {
                const std::string s = latency_json_text(r, lo, indent);
                std::fwrite(s.data(), 1, s.size(), out);
            };
        };
        j["latency"] = nullptr;
        splices.push_back({root / "latency", write(results.front())});
        if (results.size() > 1)
            for (size_t i = 0; i < results.size(); ++i) {
                j["runs"][i]["latency"] = nullptr;
                splices.push_back({root / "runs" / i / "latency", write(results[i])});
            }
    }

    // Each run's report, followed by its latency histograms when they were recorded.
    static std::string results_text(const Scenario& sc, const std::vector<RunResult>& results,
                                    const LatencyReportOptions& lo) {
        std::string s;
        for (const RunResult& r : results)
            s += result_text(sc, r) + latency_text(r, lo);
        return s;
    }

    CLI::Option* iteration_opt_ = nullptr;
    int iteration_ = 0;
    std::string variant_;
    std::string path_;
    bool json_ = false, proc_vmstat_ = false;
    ObserveCliOptions observe_;
    LatencyCliOptions latency_;
    ScenarioOptions opts_;
    std::vector<std::string> plugins_;  // --policy-plugin
};

}  // namespace

std::unique_ptr<Command> make_run_command() {
    return std::make_unique<RunCommand>();
}

}  // namespace numasim
