#include "experiment/observation.h"

#include <fmt/format.h>

#include <filesystem>
#include <memory>

#include "engine/engine.h"
#include "kernel/system.h"
#include "observe/damon_recorder.h"
#include "observe/ftrace_writer.h"
#include "observe/numa_sampler.h"
#include "observe/output_files.h"
#include "observe/perf_mem_recorder.h"
#include "observe/perfetto_writer.h"
#include "observe/trace_dat_writer.h"

namespace numasim {

std::string sample_run_dir(const std::string& dir, const RunLabel& label) {
    std::string d = dir;
    if (!label.variant.empty()) d += "/" + label.variant;
    return d + fmt::format("/iter-{}", label.iteration + 1);
}

std::string trace_run_path(const std::string& path, const RunLabel& label) {
    if (label.variant.empty() && label.iterations == 1) return path;
    const std::filesystem::path p(path);
    std::string stem = p.stem().string();
    if (!label.variant.empty()) stem += "-" + label.variant;
    stem += fmt::format("-{}", label.iteration + 1);
    return (p.parent_path() / (stem + p.extension().string())).string();
}

struct RunObservation::Impl {
    std::unique_ptr<NumaSampler> sampler;
    std::unique_ptr<FtraceWriter> ftrace;
    std::unique_ptr<PerfettoWriter> perfetto;
    std::unique_ptr<TraceDatWriter> trace_dat;
    std::FILE* trace_out = nullptr;
    std::unique_ptr<DamonRecorder> damon;
    std::FILE* damon_out = nullptr;
    std::unique_ptr<PerfMemRecorder> perf_mem;
    std::vector<std::string> comments;
    System* sys = nullptr;
};

RunObservation::RunObservation(const ObserveOptions& o, const RunLabel& label, const Scenario& sc,
                               System& sys, uint64_t seed)
    : impl_(std::make_unique<Impl>()) {
    const Provenance p = with_seed(make_provenance(sc, o.command_line), seed);
    impl_->comments = provenance_lines(p);
    impl_->sys = &sys;
    if (o.sample_interval > 0) {
        impl_->sampler = std::make_unique<NumaSampler>(
            *o.files, sample_run_dir(o.sample_dir, label), sys, o.sample_interval, impl_->comments);
    }
    if (!o.damon_record_path.empty()) {
        impl_->damon_out =
            o.files->create("--damon-record", trace_run_path(o.damon_record_path, label));
        impl_->damon = std::make_unique<DamonRecorder>();
        sys.damon_recording = true;
    }
    if (!o.perf_mem_record_path.empty()) {
        impl_->perf_mem = std::make_unique<PerfMemRecorder>(
            o.files->create("--perf-mem-record", trace_run_path(o.perf_mem_record_path, label)),
            o.perf_mem_freq_hz);
        sys.perf_mem_recording = true;
    }
    if (o.trace_path.empty()) return;
    const std::string path = trace_run_path(o.trace_path, label);
    // Reclaim's events fire only with demotion_enabled: without it they are not enabled at all,
    // and a trace.dat lists no format for them.
    const TraceEventMask events =
        sys.knobs.demotion_enabled ? o.trace_events : o.trace_events & ~kVmscanTraceEvents;
    impl_->trace_out = o.files->create("--trace", path);
    if (o.trace_format == TraceFormat::Perfetto) {
        impl_->perfetto = std::make_unique<PerfettoWriter>(
            impl_->trace_out, sys,
            o.sample_interval > 0 ? o.sample_interval : kDefaultCounterInterval, p);
        sys.tracer.attach(impl_->perfetto.get(), events, sys.nr_cpus());
    } else if (o.trace_format == TraceFormat::TraceDat) {
        impl_->trace_dat = std::make_unique<TraceDatWriter>(o.files->scratch(path), sys.nr_cpus(),
                                                            events, impl_->comments);
        sys.tracer.attach(impl_->trace_dat.get(), events, sys.nr_cpus());
    } else {
        // mm_migrate_pages as the Debian 6.1 kernel prints it (without the later nr_split).
        impl_->ftrace = std::make_unique<FtraceWriter>(o.files->scratch(path), TracePrintOptions{});
        sys.tracer.attach(impl_->ftrace.get(), events, sys.nr_cpus());
    }
}

RunObservation::~RunObservation() {
    if (impl_->sys) impl_->sys->tracer.attach(nullptr, 0, 0);
}

void RunObservation::add_samplers(Engine& engine) {
    if (impl_->sampler) engine.add_sampler(*impl_->sampler);
    if (impl_->perfetto) engine.add_sampler(*impl_->perfetto);
    if (impl_->damon) engine.add_sampler(*impl_->damon);
    if (impl_->perf_mem) engine.add_sampler(*impl_->perf_mem);
}

void RunObservation::finish(Nanos end) {
    if (impl_->damon) impl_->damon->write(impl_->damon_out);
    if (impl_->perfetto) impl_->perfetto->finish(end);
    if (impl_->trace_dat) impl_->trace_dat->finish(impl_->trace_out);
    if (impl_->ftrace)
        impl_->ftrace->finish(impl_->trace_out, impl_->sys->nr_cpus(), impl_->comments);
}

}  // namespace numasim
