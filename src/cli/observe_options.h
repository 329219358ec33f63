// The options of `run` and `compare` that record more than the result: --sample INTERVAL with
// --out-dir DIR (time series, experiment/observation.h), and for `run` --trace FILE with
// --trace-format and --trace-events, --damon-record FILE (observe/damon_recorder.h) and
// --perf-mem-record FILE with --perf-mem-freq HZ (observe/perf_mem_recorder.h).
#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "experiment/observation.h"
#include "observe/perf_mem_recorder.h"

namespace numasim {

struct ObserveCliOptions {
    std::string sample, out_dir, trace, trace_format = "ftrace", trace_events = "all";
    std::string damon_record, perf_mem_record;
    int perf_mem_freq = kPerfDefaultFreqHz;
    CLI::Option* trace_opt = nullptr;
    CLI::Option* damon_record_opt = nullptr;
    CLI::Option* perf_mem_record_opt = nullptr;

    void add_to(CLI::App& app, bool with_trace);
    // Checks the values (InputError naming the option) and fills the options of the runs.
    ObserveOptions options(OutputFiles& files) const;
};

// The command line numasim was started with (cli_main records it), for the provenance. The
// worker count (-j N, --jobs N) is left out: it changes nothing in the output, which stays
// byte-identical whatever it is.
const std::string& invoked_command_line();
void record_command_line(int argc, const char* const* argv);

}  // namespace numasim
