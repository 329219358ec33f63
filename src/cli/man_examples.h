// The EXAMPLES section of each man page: commands a reader can run from a source checkout (the
// files named are in examples/ and experiments/), with what they show.
#pragma once

#include <string>
#include <vector>

namespace numasim {

struct ManExample {
    std::string command;      // "numasim run examples/knobs.toml --duration 10s"
    std::string explanation;  // one sentence
};

// The examples of the page NAME ("numasim", "numasim-run"); empty for a page without any.
const std::vector<ManExample>& man_examples(const std::string& page);

}  // namespace numasim
