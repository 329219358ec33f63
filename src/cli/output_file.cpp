#include "cli/output_file.h"

#include <unistd.h>

#include <cstdio>

#include "config/input_error.h"

namespace numasim {

OutputFile::OutputFile(std::string path) : path_(std::move(path)) {
    tmp_ = path_ + ".tmp." + std::to_string(::getpid());
    f_ = std::fopen(tmp_.c_str(), "w");
    if (!f_) throw InputError(path_, "", "cannot create output file");
}

OutputFile::~OutputFile() {
    if (f_) {
        std::fclose(f_);
        std::remove(tmp_.c_str());
    }
}

void OutputFile::commit() {
    if (!f_) return;
    const bool ok = std::fflush(f_) == 0;
    std::fclose(f_);
    f_ = nullptr;
    if (!ok || std::rename(tmp_.c_str(), path_.c_str()) != 0) {
        std::remove(tmp_.c_str());
        throw InputError(path_, "", "cannot write output file");
    }
}

}  // namespace numasim
