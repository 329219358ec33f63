// Feeds arbitrary bytes to the readers of recorded access profiles (`numasim import`,
// docs/replay.md): profiles are large files written by other tools, the inputs most likely to be
// cut off, corrupted or of a version numasim has not seen. The first byte picks the reader:
//   0  a damo JSON record, plain or zlib-compressed (replay/damo_json.h)
//   1  damon:damon_aggregated trace text (replay/damon_trace.h)
//   2  either, as `--format` left out picks it from the first byte of the file
//   3  a /proc/PID/maps or numa_maps copy, as `--maps` reads it (replay/process_maps.h)
//   4  perf script text of perf mem or perf c2c samples (replay/perf_mem_import.h)
// Any input must either import or raise InputError; a crash, a sanitizer report, a hang or
// another exception type is a bug. tests/replay/fixtures/ holds seeds for 0 to 2 and 4.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

#include "config/input_error.h"
#include "fuzz_file.h"
#include "replay/damon_import.h"
#include "replay/perf_mem_import.h"
#include "replay/process_maps.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size == 0) return 0;
    const std::string path = numasim::fuzz::as_file(
        std::string_view(reinterpret_cast<const char*>(data) + 1, size - 1), "profile", "");
    try {
        numasim::DamonImportOptions o;
        switch (data[0] % 5) {
            case 0:
                o.format = numasim::DamonFormat::kJson;
                numasim::import_damon(path, o);
                break;
            case 1:
                o.format = numasim::DamonFormat::kTrace;
                numasim::import_damon(path, o);
                break;
            case 2:
                numasim::import_damon(path, o);
                break;
            case 3:
                numasim::read_process_maps(path);
                break;
            default:
                numasim::import_perf_mem(path, numasim::PerfMemImportOptions{});
        }
    } catch (const numasim::InputError&) {
    }
    return 0;
}
