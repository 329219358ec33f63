#include "cli/command_tree.h"

#include <fmt/format.h>

#include <CLI/CLI.hpp>

namespace numasim {

namespace {

// CLI11's type name without its validators' text: "INT:INT in [1 - 1024]" -> "INT".
std::string base_type_name(const CLI::Option& o) {
    const std::string t = o.get_type_name();
    return t.substr(0, t.find(':'));
}

std::string value_name(const CLI::Option& o, const ValueHint& h) {
    if (h.directory) return "DIR";
    if (h.file && h.words.empty()) return "FILE";
    // A closed list is shown as its values; an open one (a machine may also be a file, --set
    // takes any key) by its type.
    if (h.only_words) return fmt::format("{{{}}}", fmt::join(h.words, "|"));
    return base_type_name(o);
}

OptionDoc describe_option(const CLI::Option& o) {
    OptionDoc d;
    d.positional = !o.nonpositional();
    if (d.positional) {
        d.names.push_back(o.get_name(true));
    } else {
        for (const auto& s : o.get_snames())
            d.names.push_back("-" + s);
        for (const auto& l : o.get_lnames())
            d.names.push_back("--" + l);
    }
    d.takes_value = o.get_items_expected_max() > 0;  // flags expect no value
    d.repeatable = d.takes_value && o.get_items_expected_max() > 1;
    d.required = o.get_required();
    d.hint = value_hint(&o);
    d.value_name = d.takes_value ? value_name(o, d.hint) : "";
    d.description = o.get_description();
    return d;
}

CommandDoc describe(const CLI::App& app, std::vector<std::string> path) {
    CommandDoc c;
    c.path = std::move(path);
    c.description = app.get_description();
    // Hidden options (an empty group) are not part of the interface.
    for (const CLI::Option* o : app.get_options())
        if (!o->get_group().empty()) c.options.push_back(describe_option(*o));
    for (const CLI::App* sub :
         app.get_subcommands([](const CLI::App* s) { return !s->get_group().empty(); })) {
        std::vector<std::string> p = c.path;
        p.push_back(sub->get_name());
        c.subcommands.push_back(describe(*sub, std::move(p)));
    }
    return c;
}

}  // namespace

std::string CommandDoc::name() const {
    return path.empty() ? "numasim" : fmt::format("numasim {}", fmt::join(path, " "));
}

std::string CommandDoc::page_name() const {
    return path.empty() ? "numasim" : fmt::format("numasim-{}", fmt::join(path, "-"));
}

CommandDoc describe_command_line(const CLI::App& app) {
    return describe(app, {});
}

}  // namespace numasim
