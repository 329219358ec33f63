// `--sample`: the time-series tables add up to the run's own totals, leave the result alone,
// carry the provenance, and are byte-identical whatever the number of workers.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "numasim_process.h"

namespace numasim::test {
namespace {

namespace fs = std::filesystem;

std::string fresh_dir(const std::string& name) {
    return scratch_path(name);
}

const std::string kRun = "run examples/knobs.toml --duration 6s --json ";

// The rows of CSV text as CsvWriter writes it, header first, comment lines left out.
std::vector<std::vector<std::string>> csv_rows(const std::string& text) {
    std::vector<std::vector<std::string>> rows;
    size_t pos = 0;
    while (pos < text.size()) {
        if (text[pos] == '#') {
            pos = text.find('\n', pos) + 1;
            continue;
        }
        std::vector<std::string> cells(1);
        for (bool quoted = false; pos < text.size(); ++pos) {
            const char c = text[pos];
            if (quoted && c == '"' && text[pos + 1] == '"') {
                cells.back() += c;
                ++pos;
            } else if (c == '"') {
                quoted = !quoted;
            } else if (!quoted && c == ',') {
                cells.emplace_back();
            } else if (!quoted && c == '\n') {
                ++pos;
                break;
            } else {
                cells.back() += c;
            }
        }
        rows.push_back(std::move(cells));
    }
    return rows;
}

// A JSON cell against the CSV text it was read from: an empty cell is null, a number has the
// text's value, anything else is the text.
void expect_cell(const nlohmann::json& cell, const std::string& text, const std::string& where) {
    if (text.empty())
        EXPECT_TRUE(cell.is_null()) << where;
    else if (cell.is_number())
        EXPECT_EQ(cell.get<double>(), std::stod(text)) << where << ": " << text;
    else
        EXPECT_EQ(cell, text) << where;
}

TEST(Sample, DeltasAddUpToTheRunsCounters) {
    const std::string dir = fresh_dir("numasim_sample_sum");
    const Output o = run_numasim(kRun + "--sample 1s --out-dir " + dir);
    ASSERT_EQ(o.status, 0) << o.out;
    const auto j = nlohmann::json::parse(o.out);
    const auto& vm = j["samples"]["vmstat"];
    ASSERT_GE(vm["rows"].size(), 5u);
    // The last sample is taken when the run ends, so the deltas sum to the final counters.
    for (size_t c = 1; c < vm["columns"].size(); ++c) {
        const std::string name = vm["columns"][c];
        uint64_t sum = 0;
        for (const auto& row : vm["rows"])
            sum += row[c].get<uint64_t>();
        EXPECT_EQ(sum, j["vmstat"][name].get<uint64_t>()) << name;
    }
    double last = -1;
    for (const auto& row : vm["rows"]) {
        EXPECT_GT(row[0].get<double>(), last);
        last = row[0].get<double>();
    }
    EXPECT_DOUBLE_EQ(last, j["elapsed_s"].get<double>());
    // The result file holds the same JSON.
    EXPECT_EQ(nlohmann::json::parse(read_text(dir + "/result.json")), j);
}

TEST(Sample, NumaMapsAddUpToNumastatAndTasksAreConsistent) {
    const std::string dir = fresh_dir("numasim_sample_maps");
    const Output o = run_numasim(kRun + "--sample 500ms --out-dir " + dir);
    ASSERT_EQ(o.status, 0) << o.out;
    const auto s = nlohmann::json::parse(o.out)["samples"];
    // numa_maps pages per (time, pid, node) against numastat's MB.
    std::map<std::pair<double, int>, std::vector<uint64_t>> pages;
    const auto& maps = s["numa_maps"];
    const size_t first_node = 4;  // time_s, pid, address, vma, N0, ...
    ASSERT_EQ(maps["columns"][first_node], "N0");
    for (const auto& row : maps["rows"]) {
        auto& v = pages[{row[0].get<double>(), row[1].get<int>()}];
        v.resize(maps["columns"].size() - first_node);
        for (size_t n = 0; n < v.size(); ++n)
            v[n] += row[first_node + n].get<uint64_t>();
    }
    const auto& numastat = s["numastat"];
    ASSERT_FALSE(numastat["rows"].empty());
    for (const auto& row : numastat["rows"]) {
        const auto& v = pages.at({row[0].get<double>(), row[1].get<int>()});
        for (size_t n = 0; n < v.size(); ++n)
            EXPECT_NEAR(row[3 + n].get<double>(), static_cast<double>(v[n]) * 4096 / 1048576,
                        0.0051);
    }
    // Every task row: a local share between 0 and 100 when it faulted, a node that holds its
    // CPU, and hint faults the run counted.
    const auto& tasks = s["tasks"];
    const int local_pct = 10;
    ASSERT_EQ(tasks["columns"][local_pct], "local_pct");
    uint64_t faults = 0;
    for (const auto& row : tasks["rows"]) {
        faults += row[8].get<uint64_t>();
        if (row[local_pct].is_null()) continue;
        EXPECT_GE(row[local_pct].get<double>(), 0.0);
        EXPECT_LE(row[local_pct].get<double>(), 100.0);
    }
    EXPECT_GT(faults, 0u);
}

TEST(Sample, LeavesTheResultAlone) {
    const std::string dir = fresh_dir("numasim_sample_same");
    const Output a = run_numasim(kRun);
    const Output b = run_numasim(kRun + "--sample 100ms --out-dir " + dir);
    ASSERT_EQ(a.status, 0) << a.out;
    ASSERT_EQ(b.status, 0) << b.out;
    auto ja = nlohmann::json::parse(a.out), jb = nlohmann::json::parse(b.out);
    for (auto* j : {&ja, &jb}) {
        j->erase("provenance");
        j->erase("samples");
    }
    EXPECT_EQ(ja, jb);
}

TEST(Sample, TablesCarryTheProvenance) {
    const std::string dir = fresh_dir("numasim_sample_prov");
    const Output o = run_numasim(kRun + "--sample 1s --set smallimp=7 --out-dir " + dir);
    ASSERT_EQ(o.status, 0) << o.out;
    const auto p = nlohmann::json::parse(o.out)["provenance"];
    EXPECT_EQ(p["scenario_file"], "examples/knobs.toml");
    // The hashes are what sha256sum prints for the scenario and the preset file.
    const Output sum = shell("sha256sum examples/knobs.toml src/machine/presets/tiny-4n.toml");
    EXPECT_NE(sum.out.find(p["scenario_sha256"].get<std::string>() + "  examples/knobs.toml"),
              std::string::npos)
        << sum.out;
    EXPECT_NE(
        sum.out.find(p["machine_sha256"].get<std::string>() + "  src/machine/presets/tiny-4n.toml"),
        std::string::npos)
        << sum.out;
    EXPECT_NE(p["knobs"].get<std::string>().find("smallimp=7"), std::string::npos);
    EXPECT_NE(p["command"].get<std::string>().find("--set smallimp=7"), std::string::npos);
    const std::string csv = read_text(dir + "/iter-1/vmstat.csv");
    EXPECT_EQ(csv.rfind("# numasim_version: ", 0), 0u) << csv.substr(0, 200);
    EXPECT_NE(csv.find("# scenario_sha256: " + p["scenario_sha256"].get<std::string>()),
              std::string::npos);
    EXPECT_NE(csv.find("# seed: 1\n"), std::string::npos);
}

TEST(Sample, SameBytesWhateverTheWorkers) {
    const std::string a = fresh_dir("numasim_sample_j1"), b = fresh_dir("numasim_sample_j2");
    const std::string args =
        "run examples/variants.toml --iterations 3 --duration 4s --sample 1s --out-dir ";
    ASSERT_EQ(run_numasim(args + a + " -j 1").status, 0);
    ASSERT_EQ(run_numasim(args + b + " -j 2").status, 0);
    size_t files = 0;
    for (const auto& e : fs::recursive_directory_iterator(a)) {
        if (!e.is_regular_file()) continue;
        const fs::path rel = fs::relative(e.path(), a);
        std::string x = read_text(e.path().string()), y = read_text((fs::path(b) / rel).string());
        // The command line names the output directory.
        for (std::string* s : {&x, &y})
            while (s->find(a) != std::string::npos || s->find(b) != std::string::npos) {
                const size_t at = std::min(s->find(a), s->find(b));
                s->replace(at, a.size(), "DIR");
            }
        EXPECT_EQ(x, y) << rel;
        ++files;
    }
    EXPECT_EQ(files, 1 + 3 * 8u);  // result.json and 8 files per iteration
}

TEST(Sample, ResultJsonHoldsEveryTableCellForCell) {
    const std::string dir = fresh_dir("numasim_sample_cells");
    const Output o = run_numasim(
        "run examples/variants.toml --iterations 2 --duration 4s --sample 500ms -j 2 --out-dir " +
        dir);
    ASSERT_EQ(o.status, 0) << o.out;
    const std::string text = read_text(dir + "/result.json");
    const auto j = nlohmann::json::parse(text);
    // The samples are copied from the tables as the file is written, in the layout of dump(2),
    // which result.json has always had.
    EXPECT_EQ(j.dump(2) + "\n", text);
    EXPECT_EQ(j["samples"], j["runs"][0]["samples"]);
    for (size_t i = 0; i < 2; ++i) {
        const auto& samples = j["runs"][i]["samples"];
        EXPECT_EQ(samples.size(), 6u);
        for (const char* name :
             {"convergence", "nodes", "numa_maps", "numastat", "tasks", "vmstat"}) {
            const std::string csv =
                dir + "/iter-" + std::to_string(i + 1) + "/" + std::string(name) + ".csv";
            const auto rows = csv_rows(read_text(csv));
            const auto& table = samples[name];
            ASSERT_FALSE(rows.empty()) << csv;
            EXPECT_EQ(table["columns"], rows[0]) << csv;
            ASSERT_EQ(table["rows"].size(), rows.size() - 1) << csv;
            EXPECT_GT(table["rows"].size(), 0u) << csv;
            for (size_t r = 1; r < rows.size(); ++r) {
                const auto& row = table["rows"][r - 1];
                ASSERT_EQ(row.size(), rows[r].size()) << csv << " row " << r;
                for (size_t c = 0; c < row.size(); ++c)
                    expect_cell(row[c], rows[r][c],
                                csv + " row " + std::to_string(r) + " cell " + std::to_string(c));
            }
        }
    }
    fs::remove_all(dir);
}

TEST(Sample, BadIntervalIsAnError) {
    const std::string dir = fresh_dir("numasim_sample_bad");
    for (const char* bad : {"0s", "soon", "-1s"}) {
        const Output o = run_numasim(kRun + "--sample " + bad + " --out-dir " + dir);
        EXPECT_EQ(o.status, 2) << o.out;
        EXPECT_NE(o.out.find("--sample"), std::string::npos) << o.out;
    }
    const Output o = run_numasim(kRun + "--sample 1s");
    EXPECT_EQ(o.status, 2) << o.out;
    EXPECT_NE(o.out.find("--out-dir"), std::string::npos) << o.out;
    EXPECT_FALSE(fs::exists(dir));
}

TEST(Sample, CompareSamplesEveryVariant) {
    const std::string dir = fresh_dir("numasim_sample_compare");
    const Output o = run_numasim(
        "compare examples/variants.toml --iterations 2 --duration 3s "
        "--json --sample 1s --out-dir " +
        dir);
    ASSERT_EQ(o.status, 0) << o.out;
    const auto j = nlohmann::json::parse(o.out);
    ASSERT_TRUE(j.contains("samples"));
    for (const auto& [variant, runs] : j["samples"].items()) {
        EXPECT_EQ(runs.size(), 2u) << variant;
        EXPECT_TRUE(fs::exists(dir + "/" + variant + "/iter-2/tasks.csv")) << variant;
        EXPECT_TRUE(j["provenance"].contains(variant));
    }
    EXPECT_GE(j["samples"].size(), 2u);
    // Standard output and the file: the same document, in the layout of dump(2).
    EXPECT_EQ(read_text(dir + "/result.json"), o.out);
    EXPECT_EQ(j.dump(2) + "\n", o.out);
}

}  // namespace
}  // namespace numasim::test
