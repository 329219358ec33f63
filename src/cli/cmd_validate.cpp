// numasim validate [--quick] [--strict] [--dir experiments] [-j N] [--only NAME]...
#include <cstdio>

#include "cli/commands.h"
#include "cli/scenario_options.h"
#include "experiment/pool.h"
#include "experiment/validate.h"
#include "report/validation_report.h"

namespace numasim {

namespace {

class ValidateCommand : public Command {
  public:
    void add_to(CLI::App& app) override {
        sub_ = app.add_subcommand("validate",
                                  "run the experiments that reproduce the seed postings and print "
                                  "published and simulated effects side by side");
        sub_->add_option("--dir", dir_, "experiment directory")->check(CLI::ExistingDirectory);
        sub_->add_flag("--quick", o_.quick,
                       "reduced scale (each experiment's [validate] quick overrides), "
                       "directions only");
        sub_->add_flag("--strict", strict_,
                       "exit 1 if a headline effect misses (except those marked ci = false)");
        sub_->add_option("--only", o_.only, "experiment file stems to run");
        sub_->add_option("-j,--jobs", jobs_, "worker threads (default: all cores)");
        add_check_invariants_flag(*sub_, check_invariants_);
    }

    int execute() override {
        o_.workers = jobs_ > 0 ? jobs_ : default_workers();
        if (check_invariants_) o_.overrides.push_back(check_invariants_override());
        const auto rows = run_validation(dir_, o_);
        const std::string out = validation_text(rows);
        std::fwrite(out.data(), 1, out.size(), stdout);
        if (strict_)
            for (const auto& r : rows)
                if (r.headline && r.ci && !r.pass) return 1;
        return 0;
    }

  private:
    std::string dir_ = "experiments";
    bool strict_ = false, check_invariants_ = false;
    int jobs_ = 0;
    ValidateOptions o_;
};

}  // namespace

std::unique_ptr<Command> make_validate_command() {
    return std::make_unique<ValidateCommand>();
}

}  // namespace numasim
