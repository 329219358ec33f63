#include "cli/observe_options.h"

#include <utility>

#include "cli/value_hints.h"
#include "config/input_error.h"
#include "config/toml_reader.h"
#include "experiment/provenance.h"
#include "observe/trace_selection.h"

namespace numasim {

namespace {

std::string& command_line_storage() {
    static std::string s;
    return s;
}

}  // namespace

const std::string& invoked_command_line() {
    return command_line_storage();
}

void record_command_line(int argc, const char* const* argv) {
    std::vector<const char*> kept;
    for (int i = 0; i < argc; ++i) {
        const std::string_view a = argv[i];
        if (a == "-j" || a == "--jobs") {
            ++i;  // and its value
            continue;
        }
        if (a.starts_with("--jobs=") || (a.starts_with("-j") && a.size() > 2)) continue;
        kept.push_back(argv[i]);
    }
    command_line_storage() = command_line_text(static_cast<int>(kept.size()), kept.data());
}

void ObserveCliOptions::add_to(CLI::App& app, bool with_trace) {
    app.add_option("--sample", sample,
                   "record time series every INTERVAL of simulated time (e.g. 1s, 500ms) into "
                   "CSV tables under --out-dir, as mmtests' monitors do");
    hint_directory(app.add_option("--out-dir", out_dir,
                                  "run directory: the --sample tables (DIR/[VARIANT/]iter-N/*.csv) "
                                  "and result.json, which `numasim report` reads"));
    if (!with_trace) return;
    trace_opt = hint_file(app.add_option("--trace", trace,
                                         "write tracepoints to FILE (one file per iteration: "
                                         "FILE-N.EXT when --iterations > 1)"));
    one_of(app.add_option("--trace-format", trace_format,
                          "ftrace (the text of /sys/kernel/tracing/trace), perfetto (Chrome Trace "
                          "Event JSON for ui.perfetto.dev) or trace-dat (trace-cmd's trace.dat for "
                          "trace-cmd report and KernelShark)"),
           {"ftrace", "perfetto", "trace-dat"});
    app.add_option("--trace-events", trace_events,
                   "events to record, as written to set_event: all, sched:*, migrate:*, "
                   "vmscan:*, or names such as sched_switch,sched_move_numa (comma-separated; "
                   "mm_migrate_pages_start by name only)");
    damon_record_opt = hint_file(app.add_option(
        "--damon-record", damon_record,
        "write what DAMON's virtual-address monitoring would have recorded (damo's JSON record "
        "format, for `numasim import damon`) to FILE (FILE-N.EXT when --iterations > 1)"));
    perf_mem_record_opt = hint_file(app.add_option(
        "--perf-mem-record", perf_mem_record,
        "write the samples `perf mem record` would have taken of each thread (the text of `perf "
        "script`, for `numasim import perf-mem`) to FILE (FILE-N.EXT when --iterations > 1)"));
    app.add_option("--perf-mem-freq", perf_mem_freq,
                   "samples per second of each thread's run time for --perf-mem-record, as "
                   "perf record -F (default 4000)")
        ->check(CLI::Range(1, kPerfEventMaxSampleRate));
}

ObserveOptions ObserveCliOptions::options(OutputFiles& files) const {
    ObserveOptions o;
    o.files = &files;
    o.command_line = invoked_command_line();
    if (!sample.empty()) {
        const std::optional<int64_t> ns = parse_duration_ns(sample);
        if (!ns || *ns <= 0)
            throw InputError("--sample", sample,
                             "not a positive duration (a number with ns, us, ms, s or min)");
        if (out_dir.empty())
            throw InputError("--sample", sample, "needs --out-dir DIR for its tables");
        o.sample_interval = *ns;
    }
    o.sample_dir = out_dir;
    // A file option given with an empty name; options `run` alone has are null for `compare`.
    for (const auto& [option, path] :
         {std::pair{trace_opt, &trace}, std::pair{damon_record_opt, &damon_record},
          std::pair{perf_mem_record_opt, &perf_mem_record}})
        if (option && option->count() > 0 && path->empty())
            throw InputError(option->get_name(), "", "empty file name");
    o.trace_path = trace;
    o.damon_record_path = damon_record;
    o.perf_mem_record_path = perf_mem_record;
    o.perf_mem_freq_hz = perf_mem_freq;
    o.trace_format = trace_format == "perfetto"    ? TraceFormat::Perfetto
                     : trace_format == "trace-dat" ? TraceFormat::TraceDat
                                                   : TraceFormat::Ftrace;
    o.trace_events = parse_trace_events(trace_events, "--trace-events");
    return o;
}

}  // namespace numasim
