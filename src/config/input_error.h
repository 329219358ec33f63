// The one error type for bad user input: every message names the file, the key or line, and
// the problem, so that `numasim` can print it and exit non-zero before writing any output.
#pragma once

#include <stdexcept>
#include <string>

namespace numasim {

class InputError : public std::runtime_error {
  public:
    // `where` is a key path ("workload[1].threads") or "line N"; either may be empty.
    InputError(std::string file, std::string where, std::string problem);

    const std::string& file() const { return file_; }
    const std::string& where() const { return where_; }
    const std::string& problem() const { return problem_; }

  private:
    std::string file_, where_, problem_;
};

}  // namespace numasim
