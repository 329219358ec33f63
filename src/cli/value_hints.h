// What an option's value may be, for the shell completions and the man pages: a fixed list of
// words, a file (of some extension) or a directory. The options say it where they are declared,
// so that `numasim completion` and `numasim man` read it from the same definition as the parser.
#pragma once

#include <string>
#include <vector>

// Only pointers to options here: the generators that read the hints need not parse CLI11.
namespace CLI {
class Option;
}  // namespace CLI

namespace numasim {

struct ValueHint {
    std::vector<std::string> words;  // values to offer (for --machine, besides a file)
    bool only_words = false;         // the words are the only values the option takes
    bool file = false;               // a file name
    std::string extension;           // of the file, e.g. "toml" ("" : any file)
    bool directory = false;          // a directory name
};

// Declares the hint of `opt` and returns `opt`, so that it chains like CLI11's own setters.
CLI::Option* hint_words(CLI::Option* opt, std::vector<std::string> words);
CLI::Option* hint_file(CLI::Option* opt, std::string extension = "");
CLI::Option* hint_directory(CLI::Option* opt);
// `words` checked as CLI::IsMember checks them, and offered by the completions.
CLI::Option* one_of(CLI::Option* opt, std::vector<std::string> words);
// A machine: a preset, a machine file or hwloc:host.
CLI::Option* hint_machine(CLI::Option* opt);

// The hint of `opt`; an empty one if it declared none.
const ValueHint& value_hint(const CLI::Option* opt);
// Forgets every hint: the options they belong to are gone (CommandLine's destructor).
void clear_value_hints();

}  // namespace numasim
