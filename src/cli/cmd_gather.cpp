// numasim gather DIR... -o OUT: the output directories of a sweep's shards (or of an
// interrupted run and its resumption) combined into the directory one run of the whole sweep
// writes: every case file, sweep.csv and compare.txt, byte for byte.
#include <filesystem>

#include "cli/commands.h"
#include "cli/sweep_dir.h"
#include "cli/value_hints.h"
#include "config/input_error.h"
#include "report/sweep_report.h"

namespace numasim {

namespace {

class GatherCommand : public Command {
  public:
    void add_to(CLI::App& app) override {
        sub_ = app.add_subcommand(
            "gather",
            "combine the output directories of a sweep's shards into one: the case files, "
            "sweep.csv and compare.txt, as one run of the whole sweep writes them");
        hint_directory(sub_->add_option("dirs", dirs_, "the shards' output directories"))
            ->required();
        hint_directory(sub_->add_option("-o,--out", out_, "the combined directory"))->required();
    }

    int execute() override {
        CaseFiles all;
        for (const auto& d : dirs_) {
            if (!std::filesystem::is_directory(d)) throw InputError(d, "", "no such directory");
            read_case_files(d, all, nullptr);
        }
        std::string missing;
        if (!complete(all, &missing)) throw InputError(dirs_.front(), "", missing);
        const SweepOutputs outputs = sweep_outputs(all);
        std::filesystem::create_directories(std::filesystem::path(out_) / "cases");
        CaseFiles there;
        read_case_files(out_, there, &all.header);
        const size_t total = all.header.at("cases").get<size_t>();
        for (const auto& [index, text] : all.texts)
            if (!there.texts.count(index))
                write_case_file(out_, case_file_name(index, total), text);
        write_sweep_outputs(out_, outputs);
        std::fwrite(outputs.tables.data(), 1, outputs.tables.size(), stdout);
        return 0;
    }

  private:
    std::vector<std::string> dirs_;
    std::string out_;
};

}  // namespace

std::unique_ptr<Command> make_gather_command() {
    return std::make_unique<GatherCommand>();
}

}  // namespace numasim
