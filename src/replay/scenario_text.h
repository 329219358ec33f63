// Text the importers (`numasim import damon`, `numasim import perf-mem`) put into the scenarios
// they write: names and comments taken from a profile, which may hold any bytes, and shares.
#pragma once

#include <fmt/format.h>

#include <cctype>
#include <cstdint>
#include <string>
#include <utility>

namespace numasim {

// A name for the scenario (a process's comm): the characters a TOML string and a report keep.
inline std::string sanitize_name(const std::string& s) {
    std::string out;
    for (char c : s)
        if (std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.')
            out += c;
    return out;
}

// A path or name in a comment: printable ASCII only, so that no name ends the comment's line.
inline std::string comment_text(const std::string& s) {
    std::string out;
    for (char c : s)
        out += (c >= ' ' && c <= '~') ? c : '?';
    return out;
}

// Shares to four significant figures: enough to tell hot from cold, and equal phases print the
// same text so that `repeat` folds them.
inline std::string share_text(double x) {
    return fmt::format("{:.4g}", x);
}

// A thread's phase list in its run-length form: each phase body appended to `out` as
// `  { BODY },`, a run of equal bodies once with `repeat = N`. finish() writes the last run.
class PhaseRuns {
  public:
    explicit PhaseRuns(std::string& out) : out_(out) {}
    void add(std::string body) {
        if (body == prev_) {
            ++repeat_;
            return;
        }
        finish();
        prev_ = std::move(body);
        repeat_ = 1;
    }
    void finish() {
        if (repeat_ == 0) return;
        out_ +=
            "  { " + prev_ + (repeat_ > 1 ? fmt::format(", repeat = {}", repeat_) : "") + " },\n";
        repeat_ = 0;
    }

  private:
    std::string& out_;
    std::string prev_;
    int64_t repeat_ = 0;
};

}  // namespace numasim
