#include "config/input_error.h"

namespace numasim {

namespace {
std::string format_input_error(const std::string& file, const std::string& where,
                               const std::string& problem) {
    std::string s = file.empty() ? std::string("<input>") : file;
    if (!where.empty()) s += ": " + where;
    return s + ": " + problem;
}
}  // namespace

InputError::InputError(std::string file, std::string where, std::string problem)
    : std::runtime_error(format_input_error(file, where, problem)),
      file_(std::move(file)),
      where_(std::move(where)),
      problem_(std::move(problem)) {}

}  // namespace numasim
