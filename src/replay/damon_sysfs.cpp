#include "replay/damon_sysfs.h"

#include <fmt/format.h>

#include <charconv>
#include <filesystem>
#include <fstream>

#include "config/input_error.h"

namespace numasim {

namespace {

// One sysfs attribute: a decimal number and a newline.
uint64_t read_number(const std::string& dir, const std::filesystem::path& file) {
    std::ifstream in(file);
    std::string text;
    if (!in || !std::getline(in, text))
        throw InputError(dir, file.filename().string().empty() ? "" : file.string(),
                         "missing or empty");
    uint64_t v = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec != std::errc() || end != text.data() + text.size() || text.empty())
        throw InputError(dir, file.string(), fmt::format("'{}': not a number", text));
    return v;
}

}  // namespace

void read_damon_sysfs(const std::string& dir, int64_t sample_us, int64_t aggr_us,
                      const SnapshotHandler& on_snapshot) {
    namespace fs = std::filesystem;
    std::error_code ec;
    if (!fs::is_directory(dir, ec))
        throw InputError(dir, "", "not a directory (a sysfs tried_regions directory or a copy)");
    // The region directories are named 0 .. n-1; count them first, so that a directory of a
    // billion entries is refused before any is read.
    uint64_t n = 0;
    for (const auto& e : fs::directory_iterator(dir, ec)) {
        const std::string name = e.path().filename().string();
        if (name.find_first_not_of("0123456789") != std::string::npos) continue;  // total_bytes
        if (++n > kMaxDamonRegionsPerSnapshot)
            throw InputError(dir, "",
                             fmt::format("more than {} regions", kMaxDamonRegionsPerSnapshot));
    }
    if (ec) throw InputError(dir, "", ec.message());
    if (n == 0) throw InputError(dir, "", "no region directories 0, 1, ...: no regions tried");
    DamonSnapshot s;
    s.start_ns = 0;
    s.end_ns = aggr_us * 1000;
    s.sample_us = sample_us;
    s.aggr_us = aggr_us;
    s.where = "snapshot";
    for (uint64_t i = 0; i < n; ++i) {
        const fs::path r = fs::path(dir) / std::to_string(i);
        if (!fs::is_directory(r, ec))
            throw InputError(dir, r.string(), "missing: region directories are numbered 0 ..");
        s.regions.push_back(DamonRegion{read_number(dir, r / "start"), read_number(dir, r / "end"),
                                        read_number(dir, r / "nr_accesses"),
                                        static_cast<int64_t>(read_number(dir, r / "age"))});
    }
    on_snapshot(s);
}

}  // namespace numasim
