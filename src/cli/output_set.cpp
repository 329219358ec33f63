#include "cli/output_set.h"

#include <filesystem>
#include <system_error>

#include "config/input_error.h"

namespace numasim {

namespace {

void make_parent_dirs(const std::string& path) {
    const std::filesystem::path parent = std::filesystem::path(path).parent_path();
    if (parent.empty()) return;
    std::error_code ec;
    std::filesystem::create_directories(parent, ec);
    if (ec) throw InputError(parent.string(), "", "cannot create directory: " + ec.message());
}

}  // namespace

OutputSet::~OutputSet() {
    for (std::FILE* f : scratch_)
        std::fclose(f);
}

std::FILE* OutputSet::create(const std::string& option, const std::string& path) {
    const std::lock_guard<std::mutex> lock(mu_);
    if (option == "--out-dir") make_parent_dirs(path);
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
    for (OutputFile& f : files_)
        f.commit();
    for (std::FILE* f : scratch_)
        std::fclose(f);
    scratch_.clear();
}

}  // namespace numasim
