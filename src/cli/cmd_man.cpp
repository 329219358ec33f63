// numasim man [COMMAND] [--out-dir DIR]: the man pages, written from the command line (the build
// writes every page with --out-dir; `numasim man run | man -l -` reads one uninstalled).
#include <fmt/format.h>

#include <cstdio>
#include <filesystem>

#include "cli/command_tree.h"
#include "cli/commands.h"
#include "cli/man_page.h"
#include "cli/output_file.h"
#include "cli/value_hints.h"
#include "config/input_error.h"

namespace numasim {

namespace {

class ManCommand : public Command {
  public:
    void add_to(CLI::App& app) override {
        sub_ = app.add_subcommand(
            "man", "print the man page of numasim or of one of its commands, in roff");
        // man comes last (commands.cpp): every command is declared by now.
        std::vector<std::string> names;
        for (const CLI::App* c : app.get_subcommands([](const CLI::App*) { return true; }))
            names.push_back(c->get_name());
        command_opt_ =
            hint_words(sub_->add_option("command", command_,
                                        "the command whose page to print (default: numasim(1))"),
                       names);
        hint_directory(sub_->add_option("--out-dir", out_dir_,
                                        "write every page to DIR/PAGE.1 instead of printing one"));
    }

    int execute() override {
        const std::vector<ManPage> pages = man_pages(describe_command_line(*sub_->get_parent()));
        if (!out_dir_.empty()) {
            if (command_opt_->count() > 0)
                throw InputError("--out-dir", out_dir_, "writes every page: give no command");
            std::error_code ec;
            std::filesystem::create_directories(out_dir_, ec);
            if (ec) throw InputError("--out-dir", out_dir_, "cannot create: " + ec.message());
            for (const ManPage& p : pages)
                write_output_file("--out-dir", out_dir_ + "/" + p.name + ".1", p.text, {});
            return 0;
        }
        const std::string wanted = command_.empty() ? "numasim" : "numasim-" + command_;
        std::vector<std::string> names;
        for (const ManPage& p : pages) {
            if (p.name == wanted) {
                std::fwrite(p.text.data(), 1, p.text.size(), stdout);
                return 0;
            }
            if (p.name != "numasim") names.push_back(p.name.substr(sizeof("numasim-") - 1));
        }
        throw InputError("man", command_,
                         fmt::format("no such command (there are: {})", fmt::join(names, ", ")));
    }

  private:
    CLI::Option* command_opt_ = nullptr;
    std::string command_, out_dir_;
};

}  // namespace

std::unique_ptr<Command> make_man_command() {
    return std::make_unique<ManCommand>();
}

}  // namespace numasim
