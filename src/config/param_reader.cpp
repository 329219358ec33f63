#include "config/param_reader.h"

#include <fmt/format.h>

#include "config/input_error.h"

namespace numasim {

void ParamReader::fail(std::string_view key, const std::string& problem) const {
    if (table_) table_->fail(key, problem);
    throw InputError(source_, std::string(key), problem);
}

void ParamReader::fail_here(const std::string& problem) const {
    if (table_) table_->fail_here(problem);
    throw InputError(source_, "", problem);
}

void ParamReader::fail_choice(std::string_view key, const std::string& value,
                              const std::string& valid) const {
    fail(key, fmt::format("unknown value '{}' (valid: {})", value, valid));
}

template <typename T>
void ParamReader::check(std::string_view key, T v, T min, T max, bool open_above) const {
    if (v >= min && v <= max) return;
    if (open_above && v < min) fail(key, fmt::format("must be at least {}, got {}", min, v));
    if (open_above) fail(key, fmt::format("must be at most {}, got {}", max, v));
    fail(key, fmt::format("must be between {} and {}, got {}", min, max, v));
}

void ParamReader::integer(std::string_view key, int64_t& v, int64_t min, int64_t max) {
    if (has(key)) v = table_->get_int(key);
    check<int64_t>(key, v, min, max, max == kNoMax);
}

void ParamReader::integer(std::string_view key, int& v, int64_t min, int64_t max) {
    int64_t wide = v;
    if (has(key)) wide = table_->get_int(key);
    check<int64_t>(key, wide, std::max<int64_t>(min, std::numeric_limits<int>::min()),
                   std::min<int64_t>(max, std::numeric_limits<int>::max()), max == kNoMax);
    v = static_cast<int>(wide);
}

void ParamReader::number(std::string_view key, double& v, double min, double max) {
    if (has(key)) v = table_->get_double(key);
    check<double>(key, v, min, max, max == std::numeric_limits<double>::max());
}

void ParamReader::positive(std::string_view key, double& v, double max) {
    if (has(key)) v = table_->get_double(key);
    if (!(v > 0)) fail(key, "must be positive");
    if (v > max) fail(key, fmt::format("must be at most {}, got {}", max, v));
}

void ParamReader::flag(std::string_view key, bool& v) {
    if (has(key)) v = table_->get_bool(key, v);
}

void ParamReader::text(std::string_view key, std::string& v) {
    if (has(key)) v = table_->get_string(key);
}

void ParamReader::size(std::string_view key, uint64_t& v, uint64_t min) {
    if (has(key)) v = table_->get_size(key);
    if (v < min) fail(key, fmt::format("must be at least {} bytes", min));
}

void ParamReader::duration(std::string_view key, Nanos& v, Nanos min, Nanos max) {
    if (has(key)) v = table_->get_duration_ns(key);
    if (v >= min && v <= max) return;
    if (max == kNoMax) {
        if (min == 1) fail(key, "must be positive");
        fail(key, fmt::format("must be at least {} s", ns_to_s(min)));
    }
    fail(key, fmt::format("must be between {} s and {} s", ns_to_s(min), ns_to_s(max)));
}

}  // namespace numasim
