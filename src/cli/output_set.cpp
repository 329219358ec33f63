#include "cli/output_set.h"

#include <filesystem>
#include <system_error>

#include "config/input_error.h"

namespace numasim {

namespace {

// Creates the directories `path` needs; appends those that did not exist to `made`.
void make_parent_dirs(const std::string& path, std::vector<std::string>& made) {
    const std::filesystem::path parent = std::filesystem::path(path).parent_path();
    if (parent.empty()) return;
    std::vector<std::filesystem::path> missing;
    std::error_code ec;
    for (auto p = parent; !p.empty() && !std::filesystem::exists(p, ec); p = p.parent_path()) {
        missing.push_back(p);
        if (p == p.parent_path()) break;
    }
    std::filesystem::create_directories(parent, ec);
    if (ec) throw InputError(parent.string(), "", "cannot create directory: " + ec.message());
    for (auto it = missing.rbegin(); it != missing.rend(); ++it)
        made.push_back(it->string());
}

}  // namespace

OutputSet::~OutputSet() {
    for (std::FILE* f : scratch_)
        std::fclose(f);
    if (kept_) return;
    files_.clear();  // their temporary files go first, so that the directories can be empty
    std::error_code ec;
    for (const std::string& p : published_)
        std::filesystem::remove(p, ec);
    for (auto it = made_dirs_.rbegin(); it != made_dirs_.rend(); ++it)
        std::filesystem::remove(*it, ec);  // only if empty: a directory the user filled stays
}

std::FILE* OutputSet::create(const std::string& option, const std::string& path) {
    const std::lock_guard<std::mutex> lock(mu_);
    if (option == "--out-dir") make_parent_dirs(path, made_dirs_);
    return files_.emplace_back(option, path, inputs_).get();
}

std::FILE* OutputSet::scratch(const std::string& path) {
    const std::lock_guard<std::mutex> lock(mu_);
    // An anonymous temporary file: removed when closed, whatever the target is (a FIFO,
    // standard output, a regular file).
    std::FILE* f = std::tmpfile();
    if (!f) throw InputError(path, "", "cannot create a temporary file for it");
    scratch_.push_back(f);
    return f;
}

void OutputSet::commit_all() {
    const std::lock_guard<std::mutex> lock(mu_);
    // Every file complete before the first is renamed: a disk that fills up at the last file
    // leaves none of them under its final name.
    for (OutputFile& f : files_)
        f.finish();
    for (OutputFile& f : files_) {
        f.publish();
        if (!f.renamed_to().empty()) published_.push_back(f.renamed_to());
    }
    for (std::FILE* f : scratch_)
        std::fclose(f);
    scratch_.clear();
}

}  // namespace numasim
