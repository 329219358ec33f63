// The files of one command (sample tables, traces, the run directory's JSON): each written under
// a temporary name and renamed into place only when the whole command succeeds (commit_all), so
// that a failed run leaves no half-written output. Runs on several workers create files at once.
// The run directory's result.json is made from the sample tables under their final names, so it
// is written after commit_all: if it fails (a full disk), the set takes its files back.
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
    // Writes every created file out, then renames each into place, in creation order; if one
    // cannot be written, none is renamed.
    void commit_all();
    // The command has written everything it writes: the files stay. Until then, destroying the
    // set (an error after commit_all) removes the files it renamed into place and the
    // directories it created, if they are empty.
    void keep() { kept_ = true; }

  private:
    std::vector<std::string> inputs_;
    std::mutex mu_;
    std::deque<OutputFile> files_;
    std::deque<std::FILE*> scratch_;
    std::vector<std::string> published_;  // files renamed into place
    std::vector<std::string> made_dirs_;  // directories created, parents first
    bool kept_ = false;
};

}  // namespace numasim
