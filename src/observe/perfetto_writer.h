// A run as a Chrome Trace Event Format JSON file (the "JSON trace" that ui.perfetto.dev and
// chrome://tracing open): one track per CPU with a slice for each stretch a task ran there
// (from sched_switch), an instant event on the CPU's track for every NUMA decision
// (sched_move_numa, sched_swap_numa, sched_stick_numa, sched_skip_vma_numa, mm_migrate_pages)
// and every reclaim event (mm_migrate_pages_start, mm_vmscan_*),
// and counter tracks for the vmstat numa_* counters and each node's free memory, sampled at an
// interval. Events stream out as they happen (bounded memory); finish() closes the slices still
// open and the JSON document.
#pragma once

#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "engine/sampler.h"
#include "kernel/tracer.h"

namespace numasim {

struct System;

class PerfettoWriter : public TraceSink, public Sampler {
  public:
    // `metadata`: key/value pairs for the document's "otherData" (the provenance).
    PerfettoWriter(std::FILE* out, const System& sys, Nanos counter_interval,
                   const std::vector<std::pair<std::string, std::string>>& metadata);
    void event(const TraceEvent& e) override;
    Nanos interval() const override { return interval_; }
    void sample(const System& sys) override;
    void finish(Nanos end);

    // The process ids of the synthetic tracks.
    static constexpr int kCpuPid = 1;     // "CPUs": thread 1 + cpu is CPU cpu
    static constexpr int kVmstatPid = 2;  // "/proc/vmstat" counters
    static constexpr int kMemoryPid = 3;  // per-node free memory counters

  private:
    void open_event();
    void close_event();
    void slice(int cpu, Nanos end);
    void instant(const TraceEvent& e);
    void metadata_event(const char* name, int pid, int tid, const std::string& key,
                        const std::string& value, bool quote);

    std::FILE* out_;
    Nanos interval_;
    std::string buf_;
    bool first_ = true;
    struct Running {
        const Task* task = nullptr;
        Nanos since = 0;
    };
    std::vector<Running> cpus_;
    std::vector<int> cpu_node_;
};

// `s` as the body of a JSON string (quotes, backslashes and control characters escaped).
void json_escape(std::string& out, std::string_view s);

}  // namespace numasim
