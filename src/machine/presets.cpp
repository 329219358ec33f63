#include "machine/presets.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <set>

#include "config/embedded.h"
#include "config/input_error.h"
#include "config/sha256.h"
#include "config/toml_reader.h"
#include "machine/hwloc_import.h"
#include "machine/machine_file.h"

namespace numasim {

namespace {

// The SHA-256 of a machine's input file, for the provenance of results; called after the file
// loaded, so reading it again succeeds.
std::string file_sha256(const std::string& path) {
    return sha256_hex(read_input_file(path));
}

Topology with_hash(Topology t, std::string hash) {
    t.input_sha256 = std::move(hash);
    return t;
}

constexpr std::string_view kPresetGroup = "machine_presets";  // see CMakeLists.txt numasim_embed
constexpr std::string_view kHwlocPrefix = "hwloc:";
constexpr std::string_view kHwlocHost = "host";

std::string joined_names() {
    std::string s;
    for (const auto& n : preset_names())
        s += (s.empty() ? "" : ", ") + n;
    return s;
}

bool ends_with(std::string_view s, std::string_view suffix) {
    return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

std::string relative_to(const std::string& path, const std::string& origin_file) {
    std::filesystem::path p(path);
    if (p.is_absolute() || origin_file.empty()) return path;
    return (std::filesystem::path(origin_file).parent_path() / p).string();
}

std::string format_memory(uint64_t bytes) {
    constexpr uint64_t kGiB = uint64_t{1} << 30, kMiB = uint64_t{1} << 20;
    if (bytes % kGiB == 0) return fmt::format("{} GiB", bytes / kGiB);
    return fmt::format("{} MiB", bytes / kMiB);
}

int nr_packages(const Topology& t) {
    std::set<int> p;
    for (const auto& c : t.cpus)
        p.insert(c.package);
    return static_cast<int>(p.size());
}

}  // namespace

std::vector<std::string> preset_names() {
    std::vector<std::string> names;
    for (const auto& f : embedded_files())
        if (f.group == kPresetGroup) names.emplace_back(f.name);
    std::sort(names.begin(), names.end());
    return names;
}

Topology load_preset(const std::string& name) {
    const EmbeddedFile* f = find_embedded(kPresetGroup, name);
    if (!f)
        throw InputError("<built-in presets>", name,
                         fmt::format("no such machine preset; valid presets: {}", joined_names()));
    const std::string file = fmt::format("src/machine/presets/{}.toml", name);
    Topology t = load_machine_text(f->text, file);
    if (t.name != name)
        throw InputError(file, "machine.name",
                         fmt::format("'{}' must match the preset's file name '{}'", t.name, name));
    return t;
}

Topology resolve_machine(const std::string& spec, const std::string& origin_file,
                         const std::string& key, bool relative) {
    std::string_view s(spec);
    const std::string base = relative ? origin_file : std::string();
    if (spec.empty())
        throw InputError(origin_file, key,
                         fmt::format("empty machine name; valid presets: {} (or a .toml path, "
                                     "hwloc:FILE.xml, hwloc:host)",
                                     joined_names()));
    if (s.substr(0, kHwlocPrefix.size()) == kHwlocPrefix) {
        std::string_view rest = s.substr(kHwlocPrefix.size());
        if (rest == kHwlocHost) return import_hwloc_host();
        if (rest.empty())
            throw InputError(origin_file, key,
                             "'hwloc:' needs a path to an lstopo XML file or "
                             "'host'");
        const std::string path = relative_to(std::string(rest), base);
        Topology t = import_hwloc_xml(path);
        return with_hash(std::move(t), file_sha256(path));
    }
    if (ends_with(s, ".toml") || s.find('/') != std::string_view::npos) {
        const std::string path = relative_to(spec, base);
        Topology t = load_machine_file(path);
        return with_hash(std::move(t), file_sha256(path));
    }
    if (!find_embedded(kPresetGroup, spec))
        throw InputError(origin_file, key,
                         fmt::format("unknown machine '{}'; valid presets: {} (or a .toml path, "
                                     "hwloc:FILE.xml, hwloc:host)",
                                     spec, joined_names()));
    return with_hash(load_preset(spec), sha256_hex(find_embedded(kPresetGroup, spec)->text));
}

std::string machine_spec_file(const std::string& spec, const std::string& origin_file,
                              bool relative) {
    const std::string base = relative ? origin_file : std::string();
    std::string_view s(spec);
    if (s.substr(0, kHwlocPrefix.size()) == kHwlocPrefix) {
        const std::string_view rest = s.substr(kHwlocPrefix.size());
        return rest == kHwlocHost ? "" : relative_to(std::string(rest), base);
    }
    if (ends_with(s, ".toml") || s.find('/') != std::string_view::npos)
        return relative_to(spec, base);
    return "";
}

std::string list_presets_text() {
    struct Row {
        std::string name, nodes, sockets, cpus, mem, desc;
    };
    std::vector<Row> rows{{"NAME", "NODES", "SOCKETS", "CPUS", "MEMORY", "DESCRIPTION"}};
    for (const auto& name : preset_names()) {
        Topology t = load_preset(name);
        const int threads = t.nr_cpus() / std::max(1, t.nr_cores());
        rows.push_back({name, std::to_string(t.nr_nodes()), std::to_string(nr_packages(t)),
                        fmt::format("{} ({}x{})", t.nr_cpus(), t.nr_cores(), threads),
                        format_memory(t.total_mem_bytes()), t.description});
    }
    size_t w[5] = {};
    for (const auto& r : rows) {
        const std::string* cols[5] = {&r.name, &r.nodes, &r.sockets, &r.cpus, &r.mem};
        for (int i = 0; i < 5; ++i)
            w[i] = std::max(w[i], cols[i]->size());
    }
    std::string out;
    for (const auto& r : rows)
        out += fmt::format("{:<{}}  {:>{}}  {:>{}}  {:<{}}  {:>{}}  {}\n", r.name, w[0], r.nodes,
                           w[1], r.sockets, w[2], r.cpus, w[3], r.mem, w[4], r.desc);
    return out;
}

}  // namespace numasim
