// numasim validate [--quick] [--strict] [--oracle] [--uncertainty [N]] [--dir experiments] [-j N]
//                  [--only NAME]...
#include <fmt/format.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>

#include "cli/commands.h"
#include "cli/output_file.h"
#include "cli/scenario_options.h"
#include "cli/value_hints.h"
#include "config/input_error.h"
#include "config/limits.h"
#include "experiment/oracle.h"
#include "experiment/pool.h"
#include "experiment/validate.h"
#include "report/validation_report.h"

namespace numasim {

namespace {

// experiments/ in the working directory (the source tree's root), else next to the binary or
// one level up (build/numasim in a source tree), so that `validate` works from any directory.
std::string default_experiment_dir() {
    std::error_code ec;
    if (std::filesystem::is_directory("experiments", ec)) return "experiments";
    const auto exe = std::filesystem::read_symlink("/proc/self/exe", ec).parent_path();
    if (!ec)
        for (const auto& dir : {exe / "experiments", exe.parent_path() / "experiments"})
            if (std::error_code e; std::filesystem::is_directory(dir, e)) return dir.string();
    throw InputError("validate", "",
                     "no experiments/ directory here, next to the binary or above it; run from "
                     "the source tree or give --dir");
}

class ValidateCommand : public Command {
  public:
    void add_to(CLI::App& app) override {
        sub_ = app.add_subcommand("validate",
                                  "run the experiments that reproduce the seed postings and print "
                                  "published and simulated effects side by side");
        hint_directory(sub_->add_option(
            "--dir", dir_,
            "experiment directory (default: experiments/ in the working directory, else next to "
            "the source tree the binary was built from)"));
        sub_->add_flag("--quick", o_.quick,
                       "reduced scale (each experiment's [validate] quick overrides), "
                       "directions only");
        sub_->add_flag("--strict", strict_,
                       "exit 1 if a headline effect misses (except those marked ci = false)");
        sub_->add_option("--only", o_.only, "experiment file stems to run (repeatable)")
            ->allow_extra_args(false);
        sub_->add_flag("--oracle", o_.oracle,
                       "also boot a real kernel under qemu for the experiments' [[oracle]] checks "
                       "(skipped when qemu is not installed)");
        sub_->add_option("--oracle-boots", o_.oracle_boots,
                         fmt::format("boots per variant for --oracle, 1..{}", kMaxOracleBoots))
            ->check(CLI::Range(1, kMaxOracleBoots));
        uncertainty_opt_ =
            sub_->add_option("--uncertainty", uncertainty_,
                             fmt::format("also run each experiment under N draws of the model's "
                                         "cost figures from their published ranges (1..{}, "
                                         "default {}) and say whether each published effect "
                                         "lies inside the predicted range",
                                         kMaxUncertaintyDraws, kDefaultUncertaintyDraws))
                ->expected(0, 1)
                ->type_name("[N]");
        add_jobs_option(*sub_, jobs_);
        add_check_invariants_flag(*sub_, check_invariants_);
    }

    int execute() override {
        o_.workers = jobs_ > 0 ? jobs_ : default_workers();
        if (dir_.empty()) dir_ = default_experiment_dir();
        if (check_invariants_) o_.overrides.push_back(check_invariants_override());
        if (uncertainty_opt_->count() > 0) o_.uncertainty_draws = uncertainty_draws();
        // Boot progress goes to a terminal only, so that logs and pipes keep just the report.
        if (isatty(2))
            o_.oracle_status = [](const std::string& s) { fmt::print(stderr, "{}\n", s); };
        o_.oracle_write_log = [](const std::string& path, const std::string& text) {
            write_output_file("--oracle", path, text, {});
        };
        const auto rows = run_validation(dir_, o_);
        const std::string out = validation_text(rows);
        std::fwrite(out.data(), 1, out.size(), stdout);
        if (strict_)
            for (const auto& r : rows)
                if (r.headline && r.ci && !r.pass && !r.skipped) return 1;
        return 0;
    }

  private:
    // --uncertainty's N: the default without a value, else a count within the bound.
    int uncertainty_draws() const {
        if (uncertainty_.empty()) return kDefaultUncertaintyDraws;
        size_t end = 0;
        int n = 0;
        try {
            n = std::stoi(uncertainty_, &end);
        } catch (const std::logic_error&) {
            end = 0;
        }
        if (end != uncertainty_.size() || n < 1 || n > kMaxUncertaintyDraws)
            throw InputError("--uncertainty", "",
                             fmt::format("'{}' is not a number of draws in 1..{}", uncertainty_,
                                         kMaxUncertaintyDraws));
        return n;
    }

    std::string dir_;
    std::string uncertainty_;
    CLI::Option* uncertainty_opt_ = nullptr;
    bool strict_ = false, check_invariants_ = false;
    int jobs_ = 0;
    ValidateOptions o_;
};

}  // namespace

std::unique_ptr<Command> make_validate_command() {
    return std::make_unique<ValidateCommand>();
}

}  // namespace numasim
