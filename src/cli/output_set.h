// The files of one command (sample tables, traces, the run directory's JSON): each written under
// a temporary name and renamed into place only when the whole command succeeds (commit_all), so
// that a failed run leaves no half-written output. Runs on several workers create files at once.
#pragma once

#include <deque>
#include <mutex>
#include <string>
#include <vector>

#include "cli/output_file.h"
#include "observe/output_files.h"

namespace numasim {

class OutputSet : public OutputFiles {
  public:
    // `inputs`: the files the command reads, which are never overwritten (cli/output_file.h).
    explicit OutputSet(std::vector<std::string> inputs) : inputs_(std::move(inputs)) {}
    ~OutputSet() override;
    OutputSet(const OutputSet&) = delete;
    OutputSet& operator=(const OutputSet&) = delete;
    // Files under --out-dir get their directories created; others (--trace) must be in an
    // existing directory.
    std::FILE* create(const std::string& option, const std::string& path) override;
    std::FILE* scratch(const std::string& path) override;
    // Renames every created file into place, in creation order.
    void commit_all();

  private:
    std::vector<std::string> inputs_;
    std::mutex mu_;
    std::deque<OutputFile> files_;
    std::deque<std::FILE*> scratch_;
};

}  // namespace numasim
