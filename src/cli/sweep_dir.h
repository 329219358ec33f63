// A sweep's output directory: cases/NNNN.json (one per case), sweep.csv and compare.txt. Every
// file appears under its final name only once complete, so an interrupted sweep leaves only
// finished cases behind, which `--resume` keeps and `numasim gather` combines.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <string>

namespace numasim {

// The case files found in DIR/cases (none if it does not exist), by case number. Files of
// another sweep (a different header) or a case number found twice with different contents are
// errors; `header`, if not null, is what every file must carry.
struct CaseFiles {
    nlohmann::json header;                  // null if there are none
    std::map<size_t, std::string> texts;    // case number -> file contents
    std::map<size_t, std::string> origins;  // case number -> the file it came from
};
void read_case_files(const std::string& dir, CaseFiles& into, const nlohmann::json* header);

// Writes DIR/cases/NAME atomically.
void write_case_file(const std::string& dir, const std::string& name, const std::string& text);
// Removes leftovers of writes a killed process never finished.
void remove_partial_files(const std::string& dir);

// Whether `files` holds every case of its sweep; lists the first missing ones in `missing`.
bool complete(const CaseFiles& files, std::string* missing);
// sweep.csv and compare.txt of the (complete) case files: made before anything is written, so
// that case files which do not hold what a sweep writes leave no output behind.
struct SweepOutputs {
    std::string csv, tables;
};
SweepOutputs sweep_outputs(const CaseFiles& files);
// Writes them as DIR/sweep.csv and DIR/compare.txt.
void write_sweep_outputs(const std::string& dir, const SweepOutputs& outputs);

}  // namespace numasim
