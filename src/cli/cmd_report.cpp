// numasim report RUN_DIR [--html FILE]: the HTML page of a run directory (report/html_report.h).
#include <fmt/format.h>

#include <cstdio>
#include <fstream>

#include "cli/commands.h"
#include "cli/output_file.h"
#include "cli/value_hints.h"
#include "config/input_error.h"
#include "report/html_report.h"

namespace numasim {

namespace {

class ReportCommand : public Command {
  public:
    void add_to(CLI::App& app) override {
        sub_ =
            app.add_subcommand("report",
                               "write one self-contained HTML page (inline SVG charts) from a run "
                               "directory made by run/compare --sample INTERVAL --out-dir RUN_DIR");
        hint_directory(sub_->add_option("run_dir", dir_, "run directory (holds result.json)"))
            ->required();
        hint_file(sub_->add_option("--html", html_, "output file (default: RUN_DIR/report.html)"),
                  "html");
    }

    int execute() override {
        const std::string path = dir_ + "/result.json";
        std::ifstream in(path, std::ios::binary);
        if (!in) throw InputError(path, "", "cannot open file (not a run directory?)");
        const std::string text = html_report(read_report_input(in, path), path);
        OutputFile out("--html", html_.empty() ? dir_ + "/report.html" : html_, {path});
        std::fwrite(text.data(), 1, text.size(), out.get());
        out.commit();
        return 0;
    }

  private:
    std::string dir_, html_;
};

}  // namespace

std::unique_ptr<Command> make_report_command() {
    return std::make_unique<ReportCommand>();
}

}  // namespace numasim
