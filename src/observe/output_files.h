// Where observers write: the command line hands them files through this interface, so that the
// files of a run appear only when the whole command succeeds (src/cli implements it with atomic
// output files) and so that observers never decide how a path is opened.
#pragma once

#include <cstdio>
#include <string>

namespace numasim {

class OutputFiles {
  public:
    virtual ~OutputFiles() = default;
    // A file that appears at `path` when the command succeeds; `option` is the command-line
    // option that named it (for errors). May be called from several runs at once.
    virtual std::FILE* create(const std::string& option, const std::string& path) = 0;
    // A scratch file next to `path`, removed when the command ends.
    virtual std::FILE* scratch(const std::string& path) = 0;
};

}  // namespace numasim
