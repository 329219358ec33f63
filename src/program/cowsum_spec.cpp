#include "program/cowsum_spec.h"

#include <array>
#include <string_view>
#include <utility>

#include "config/limits.h"
#include "config/param_reader.h"

namespace numasim {

namespace {

// The posted run's 10 s (argv defaults).
constexpr double DEFAULT_SECONDS = 10;
constexpr std::array<std::pair<CowsumMode, std::string_view>, 3> kCowsumModes = {
    {{CowsumMode::Data, "data"}, {CowsumMode::Anon, "anon"}, {CowsumMode::Private, "private"}}};
constexpr std::array<std::pair<CowsumProgram, std::string_view>, 2> kCowsumPrograms = {
    {{CowsumProgram::Posting, "posting"}, {CowsumProgram::Oracle, "oracle"}}};

}  // namespace

CowsumSpec read_cowsum_spec(const TomlTable& t) {
    CowsumSpec s;
    ParamReader r(t);
    r.integer("processes", s.processes, 1, kMaxTasks);
    double secs = DEFAULT_SECONDS;
    r.positive("seconds", secs, static_cast<double>(kMaxDurationSeconds));
    s.run_ns = static_cast<Nanos>(secs * NSEC_PER_SEC);
    r.choice("mode", s.mode, kCowsumModes);
    for (const auto& [m, n] : kCowsumModes)
        if (m == s.mode) s.mode_name = n;
    r.choice("program", s.program, kCowsumPrograms);
    s.array_bytes =
        s.program == CowsumProgram::Oracle ? COWSUM_ORACLE_ARRAY_BYTES : COWSUM_POSTED_ARRAY_BYTES;
    return s;
}

}  // namespace numasim
