#include "program/cowsum_spec.h"

#include <array>
#include <string_view>
#include <utility>

#include "config/param_reader.h"

namespace numasim {

namespace {

// The posted run's 10 s (argv defaults).
constexpr double DEFAULT_SECONDS = 10;
constexpr std::array<std::pair<CowsumMode, std::string_view>, 3> kCowsumModes = {
    {{CowsumMode::Data, "data"}, {CowsumMode::Anon, "anon"}, {CowsumMode::Private, "private"}}};

}  // namespace

CowsumSpec read_cowsum_spec(const TomlTable& t) {
    CowsumSpec s;
    ParamReader r(t);
    r.integer("processes", s.processes, 1);
    double secs = DEFAULT_SECONDS;
    r.positive("seconds", secs);
    s.run_ns = static_cast<Nanos>(secs * NSEC_PER_SEC);
    r.choice("mode", s.mode, kCowsumModes);
    for (const auto& [m, n] : kCowsumModes)
        if (m == s.mode) s.mode_name = n;
    return s;
}

}  // namespace numasim
