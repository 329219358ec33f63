// Feeds arbitrary bytes to the scenario loader. Any input must either load or raise InputError;
// a crash, a sanitizer report or another exception type is a bug.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "config/input_error.h"
#include "experiment/scenario.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    try {
        numasim::load_scenario_text(text, "fuzz.toml");
    } catch (const numasim::InputError&) {
    }
    return 0;
}
