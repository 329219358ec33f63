// A file that appears under its final name only when the command succeeds: written as
// NAME.tmp.PID and renamed at commit(), removed if the object dies uncommitted.
#pragma once

#include <cstdio>
#include <string>

namespace numasim {

class OutputFile {
  public:
    explicit OutputFile(std::string path);
    ~OutputFile();
    OutputFile(const OutputFile&) = delete;
    OutputFile& operator=(const OutputFile&) = delete;

    std::FILE* get() const { return f_; }
    void commit();

  private:
    std::string path_, tmp_;
    std::FILE* f_ = nullptr;
};

}  // namespace numasim
