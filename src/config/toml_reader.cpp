#include "config/toml_reader.h"

#include <fmt/format.h>

#include <toml++/toml.h>
#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <fstream>
#include <sstream>

#include "config/input_error.h"
#include "config/limits.h"

namespace numasim {

// Rejects, before the TOML parser sees it, text whose arrays or inline tables nest deeper than
// kMaxTomlNesting or that has a dotted key of more than kMaxTomlKeyParts parts: the parser
// recurses once per level and would overflow the stack. Strings and comments are skipped; a
// dot inside a run of key characters counts as a key part (a number such as 1.5 has one).
void check_toml_shape(std::string_view text, const std::string& name) {
    int depth = 0, dots = 0, line = 1;
    auto fail = [&](const std::string& problem) {
        throw InputError(name, fmt::format("line {}", line), problem);
    };
    for (size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (c == '\n') ++line;
        if (c == '#') {
            while (i + 1 < text.size() && text[i + 1] != '\n')
                ++i;
        } else if (c == '"' || c == '\'') {
            const bool multi = text.substr(i, 3) == std::string(3, c);
            const std::string_view close = multi ? text.substr(i, 3) : text.substr(i, 1);
            i += close.size();
            while (i < text.size() && text.substr(i, close.size()) != close) {
                if (text[i] == '\n') ++line;
                if (c == '"' && text[i] == '\\') ++i;  // an escaped character
                ++i;
            }
            i += close.size() - 1;
            continue;  // a quoted key part keeps the run of dots going
        } else if (c == '[' || c == '{') {
            if (++depth > kMaxTomlNesting)
                fail(fmt::format("arrays and tables nest deeper than {} levels", kMaxTomlNesting));
        } else if (c == ']' || c == '}') {
            --depth;
        } else if (c == '.') {
            if (++dots >= kMaxTomlKeyParts)
                fail(fmt::format("a dotted key has more than {} parts", kMaxTomlKeyParts));
            continue;
        }
        if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == ' ' ||
              c == '\t' || c == '.'))
            dots = 0;
    }
}

namespace {

std::string type_name(const toml::node& n) {
    switch (n.type()) {
        case toml::node_type::table:
            return "a table";
        case toml::node_type::array:
            return "an array";
        case toml::node_type::string:
            return "a string";
        case toml::node_type::integer:
            return "an integer";
        case toml::node_type::floating_point:
            return "a number";
        case toml::node_type::boolean:
            return "a boolean";
        default:
            return "a date or time";
    }
}

// Splits "1.5GiB" into the number and the unit.
bool split_number_unit(std::string_view text, double& value, std::string_view& unit) {
    size_t i = 0;
    while (i < text.size() && (std::isdigit(static_cast<unsigned char>(text[i])) || text[i] == '.'))
        ++i;
    if (i == 0) return false;
    std::string num(text.substr(0, i));
    char* end = nullptr;
    value = std::strtod(num.c_str(), &end);
    if (end != num.c_str() + num.size()) return false;
    unit = text.substr(i);
    while (!unit.empty() && unit.front() == ' ')
        unit.remove_prefix(1);
    return true;
}

}  // namespace

std::optional<uint64_t> parse_size(std::string_view text) {
    double v;
    std::string_view unit;
    if (!split_number_unit(text, v, unit)) return std::nullopt;
    double mult;
    if (unit.empty() || unit == "B")
        mult = 1;
    else if (unit == "KiB" || unit == "K" || unit == "k")
        mult = 1024.0;
    else if (unit == "MiB" || unit == "M")
        mult = 1024.0 * 1024;
    else if (unit == "GiB" || unit == "G")
        mult = 1024.0 * 1024 * 1024;
    else if (unit == "TiB" || unit == "T")
        mult = 1024.0 * 1024 * 1024 * 1024;
    else if (unit == "KB" || unit == "kB")
        mult = 1e3;
    else if (unit == "MB")
        mult = 1e6;
    else if (unit == "GB")
        mult = 1e9;
    else if (unit == "TB")
        mult = 1e12;
    else
        return std::nullopt;
    double bytes = v * mult;
    if (!(bytes >= 0) || bytes > 1.8e19) return std::nullopt;
    return static_cast<uint64_t>(std::llround(bytes));
}

std::optional<int64_t> parse_duration_ns(std::string_view text) {
    double v;
    std::string_view unit;
    if (!split_number_unit(text, v, unit)) return std::nullopt;
    double mult;
    if (unit.empty() || unit == "s")
        mult = 1e9;
    else if (unit == "ms")
        mult = 1e6;
    else if (unit == "us")
        mult = 1e3;
    else if (unit == "ns")
        mult = 1;
    else if (unit == "min")
        mult = 60e9;
    else
        return std::nullopt;
    double ns = v * mult;
    if (!(ns >= 0) || ns > 9e18) return std::nullopt;
    return static_cast<int64_t>(std::llround(ns));
}

TomlTable::TomlTable(std::shared_ptr<const toml::table> root, const toml::table* t,
                     std::shared_ptr<const std::string> file, std::string path,
                     std::shared_ptr<const Assigned> assigned)
    : root_(std::move(root)),
      table_(t),
      file_(std::move(file)),
      path_(std::move(path)),
      assigned_(std::move(assigned)) {}

namespace {

std::string join_path(const std::string& path, std::string_view key) {
    return path.empty() ? std::string(key) : path + "." + std::string(key);
}

// Sets `rest` (split at dots) below `t`, whose key path is `path`, to `value`, through every
// table of an array of tables and creating missing tables. Records each key path it set or
// created in `assigned`. False if the path runs into a value that is not a table.
bool assign_path(toml::table& t, const std::string& path, std::string_view rest,
                 const toml::node& value, const std::string& origin,
                 std::map<std::string, std::string, std::less<>>& assigned) {
    const auto dot = rest.find('.');
    const std::string head(rest.substr(0, dot));
    const std::string here = join_path(path, head);
    if (dot == std::string_view::npos) {
        t.insert_or_assign(head, value);
        assigned[here] = origin;
        return true;
    }
    toml::node* n = t.get(head);
    if (!n) {
        n = &t.insert_or_assign(head, toml::table{}).first->second;
        assigned.emplace(here, origin);
    }
    const std::string_view tail = rest.substr(dot + 1);
    if (toml::table* sub = n->as_table())
        return assign_path(*sub, here, tail, value, origin, assigned);
    toml::array* arr = n->as_array();
    if (!arr || arr->empty()) return false;
    for (size_t i = 0; i < arr->size(); ++i) {
        toml::table* sub = (*arr)[i].as_table();
        if (!sub ||
            !assign_path(*sub, fmt::format("{}[{}]", here, i), tail, value, origin, assigned))
            return false;
    }
    return true;
}

void apply_assignments(toml::table& root, const std::vector<KeyAssignment>& assignments,
                       std::map<std::string, std::string, std::less<>>& assigned) {
    for (const auto& a : assignments) {
        toml::table v;
        if (std::count(a.key.begin(), a.key.end(), '.') >= kMaxTomlKeyParts)
            throw InputError(a.origin, "",
                             fmt::format("a key has more than {} parts", kMaxTomlKeyParts));
        check_toml_shape(a.value, a.origin);
        try {
            const std::string doc = "v = " + a.value;
            v = toml::parse(std::string_view(doc), std::string_view(a.origin));
        } catch (const toml::parse_error& e) {
            throw InputError(a.origin, a.key,
                             "the value is not TOML: " + std::string(e.description()));
        }
        // One value and nothing after it: keys past a newline in the value would otherwise be
        // parsed here and dropped, and the run would go on without them.
        if (v.size() != 1)
            throw InputError(a.origin, a.key,
                             "the value goes on past its end (a newline and more TOML): give "
                             "one value");
        if (a.key.empty() || !assign_path(root, "", a.key, *v.get("v"), a.origin, assigned))
            throw InputError(a.origin, a.key, "not a key that can be set in this file");
    }
}

}  // namespace

TomlTable TomlTable::parse_text(std::string_view text, const std::string& name) {
    return parse_text(text, name, {});
}

std::string read_input_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw InputError(path, "", fmt::format("cannot open file: {}", std::strerror(errno)));
    // Read at most one byte more than allowed: a device such as /dev/zero never ends. Read in
    // chunks, so that a small file does not pay for clearing a buffer of the largest.
    constexpr size_t kChunk = size_t{64} << 10;
    std::string text;
    while (text.size() <= kMaxInputFileBytes) {
        const size_t had = text.size();
        text.resize(std::min<size_t>(had + kChunk, kMaxInputFileBytes + 1));
        in.read(text.data() + had, static_cast<std::streamsize>(text.size() - had));
        if (in.bad()) throw InputError(path, "", "cannot read file (is it a directory?)");
        text.resize(had + static_cast<size_t>(in.gcount()));
        if (!in) break;
    }
    if (text.size() > kMaxInputFileBytes)
        throw InputError(
            path, "",
            fmt::format("larger than {} MiB, the limit for input files", kMaxInputFileBytes >> 20));
    return text;
}

TomlTable TomlTable::parse_file(const std::string& path,
                                const std::vector<KeyAssignment>& assignments) {
    return parse_text(read_input_file(path), path, assignments);
}

TomlTable TomlTable::parse_text(std::string_view text, const std::string& name,
                                const std::vector<KeyAssignment>& assignments) {
    std::shared_ptr<toml::table> root;
    check_toml_shape(text, name);
    try {
        root = std::make_shared<toml::table>(toml::parse(text, name));
    } catch (const toml::parse_error& e) {
        const auto& src = e.source();
        throw InputError(name, fmt::format("line {}, column {}", src.begin.line, src.begin.column),
                         std::string(e.description()));
    }
    auto assigned = std::make_shared<Assigned>();
    apply_assignments(*root, assignments, *assigned);
    const toml::table* t = root.get();
    return TomlTable(std::move(root), t, std::make_shared<std::string>(name), "",
                     std::move(assigned));
}

TomlTable TomlTable::parse_file(const std::string& path) {
    return parse_file(path, {});
}

std::string TomlTable::key_path(std::string_view key) const {
    return join_path(path_, key);
}

const std::string* TomlTable::assigned_by(std::string_view path) const {
    auto it = assigned_->find(path);
    return it == assigned_->end() ? nullptr : &it->second;
}

std::string TomlTable::where(std::string_view key) const {
    const toml::node* n = node(key);
    if (n && n->source().begin.line > 0)
        return fmt::format("{} (line {})", key_path(key), n->source().begin.line);
    return key_path(key);
}

std::string TomlTable::origin(std::string_view key) const {
    if (const std::string* o = assigned_by(key_path(key))) return *o;
    return *file_ + ": " + where(key);
}

void TomlTable::fail(std::string_view key, const std::string& problem) const {
    if (const std::string* o = assigned_by(key_path(key)))
        throw InputError(*o, key_path(key), problem);
    throw InputError(*file_, where(key), problem);
}

void TomlTable::fail_here(const std::string& problem) const {
    if (const std::string* o = assigned_by(path_)) throw InputError(*o, path_, problem);
    std::string w = path_.empty() ? std::string("top level") : path_;
    if (table_->source().begin.line > 0)
        w += fmt::format(" (line {})", table_->source().begin.line);
    throw InputError(*file_, w, problem);
}

const toml::node* TomlTable::node(std::string_view key) const {
    return table_->get(key);
}

bool TomlTable::has(std::string_view key) const {
    used_.emplace(key);
    return node(key) != nullptr;
}

const toml::node& TomlTable::require(std::string_view key) const {
    used_.emplace(key);
    const toml::node* n = node(key);
    if (!n) fail_here(fmt::format("missing required key '{}'", key_path(key)));
    return *n;
}

int64_t TomlTable::get_int(std::string_view key) const {
    const toml::node& n = require(key);
    if (auto v = n.value_exact<int64_t>()) return *v;
    fail(key, "expected an integer, found " + type_name(n));
}

int64_t TomlTable::get_int(std::string_view key, int64_t fallback) const {
    return has(key) ? get_int(key) : fallback;
}

double TomlTable::get_double(std::string_view key) const {
    const toml::node& n = require(key);
    if (auto v = n.value_exact<double>()) {
        if (!std::isfinite(*v)) fail(key, "expected a finite number");
        return *v;
    }
    if (auto v = n.value_exact<int64_t>()) return static_cast<double>(*v);
    fail(key, "expected a number, found " + type_name(n));
}

double TomlTable::get_double(std::string_view key, double fallback) const {
    return has(key) ? get_double(key) : fallback;
}

bool TomlTable::get_bool(std::string_view key, bool fallback) const {
    if (!has(key)) return fallback;
    const toml::node& n = require(key);
    if (auto v = n.value_exact<bool>()) return *v;
    fail(key, "expected true or false, found " + type_name(n));
}

std::string TomlTable::get_string(std::string_view key) const {
    const toml::node& n = require(key);
    if (auto v = n.value_exact<std::string>()) return *v;
    fail(key, "expected a string, found " + type_name(n));
}

std::string TomlTable::get_string(std::string_view key, std::string fallback) const {
    return has(key) ? get_string(key) : fallback;
}

uint64_t TomlTable::get_size(std::string_view key) const {
    const toml::node& n = require(key);
    if (auto v = n.value_exact<int64_t>()) {
        if (*v < 0) fail(key, "a size cannot be negative");
        return static_cast<uint64_t>(*v);
    }
    if (auto s = n.value_exact<std::string>()) {
        if (auto b = parse_size(*s)) return *b;
        fail(key, fmt::format("'{}' is not a size (use e.g. \"3GiB\", \"512MiB\", \"4096\")", *s));
    }
    fail(key, "expected a size, found " + type_name(n));
}

uint64_t TomlTable::get_size(std::string_view key, uint64_t fallback) const {
    return has(key) ? get_size(key) : fallback;
}

int64_t TomlTable::get_duration_ns(std::string_view key) const {
    const toml::node& n = require(key);
    double seconds = 0;
    if (auto v = n.value_exact<int64_t>())
        seconds = static_cast<double>(*v);
    else if (auto d = n.value_exact<double>())
        seconds = *d;
    else if (auto s = n.value_exact<std::string>()) {
        if (auto ns = parse_duration_ns(*s)) return *ns;
        fail(key, fmt::format("'{}' is not a duration (use e.g. \"10s\", \"250ms\")", *s));
    } else {
        fail(key, "expected a duration, found " + type_name(n));
    }
    if (!(seconds >= 0) || seconds > 9e9) fail(key, "duration out of range");
    return static_cast<int64_t>(std::llround(seconds * 1e9));
}

int64_t TomlTable::get_duration_ns(std::string_view key, int64_t fallback) const {
    return has(key) ? get_duration_ns(key) : fallback;
}

namespace {
template <typename T, typename Conv>
std::vector<T> read_array(const TomlTable& t, const toml::node& n, std::string_view key,
                          const char* what, Conv conv) {
    const toml::array* a = n.as_array();
    if (!a) t.fail(key, fmt::format("expected an array of {}, found {}", what, type_name(n)));
    std::vector<T> out;
    for (size_t i = 0; i < a->size(); ++i) {
        auto v = conv((*a)[i]);
        if (!v) t.fail(key, fmt::format("element {} is not {}", i, what));
        out.push_back(*v);
    }
    return out;
}
}  // namespace

std::vector<int64_t> TomlTable::get_int_array(std::string_view key) const {
    return read_array<int64_t>(*this, require(key), key, "integers",
                               [](const toml::node& e) { return e.value_exact<int64_t>(); });
}

std::vector<double> TomlTable::get_double_array(std::string_view key) const {
    return read_array<double>(*this, require(key), key, "numbers",
                              [](const toml::node& e) -> std::optional<double> {
                                  if (auto d = e.value_exact<double>()) return *d;
                                  if (auto i = e.value_exact<int64_t>())
                                      return static_cast<double>(*i);
                                  return std::nullopt;
                              });
}

std::vector<std::string> TomlTable::get_string_array(std::string_view key) const {
    return read_array<std::string>(*this, require(key), key, "strings", [](const toml::node& e) {
        return e.value_exact<std::string>();
    });
}

std::string TomlTable::get_text(std::string_view key) const {
    const toml::node& n = require(key);
    if (n.is_table()) fail(key, "expected a value, found a table");
    if (auto str = n.value_exact<std::string>()) return *str;
    std::ostringstream os;
    if (const toml::array* a = n.as_array())
        os << toml::toml_formatter(*a, toml::format_flags::none);
    else
        n.visit([&](const auto& v) { os << toml::toml_formatter(v, toml::format_flags::none); });
    return os.str();
}

std::vector<std::vector<int64_t>> TomlTable::get_int_matrix(std::string_view key) const {
    const toml::node& n = require(key);
    const toml::array* a = n.as_array();
    if (!a) fail(key, "expected an array of integer arrays, found " + type_name(n));
    std::vector<std::vector<int64_t>> out;
    for (size_t i = 0; i < a->size(); ++i) {
        const toml::array* row = (*a)[i].as_array();
        if (!row) fail(key, fmt::format("row {} is not an array", i));
        std::vector<int64_t> r;
        for (size_t j = 0; j < row->size(); ++j) {
            auto v = (*row)[j].value_exact<int64_t>();
            if (!v) fail(key, fmt::format("row {} element {} is not an integer", i, j));
            r.push_back(*v);
        }
        out.push_back(std::move(r));
    }
    return out;
}

std::optional<TomlTable> TomlTable::table(std::string_view key) const {
    if (!has(key)) return std::nullopt;
    const toml::node& n = require(key);
    const toml::table* t = n.as_table();
    if (!t) fail(key, "expected a table, found " + type_name(n));
    return TomlTable(root_, t, file_, key_path(key), assigned_);
}

std::vector<TomlTable> TomlTable::tables(std::string_view key) const {
    std::vector<TomlTable> out;
    if (!has(key)) return out;
    const toml::node& n = require(key);
    if (const toml::table* t = n.as_table()) {
        out.push_back(TomlTable(root_, t, file_, key_path(key), assigned_));
        return out;
    }
    const toml::array* a = n.as_array();
    if (!a)
        fail(key,
             "expected an array of tables ([[" + std::string(key) + "]]), found " + type_name(n));
    for (size_t i = 0; i < a->size(); ++i) {
        const toml::table* t = (*a)[i].as_table();
        if (!t) fail(key, fmt::format("element {} is not a table", i));
        out.push_back(
            TomlTable(root_, t, file_, fmt::format("{}[{}]", key_path(key), i), assigned_));
    }
    return out;
}

namespace {
// toml++ keeps a table's keys sorted; users think in file order, so sort by source position.
std::vector<std::pair<std::string, const toml::node*>> in_file_order(const toml::table& t) {
    std::vector<std::pair<std::string, const toml::node*>> out;
    for (const auto& [k, v] : t)
        out.emplace_back(std::string(k.str()), &v);
    std::stable_sort(out.begin(), out.end(), [](const auto& a, const auto& b) {
        const auto& x = a.second->source().begin;
        const auto& y = b.second->source().begin;
        return x.line != y.line ? x.line < y.line : x.column < y.column;
    });
    return out;
}
}  // namespace

std::vector<std::string> TomlTable::keys() const {
    std::vector<std::string> out;
    for (const auto& [k, v] : in_file_order(*table_))
        out.push_back(k);
    return out;
}

void TomlTable::finish() const {
    for (const auto& [k, v] : in_file_order(*table_)) {
        if (!used_.count(k)) fail(k, "unknown key");
    }
}

std::string toml_quote(std::string_view s) {
    std::ostringstream out;
    out << toml::value<std::string>(std::string(s));
    return out.str();
}

}  // namespace numasim
