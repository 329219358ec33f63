// What produced a result: the numasim build, the command line, the scenario file and its hash,
// the machine with its SLIT, the profile and every effective knob, and the seed. Every output
// records it: the JSON as an object, the CSV tables and the traces as comment lines.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace numasim {

struct Scenario;

using Provenance = std::vector<std::pair<std::string, std::string>>;

// The provenance of runs of `sc` started by `command_line`.
Provenance make_provenance(const Scenario& sc, const std::string& command_line);
// The same with the seed of one run (the iteration's) added.
Provenance with_seed(Provenance p, uint64_t seed);
// "key: value" per item, for comment lines.
std::vector<std::string> provenance_lines(const Provenance& p);
// argv as a shell would need it to run the command again (words with special characters
// single-quoted).
std::string command_line_text(int argc, const char* const* argv);

}  // namespace numasim
