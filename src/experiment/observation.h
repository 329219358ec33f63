// What a run records besides its result (`--sample`, `--trace`): the sample tables of
// observe/numa_sampler.h and a trace in ftrace text, Chrome Trace Event JSON or trace-cmd's
// trace.dat. Each run writes
// its own files (named after its variant and iteration), so runs stay independent and the files
// are byte-identical whatever the number of workers.
#pragma once

#include <memory>
#include <string>

#include "experiment/provenance.h"
#include "kernel/trace_event.h"
#include "sim/clock.h"

namespace numasim {

class OutputFiles;
class Engine;
struct Scenario;
struct System;

enum class TraceFormat { Ftrace, Perfetto, TraceDat };

// The Perfetto counter tracks' interval when no --sample interval is given.
inline constexpr Nanos kDefaultCounterInterval = 10 * NSEC_PER_MSEC;

struct ObserveOptions {
    OutputFiles* files = nullptr;  // where everything is written (required for any output)
    std::string command_line;      // for the provenance that heads every file
    Nanos sample_interval = 0;     // 0: no sample tables
    std::string sample_dir;        // the run directory the tables go under
    std::string trace_path;        // empty: no trace
    TraceFormat trace_format = TraceFormat::Ftrace;
    TraceEventMask trace_events = kAllTraceEvents;
    bool latency = false;  // record the latency histograms (kernel/latency.h) into the result
    std::string damon_record_path;  // empty: no DAMON record (observe/damon_recorder.h)
    // empty: no perf mem samples (observe/perf_mem_recorder.h); taken at perf_mem_freq_hz.
    std::string perf_mem_record_path;
    int perf_mem_freq_hz = 0;

    bool any() const {
        return sample_interval > 0 || !trace_path.empty() || !damon_record_path.empty() ||
               !perf_mem_record_path.empty();
    }
};

// Where one run's files go: runs are told apart by their variant (empty for `numasim run`) and
// their iteration (0-based) among `iterations`.
struct RunLabel {
    std::string variant;
    int iteration = 0;
    int iterations = 1;
};

// The directory of one run's sample tables: DIR/[VARIANT/]iter-N.
std::string sample_run_dir(const std::string& dir, const RunLabel& label);
// The trace file of one run: PATH itself for a single run of `numasim run`, else the variant and
// the iteration inserted before the extension (trace.json -> trace-2.json, trace-new-1.json).
std::string trace_run_path(const std::string& path, const RunLabel& label);

// The observers of one run, attached to its system (before the workloads start, so that the
// trace sees every fork) and its engine for the length of the run.
class RunObservation {
  public:
    RunObservation(const ObserveOptions& o, const RunLabel& label, const Scenario& sc, System& sys,
                   uint64_t seed);
    ~RunObservation();
    void add_samplers(Engine& engine);
    // After the run: closes open trace slices and writes the trace's header and body.
    void finish(Nanos end);

  private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace numasim
