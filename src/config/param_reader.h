// The one way a parameter set is read and checked. A parameter struct's member initializers
// are its defaults; each call below names a key, the member and the member's valid range. With
// a table (a scenario's [[workload]] table) a key that is present is read into the member and
// checked, and an absent key leaves the default. Without a table (parameters a command filled
// directly) the same calls check the members as they are. Either way a bad value is an
// InputError naming the file (or source), the key and the valid range, in the same words for
// every workload.
#pragma once

#include <array>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "config/toml_reader.h"
#include "sim/clock.h"

namespace numasim {

class ParamReader {
  public:
    explicit ParamReader(const TomlTable& t) : table_(&t) {}
    // Checks members filled by `source` (e.g. "perf-bench-numa options").
    explicit ParamReader(std::string source) : source_(std::move(source)) {}

    static constexpr int64_t kNoMax = std::numeric_limits<int64_t>::max();

    // An integer in [min, max]; an `int` member also bounds the range to what it can hold.
    void integer(std::string_view key, int& v, int64_t min, int64_t max = kNoMax);
    void integer(std::string_view key, int64_t& v, int64_t min, int64_t max = kNoMax);
    void number(std::string_view key, double& v, double min,
                double max = std::numeric_limits<double>::max());
    // A number above zero and at most `max`.
    void positive(std::string_view key, double& v, double max = std::numeric_limits<double>::max());
    void flag(std::string_view key, bool& v);
    void text(std::string_view key, std::string& v);
    // A size in bytes ("3GiB" or an integer) of at least `min` bytes.
    void size(std::string_view key, uint64_t& v, uint64_t min);
    // A duration ("250ms" or seconds) in [min, max].
    void duration(std::string_view key, Nanos& v, Nanos min, Nanos max = kNoMax);
    // One of `names`, given by name.
    template <typename E, size_t N>
    void choice(std::string_view key, E& v,
                const std::array<std::pair<E, std::string_view>, N>& names);

    bool has(std::string_view key) const { return table_ && table_->has(key); }
    [[noreturn]] void fail(std::string_view key, const std::string& problem) const;
    // A problem of the parameter set as a whole.
    [[noreturn]] void fail_here(const std::string& problem) const;

  private:
    template <typename T>
    void check(std::string_view key, T v, T min, T max, bool open_above) const;
    [[noreturn]] void fail_choice(std::string_view key, const std::string& value,
                                  const std::string& valid) const;

    const TomlTable* table_ = nullptr;
    std::string source_;
};

template <typename E, size_t N>
void ParamReader::choice(std::string_view key, E& v,
                         const std::array<std::pair<E, std::string_view>, N>& names) {
    std::string valid;
    for (const auto& [e, n] : names)
        valid += (valid.empty() ? "" : ", ") + std::string(n);
    if (!has(key)) {
        for (const auto& [e, n] : names)
            if (e == v) return;
        fail_choice(key, "?", valid);
    }
    const std::string s = table_->get_string(key);
    for (const auto& [e, n] : names)
        if (n == s) {
            v = e;
            return;
        }
    fail_choice(key, s, valid);
}

}  // namespace numasim
