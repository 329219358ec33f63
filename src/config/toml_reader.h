// Strict, typed access to a TOML document for scenario, machine and profile files.
// Every getter records the key it read; finish() rejects keys nobody read, so a typo in a
// scenario is an error that names the file, the key path and its line instead of a silent default.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace toml {
inline namespace v3 {
class table;
class node;
}  // namespace v3
}  // namespace toml

namespace numasim {

// A key of a document set from outside it (the command line, a scenario's [[variant]] table):
// `key` is a dotted path ("workload.jvms"), `value` a TOML value ("4", "\"20s\""), and
// `origin` names the assignment in errors ("--param workload.jvms=0").
struct KeyAssignment {
    std::string origin;
    std::string key;
    std::string value;
};

class TomlTable {
  public:
    // Parse errors become InputError with the line and column of the problem.
    static TomlTable parse_file(const std::string& path);
    static TomlTable parse_text(std::string_view text, const std::string& name);
    // As above, then applies the assignments in order. Missing tables on a path are created; a
    // path through an array of tables applies to every element. Errors about an assigned key
    // (or a table an assignment created) name the assignment's origin instead of the file.
    static TomlTable parse_file(const std::string& path,
                                const std::vector<KeyAssignment>& assignments);
    static TomlTable parse_text(std::string_view text, const std::string& name,
                                const std::vector<KeyAssignment>& assignments);

    bool has(std::string_view key) const;

    int64_t get_int(std::string_view key) const;
    int64_t get_int(std::string_view key, int64_t fallback) const;
    double get_double(std::string_view key) const;  // integers are accepted too
    double get_double(std::string_view key, double fallback) const;
    bool get_bool(std::string_view key, bool fallback) const;
    std::string get_string(std::string_view key) const;
    std::string get_string(std::string_view key, std::string fallback) const;
    // A size in bytes: an integer, or a string such as "3GiB", "512MiB", "4KiB", "1.5GB".
    uint64_t get_size(std::string_view key) const;
    uint64_t get_size(std::string_view key, uint64_t fallback) const;
    // A duration in nanoseconds: a number of seconds, or a string such as "250ms", "10s", "2us".
    int64_t get_duration_ns(std::string_view key) const;
    int64_t get_duration_ns(std::string_view key, int64_t fallback) const;
    std::vector<int64_t> get_int_array(std::string_view key) const;
    std::vector<double> get_double_array(std::string_view key) const;
    std::vector<std::string> get_string_array(std::string_view key) const;
    std::vector<std::vector<int64_t>> get_int_matrix(std::string_view key) const;
    // Any value but a table, as text: a string's characters, anything else as its TOML text
    // (`2`, `true`, `[0, 1]`).
    std::string get_text(std::string_view key) const;

    std::optional<TomlTable> table(std::string_view key) const;
    std::vector<TomlTable> tables(std::string_view key) const;  // array of tables; may be empty
    std::vector<std::string> keys() const;                      // in file order

    // Rejects every key of this table that no getter read.
    void finish() const;

    [[noreturn]] void fail(std::string_view key, const std::string& problem) const;
    [[noreturn]] void fail_here(const std::string& problem) const;

    const std::string& file() const { return *file_; }
    const std::string& path() const { return path_; }  // "" for the root, "workload[2]" ...
    std::string key_path(std::string_view key) const;
    // What set `key`: "FILE (line N)", or the origin of the assignment that set it.
    std::string origin(std::string_view key) const;

  private:
    using Assigned = std::map<std::string, std::string, std::less<>>;  // key path -> origin
    TomlTable(std::shared_ptr<const toml::table> root, const toml::table* t,
              std::shared_ptr<const std::string> file, std::string path,
              std::shared_ptr<const Assigned> assigned);
    const toml::node* node(std::string_view key) const;
    const toml::node& require(std::string_view key) const;
    std::string where(std::string_view key) const;
    const std::string* assigned_by(std::string_view path) const;

    std::shared_ptr<const toml::table> root_;
    const toml::table* table_;
    std::shared_ptr<const std::string> file_;
    std::string path_;
    std::shared_ptr<const Assigned> assigned_;
    mutable std::set<std::string, std::less<>> used_;
};

// The bytes of an input file, with the checks every input gets (InputError naming `path` if it
// cannot be opened or read, e.g. a directory, or is larger than the input-file limit).
std::string read_input_file(const std::string& path);

// A TOML value as text: a string quoted and escaped, e.g. for a KeyAssignment.
std::string toml_quote(std::string_view s);

// Throws an InputError naming `name` and the line if `text` nests arrays or inline tables deeper
// than kMaxTomlNesting or has a dotted key of more than kMaxTomlKeyParts parts (limits.h): the
// TOML parser would recurse that deep.
void check_toml_shape(std::string_view text, const std::string& name);

// Parses "3GiB" style sizes and "250ms" style durations; nullopt if malformed.
std::optional<uint64_t> parse_size(std::string_view text);
std::optional<int64_t> parse_duration_ns(std::string_view text);

}  // namespace numasim
