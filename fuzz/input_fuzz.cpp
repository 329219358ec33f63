// Feeds arbitrary bytes to the other input parsers. The first byte picks one:
//   0  a machine file (machine/machine_file.h)
//   1  an lstopo XML export through hwloc (machine/hwloc_import.h). libhwloc runs in a child
//      process (machine/hwloc_child.h), so its own crashes on malformed XML (Debian 12's 2.9:
//      fuzz/known/libhwloc-bitmap-compare-first.xml) end in InputError like any bad input.
//      libhwloc is not instrumented and the child's coverage never reaches libFuzzer, so the
//      search is guided by numasim's side alone: the file checks, decoding what the child
//      sends back and building the topology from it
//   2  a --param/--set string, then a -V NAME:KEY=VALUE,... string, applied to the built-in
//      default scenario (experiment/overrides.h)
//   3  a perf-bench-numa parameter table, as the perf-bench-numa command and [[workload]]
//      tables fill it (workload/perf_bench_numa.h)
//   4  a sweep spec file (experiment/sweep.h): its axes and the axis the tables run along
//   5  a sweep's case file in a directory of its own, read as `gather` and `compare --from`
//      read one (cli/sweep_dir.h); a file that says it is the whole sweep is printed as one
// Any input must either load or raise InputError; a crash, a sanitizer report, a hang or
// another exception type is a bug. tests/cli/hostile/ holds seeds for each.

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <string>
#include <string_view>

#include "cli/sweep_dir.h"
#include "config/input_error.h"
#include "config/param_reader.h"
#include "config/toml_reader.h"
#include "experiment/overrides.h"
#include "experiment/scenario.h"
#include "experiment/sweep.h"
#include "fuzz_file.h"
#include "machine/hwloc_import.h"
#include "machine/machine_file.h"
#include "workload/perf_bench_numa.h"
#include "workload/workload.h"

namespace {

void overrides(std::string_view text) {
    const numasim::KeyAssignment a = numasim::parse_override(text, "--param");
    numasim::load_builtin_scenario("default", {a});
    const numasim::Variant v = numasim::parse_variant(text);
    numasim::load_builtin_scenario("default", v.overrides);
}

void perf_bench_params(std::string_view text) {
    const numasim::TomlTable t = numasim::TomlTable::parse_text(text, "fuzz.toml");
    numasim::PerfBenchNumaParams p;
    numasim::ParamReader r(t);
    numasim::read_perf_bench_numa_params(r, p);
    numasim::make_perf_bench_numa(p);
}

void hwloc_xml(std::string_view text) {
    numasim::import_hwloc_xml(numasim::fuzz::as_file(text, "input", ".xml"));
}

void sweep_spec(std::string_view text) {
    numasim::SweepDefinition d;
    numasim::read_sweep_file(numasim::fuzz::as_file(text, "input", ".toml"), d);
    numasim::sweep_axes(d);
    numasim::sweep_along(d);
}

// A sweep directory holding the one case file, read as gather and compare --from read it.
void case_file(std::string_view text) {
    static const std::string dir = numasim::fuzz::Scratch::get().path("sweep", "");
    std::filesystem::create_directories(dir + "/cases");
    std::FILE* f = std::fopen((dir + "/cases/0000.json").c_str(), "wb");
    if (!f) return;
    std::fwrite(text.data(), 1, text.size(), f);
    std::fclose(f);
    numasim::CaseFiles all;
    numasim::read_case_files(dir, all, nullptr);
    if (numasim::complete(all, nullptr)) numasim::sweep_outputs(all);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size == 0) return 0;
    const std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);
    try {
        switch (data[0] % 6) {
            case 0:
                numasim::load_machine_text(text, "fuzz-machine.toml");
                break;
            case 1:
                hwloc_xml(text);
                break;
            case 2:
                overrides(text);
                break;
            case 3:
                perf_bench_params(text);
                break;
            case 4:
                sweep_spec(text);
                break;
            default:
                case_file(text);
        }
    } catch (const numasim::InputError&) {
    }
    return 0;
}
