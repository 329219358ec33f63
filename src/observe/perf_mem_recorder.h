// `numasim run --perf-mem-record FILE`: the samples `perf mem record` would have taken of the
// simulated threads, written as `perf script -F comm,pid,tid,cpu,time,period,event,addr,data_src`
// prints them, so that `numasim import perf-mem` reads them back (docs/replay.md, "Recording a
// simulated run"). Where DAMON sees a process, these samples say which thread made each access
// and where it was served, so a replay can keep the threads' own memory apart.
//
// What perf does. `perf mem record` opens two precise events per thread, inherited by the
// threads the command starts: the load-latency event cpu/mem-loads,ldlat=30/P (loads slower
// than 30 cycles: served beyond L1 and the line fill buffers) and cpu/mem-stores/P. In perf
// record's default frequency mode (4000 Hz, `-F`) the kernel adjusts each event's period at every
// tick so that it samples about that often per second of its thread's run time: a sample's
// period is the events since the last one.
//
// The rule here. The recorder never looks at single accesses. Every `kPerfMemLookInterval` it
// takes, per thread, the bytes its streams loaded and stored in each region since the last look
// (Task::traffic) and its user time. Each cache line loaded or stored is one event (the model
// has no cache hits within a region's traffic: every stream byte comes from memory). A thread
// that ran u seconds is owed freq x u samples of each kind (fractions carried), taken when it
// has at least that many events since its last sample of the kind; their period is those events
// over the samples. The samples go to the regions in proportion to their bytes (largest
// remainders), to pages spread over the region by a golden-ratio sequence (the same every run),
// at times spread over the look. A load's data source is where its page is at that look: the
// node of the thread's CPU (local RAM), another node with CPUs (remote RAM, one hop), a node
// without CPUs (PMEM, remote when another socket's); a page not yet present counts where its
// policy will allocate it (the CPU's node under the default policy). Stores carry what Intel's
// store event reports: L1 hit or miss only (an L1 miss here, as every line comes from memory).
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "engine/sampler.h"
#include "sim/clock.h"

namespace numasim {

// perf record's default sampling frequency (tools/perf/builtin-record.c: record_opts'
// .freq = 4000), which `perf mem record` keeps.
inline constexpr int kPerfDefaultFreqHz = 4000;
// The most samples per second the kernel lets an event take by default
// (kernel/events/core.c, DEFAULT_MAX_SAMPLE_RATE: perf_event_max_sample_rate): -F's bound.
inline constexpr int kPerfEventMaxSampleRate = 100000;
// How often the recorder turns traffic into samples: a tick at HZ=250, the rate at which the
// kernel adjusts a frequency-mode event's period (perf_adjust_freq_unthr_context()).
inline constexpr Nanos kPerfMemLookInterval = 4 * NSEC_PER_MSEC;

// The raw perf_mem_data_src values and perf's decode text for the samples written.
enum class PerfMemWhere { kLocalRam, kRemoteRam, kPmem, kRemotePmem, kStore };
uint64_t perf_mem_data_src(PerfMemWhere w);
const char* perf_mem_decode(PerfMemWhere w);

// The golden-ratio sequence's k-th point in [0, 1): k = 0, 1, 2 ... spread evenly.
double golden_point(uint64_t k);
// `n` items shared by weights `w` in proportion, largest remainders first (ties to the lower
// index): the counts sum to n when any weight is positive.
std::vector<uint64_t> share_by_weight(uint64_t n, const std::vector<double>& w);

class PerfMemRecorder : public Sampler {
  public:
    // Writes the samples to `out` as they are taken; `freq_hz` is perf record's -F.
    PerfMemRecorder(std::FILE* out, int freq_hz);
    ~PerfMemRecorder() override;
    Nanos interval() const override { return kPerfMemLookInterval; }
    void sample(const System& sys) override;

  private:
    struct Seen;
    std::FILE* out_;
    double freq_hz_;
    std::vector<Seen> seen_;  // by task index (System::tasks only grows)
    Nanos last_ = 0;
};

}  // namespace numasim
