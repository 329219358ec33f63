#include "cli/value_hints.h"

#include <CLI/CLI.hpp>
#include <map>

#include "machine/presets.h"

namespace numasim {

namespace {

// CLI11 options carry no data of their own for this; the hints live beside them, keyed by the
// option, for as long as the command line that owns them.
std::map<const CLI::Option*, ValueHint>& hints() {
    static std::map<const CLI::Option*, ValueHint> h;
    return h;
}

}  // namespace

CLI::Option* hint_words(CLI::Option* opt, std::vector<std::string> words) {
    hints()[opt].words = std::move(words);
    return opt;
}

CLI::Option* hint_file(CLI::Option* opt, std::string extension) {
    ValueHint& h = hints()[opt];
    h.file = true;
    h.extension = std::move(extension);
    return opt;
}

CLI::Option* hint_directory(CLI::Option* opt) {
    hints()[opt].directory = true;
    return opt;
}

CLI::Option* one_of(CLI::Option* opt, std::vector<std::string> words) {
    opt->check(CLI::IsMember(words));
    hints()[opt].only_words = true;
    return hint_words(opt, std::move(words));
}

CLI::Option* hint_machine(CLI::Option* opt) {
    std::vector<std::string> words = preset_names();
    words.push_back("hwloc:host");
    return hint_file(hint_words(opt, std::move(words)), "toml");
}

const ValueHint& value_hint(const CLI::Option* opt) {
    static const ValueHint none;
    const auto it = hints().find(opt);
    return it == hints().end() ? none : it->second;
}

void clear_value_hints() {
    hints().clear();
}

}  // namespace numasim
