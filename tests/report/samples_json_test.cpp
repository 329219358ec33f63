// The sample tables copied row by row into JSON: the text of dump(2) of {columns, rows}, with
// numbers as numbers and empty cells as null.
#include "report/samples_json.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "config/input_error.h"
#include "observe/numa_sampler.h"
#include "report/json_splice.h"
#include "support/stdio_text.h"

namespace numasim {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

// A run directory with every table: `tasks.csv` as given, the others a header only.
std::string run_dir(const std::string& name, const std::string& tasks_csv) {
    const fs::path d = fs::temp_directory_path() / (name + "." + std::to_string(getpid()));
    fs::remove_all(d);
    fs::create_directories(d);
    for (std::string_view t : sample_table_names())
        std::ofstream(d / std::string(t), std::ios::binary)
            << (t == kTasksTable ? tasks_csv : "# seed: 1\ntime_s,value\n");
    return d.string();
}

std::string written(const std::string& dir, int indent) {
    return test::stdio_text([&](std::FILE* f) { write_samples_json(f, dir, indent); });
}

TEST(SamplesJson, TablesAreTheTextOfDump) {
    const std::string dir = run_dir("numasim_samples_json",
                                    "# numasim\ntime_s,pid,comm,local_pct,big\n"
                                    "0.500,7,\"a,\"\"b\"\"\",,18446744073709551615\n"
                                    "1.000,-8,x,12.25,0\n");
    const json empty = {{"columns", {"time_s", "value"}}, {"rows", json::array()}};
    json expected = json::object();
    for (std::string_view t : sample_table_names())
        expected[std::string(t.substr(0, t.size() - 4))] = empty;
    // A cell beyond int64 is a double, as the JSON reader before the streaming writer had it.
    expected["tasks"] = {
        {"columns", {"time_s", "pid", "comm", "local_pct", "big"}},
        {"rows", {{0.5, 7, "a,\"b\"", nullptr, 18446744073709551615.0}, {1.0, -8, "x", 12.25, 0}}}};
    EXPECT_EQ(written(dir, 0), expected.dump(2));
    EXPECT_EQ(written(dir, 6), json_text(expected, 6));
    fs::remove_all(dir);
}

TEST(SamplesJson, MissingOrMalformedTableNamesTheFile) {
    const std::string dir = run_dir("numasim_samples_json_bad", "time_s,pid\n1,2,3\n");
    try {
        written(dir, 0);
        FAIL() << "no error";
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("tasks.csv"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("line 2"), std::string::npos) << e.what();
    }
    fs::remove(fs::path(dir) / "vmstat.csv");
    std::ofstream(fs::path(dir) / "tasks.csv") << "time_s\n";
    EXPECT_THROW(written(dir, 0), InputError);
    fs::remove_all(dir);
}

}  // namespace
}  // namespace numasim
