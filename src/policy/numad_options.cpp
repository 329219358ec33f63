#include "policy/numad_options.h"

#include <fmt/format.h>

#include <charconv>
#include <string>

#include "config/toml_reader.h"

namespace numasim {

namespace {

constexpr const char* kInterval = "interval";
constexpr const char* kUtilization = "utilization";
constexpr const char* kMemlocality = "memlocality";
constexpr const char* kHttPercent = "htt_percent";
constexpr const char* kKeepInterleaved = "keep_interleaved";

int read_percent(const TomlTable& t, const char* key, int fallback, int lo, int hi,
                 const char* option) {
    const int64_t v = t.get_int(key, fallback);
    if (v < lo || v > hi)
        t.fail(key,
               fmt::format("{} is out of range: numad's {} takes {} to {}", v, option, lo, hi));
    return static_cast<int>(v);
}

bool parse_seconds(std::string_view s, int& out) {
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
    return ec == std::errc() && end == s.data() + s.size() && out >= 0 && !s.empty();
}

// -i [MIN:]MAX as parse_two_arg_values() reads it: one number sets the maximum only.
void read_interval(const TomlTable& t, NumadOptions& o) {
    if (!t.has(kInterval)) return;
    const std::string v = t.get_string(kInterval);
    const size_t colon = v.find(':');
    int lo = o.min_interval, hi = 0;
    const bool ok = colon == std::string::npos
                        ? parse_seconds(v, hi)
                        : parse_seconds(std::string_view(v).substr(0, colon), lo) &&
                              parse_seconds(std::string_view(v).substr(colon + 1), hi);
    if (!ok)
        t.fail(kInterval,
               fmt::format("\"{}\" is not MAX or MIN:MAX in whole seconds (numad -i)", v));
    if (hi == 0) t.fail(kInterval, "a maximum of 0 stops numad (numad -i 0); give at least 1 s");
    if (hi < lo)
        t.fail(kInterval,
               fmt::format("max interval ({}) must be greater than min interval ({})", hi, lo));
    o.min_interval = lo;
    o.max_interval = hi;
}

}  // namespace

NumadOptions read_numad_options(const TomlTable* t) {
    NumadOptions o;
    if (!t) return o;
    read_interval(*t, o);
    o.target_utilization = read_percent(*t, kUtilization, o.target_utilization, 10, 130, "-u");
    o.target_memlocality = read_percent(*t, kMemlocality, o.target_memlocality, 50, 100, "-m");
    o.htt_percent = read_percent(*t, kHttPercent, o.htt_percent, 0, 100, "-t");
    o.keep_interleaved = t->get_bool(kKeepInterleaved, o.keep_interleaved);
    t->finish();
    return o;
}

}  // namespace numasim
